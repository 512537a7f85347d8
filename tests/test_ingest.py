"""Ingest: every accepted variant round-trips exactly; every bad file is refused with FILE:LINE: reason
and leaves the warehouse byte-for-byte as it was."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

import warehouse
from warehouse import ConflictError, InputFileError

from conftest import (QRELS_ROWS, RUN_ROWS, compress, fingerprint_at, qrels_text, run_text,
                      warehouse_fingerprint, write_file)


def stored_run_rows(wh, name):
    return wh.sql(
        "select r.query_id, r.doc_id, r.rank_given, r.score from run_rows as r "
        "join runs as u on u.run_id = r.run_id where u.name = ? order by r.query_id, r.rank_given, r.doc_id",
        [name],
    ).rows


def stored_qrels(wh, name):
    return wh.sql(
        "select q.query_id, q.doc_id, q.grade from qrels as q join qrels_sets as s using (qrels_set_id) "
        "where s.name = ? order by q.query_id, q.doc_id",
        [name],
    ).rows


def expected_run(rows):
    return sorted(((q, d, int(r), float(s)) for q, d, r, s in rows), key=lambda t: (t[0], t[2], t[1]))


# -- accepted input ----------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", ".gz", ".zst", ".bz2", ".xz"])
def test_run_round_trips_through_every_compression(wh, tmp_path, suffix):
    path = write_file(tmp_path, f"run.bm25.txt{suffix}", run_text(RUN_ROWS, tag="bm25"))
    result = wh.ingest_run(path)
    assert (result.name, result.status, result.rows, result.queries) == ("bm25", "ingested", 4, 2)
    assert stored_run_rows(wh, "bm25") == expected_run(RUN_ROWS)
    run = wh.sql("select tag, system, row_count, query_count, source_path from runs").to_dicts()
    assert run == [{"tag": "bm25", "system": "bm25", "row_count": 4, "query_count": 2,
                    "source_path": str(path.resolve())}]


@pytest.mark.parametrize("suffix", ["", ".gz", ".zst", ".bz2", ".xz"])
def test_qrels_round_trip_through_every_compression(wh, tmp_path, suffix):
    path = write_file(tmp_path, f"qrels.dl19.txt{suffix}", qrels_text())
    result = wh.ingest_qrels(path)
    assert (result.name, result.rows, result.queries) == ("qrels.dl19", 4, 2)
    assert stored_qrels(wh, "qrels.dl19") == sorted(QRELS_ROWS)


def test_qrels_with_three_columns_and_negative_grades(wh, tmp_path):
    rows = [("q1", "d1", 3), ("q1", "d2", -2), ("q7", "d1", 0)]
    path = write_file(tmp_path, "three.qrels", "".join(f"{q}\t{d}\t{g}\n" for q, d, g in rows))
    wh.ingest_qrels(path, "three")
    assert stored_qrels(wh, "three") == sorted(rows)
    listing = wh.qrels_sets().to_dicts()
    assert [(s["name"], s["queries"], s["judgments"], s["relevant"]) for s in listing] == [("three", 2, 3, 1)]


def test_whitespace_crlf_blank_lines_and_comments(wh, tmp_path):
    text = (
        "# a comment before the data\r\n"
        "\r\n"
        "q1\tQ0\td1\t1\t3.5\ttagA\r\n"
        "q1   Q0  d2 \t 2   2.25 tagA   \r\n"
        "   \t \r\n"
        "   # an indented comment, with 6 words: a b c d\r\n"
        "\tq1 Q0 d3 3 -1 tagA\r\n"
        "q2 Q0 d1 1 0.5 tagA"  # no newline at the end
    )
    wh.ingest_run(write_file(tmp_path, "messy.run", text))
    assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_query_id(wh, tmp_path):
    wh.ingest_run(write_file(tmp_path, "bom.run", b"\xef\xbb\xbf" + run_text(RUN_ROWS).encode()))
    assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)
    wh.ingest_qrels(write_file(tmp_path, "bom.qrels", b"\xef\xbb\xbf" + qrels_text().encode()), "bom")
    assert stored_qrels(wh, "bom") == sorted(QRELS_ROWS)


def test_docids_keep_any_non_whitespace_characters(wh, tmp_path):
    docs = ["msmarco_v2.1_doc_50_2286987788#13_3087841662", "#starts-with-hash", 'quo"te', "com,ma",
            "ü-ñ-文档", "a/b:c;d", "back\\slash", "'single'"]
    rows = [("q1", d, i, f"{10 - i}.0") for i, d in enumerate(docs, start=1)]
    wh.ingest_run(write_file(tmp_path, "odd.run", run_text(rows, tag="odd#tag")))
    assert stored_run_rows(wh, "odd#tag") == expected_run(rows)
    qrels = [("q1", d, 1) for d in docs]
    wh.ingest_qrels(write_file(tmp_path, "odd.qrels", qrels_text(qrels)), "odd")
    assert stored_qrels(wh, "odd") == sorted(qrels)


def test_scores_keep_their_double_value(wh, tmp_path):
    rows = [("q", "a", 1, "1e-3"), ("q", "b", 2, "-0"), ("q", "c", 3, "+7"), ("q", "d", 4, "-12.125"),
            ("q", "e", 5, "0.1")]
    wh.ingest_run(write_file(tmp_path, "s.run", run_text(rows)))
    assert dict((d, s) for _, d, _, s in stored_run_rows(wh, "tagA")) == {
        "a": 0.001, "b": 0.0, "c": 7.0, "d": -12.125, "e": 0.1}


def test_ir_metadata_header_is_kept_with_the_run(wh, tmp_path):
    text = (
        "# ir_metadata.start\n"
        "# tag: bm25\n"
        "# implementation:\n"
        "#   source:\n"
        "#     repository: https://example.org/bm25#readme\n"
        "# ir_metadata.end\n"
        "# a plain comment\n"
        + run_text(RUN_ROWS)
    )
    wh.ingest_run(write_file(tmp_path, "meta.run", text))
    (meta,) = wh.sql("select ir_metadata from runs where name = 'tagA'").rows[0]
    assert meta == "tag: bm25\nimplementation:\n  source:\n    repository: https://example.org/bm25#readme"
    assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)


def test_run_without_ir_metadata_stores_null(wh, tmp_path):
    wh.ingest_run(write_file(tmp_path, "plain.run", run_text(RUN_ROWS)))
    assert wh.sql("select ir_metadata from runs").rows == [(None,)]


def test_name_system_description_parameters(wh, tmp_path):
    wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS)), "bm25-k1", system="bm25",
                  description="k1 sweep", parameters={"k1": "0.9", "b": "0.4"})
    row = wh.sql("select name, system, tag, description, parameters from runs").to_dicts()
    assert row == [{"name": "bm25-k1", "system": "bm25", "tag": "tagA", "description": "k1 sweep",
                    "parameters": {"k1": "0.9", "b": "0.4"}}]
    assert wh.sql("select parameters['k1'] from runs").rows in ([("0.9",)], [(["0.9"],)])


def test_the_python_api(tmp_path):
    path = tmp_path / "api.duckdb"
    wh = warehouse.open(path)
    try:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "dl19")
        wh.ingest_run(write_file(tmp_path, "r.txt", run_text(RUN_ROWS, tag="bm25")))
        assert wh.runs().column("name") == ["bm25"]
        assert wh.runs().column("rows") == [4]
        assert wh.qrels_sets().column("name") == ["dl19"]
        joined = wh.sql("select count(*) from run_rows join qrels using (query_id, doc_id) where grade >= $level",
                        {"level": 1})
        assert joined.rows == [(2,)]  # (q1, d1, grade 2) and (q2, d1, grade 1)
    finally:
        wh.close()
    assert path.exists()


# -- the same bytes twice, a name taken, --replace -------------------------------------------------

def test_same_bytes_again_is_a_no_op(wh, tmp_path):
    path = write_file(tmp_path, "r.run", run_text(RUN_ROWS))
    wh.ingest_run(path)
    qpath = write_file(tmp_path, "q.qrels", qrels_text())
    wh.ingest_qrels(qpath)
    before = warehouse_fingerprint(wh)
    again = wh.ingest_run(path)
    assert again.status == "unchanged" and again.rows == 4
    assert "already holds these bytes" in again.messages[0]
    assert wh.ingest_qrels(qpath).status == "unchanged"
    assert warehouse_fingerprint(wh) == before


def test_same_name_different_bytes_is_refused_then_replaced(wh, tmp_path):
    wh.ingest_run(write_file(tmp_path, "r1.run", run_text(RUN_ROWS)))
    changed = RUN_ROWS[:2]
    path2 = write_file(tmp_path, "r2.run", run_text(changed))
    before = warehouse_fingerprint(wh)
    with pytest.raises(ConflictError, match="replace=True"):  # the call's words (tests/test_python_terms.py)
        wh.ingest_run(path2)
    assert warehouse_fingerprint(wh) == before
    result = wh.ingest_run(path2, replace=True)
    assert (result.status, result.rows) == ("replaced", 2)
    assert stored_run_rows(wh, "tagA") == expected_run(changed)
    assert wh.sql("select count(*) from runs").rows == [(1,)]


def test_qrels_name_taken_is_refused_then_replaced(wh, tmp_path):
    wh.ingest_qrels(write_file(tmp_path, "a.qrels", qrels_text()), "dl")
    before = warehouse_fingerprint(wh)
    other = write_file(tmp_path, "b.qrels", qrels_text(QRELS_ROWS[:1]))
    with pytest.raises(ConflictError, match="replace=True"):
        wh.ingest_qrels(other, "dl")
    assert warehouse_fingerprint(wh) == before
    assert wh.ingest_qrels(other, "dl", replace=True).status == "replaced"
    assert stored_qrels(wh, "dl") == [QRELS_ROWS[0]]


# -- refused input: FILE:LINE: reason, and nothing changes -----------------------------------------

GOOD = "q1 Q0 d1 1 3.5 tagA\n"
BAD_RUNS = {
    "five columns": (GOOD + "q1 Q0 d2 2 2.0\n", 2, "expected 6 fields (qid Q0 docid rank score tag), found 5"),
    "seven columns": (GOOD + "q1 Q0 d2 2 2.0 tagA extra\n", 2, "expected 6 fields"),
    "score not a number": (GOOD + "q1 Q0 d2 2 high tagA\n", 2, "score high is not a number"),
    "score with a comma": (GOOD + "q1 Q0 d2 2 2,5 tagA\n", 2, "score 2,5 is not a number"),
    "score nan": (GOOD + "q1 Q0 d2 2 nan tagA\n", 2, "score nan is not finite"),
    "score inf": (GOOD + "q1 Q0 d2 2 inf tagA\n", 2, "score inf is not finite"),
    "score -Infinity": (GOOD + "q1 Q0 d2 2 -Infinity tagA\n", 2, "score -Infinity is not finite"),
    "score overflows": (GOOD + "q1 Q0 d2 2 1e999 tagA\n", 2, "score 1e999 is not finite"),
    "rank not an integer": (GOOD + "q1 Q0 d2 2.5 2.0 tagA\n", 2, "rank 2.5 is not an integer"),
    "duplicate doc": (GOOD + "q2 Q0 d1 1 1 tagA\n\nq1 Q0 d1 2 1 tagA\n", 4,
                      "duplicate document d1 for query q1 (first at line 1)"),
    "second tag": (GOOD + "# c\nq1 Q0 d2 2 2.0 tagA\nq1 Q0 d3 3 1.0 tagB\nq2 Q0 d3 3 1.0 tagB\n", 4,
                   "a second run tag 'tagB' (the file began with tag 'tagA')"),
    "not utf-8 after blank lines": (GOOD.encode() + b"\n\n   \nq1 Q0 d\xe9 2 2.0 tagA\n", 5,
                                    "bytes that are not valid UTF-8"),
    "not utf-8 on line 1": (b"q1 Q0 \xff\xfe 1 2.0 tagA\n" + GOOD.encode(), 1, "bytes that are not valid UTF-8"),
    "control character": (GOOD + "q1 Q0 d2\x01x 2 2.0 tagA\n", 2, "control character"),
    # U+0001 just before a line end was silently dropped: a 7-field line read as 6, a tag t\x01 as t
    "U+0001 ending the tag": (GOOD + "q1 Q0 d2 2 2.0 tagA\x01\n", 2, "the control character U+0001"),
    "U+0001 as a seventh field": (GOOD + "q1 Q0 d2 2 2.0 tagA \x01\n", 2, "the control character U+0001"),
    "U+0001 before a CR LF": (GOOD + "q1 Q0 d2 2 2.0 tagA\x01\r\n", 2, "the control character U+0001"),
    "a CR inside a line": (GOOD + "q1 Q0 d2 2\r 2.0 tagA\n", 2, "a carriage return (CR) inside the line"),
    "CR-only line ends": ("q1 Q0 d1 1 3.5 tagA\rq1 Q0 d2 2 2.0 tagA\r", 1, "lines end in CR alone"),
    # numbers DuckDB's casts take and the README's rules do not
    "rank 0x10": (GOOD + "q1 Q0 d2 0x10 2.0 tagA\n", 2, "rank 0x10 is not an integer"),
    "rank 0b11": (GOOD + "q1 Q0 d2 0b11 2.0 tagA\n", 2, "rank 0b11 is not an integer"),
    "rank with a trailing VT": (GOOD + "q1 Q0 d2 2\v 2.0 tagA\n", 2, "rank 2\\x0b is not an integer"),
    "rank with a trailing FF": (GOOD + "q1 Q0 d2 2\f 2.0 tagA\n", 2, "rank 2\\x0c is not an integer"),
    "rank out of range": (GOOD + "q1 Q0 d2 99999999999999999999 2.0 tagA\n", 2,
                          "rank 99999999999999999999 is out of range"),
    "score with a trailing VT": (GOOD + "q1 Q0 d2 2 2.0\v tagA\n", 2, "score 2.0\\x0b is not a number"),
    "score with a trailing FF": (GOOD + "q1 Q0 d2 2 2.0\f tagA\n", 2, "score 2.0\\x0c is not a number"),
    "score +-1": (GOOD + "q1 Q0 d2 2 +-1 tagA\n", 2, "score +-1 is not a number"),
    "a qrels file": ("q1 0 d1 1\nq1 0 d2 0\n", 0,
                     "looks like a qrels file (4 fields: qid iter docid grade), not a run"),
}
BAD_QRELS = {
    "five columns": ("q1 0 d1 1\nq1 0 d2 1 extra\n", 2, "expected 4 fields (qid iter docid grade) or 3 (qid docid grade), found 5"),
    "two columns": ("q1 0 d1 1\n\nq1 d2\n", 3, "found 2"),
    "three after four": ("q1 0 d1 1\nq1 d2 1\n", 2, "found 3 fields where the first line has 4"),
    "four after three": ("# c\nq1 d1 1\nq1 0 d2 1\n", 3, "found 4 fields where the first line has 3"),
    "grade not an integer": ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "grade 1.5 is not an integer"),
    "grade a word": ("q1 0 d1 1\nq1 0 d2 rel\n", 2, "grade rel is not an integer"),
    "grade too large": ("q1 0 d1 1\nq1 0 d2 99999999999\n", 2, "grade 99999999999 is out of range"),
    "duplicate judgment": ("q1 0 d1 1\n# c\nq1 0 d1 0\n", 3, "duplicate judgment of document d1 for query q1 (first at line 1)"),
    "not utf-8": (b"q1 0 d1 1\n\nq1 0 d\xc3\x28 1\n", 3, "bytes that are not valid UTF-8"),
    "grade with U+0001": ("q1 0 d1 1\x01\nq1 0 d2 0\n", 1, "the control character U+0001"),
    "grade with a trailing VT": ("q1 0 d1 1\nq1 0 d2 1\v\n", 2, "grade 1\\x0b is not an integer"),
    "a CR inside a line": ("q1 0 d1 1\nq1 0\rd2 1\n", 2, "a carriage return (CR) inside the line"),
    "a run file": ("q1 Q0 d1 1 3.5 tagA\nq1 Q0 d2 2 2.0 tagA\n", 0,
                   "looks like a run file (6 fields: qid Q0 docid rank score tag), not qrels"),
}


def _assert_refused(result, path, line, reason, before, db_path):
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: {path}:{line}: " if line else f"Error: {path}: "), result.stderr
    assert reason in first
    assert fingerprint_at(db_path) == before


@pytest.mark.parametrize("case", BAD_RUNS, ids=list(BAD_RUNS))
def test_bad_run_is_refused_with_file_line_reason(case, seeded_db, tmp_path, irw):
    content, line, reason = BAD_RUNS[case]
    path = write_file(tmp_path, "bad.run", content)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    _assert_refused(result, path, line, reason, before, seeded_db)


@pytest.mark.parametrize("case", BAD_QRELS, ids=list(BAD_QRELS))
def test_bad_qrels_is_refused_with_file_line_reason(case, seeded_db, tmp_path, irw):
    content, line, reason = BAD_QRELS[case]
    path = write_file(tmp_path, "bad.qrels", content)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "qrels", path, "--name", "new")
    _assert_refused(result, path, line, reason, before, seeded_db)


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n\n   \n# another\n"],
                         ids=["zero bytes", "blank lines", "comments and blanks"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_empty_file_is_refused(kind, content, seeded_db, tmp_path, irw):
    path = write_file(tmp_path, f"empty.{kind}", content)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", kind, path, "--name", "new")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}: no {kind} lines (the file is empty, or holds only blank lines "
                                    "and comments)")
    assert fingerprint_at(seeded_db) == before


def test_missing_file_is_refused(seeded_db, tmp_path, irw):
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", tmp_path / "nope.run")
    assert result.exit_code == 1
    assert f"Error: {tmp_path / 'nope.run'}: no such file" in result.stderr
    assert fingerprint_at(seeded_db) == before


def test_twenty_problems_are_listed_then_counted(seeded_db, tmp_path, irw):
    lines = [f"q{i} Q0 d{i} 1 score{i} tagA\n" for i in range(1, 26)]
    path = write_file(tmp_path, "many.run", "".join(lines))
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1
    errors = result.stderr.splitlines()
    assert errors[:20] == [f"Error: {path}:{i}: score score{i} is not a number" for i in range(1, 21)]
    assert errors[20:] == ["Error: ... and 5 more problems"]
    assert fingerprint_at(seeded_db) == before


def test_a_malformed_first_qrels_line_does_not_set_the_layout(wh, tmp_path):
    text = "q1 0 d1 1 extra\nq1 0 d2 1\nq1 0 d3 0\nq1 d4 1\n"
    with pytest.raises(InputFileError) as caught:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", text))
    assert [(p.line, p.reason) for p in caught.value.problems] == [
        (1, "expected 4 fields (qid iter docid grade) or 3 (qid docid grade), found 5"),
        (4, "found 3 fields where the first line has 4"),
    ]


def test_problems_are_listed_in_line_order(wh, tmp_path):
    text = "q1 Q0 d1 1 x tagA\nq1 Q0 d2 2 2.0\nq1 Q0 d1 3 1.0 tagA\nq1 Q0 d4 4 nan tagA\n"
    with pytest.raises(InputFileError) as caught:
        wh.ingest_run(write_file(tmp_path, "r.run", text))
    assert [(p.line, p.reason.split(" ")[0]) for p in caught.value.problems] == [
        (1, "score"), (2, "expected"), (3, "duplicate"), (4, "score")]


# -- compressed files that are truncated or corrupt -------------------------------------------------

@functools.lru_cache(maxsize=None)
def compressed_big_run(suffix):
    return compress(BIG_RUN.encode(), suffix)


BIG_RUN = run_text([(f"q{q}", f"doc{q}-{r}", r, f"{100 - r / 7:.6f}") for q in range(40) for r in range(1, 401)])


def _truncated(suffix):
    blob = compressed_big_run(suffix)
    return blob[: len(blob) // 2]


def _truncated_at_the_end(suffix):
    blob = compressed_big_run(suffix)
    return blob[:-3]


def _corrupt(suffix):
    blob = bytearray(compressed_big_run(suffix))
    middle = len(blob) // 2
    for i in range(middle, middle + 64):
        blob[i] ^= 0x5A
    return bytes(blob)


def _bit_flip_in_stored_data(suffix):
    """A compressor's stored (uncompressed) block with one data byte changed: only a checksum can tell."""
    import gzip

    assert suffix == ".gz"
    blob = bytearray(gzip.compress(BIG_RUN.encode(), compresslevel=0))
    at = blob.index(b"doc7-7 ")
    blob[at + 3] = ord("8")  # doc7-7 -> doc8-7: still a valid run line
    return bytes(blob)


def _not_compressed(suffix):
    return BIG_RUN.encode()


DAMAGES = {"truncated": _truncated, "truncated-tail": _truncated_at_the_end, "corrupt": _corrupt,
           "plain-text": _not_compressed}


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("suffix", [".gz", ".zst", ".bz2", ".xz"])
def test_damaged_compressed_file_is_refused(suffix, damage, seeded_db, tmp_path, irw):
    path = tmp_path / f"damaged.run{suffix}"
    path.write_bytes(DAMAGES[damage](suffix))
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1, result.stderr
    # One line for the file as a whole, whatever the damaged bytes happened to decode to.
    assert result.stderr.startswith(f"Error: {path}: corrupt or truncated {suffix[1:]} data ("), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert fingerprint_at(seeded_db) == before


def test_gzip_checksum_mismatch_is_refused(seeded_db, tmp_path, irw):
    path = tmp_path / "flipped.run.gz"
    path.write_bytes(_bit_flip_in_stored_data(".gz"))
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}: corrupt or truncated gz data"), result.stderr
    assert fingerprint_at(seeded_db) == before


def test_concatenated_gzip_members_are_read_whole(wh, tmp_path):
    import gzip

    first, second = RUN_ROWS[:3], RUN_ROWS[3:]
    path = tmp_path / "two-members.run.gz"
    path.write_bytes(gzip.compress(run_text(first).encode()) + gzip.compress(run_text(second).encode()))
    wh.ingest_run(path)
    assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)


def test_zstd_with_several_frames_is_read_whole(wh, tmp_path):
    import zstandard  # a runtime dependency (pyproject): always there
    path = tmp_path / "frames.run.zst"
    frames = [zstandard.ZstdCompressor(write_checksum=c).compress(run_text([row]).encode())
              for c, row in zip((True, False, True, False), RUN_ROWS)]
    path.write_bytes(b"".join(frames))
    wh.ingest_run(path)
    assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)


def test_large_file_numbers_lines_in_file_order(wh, tmp_path):
    # Line numbers must stay right deep into a file and past blank lines, or the message points
    # users at the wrong place.
    lines = [f"q{i // 1000} Q0 d{i} {i % 1000 + 1} {-(i % 1000)} tagA\n" for i in range(300_000)]
    lines[123_456] = "q123 Q0 d123456 457 oops tagA\n"
    lines[299_998] = "\n"
    path = write_file(tmp_path, "big.run", "".join(lines))
    with pytest.raises(InputFileError) as caught:
        wh.ingest_run(path)
    assert [(p.line, p.reason) for p in caught.value.problems] == [(123_457, "score oops is not a number")]


# -- line ends, control bytes, odd paths: every input gets a clear answer ---------------------------

LF_RUN = run_text(RUN_ROWS)
MIXED_LINE_ENDS = {
    "one CR LF line in an LF file": lambda text: text.replace("\n", "\r\n", 1),
    "LF lines in a CR LF file": lambda text: text.replace("\n", "\r\n").replace("\r\n", "\n", 2),
    "a CR ending the file": lambda text: text[:-1] + "\r",
}


@pytest.mark.parametrize("suffix", ["", ".gz", ".zst", ".bz2"])
@pytest.mark.parametrize("mix", MIXED_LINE_ENDS)
def test_mixed_line_ends_are_read_as_lf(mix, suffix, tmp_path, irw, db_path):
    """Mixed CR LF and LF line ends were refused with DuckDB's "CSV Parser state machine reached an
    invalid state" and no line: they read as the LF file does, runs and qrels, on a fresh warehouse."""
    run = write_file(tmp_path, f"mixed.run{suffix}", MIXED_LINE_ENDS[mix](LF_RUN))
    qrels = write_file(tmp_path, f"mixed.qrels{suffix}", MIXED_LINE_ENDS[mix](qrels_text()))
    assert irw("ingest", "run", run).exit_code == 0
    assert irw("ingest", "qrels", qrels, "--name", "mixed").exit_code == 0
    with warehouse.open(db_path, read_only=True) as wh:
        assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)
        assert stored_qrels(wh, "mixed") == sorted(QRELS_ROWS)


def test_trec_eval_reads_mixed_line_ends_as_lf(tmp_path, irw):
    lf = [write_file(tmp_path, "q.txt", qrels_text()), write_file(tmp_path, "r.txt", LF_RUN)]
    mixed = [write_file(tmp_path, "q.mixed.txt", MIXED_LINE_ENDS["LF lines in a CR LF file"](qrels_text())),
             write_file(tmp_path, "r.mixed.txt.gz", MIXED_LINE_ENDS["one CR LF line in an LF file"](LF_RUN))]
    expected = irw("trec-eval", "-q", "-m", "all_trec", *lf, db=False)
    result = irw("trec-eval", "-q", "-m", "all_trec", *mixed, db=False)
    assert (result.exit_code, expected.exit_code) == (0, 0), result.stderr
    assert result.stdout == expected.stdout and "map" in result.stdout


def test_trec_eval_on_a_real_run_with_mixed_line_ends_matches_trec_eval(conformance, tmp_path, irw):
    """A DL19 run (../shared/conformance) whose every third line ends in CR LF: trec_eval 9.0.8's own
    output for the LF file, byte for byte."""
    dl19 = conformance / "dl19-passage"
    lines = (dl19 / "runs" / "run.dl19.BM25.txt").read_bytes().split(b"\n")
    mixed = b"\n".join(line + b"\r" if i % 3 == 0 and line else line for i, line in enumerate(lines))
    run = tmp_path / "run.dl19.BM25.mixed.txt"
    run.write_bytes(mixed)
    result = irw("trec-eval", "-m", "all_trec", "-q", dl19 / "qrels.dl19-passage.txt", run, db=False)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (dl19 / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text()


@pytest.mark.parametrize("case", ["soh", "lone cr"])
def test_trec_eval_refuses_a_control_byte_with_its_line(case, tmp_path, irw):
    """trec_eval mode (extra fields allowed) took `... tag x\\x01` silently as `... tag x`."""
    bad = {"soh": "q2 Q0 d1 1 0.5 tagA x\x01\n", "lone cr": "q2 Q0 d1 1 0.5\rtagA\n"}[case]
    qrels = write_file(tmp_path, "q.txt", qrels_text())
    run = write_file(tmp_path, "r.txt", LF_RUN + bad)
    result = irw("trec-eval", qrels, run, db=False)
    assert result.exit_code == 2 and result.stdout == ""
    reason = {"soh": "the control character U+0001", "lone cr": "a carriage return (CR) inside the line"}[case]
    assert result.stderr.startswith(f"Error: {run}:5: {reason}"), result.stderr
    qrels_bad = write_file(tmp_path, "q.bad.txt", qrels_text() + "q3 0 d1 1\x01\n")
    result = irw("trec-eval", qrels_bad, write_file(tmp_path, "r2.txt", LF_RUN), db=False)
    assert result.exit_code == 2 and result.stderr.startswith(f"Error: {qrels_bad}:5: the control character U+0001")


def test_other_control_bytes_are_kept_as_data(tmp_path, irw, db_path):
    """Only U+0001, CR outside a line end and NUL (tests/test_nul.py) are refused; ESC, DEL, VT or
    FF inside a docid or tag are data, stored as read."""
    rows = [("q1", "d\x02x", 1, "2.5"), ("q1", "e\x1b[0m", 2, "1.5"), ("q1", "v\x0bt\x0c", 3, "0.5"),
            ("q1", "del\x7f", 4, "0.25")]
    path = write_file(tmp_path, "ctl.run", run_text(rows, tag="t\x02"))
    assert irw("ingest", "run", path).exit_code == 0
    with warehouse.open(db_path, read_only=True) as wh:
        assert stored_run_rows(wh, "t\x02") == expected_run(rows)


def _gzip_padded(text: str) -> bytes:
    import gzip

    return gzip.compress(text.encode()) + b"\x00" * 1024


def test_gzip_with_trailing_zero_padding_is_read(tmp_path, irw, db_path):
    """`gzip -t` accepts zeros after the last member (tape blocks); DuckDB's reader does not, so such a
    file is decompressed by Python. Runs, qrels and trec-eval."""
    run, qrels = tmp_path / "padded.run.gz", tmp_path / "padded.qrels.gz"
    run.write_bytes(_gzip_padded(LF_RUN))
    qrels.write_bytes(_gzip_padded(qrels_text()))
    assert irw("ingest", "run", run).exit_code == 0
    assert irw("ingest", "qrels", qrels, "--name", "padded").exit_code == 0
    with warehouse.open(db_path, read_only=True) as wh:
        assert stored_run_rows(wh, "tagA") == expected_run(RUN_ROWS)
        assert stored_qrels(wh, "padded") == sorted(QRELS_ROWS)
    plain = irw("trec-eval", write_file(tmp_path, "q.txt", qrels_text()), write_file(tmp_path, "r.txt", LF_RUN),
                db=False)
    padded = irw("trec-eval", qrels, run, db=False)
    assert padded.exit_code == 0 and padded.stdout == plain.stdout


def test_a_line_over_the_limit_is_named(seeded_db, tmp_path, irw):
    """DuckDB reads lines of up to 2,000,000 bytes (the README says so): a longer one is named."""
    path = write_file(tmp_path, "long.run", GOOD * 3 + "q1 Q0 " + "x" * 2_000_001 + " 2 1 tagA\n" + GOOD)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    _assert_refused(result, path, 4, "a line longer than 2,000,000 bytes", before, seeded_db)


def test_a_file_name_that_is_not_utf8_gets_a_clear_error(seeded_db, tmp_path):
    """It failed with DuckDB's "Python Conversion Failure"."""
    import os
    import subprocess
    import sys

    name = os.fsencode(tmp_path) + b"/r\xe9sultat.run"
    with open(name, "wb") as handle:
        handle.write(run_text(RUN_ROWS[:3]).encode())
    before = fingerprint_at(seeded_db)
    for args in (["ingest", "run", name, "--db", os.fsencode(seeded_db)],
                 ["trec-eval", os.fsencode(write_file(tmp_path, "q.txt", qrels_text())), name]):
        done = subprocess.run([sys.executable, "-m", "warehouse", *args], capture_output=True)
        assert done.returncode == (2 if args[0] == "trec-eval" else 1), done.stderr
        first = done.stderr.decode().splitlines()[0]
        assert first == (f"Error: {tmp_path}/r\\xe9sultat.run: the file name is not valid UTF-8, which irw "
                         "cannot pass to DuckDB; rename the file (or link it under a UTF-8 name)"), first
    assert fingerprint_at(seeded_db) == before


def _not_a_file(kind: str, tmp_path: Path) -> tuple[Path, str]:
    import os

    if kind == "directory":
        return tmp_path, "is a directory, not a file"
    if kind == "/dev/null":
        return Path("/dev/null"), "is a character device (like /dev/null), not a regular file"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo", "is a pipe, not a regular file"
    if kind == "/proc/self/mem":  # a regular file that no one, root included, can read from its start
        return Path("/proc/self/mem"), "cannot read the file: Input/output error"
    if kind == "chmod 000":
        path = write_file(tmp_path, "locked.txt", LF_RUN)
        path.chmod(0)
        return path, "cannot read the file: Permission denied"
    if kind == "-":  # standard input, as other tools take it (`cat run | irw ingest run -`)
        return Path("-"), ("no such file; standard input is not read: irw reads an input file twice (to hash "
                           "it, then to load it); save the data to a file first")
    return tmp_path / "nope.txt", "no such file"


NOT_FILES = ["missing", "directory", "/dev/null", "fifo", "/proc/self/mem", "chmod 000", "-"]


def _skip_unless_possible(kind: str) -> None:
    import os

    if kind == "/proc/self/mem" and not Path("/proc/self/mem").exists():
        pytest.skip("no /proc/self/mem here")
    if kind == "chmod 000" and os.geteuid() == 0:
        pytest.skip("root reads a chmod 000 file; /proc/self/mem is the unreadable case that holds for root")


@pytest.mark.parametrize("kind", NOT_FILES)
@pytest.mark.parametrize("command", ["ingest qrels", "ingest run", "trec-eval qrels", "trec-eval run"])
def test_an_input_that_is_not_a_readable_file_says_what_it_is(command, kind, seeded_db, tmp_path, irw):
    """A directory or /dev/null was "no such file"; /proc/self/mem and an unreadable file to trec-eval
    gave a traceback; `-` (standard input to other tools) was "no such file" alone. Now one `Error:`
    line saying what the path is, exit 1, nothing changed."""
    _skip_unless_possible(kind)
    if command == "ingest run" and kind == "directory":
        pytest.skip("irw ingest run takes a folder's run files (tests/test_batch_ingest.py)")
    if command == "ingest qrels" and kind == "directory":
        pytest.skip("irw ingest qrels takes a folder's qrels files (tests/test_collections.py)")
    if command == "trec-eval run" and kind == "directory":
        pytest.skip("irw trec-eval takes a folder's run files (tests/test_trec_eval_runs.py)")
    path, reason = _not_a_file(kind, tmp_path)
    good_qrels, good_run = write_file(tmp_path, "q.txt", qrels_text()), write_file(tmp_path, "r.txt", LF_RUN)
    before = fingerprint_at(seeded_db)
    args = {"ingest qrels": ["ingest", "qrels", path, "--name", "new"],
            "ingest run": ["ingest", "run", path],
            "trec-eval qrels": ["trec-eval", path, good_run],
            "trec-eval run": ["trec-eval", good_qrels, path]}[command]
    result = irw(*args, db=command.startswith("ingest"))
    # a bad file: ingest's 1; irw trec-eval's 2, trec_eval's "Quit in file"
    assert result.exit_code == (2 if command.startswith("trec-eval") else 1), result.output
    assert result.stderr.splitlines() == [f"Error: {path}: {reason}" + (
        ": irw reads an input file twice (to hash it, then to load it); save the data to a file first"
        if "regular file" in reason else "")], result.stderr
    assert fingerprint_at(seeded_db) == before


@pytest.mark.parametrize("kind", ["/proc/self/mem", "chmod 000"])
def test_an_unreadable_run_file_is_refused(kind, seeded_db, tmp_path, irw):
    _skip_unless_possible(kind)
    path, reason = _not_a_file(kind, tmp_path)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1 and f"Error: {path}: {reason}" in result.stderr.splitlines()[0], result.stderr
    assert fingerprint_at(seeded_db) == before


def test_the_api_refuses_an_unreadable_file_with_input_file_error(wh):
    if not Path("/proc/self/mem").exists():
        pytest.skip("no /proc/self/mem here")
    with pytest.raises(InputFileError, match="cannot read the file"):
        wh.ingest_qrels("/proc/self/mem", "mem")
    with pytest.raises(InputFileError, match="cannot read the file"):
        warehouse.evaluate_files("/proc/self/mem", "/proc/self/mem", ["AP"])


# -- a run given as qrels, qrels given as a run (issue 10) -------------------------------------------

def test_a_run_file_given_as_qrels_is_named_first(seeded_db, tmp_path, irw):
    path = write_file(tmp_path, "run.txt", LF_RUN)
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "qrels", path, "--name", "oops")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"Error: {path}: looks like a run file (6 fields: qid Q0 docid rank score "
                                          "tag), not qrels; a run is ingested with `irw ingest run`"]
    assert fingerprint_at(seeded_db) == before


def test_trec_eval_with_qrels_and_run_swapped_asks(tmp_path, irw):
    qrels, run = write_file(tmp_path, "qrels.txt", qrels_text()), write_file(tmp_path, "run.txt", LF_RUN)
    result = irw("trec-eval", run, qrels, db=False)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines()[0] == (f"Error: {run}: looks like a run file (6 fields: qid Q0 docid rank "
                                             "score tag), not qrels; did you swap QRELS and RUN? "
                                             "(irw trec-eval QRELS_FILE RUN_FILE)")
    # the converse: the qrels file is right, the run is a qrels file
    result = irw("trec-eval", qrels, qrels, db=False)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (f"Error: {qrels}: looks like a qrels file (4 fields: qid iter docid "
                                             "grade), not a run; did you swap QRELS and RUN? "
                                             "(irw trec-eval QRELS_FILE RUN_FILE)")


def test_trec_eval_with_the_real_dl19_files_swapped(conformance, irw):
    dl19 = conformance / "dl19-passage"
    run, qrels = dl19 / "runs" / "run.dl19.BM25.txt", dl19 / "qrels.dl19-passage.txt"
    result = irw("trec-eval", "-m", "map", run, qrels, db=False)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0].startswith(f"Error: {run}: looks like a run file (6 fields")
    assert "did you swap QRELS and RUN?" in result.stderr.splitlines()[0]


def test_a_qrels_file_given_as_a_run_is_named_first(seeded_db, tmp_path, irw):
    path = write_file(tmp_path, "qrels.txt", "q1 d1 1\nq1 d2 0\nq2 d1 2\n")
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (f"Error: {path}: looks like a qrels file (3 fields: qid docid grade), "
                                             "not a run; qrels are ingested with `irw ingest qrels`")
    assert fingerprint_at(seeded_db) == before


def test_a_run_with_a_few_short_lines_is_not_taken_for_qrels(wh, tmp_path):
    """Half or more of the lines must look like the other kind: a run with one 4-field line is a run
    with a bad line."""
    path = write_file(tmp_path, "r.run", "q1 Q0 d9 1\n" + LF_RUN)
    with pytest.raises(InputFileError) as caught:
        wh.ingest_run(path)
    assert [(p.line, p.reason) for p in caught.value.problems] == [
        (1, "expected 6 fields (qid Q0 docid rank score tag), found 4")]
