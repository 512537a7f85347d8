"""A user's walk of `irw eval --engine spark` (pyspark 4, local mode): swapped qrels and runs said as
swapped, with the command or call in the right order; a naming note that names only the options
`irw eval --engine spark --into` takes; --db and --replace without --into refused; a missing file, a
folder without files and an .xz file refused before the JVM starts (which costs 15-65 s); and
docs/python.md's Spark example, run as printed.

The checks made before the JVM starts are held to it: warehouse.engines.spark.command_session (where
the session, and so the JVM, starts) raises here, so a check made later fails the test. Only the
docs example starts a JVM, in a Python process of its own as a user runs it (this file takes no
`spark` fixture, whose files share one worker: tests/conftest.py ONE_WORKER)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from conftest import spark_conf_dir
from docs_pages import section as docs_section
from warehouse.commands.irw import app
from warehouse.engines import spark as on_spark
from warehouse.errors import InputFileError, UsageError
from warehouse.ingestion import batch
from warehouse.ingestion.files import QRELS_FILE_LOOKS, SwappedFileError


class JvmStarted(Exception):
    """Raised where the Spark session would start: nothing before it may start the JVM."""


@pytest.fixture
def no_jvm(monkeypatch):
    def refused(master=None):
        raise JvmStarted(f"the Spark session was started (master {master!r})")

    monkeypatch.setattr(on_spark, "command_session", refused)


@pytest.fixture
def dl19(tmp_path, conformance, monkeypatch) -> Path:
    """A folder holding the DL19 qrels and runs/, as the walk's: the current folder."""
    source = conformance / "dl19-passage"
    (tmp_path / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (tmp_path / "runs").symlink_to(source / "runs", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def irw(*argv: str, env: dict | None = None):
    return CliRunner().invoke(app, list(argv), env=env, catch_exceptions=False)


# -- A1: swapped files ------------------------------------------------------------------------------
def test_swapped_qrels_and_runs_are_said_swapped_with_the_corrected_command_before_the_jvm_starts(dl19, no_jvm):
    result = irw("eval", "--engine", "spark", "--master", "local[2]", "--qrels", "runs/run.dl19.BM25.txt",
                 "--runs", "qrels.dl19-passage.txt", "-m", "AP")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "Error: runs/run.dl19.BM25.txt: looks like a run file (6 fields: qid Q0 docid rank score tag), not qrels; "
        "did you swap --qrels and --runs? (irw eval --engine spark --master 'local[2]' --qrels qrels.dl19-passage.txt "
        "--runs runs/run.dl19.BM25.txt -m AP)\n")


def test_evaluate_on_spark_says_swapped_qrels_and_runs_in_the_call_s_terms_before_the_jvm_starts(dl19, no_jvm):
    with pytest.raises(SwappedFileError) as refused:
        warehouse.evaluate_on_spark("runs/run.dl19.BM25.txt", "qrels.dl19-passage.txt", ["AP"])
    assert str(refused.value) == (
        "runs/run.dl19.BM25.txt: looks like a run file (6 fields: qid Q0 docid rank score tag), not qrels; it was "
        "given as qrels, and runs (qrels.dl19-passage.txt) looks like a qrels file (4 fields: qid iter docid grade), "
        "not a run: swap them, evaluate_on_spark(qrels, runs, measures)")
    # a folder of runs given as qrels' partner: still asked, in the call's terms
    with pytest.raises(SwappedFileError, match=r"did you swap qrels and runs\? the qrels come first: "
                                               r"evaluate_on_spark\(qrels, runs, measures\)$"):
        warehouse.evaluate_on_spark("runs/run.dl19.BM25.txt", "runs/", ["AP"])


def test_a_qrels_file_spark_read_as_a_run_is_said_in_the_callers_terms(dl19, monkeypatch):
    """What Spark's own check raises in its session (a qrels file given as runs, qrels given as a
    pattern Spark lists) is said as evaluate_files and `irw trec-eval` say it, not as `irw ingest`."""
    from contextlib import nullcontext

    raised = SwappedFileError(Path("qrels.dl19-passage.txt"), QRELS_FILE_LOOKS[4],
                              "qrels are ingested with `irw ingest qrels`")

    def spark_refuses(*args, **kwargs):
        raise raised

    monkeypatch.setattr(on_spark, "command_session", lambda master=None: nullcontext())
    monkeypatch.setattr(on_spark, "evaluate", spark_refuses)
    with pytest.raises(SwappedFileError) as refused:
        warehouse.evaluate_on_spark("qrels.dl19-passage.txt", "qrels.dl19-passage.txt", ["AP"])
    assert str(refused.value).endswith("not a run; runs takes run files, and the qrels come first: "
                                       "evaluate_on_spark(qrels, runs, measures)")
    result = irw("eval", "--engine", "spark", "--qrels", "qrels.dl19-passage.txt", "--runs", "qrels.dl19-passage.txt",
                 "-m", "AP")
    assert result.exit_code == 1 and result.stderr.endswith(
        "not a run; --runs takes run files, and the qrels file is given with --qrels (irw eval --engine spark "
        "--qrels QRELS_FILE --runs RUN_PATH)\n"), result.stderr


# -- A2: the naming note of a run Spark stores ------------------------------------------------------
def test_a_spark_run_named_by_its_file_names_only_options_irw_eval_takes(tmp_path):
    """`irw eval --engine spark --into` takes no --name: its note says what it takes; `irw ingest
    run`'s note keeps its own options."""
    run = tmp_path / "run.dl19.BM25.txt"
    run.write_text("1 Q0 d1 1 2.0 bm25\n")
    stored = lambda name: (1, "other bytes") if name == "bm25" else None  # noqa: E731
    (named,) = batch.name_read_files([(run, "bm25", frozenset({"1"}), "these bytes", None)], stored)
    assert named.name == "run.dl19.BM25"
    assert named.note == (f"{run}: named run.dl19.BM25 from its file name: run bm25 (its tag) holds other content "
                          "(--replace replaces it; rename the file to name the run otherwise)")
    assert "--name" not in named.note


def test_irw_ingest_run_s_naming_note_still_names_its_name_option(tmp_path):
    db = tmp_path / "w.duckdb"
    first, second = tmp_path / "a" / "run.first.txt", tmp_path / "b" / "run.second.txt"
    for path, score in ((first, "2.0"), (second, "3.0")):
        path.parent.mkdir()
        path.write_text(f"1 Q0 d1 1 {score} bm25\n")
    assert irw("ingest", "run", str(first), "--db", str(db)).exit_code == 0
    result = irw("ingest", "run", str(second), "--db", str(db))
    assert result.exit_code == 0, result.stderr
    assert "run bm25 (its tag) holds other content (--replace replaces it, --name names the run)" in result.stderr


# -- A3: --db and --replace without --into ----------------------------------------------------------
def test_spark_with_db_and_no_into_is_refused_before_the_jvm_starts(dl19, no_jvm):
    result = irw("eval", "--engine", "spark", "--db", "mix.duckdb", "--qrels", "qrels.dl19-passage.txt",
                 "--runs", "runs/", "-m", "AP")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: --db mix.duckdb: Spark evaluates the files and stores nothing unless --into: "
                             "pass --into mix.duckdb to store its scores there\n")
    assert not (dl19 / "mix.duckdb").exists()
    both = irw("eval", "--engine", "spark", "--db", "mix.duckdb", "--into", "mix.duckdb", "--qrels",
               "qrels.dl19-passage.txt", "--runs", "runs/", "-m", "AP")
    assert both.exit_code == 2 and "leave out --db" in both.stderr


def test_spark_with_replace_and_no_into_is_refused_before_the_jvm_starts(dl19, no_jvm):
    result = irw("eval", "--engine", "spark", "--replace", "--qrels", "qrels.dl19-passage.txt", "--runs", "runs/",
                 "-m", "AP")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: --replace applies to what --into stores, and Spark stores nothing without "
                             "--into: pass --into WAREHOUSE, or leave out --replace\n")


def test_spark_with_irw_db_in_the_environment_goes_on_to_spark(dl19, no_jvm):
    """IRW_DB, which a user of both engines keeps set, is not --db typed: Spark is started."""
    with pytest.raises(JvmStarted):
        irw("eval", "--engine", "spark", "--qrels", "qrels.dl19-passage.txt", "--runs", "runs/", "-m", "AP",
            env={"IRW_DB": str(dl19 / "mix.duckdb")})


# -- B1: paths checked before the JVM starts --------------------------------------------------------
def test_a_missing_run_file_is_refused_before_the_jvm_starts(dl19, no_jvm):
    result = irw("eval", "--engine", "spark", "--qrels", "qrels.dl19-passage.txt", "--runs", "nosuch.txt",
                 "-m", "AP", "--into", "x.duckdb")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {dl19 / 'nosuch.txt'}: no such file or folder\n"
    with pytest.raises(InputFileError, match="no such file or folder"):
        warehouse.evaluate_on_spark("nosuch-qrels.txt", "runs/", ["AP"])
    with pytest.raises(InputFileError, match="no file matches this pattern"):
        warehouse.evaluate_on_spark("qrels.dl19-passage.txt", "runs/*.nosuch", ["AP"])


def test_an_xz_run_file_is_refused_before_the_jvm_starts(dl19, no_jvm):
    import lzma

    (dl19 / "bm.txt.xz").write_bytes(lzma.compress(b"1 Q0 d1 1 2.0 bm25\n"))
    result = irw("eval", "--engine", "spark", "--qrels", "qrels.dl19-passage.txt", "--runs", "bm.txt.xz", "-m", "AP")
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {dl19 / 'bm.txt.xz'}: xz-compressed, which Spark cannot read: decompress it "
                             "(xz -d) or compress it as .gz, .bz2 or .zst, or evaluate it with --engine duckdb\n")


def test_a_folder_without_run_files_is_refused_before_the_jvm_starts(dl19, no_jvm):
    (dl19 / "empty").mkdir()
    with pytest.raises(InputFileError, match="a folder without run files"):
        warehouse.evaluate_on_spark("qrels.dl19-passage.txt", "empty", ["AP"])


def test_spark_dataframes_and_urls_are_not_looked_at_as_local_paths():
    on_spark.refuse_missing_paths("hdfs:///trec/qrels.txt", ["s3a://bucket/runs/", "hdfs:///trec/run.txt"])
    with pytest.raises(InputFileError, match="xz-compressed"):
        on_spark.refuse_missing_paths("hdfs:///trec/qrels.txt", "hdfs:///trec/run.txt.xz")


# -- A4: docs/python.md's Spark example -------------------------------------------------------------
def test_the_python_page_s_spark_example_prints_what_the_page_shows(dl19, tmp_path):
    """docs/python.md "Evaluating on Spark" (tests/test_docs.py EXAMPLES), run as printed in a Python process of
    its own in the DL19 folder (its own JVM, with the tests' JVM settings)."""
    pytest.importorskip("pyspark")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java 17 runtime")
    section = docs_section("Evaluating on Spark", 2)
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    printed = section.split("prints\n\n```\n", 1)[1].split("```", 1)[0]
    conf = tmp_path / "spark-conf"
    conf.mkdir()
    env = {**os.environ, "SPARK_CONF_DIR": str(spark_conf_dir(conf, {"spark.sql.shuffle.partitions": "4"}))}
    result = subprocess.run([sys.executable, "-c", code], cwd=dl19, capture_output=True, text=True, timeout=600,
                            env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == printed


def test_trec_eval_on_spark_refuses_a_missing_file_before_the_jvm_starts(dl19, no_jvm):
    """As irw eval --engine spark: the file Spark would not find, said before its ~20 s start."""
    for argv, missing in ((["qrels.dl19-passage.txt", "nosuch.txt"], "nosuch.txt"),
                          (["nosuch-qrels.txt", "runs/run.dl19.BM25.txt"], "nosuch-qrels.txt")):
        result = irw("trec-eval", "--engine", "spark", "-m", "map", *argv)
        assert result.exit_code == 2, result.stderr  # trec_eval's "Quit in file"
        assert result.stderr == f"Error: {dl19 / missing}: no such file or folder\n"
