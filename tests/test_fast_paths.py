"""The two fast paths give exactly what the slow ones give.

1. Run files are read as six columns, and qrels files as four, when that reading is exactly line
   mode's, else in line mode (warehouse/ingestion/files.py stage_run and stage_qrels). Every variant below
   is ingested both ways: same stored rows, or the same error; and the test checks which way each
   variant actually went.
2. warehouse.evaluate_files keeps only judged rows, ranked by counting (or by sorting and then
   keeping only the judged rows, when the qrels judge many documents per query). Its numbers must equal those of the
   stored path, which keeps every row, for every measure and setting.
"""
from __future__ import annotations

import math
import random
import struct

import pytest

import warehouse
from warehouse import InputFileError
from warehouse.ingestion import files as ingest
from warehouse.evaluation.measures import trec_measure_set

from conftest import write_file

CLEAN = "q1 Q0 d1 1 3.5 tagA\nq1 Q0 d2 2 2.25 tagA\nq2 Q0 d1 1 0.5 tagA\n"

# name -> (file text or bytes, file name, strict, does the column reader take it?)
VARIANTS = {
    "clean": (CLEAN, "run.txt", True, True),
    "clean gz": (CLEAN, "run.txt.gz", True, True),
    "clean zst": (CLEAN, "run.txt.zst", True, True),
    "clean bz2": (CLEAN, "run.txt.bz2", True, True),
    "no final newline": (CLEAN.rstrip("\n"), "run.txt", True, True),
    "trailing space": (CLEAN.replace("\n", " \n"), "run.txt", True, True),
    "hash inside docids": (CLEAN.replace("d1", "d#1"), "run.txt", True, True),
    "ir_metadata header": ("# ir_metadata.start\n# tag: x\n# ir_metadata.end\n\n" + CLEAN, "run.txt", True, True),
    "ir_metadata header gz": ("# ir_metadata.start\n# tag: x\n# ir_metadata.end\n" + CLEAN, "run.txt.gz", True, True),
    "crlf header and data": (("# c\n\n" + CLEAN).replace("\n", "\r\n"), "run.txt", True, True),
    "blank line in the data": (CLEAN.replace("\n", "\n\n", 1), "run.txt", True, True),
    "utf-8 bom": ("\ufeff" + CLEAN, "run.txt", True, True),
    "nul inside a docid": (CLEAN.replace("d2", "d\x002"), "run.txt", True, True),
    "crlf": (CLEAN.replace("\n", "\r\n"), "run.txt", True, True),
    "crlf gz": (CLEAN.replace("\n", "\r\n"), "run.txt.gz", True, True),
    "tabs": (CLEAN.replace(" ", "\t"), "run.txt", True, False),
    "one tab inside a line": (CLEAN.replace("d2 2", "d2\t2"), "run.txt", True, False),
    "tab inside a docid": (CLEAN.replace("d2", "d\tx"), "run.txt", True, False),
    "tab inside a docid trec_eval mode": (CLEAN.replace("d2", "d\tx"), "run.txt", False, False),
    "tab at the end of a score": (CLEAN.replace("2.25", "2.25\t"), "run.txt", True, False),
    "doubled spaces": (CLEAN.replace("Q0 d2", "Q0  d2"), "run.txt", True, False),
    "leading space": (" " + CLEAN, "run.txt", True, False),
    "comment in the middle": (CLEAN.replace("q2 Q0", "# q2 Q0 x 1 1 c\nq2 Q0"), "run.txt", True, False),
    "comment shaped like a line": (CLEAN + "#q3 Q0 d1 1 0.5 tagA\n", "run.txt", True, False),
    "cr inside a field": (CLEAN.replace("d2", "d\r2"), "run.txt", True, False),
    "lone cr line ends": (CLEAN.replace("\n", "\r"), "run.txt", True, False),
    "one crlf line in an lf file": (CLEAN.replace("\n", "\r\n", 1), "run.txt", True, True),
    "lf lines in a crlf file": (CLEAN.replace("\n", "\r\n").replace("\r\n", "\n", 1), "run.txt", True, True),
    "mixed line ends gz": (CLEAN.replace("\n", "\r\n", 1), "run.txt.gz", True, True),
    "mixed line ends zst": (CLEAN.replace("\n", "\r\n", 2), "run.txt.zst", True, True),
    "mixed line ends bz2": (CLEAN.replace("\n", "\r\n", 1), "run.txt.bz2", True, True),
    "a cr ending the file": (CLEAN + "q3 Q0 d1 1 1 tagA\r", "run.txt", True, True),
    "cr inside a line gz": (CLEAN.replace("d2", "d\r2"), "run.txt.gz", True, False),
    "cr cr lf bz2": (CLEAN.replace("\n", "\r\r\n", 1), "run.txt.bz2", True, False),
    "cr cr lf": (CLEAN.replace("\n", "\r\r\n", 1), "run.txt", True, False),
    "soh inside a field": (CLEAN.replace("d2", "d\x012"), "run.txt", True, False),
    "soh ending a line": (CLEAN.replace("tagA\n", "tagA\x01\n", 1), "run.txt", True, False),
    "soh as a seventh field": (CLEAN.replace("tagA\n", "tagA \x01\n", 1), "run.txt", True, False),
    "soh ending a crlf line": (CLEAN.replace("tagA\n", "tagA\x01\r\n"), "run.txt", True, False),
    "soh ending a line gz": (CLEAN.replace("tagA\n", "tagA\x01\n", 1), "run.txt.gz", True, False),
    "soh ending a line trec_eval mode": (CLEAN.replace("tagA\n", "tagA\x01\n", 1), "run.txt", False, False),
    "other control bytes are data": (CLEAN.replace("d2", "d\x02\x1b\x7f2").replace("tagA", "tag\x0bA"),
                                     "run.txt", True, True),
    "empty file": ("", "run.txt", True, False),
    "comments only": ("# nothing\n", "run.txt", True, False),
    "rank 1.0": (CLEAN.replace(" 2 2.25", " 2.0 2.25"), "run.txt", True, False),
    "rank 1e3": (CLEAN.replace(" 2 2.25", " 2e0 2.25"), "run.txt", True, False),
    "rank 1_0": (CLEAN.replace(" 2 2.25", " 1_0 2.25"), "run.txt", True, False),
    "rank 1.0 trec_eval mode": (CLEAN.replace(" 2 2.25", " 2.0 2.25"), "run.txt", False, True),
    "rank 0x10": (CLEAN.replace(" 2 2.25", " 0x10 2.25"), "run.txt", True, False),
    "rank 0b11": (CLEAN.replace(" 2 2.25", " 0b11 2.25"), "run.txt", True, False),
    "rank 0x10 trec_eval mode": (CLEAN.replace(" 2 2.25", " 0x10 2.25"), "run.txt", False, True),
    "rank with a trailing vt": (CLEAN.replace(" 2 2.25", " 2\v 2.25"), "run.txt", True, False),
    "rank with a trailing ff gz": (CLEAN.replace(" 2 2.25", " 2\f 2.25"), "run.txt.gz", True, False),
    "rank +2 and 01": (CLEAN.replace(" 2 2.25", " +2 2.25").replace(" 1 0.5", " 01 0.5"), "run.txt", True, True),
    "rank out of range": (CLEAN.replace(" 2 2.25", " 99999999999999999999 2.25"), "run.txt", True, False),
    "score with a trailing vt": (CLEAN.replace("2.25", "2.25\v"), "run.txt", True, False),
    "score with a trailing ff": (CLEAN.replace("2.25", "2.25\f"), "run.txt", True, False),
    "score with a trailing ff gz": (CLEAN.replace("2.25", "2.25\f"), "run.txt.gz", True, False),
    "score with a leading vt trec_eval mode": (CLEAN.replace("2.25", "\v2.25"), "run.txt", False, False),
    "score +-1": (CLEAN.replace("2.25", "+-1"), "run.txt", True, False),
    "score 0x10": (CLEAN.replace("2.25", "0x10"), "run.txt", True, False),
    "score 1. and -.5e-3": (CLEAN.replace("2.25", "1.").replace("3.5", "-.5e-3"), "run.txt", True, True),
    "score 1_0.5": (CLEAN.replace("2.25", "1_0.5"), "run.txt", True, False),
    "score inf": (CLEAN.replace("2.25", "inf"), "run.txt", True, False),
    "score nan": (CLEAN.replace("2.25", "nan"), "run.txt", True, False),
    "score 1e400": (CLEAN.replace("2.25", "1e400"), "run.txt", True, False),
    "score beyond float32": (CLEAN.replace("2.25", "1e39"), "run.txt", True, True),
    "score .5 and +1": (CLEAN.replace("2.25", ".5").replace("3.5", "+1"), "run.txt", True, True),
    "score with a comma": (CLEAN.replace("2.25", "2,25"), "run.txt", True, False),
    "quotes": (CLEAN.replace("d2", '"d2"'), "run.txt", True, True),
    "seven fields": (CLEAN.replace("tagA\n", "tagA extra\n", 1), "run.txt", True, False),
    "seven fields trec_eval mode": (CLEAN.replace("tagA\n", "tagA extra\n"), "run.txt", False, False),
    "five fields": (CLEAN.replace(" tagA\n", "\n", 1), "run.txt", True, False),
    "duplicate document": (CLEAN + "q1 Q0 d1 3 1.0 tagA\n", "run.txt", True, False),
    "two tags": (CLEAN.replace("0.5 tagA", "0.5 tagB"), "run.txt", True, False),
    "two tags trec_eval mode": (CLEAN.replace("0.5 tagA", "0.5 tagB"), "run.txt", False, False),
    "second tag on the first line": ("q0 Q0 d1 1 9 tagB\n" + CLEAN, "run.txt", True, False),
    "first data line beyond the head": ("#\n" * 10_001 + CLEAN, "run.txt", True, False),
    "invalid utf-8": (CLEAN.encode() + b"q3 Q0 d\xff 1 1 tagA\n", "run.txt", True, False),
}


def stored(wh):
    rows = wh.sql("select query_id, doc_id, rank_given, score, trec_rank from run_rows "
                  "order by query_id, doc_id").rows
    runs = wh.sql("select name, tag, ir_metadata, row_count, query_count from runs").rows
    queries = wh.sql("select query_id, num_ret from run_queries order by query_id").rows
    return rows, runs, queries


def column_reader_spy(monkeypatch, reader: str, column_reader: bool) -> list[bool]:
    """Replaces ingest.<reader> (_stage_run_columns or _stage_qrels_columns) by one that records
    whether the column reader took the file, or (column_reader=False) refuses every file, so that
    line mode reads it; returns the list it records into."""
    took = []
    real = getattr(ingest, reader)

    def spy(db, params):
        took.append(real(db, params) if column_reader else False)
        return took[-1]

    monkeypatch.setattr(ingest, reader, spy)
    return took


def written(tmp_path, filename, text, column_reader: bool):
    folder = tmp_path / ("columns" if column_reader else "lines")
    folder.mkdir()
    return write_file(folder, filename, text)


def ingest_outcome(tmp_path, monkeypatch, text, filename, strict, *, column_reader: bool):
    """(stored rows, runs, queries) or the error's message; and whether the column reader took it."""
    took = column_reader_spy(monkeypatch, "_stage_run_columns", column_reader)
    path = written(tmp_path, filename, text, column_reader)
    with warehouse.open(":memory:") as wh:
        try:
            ingest.ingest_run(wh.db, path, "run", strict=strict)
        except InputFileError as exc:
            # a hint names a file beside the input (its folder differs between the two readings)
            return str(exc).replace(str(path), "FILE").replace(str(path.parent), "FOLDER"), took
        return stored(wh), took


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_column_reader_stages_exactly_what_line_mode_stages(tmp_path, monkeypatch, variant):
    text, filename, strict, column_reader_takes_it = VARIANTS[variant]
    fast, took = ingest_outcome(tmp_path, monkeypatch, text, filename, strict, column_reader=True)
    slow, _ = ingest_outcome(tmp_path, monkeypatch, text, filename, strict, column_reader=False)
    assert fast == slow
    # [] when the file fails before the column reader is tried (reading its head already fails)
    assert took == [True] if column_reader_takes_it else not any(took), \
        f"the column reader {'refused' if column_reader_takes_it else 'took'} {variant!r}"


def test_column_reader_skips_exactly_the_header_lines(tmp_path):
    """A header of comments and blank lines is skipped; the first data line after it is kept."""
    text = "\n# a\n   \n\t# b\n" + CLEAN
    path = write_file(tmp_path, "run.txt", text)
    with warehouse.open(":memory:") as wh:
        ingest.ingest_run(wh.db, path, "run")
        assert wh.sql("select count(*) from run_rows").rows == [(3,)]


# -- qrels: the column reader against line mode -------------------------------------------------

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"

# name -> (file text or bytes, file name, does the column reader take it?)
QRELS_VARIANTS = {
    "clean": (QRELS, "qrels.txt", True),
    "clean gz": (QRELS, "qrels.txt.gz", True),
    "clean zst": (QRELS, "qrels.txt.zst", True),
    "clean bz2": (QRELS, "qrels.txt.bz2", True),
    "no final newline": (QRELS.rstrip("\n"), "qrels.txt", True),
    "crlf": (QRELS.replace("\n", "\r\n"), "qrels.txt", True),
    "crlf gz": (QRELS.replace("\n", "\r\n"), "qrels.txt.gz", True),
    "mixed line ends": (QRELS.replace("\n", "\r\n", 1), "qrels.txt", True),
    "blank line in the data": (QRELS.replace("\n", "\n\n", 1), "qrels.txt", True),
    "utf-8 bom": ("\ufeff" + QRELS, "qrels.txt", True),
    "hash inside docids": (QRELS.replace("d1", "d#1"), "qrels.txt", True),
    "quotes": (QRELS.replace("d2", '"d2"'), "qrels.txt", True),
    "grades -1, +2 and 01": (QRELS.replace(" 1\n", " -1\n").replace(" 0\n", " +2\n").replace(" 2\n", " 01\n"),
                             "qrels.txt", True),
    "other control bytes are data": (QRELS.replace("d2", "d\x02\x1b\x7f2"), "qrels.txt", True),
    "three fields": ("q1 d1 1\nq1 d2 0\nq2 d1 2\n", "qrels.txt", False),
    "three fields then four": ("q1 d1 1\n" + QRELS, "qrels.txt", False),
    "five fields": (QRELS.replace("d2 0", "d2 0 x"), "qrels.txt", False),
    "a run given as qrels": ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n", "qrels.txt", False),
    "trailing space": (QRELS.replace("\n", " \n"), "qrels.txt", True),
    "doubled spaces": (QRELS.replace("0 d2", "0  d2"), "qrels.txt", False),
    "doubled space making four fields of three": ("q1  d1 1\n", "qrels.txt", False),
    "leading space": (" " + QRELS, "qrels.txt", False),
    "tabs": (QRELS.replace(" ", "\t"), "qrels.txt", False),
    "tab inside a docid": (QRELS.replace("d2", "d\tx"), "qrels.txt", False),
    "comment line": ("# judged by x\n" + QRELS, "qrels.txt", False),
    "cr inside a field": (QRELS.replace("d2", "d\r2"), "qrels.txt", False),
    "soh inside a field": (QRELS.replace("d2", "d\x012"), "qrels.txt", False),
    "soh inside a field gz": (QRELS.replace("d2", "d\x012"), "qrels.txt.gz", False),
    "grade 1.0": (QRELS.replace("d2 0", "d2 1.0"), "qrels.txt", False),
    "grade out of range": (QRELS.replace("d2 0", "d2 99999999999"), "qrels.txt", False),
    "grade with a trailing vt": (QRELS.replace("d2 0", "d2 0\v"), "qrels.txt", False),
    "grade x": (QRELS.replace("d2 0", "d2 x"), "qrels.txt", False),
    "duplicate judgment": (QRELS + "q1 0 d1 3\n", "qrels.txt", False),
    "empty file": ("", "qrels.txt", False),
    "comments only": ("# nothing\n", "qrels.txt", False),
    "invalid utf-8": (QRELS.encode() + b"q3 0 d\xff 1\n", "qrels.txt", False),
}


def qrels_outcome(tmp_path, monkeypatch, text, filename, *, column_reader: bool):
    """(stored judgments, the set's row) or the error's message; and whether the column reader took it."""
    took = column_reader_spy(monkeypatch, "_stage_qrels_columns", column_reader)
    path = written(tmp_path, filename, text, column_reader)
    with warehouse.open(":memory:") as wh:
        try:
            ingest.ingest_qrels(wh.db, path, "q")
        except InputFileError as exc:
            # a hint names a file beside the input (its folder differs between the two readings)
            return str(exc).replace(str(path), "FILE").replace(str(path.parent), "FOLDER"), took
        judgments = wh.sql("select query_id, doc_id, grade from qrels order by query_id, doc_id").rows
        sets = wh.sql("select name, query_count, judgment_count from qrels_sets").rows
        return (judgments, sets), took


@pytest.mark.parametrize("variant", list(QRELS_VARIANTS))
def test_qrels_column_reader_stages_exactly_what_line_mode_stages(tmp_path, monkeypatch, variant):
    text, filename, column_reader_takes_it = QRELS_VARIANTS[variant]
    fast, took = qrels_outcome(tmp_path, monkeypatch, text, filename, column_reader=True)
    slow, _ = qrels_outcome(tmp_path, monkeypatch, text, filename, column_reader=False)
    assert fast == slow
    assert fast  # a stored set or an error message, never nothing
    assert took and took[-1] if column_reader_takes_it else not any(took), \
        f"the column reader {'refused' if column_reader_takes_it else 'took'} {variant!r}"


# -- evaluate_files against the stored path ---------------------------------------------------

def _f32_neighbour(x: float) -> float:
    """The next double above x that rounds to the same float32 (a tie only trec_eval 9.0.8 sees)."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return struct.unpack("<d", struct.pack("<q", bits + 1))[0]


def write_corpus(folder, seed: int, judged_per_query: int):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(60)] + ["D1", "d1#x", "10", "9"]
    qrels, runs = [], {}
    for q in range(12):
        qid = f"q{q}"
        for doc in rng.sample(docs, min(judged_per_query, len(docs))):
            qrels.append(f"{qid} 0 {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}\n")
    for r in range(3):
        lines = []
        for q in range(14):  # q12, q13 have no judgments
            if rng.random() < 0.15:
                continue  # a query the run lacks
            ranked = rng.sample(docs, rng.randint(1, 40))
            score = rng.uniform(5, 20)
            for i, doc in enumerate(ranked):
                roll = rng.random()
                if roll < 0.2:
                    pass  # an exact tie with the previous document
                elif roll < 0.3:
                    score = _f32_neighbour(score)
                else:
                    score -= rng.uniform(0, 1)
                lines.append(f"q{q} Q0 {doc} {i + 1} {score!r} run{r}\n")
        rng.shuffle(lines)
        runs[f"run{r}"] = "".join(lines)
    qrels_path = write_file(folder, "qrels.txt", "".join(qrels))
    run_paths = [write_file(folder, f"{name}.txt", text) for name, text in runs.items()]
    return qrels_path, run_paths


@pytest.fixture
def ran(monkeypatch):
    """The SQL files (paths under sql/) the warehouse runs during the test, in order."""
    files = []
    real_run_file = warehouse.engines.duckdb.Database.run_file

    def spy(self, relative_path, params=None):
        files.append(relative_path)
        return real_run_file(self, relative_path, params)

    monkeypatch.setattr(warehouse.engines.duckdb.Database, "run_file", spy)
    return files


SETTINGS = {
    "default": {},
    "-M 7": {"depth": 7},
    "-J": {"judged_only": True},
    "-c -l 2": {"complete": True, "level": 2},
    "--compat 10": {"compat": 10},
}


@pytest.mark.parametrize("judged_per_query", [3, 50], ids=["counted ranks", "sorted ranks"])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_evaluate_files_equals_the_stored_evaluation(tmp_path, ran, judged_per_query, setting):
    options = SETTINGS[setting]
    measures = [m for m in trec_measure_set("all_trec", options.get("compat", 9)) if m.family.sql]
    qrels_path, run_paths = write_corpus(tmp_path, seed=judged_per_query, judged_per_query=judged_per_query)

    files = warehouse.evaluate_files(qrels_path, run_paths, measures, per_query=True, **options)
    judged_rows_file = {"counted ranks": "ingest/insert_run_rows_by_counting.sql",
                        "sorted ranks": "ingest/insert_judged_run_rows_by_sorting.sql"}[
        "counted ranks" if judged_per_query == 3 else "sorted ranks"]
    if options.get("compat", 9) == 9:
        assert ran.count(judged_rows_file) == len(run_paths)
    else:
        assert "ingest/insert_run_rows_by_counting.sql" not in ran
        assert "ingest/insert_judged_run_rows_by_sorting.sql" not in ran

    with warehouse.open(tmp_path / "stored.duckdb") as wh:
        wh.ingest_qrels(qrels_path, "qrels")
        names = [wh.ingest_run(path, str(path)).name for path in run_paths]
        stored_eval = wh.evaluate(names, "qrels", measures, per_query=True, **options)

    assert len(files.per_query.rows) > 1000
    assert comparable(files.per_query.rows) == comparable(stored_eval.per_query.rows)
    assert comparable(files.summary.rows) == comparable(stored_eval.summary.rows)


def comparable(rows):
    """Rows with NaN spelled out, so that equal results compare equal (nan != nan)."""
    return [tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row) for row in rows]


def test_evaluate_files_takes_a_path_given_twice_once(tmp_path):
    qrels_path, run_paths = write_corpus(tmp_path, seed=1, judged_per_query=3)
    twice = warehouse.evaluate_files(qrels_path, [run_paths[0], str(run_paths[0])], ["AP"])
    once = warehouse.evaluate_files(qrels_path, run_paths[0], ["AP"])
    assert twice.summary.rows == once.summary.rows and len(once.summary.rows) == 1


def test_counted_ranks_at_the_top_and_inside_ties(tmp_path, ran):
    """Counting ranks a judged document that nothing precedes as 1, and inside a score tie by
    docid descending, as trec_eval sorts: b (judged) ties a and c at 3.0, so c comes first."""
    qrels = write_file(tmp_path, "qrels.txt", "q1 0 top 1\nq1 0 b 1\nq2 0 z 1\n")
    run = write_file(tmp_path, "run.txt", "".join([
        "q1 Q0 top 1 9.5 r\n", "q1 Q0 a 2 3.0 r\n", "q1 Q0 b 3 3.0 r\n", "q1 Q0 c 4 3.0 r\n",
        "q1 Q0 d 5 1.0 r\n",
        "q2 Q0 y 1 2.0 r\n", "q2 Q0 z 2 2.0 r\n",  # z ties y and sorts first: rank 1
    ]))
    result = warehouse.evaluate_files(qrels, run, ["RR", "AP", "P@2"], per_query=True)
    assert "ingest/insert_run_rows_by_counting.sql" in ran
    values = {(query, measure): value for _, query, measure, value in result.per_query.rows}
    assert values[("q1", "RR")] == 1.0 and values[("q2", "RR")] == 1.0
    assert values[("q1", "AP")] == pytest.approx((1 / 1 + 2 / 3) / 2)  # top at 1, b at 3 (c, b, a)
    assert values[("q1", "P@2")] == 0.5
