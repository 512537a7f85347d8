"""What `irw eval` says of numbers that are zeros or not numbers for a reason a user can fix
(asked for after the walks): a run none of whose retrieved documents the qrels judge (a run of
another collection) and a relevance level above every grade are noted on stderr, the numbers
being trec_eval's; a user measure whose value is infinite is refused before anything is stored (a
NaN is a value undefined for the query, as trec_eval's -nan, and kept). `irw trec-eval` prints trec_eval's bytes and no note."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, fingerprint_at, run_text, write_file

ROOT = Path(__file__).resolve().parents[1]
PRECISION_AT_K = ROOT / "examples" / "measures" / "precision_at_k.sql"

# qrels `col`, graded 0 to 3, and two runs of its queries: `good` retrieves judged documents,
# `other` (ids of another collection) none
QRELS = [("q1", "d1", 3), ("q1", "d2", 0), ("q1", "d3", 1), ("q2", "d4", 2), ("q2", "d5", 0)]
GOOD = [("q1", "d1", 1, "3"), ("q1", "d2", 2, "2"), ("q1", "x9", 3, "1"), ("q2", "d4", 1, "2"), ("q2", "y7", 2, "1")]
OTHER = [("q1", "z1", 1, "3"), ("q1", "z2", 2, "2"), ("q2", "z3", 1, "1")]
OTHER_NOTE = "# none of other's retrieved documents is judged in col (2 queries): is it a run of another collection?"


def _qrels_text() -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS)


@pytest.fixture
def col(irw: Cli, tmp_path: Path) -> Cli:
    """A warehouse holding qrels `col` and runs `good` and `other`."""
    assert irw("ingest", "qrels", write_file(tmp_path, "col.qrels", _qrels_text()), "--name", "col").exit_code == 0
    for name, rows in (("good", GOOD), ("other", OTHER)):
        result = irw("ingest", "run", write_file(tmp_path, f"{name}.run", run_text(rows, tag=name)), "--name", name)
        assert result.exit_code == 0, result.stderr
    return irw


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("# ")]


# -- a run of another collection -------------------------------------------------------------------

def test_a_run_none_of_whose_documents_is_judged_is_noted(col: Cli):
    result = col("eval", "other", "good", "--qrels", "col", "-m", "nDCG@10", "-m", "AP")
    assert result.exit_code == 0, result.stderr  # a note, not an error: the zeros are trec_eval's
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[2:]}
    assert rows["other"] == ["2", "0.0000", "0.0000"]
    assert OTHER_NOTE in _notes(result.stderr)
    assert not [note for note in _notes(result.stderr) if "good" in note]  # good's documents are judged


def test_the_note_comes_with_stored_scores_too(col: Cli):
    assert col("eval", "other", "--qrels", "col", "-m", "AP").exit_code == 0
    again = col("eval", "other", "--qrels", "col", "-m", "AP")  # read back, not computed
    assert again.exit_code == 0
    assert OTHER_NOTE in _notes(again.stderr)


def test_with_c_a_run_answering_no_query_of_the_qrels_is_refused_as_without(col: Cli, tmp_path: Path):
    # -c scores every qrels query a run lacks as 0: a run of another collection's queries got a
    # table of zeros and exit 0, where trec_eval -c refuses it (No queries with both results and
    # relevance info)
    stray = run_text([("q9", "d1", 1, "2"), ("q8", "d4", 1, "1")], tag="stray")
    assert col("ingest", "run", write_file(tmp_path, "stray.run", stray), "--name", "stray").exit_code == 0
    for options in ([], ["-c"]):
        result = col("eval", "stray", "good", "--qrels", "col", "-m", "AP", *options)
        assert result.exit_code == 1 and result.stdout == "", result.stdout
        assert result.stderr.startswith("Error: run stray has no query judged in qrels col (2 of its queries are not "
                                        "in the qrels): "), result.stderr
        # the first ids of each side, where ids written two ways (1 and 001) would show
        assert result.stderr.rstrip().endswith("check that run and qrels are of the same collection (its first query "
                                               "ids: q8, q9; the qrels': q1, q2)")
    assert "evaluated on every query of the qrels it would score 0 (trec_eval refuses such a run)" in result.stderr
    assert col("ingest", "run", write_file(tmp_path, "one.run", run_text([("q9", "d1", 1, "2")], tag="one")),
               "--name", "one").exit_code == 0
    assert "(1 of its queries is not in the qrels)" in col("eval", "one", "--qrels", "col", "-m", "AP").stderr
    import warehouse
    from warehouse.evaluation.settings import Settings

    with warehouse.open(col.db) as wh:
        with pytest.raises(warehouse.MeasureError, match="run stray has no query judged in qrels col"):
            wh.evaluate("stray", "col", ["AP"], settings=Settings(complete=True))
        assert wh.evaluate("good", "col", ["AP"], settings=Settings(complete=True)).value("good", "AP") > 0


def test_trec_eval_prints_trec_evals_bytes_and_no_note(tmp_path: Path):
    qrels = write_file(tmp_path, "col.qrels", _qrels_text())
    run = write_file(tmp_path, "other.run", run_text(OTHER, tag="other"))
    result = Cli(tmp_path / "unused.duckdb")("trec-eval", "-m", "map", "-l", "5", str(qrels), str(run), db=False)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "map                   \tall\t0.0000\n"
    assert result.stderr == ""


# -- a relevance level above every grade -----------------------------------------------------------

def test_a_level_above_every_grade_is_noted(col: Cli):
    result = col("eval", "good", "--qrels", "col", "-l", "5", "-m", "AP")
    assert result.exit_code == 0, result.stderr
    assert "# no document of col has grade >= 5 (its grades: 0 to 3): every measure of relevance is 0" \
        in _notes(result.stderr)


def test_a_measures_level_above_every_grade_is_noted_with_its_name(col: Cli):
    result = col("eval", "good", "--qrels", "col", "-m", "AP(rel=5)", "-m", "P@10")
    assert result.exit_code == 0, result.stderr
    assert "# AP(rel=5): no document of col has grade >= 5 (its grades: 0 to 3): every measure of relevance is 0" \
        in _notes(result.stderr)
    assert not [note for note in _notes(result.stderr) if note.startswith("# no document")]


def test_the_highest_grade_as_level_is_no_note(col: Cli):
    result = col("eval", "good", "--qrels", "col", "-l", "3", "-m", "AP")
    assert result.exit_code == 0, result.stderr
    assert not [note for note in _notes(result.stderr) if "has grade >=" in note]


# -- a user measure's value is a number ------------------------------------------------------------

def test_a_user_measures_nan_is_kept_as_trec_evals_is(col: Cli):
    """prec(k=0) is 0/0 on every query: undefined (trec_eval's -nan), stored and shown as nan."""
    assert col("measures", "add", str(PRECISION_AT_K)).exit_code == 0
    result = col("eval", "good", "--qrels", "col", "-m", "prec(k=0)", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].endswith(",nan")


@pytest.mark.parametrize("value, shown", [("1 / 0", "inf"), ("cast('-inf' as double)", "-inf")])
def test_a_user_measure_of_an_infinity_is_refused_before_anything_is_stored(col: Cli, db_path: Path, tmp_path: Path,
                                                                            value: str, shown: str):
    measure = write_file(tmp_path, "endless.sql", "-- measure: endless\n-- parameters: none\n-- aggregate: mean\n"
                         f"select run_id, query_id, {value} as value\nfrom ranked_judged\n"
                         "where query_id = 'q2'\ngroup by run_id, query_id\n")
    assert col("measures", "add", str(measure)).exit_code == 0
    before = fingerprint_at(db_path)
    result = col("eval", "other", "--qrels", "col", "-m", "endless", "-m", "AP")
    assert result.exit_code != 0
    assert result.stderr.splitlines()[-1].startswith(
        f"Error: endless: its value is infinite ({shown}) for run other, query q2: a user measure's value is a "
        "number; check its SQL for a division by zero")
    assert fingerprint_at(db_path) == before  # not AP's scores either


def test_a_builtin_measures_nan_is_trec_evals_and_kept(col: Cli):
    # trec_eval's 11pt_avg of a ranking -J empties is 0/0 (-nan): a value irw copies, not refuses
    result = col("eval", "other", "--qrels", "col", "-J", "-q", "-m", "11pt_avg", "--format", "tsv")
    assert result.exit_code == 0, result.stderr
    assert "nan" in result.stdout.lower()


# -- a run lacking some of the qrels' queries --------------------------------------------------------

def test_qrels_queries_a_run_lacks_are_said_left_out_or_under_c_scored_0(col: Cli, tmp_path: Path):
    """A walk cut three queries out of DL19 BM25: AP was 0.3112 over 40 queries (trec_eval's default)
    where ir_measures gave 0.2895 over 43 (trec_eval's -c), and nothing said the run lacked them."""
    half = run_text([row for row in GOOD if row[0] == "q1"], tag="half")
    assert col("ingest", "run", write_file(tmp_path, "half.run", half), "--name", "half").exit_code == 0
    plain = col("eval", "half", "good", "--qrels", "col", "-m", "AP")
    assert plain.exit_code == 0, plain.stderr
    assert "# half: 1 qrels query not in the run was left out of its means, as trec_eval leaves them; -c scores it 0, " \
           "as ir_measures does" in _notes(plain.stderr)
    assert not [note for note in _notes(plain.stderr) if note.startswith("# good:")]
    complete = col("eval", "half", "--qrels", "col", "-m", "AP", "-c")
    assert "# half: 1 qrels query not in the run scored 0 (-c)" in _notes(complete.stderr)
    assert [line.split()[:2] for line in complete.stdout.splitlines()[2:]] == [["half", "2"]]
    # other answers no query judged in col: its own note says so, not this one
    assert not [note for note in _notes(col("eval", "other", "--qrels", "col", "-m", "AP").stderr) if "not in the run" in note]


def test_many_runs_lacking_qrels_queries_are_said_in_one_line(col: Cli, tmp_path: Path):
    for n in range(4):
        text = run_text([("q1", "d1", 1, "3")], tag=f"part{n}")
        assert col("ingest", "run", write_file(tmp_path, f"part{n}.run", text), "--name", f"part{n}").exit_code == 0
    said = col("eval", "part*", "--qrels", "col", "-m", "AP")
    assert said.exit_code == 0, said.stderr
    assert [note for note in _notes(said.stderr) if "qrels query" in note] == [
        "# 4 runs do not answer every qrels query (part0: 1, part1: 1, part2: 1 and 1 more): those queries were left "
        "out of their means, as trec_eval leaves them; -c scores them 0, as ir_measures does"]
