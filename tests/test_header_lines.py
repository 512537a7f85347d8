"""Qrels as people download them: BEIR's qrels are a TSV whose first line is `query-id corpus-id
score`. irw reads TREC files without a header line, as trec_eval does, and refuses such a line by
name (it was "grade score is not an integer"), with the command that writes the file without it;
a test runs that command and evaluates the result. Given as a run, the file is still recognised as
qrels (the header hid the swapped-file hint). Nothing is stored on a refusal.

The BEIR file is made from multi-collection's TREC-COVID qrels (../shared/conformance), in BEIR's
3-field TSV form; its evaluation must equal trec_eval's file for the original qrels.
"""
from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest

from warehouse.commands import trec_eval
from warehouse.commands.irw import app  # noqa: F401  (the Cli fixture's app)

from conftest import fingerprint_at

QRELS = "qrels/qrels.beir-v1.0.0-trec-covid.test.txt"
RUN = "runs/BM25/trec_results_covid.txt"
EXPECTED = "expected/covid.BM25.all_trec.q.v9.txt"


@pytest.fixture
def beir(conformance, tmp_path):
    """covid's qrels as BEIR publishes them: `query-id\tcorpus-id\tscore`, then qid, docid, grade."""
    lines = (conformance / "multi-collection" / QRELS).read_text().splitlines()
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{qid}\t{doc}\t{grade}\n" for qid, _, doc, grade in (line.split() for line in lines)))
    return path


def _hint(error: str) -> str:
    """The command in an error's parentheses: `(tail -n +2 x > y)`."""
    return error[error.index("(", error.index("write the file")) + 1:error.rindex(")")]


def test_ingest_qrels_refuses_the_header_by_name_and_its_hint_works(beir, irw, conformance, tmp_path):
    irw("ingest", "qrels", str(conformance / "multi-collection" / QRELS), "--name", "before")
    before = fingerprint_at(irw.db)
    result = irw("ingest", "qrels", str(beir))
    assert result.exit_code == 1
    error = result.stderr.strip()
    assert error.count("\n") == 0
    assert error.startswith(f"Error: {beir}:1: `query-id corpus-id score` is a header line, not a judgment")
    assert "not an integer" not in error
    assert fingerprint_at(irw.db) == before  # nothing stored
    command = _hint(error)
    assert command == f"tail -n +2 {beir} > {tmp_path / 'test.qrels'}"
    subprocess.run(command, shell=True, check=True, cwd=tmp_path)
    result = irw("ingest", "qrels", str(tmp_path / "test.qrels"))
    assert result.exit_code == 0, result.stderr


def test_trec_eval_refuses_the_header_and_its_hint_gives_trec_eval_numbers(beir, conformance, tmp_path):
    folder = conformance / "multi-collection"
    run = folder / RUN
    status = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", "-q", "-m", "all_trec", str(beir), str(run)], capture_output=True,
                            text=True, cwd=tmp_path)
    assert status.returncode == 2 and status.stdout == ""
    assert status.stderr.startswith(f"Error: {beir}:1: `query-id corpus-id score` is a header line")
    subprocess.run(_hint(status.stderr.strip()), shell=True, check=True, cwd=tmp_path)
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "all_trec", str(tmp_path / "test.qrels"), str(run)], out)
    assert out.getvalue() == (folder / EXPECTED).read_text()


def test_a_compressed_file_gets_a_command_that_decompresses(beir, irw, tmp_path):
    packed = tmp_path / "test.tsv.gz"
    packed.write_bytes(gzip.compress(beir.read_bytes()))
    result = irw("ingest", "qrels", str(packed))
    assert result.exit_code == 1
    command = _hint(result.stderr.strip())
    assert command.startswith(f"zcat {packed} | tail -n +2 > ")
    subprocess.run(command, shell=True, check=True, cwd=tmp_path)
    assert irw("ingest", "qrels", str(tmp_path / "test.qrels")).exit_code == 0


def test_beir_qrels_given_as_a_run_say_they_are_qrels(beir, irw, conformance, tmp_path):
    """Given as a run, the header no longer hides what the file is: `irw ingest qrels` is named (and
    that command then names the header); irw trec-eval asks whether the files were swapped."""
    result = irw("ingest", "run", str(beir))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Error: {beir}: looks like a qrels file (3 fields: qid docid grade), not a run (its line 1, "
        "`query-id corpus-id score`, is a header); qrels are ingested with `irw ingest qrels`")
    assert "is a header line" in irw("ingest", "qrels", str(beir)).stderr
    run = conformance / "multi-collection" / RUN
    status = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", str(run), str(beir)], capture_output=True, text=True)
    assert status.returncode == 2
    assert "did you swap QRELS and RUN?" in status.stderr


def test_a_run_with_a_header_line_is_refused_by_name(irw, conformance, tmp_path):
    lines = (conformance / "multi-collection" / RUN).read_text().splitlines(keepends=True)
    path = tmp_path / "run.txt"
    path.write_text("query_id\tQ0\tdoc_id\trank\tscore\trun\n" + "".join(lines[:50]))
    result = irw("ingest", "run", str(path))
    assert result.exit_code == 1
    error = result.stderr.strip()
    assert error.startswith(f"Error: {path}:1: `query_id Q0 doc_id rank score run` is a header line, not a run line")
    subprocess.run(_hint(error), shell=True, check=True, cwd=tmp_path)
    assert irw("ingest", "run", str(tmp_path / "run.run")).exit_code == 0


def test_a_bad_first_line_with_a_number_is_not_called_a_header(irw, tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 d1 x\n1 0 d2 1\n")
    result = irw("ingest", "qrels", str(path))
    assert "header" not in result.stderr and "not an integer" in result.stderr


@pytest.mark.spark
def test_spark_refuses_the_header_as_local_ingest_does(spark, beir, irw, conformance):
    from warehouse.engines import spark as on_spark
    from warehouse.errors import InputFileError

    local = irw("ingest", "qrels", str(beir)).stderr.strip()
    with pytest.raises(InputFileError) as caught:
        on_spark.evaluate(spark, beir, [conformance / "multi-collection" / RUN], ["AP"])
    assert f"Error: {caught.value}" == local
