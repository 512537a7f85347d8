"""A folder of runs as publishers ship it holds documents beside the runs (a README.md, a LICENSE,
notes.yaml): `irw ingest run FOLDER` refused the whole batch, advising to turn the README into a
run, and `irw trec-eval QRELS FOLDER` failed ("score file is not a number"). A folder's documents
are now left out of its files (warehouse/ingestion/files.py folder_files), each said once on stderr;
a document given by its own path is read as before.

And Ctrl-C: a command that writes nothing (`irw sql`) said "the steps that finished are kept, the
one under way was rolled back; run the command again to finish"; it now says nothing was changed
(warehouse/__main__.py), and a command that writes says what it said (tests/test_interrupt.py holds
that message for ingest, eval, report, copy and export).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import warehouse
from conftest import qrels_text, run_text, RUN_ROWS, write_file

ROOT = Path(__file__).resolve().parents[1]
README = "# DL19 runs\n\nRankLLM first-stage results, one file per system.\n"
DOCUMENTS = {"README.md": README, "LICENSE": "MIT License\n\nCopyright (c) 2024 the authors\n",
             "notes.yaml": "collection: msmarco-passage\ntopics: dl19\n"}
INTERRUPTED_WRITING = ("Error: interrupted (Ctrl-C): the steps that finished are kept, the one under way was rolled "
                       "back; run the command again to finish (what is stored is not stored again)\n")
INTERRUPTED_READING = "Error: interrupted (Ctrl-C): nothing was changed\n"


def _irw(*args, cwd: Path) -> subprocess.CompletedProcess:
    """`irw ARGS` in a process of its own (its stdout as bytes, its stderr as text)."""
    process = subprocess.run([sys.executable, "-m", "warehouse", *map(str, args)], cwd=cwd, capture_output=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, process.stdout,
                                       process.stderr.decode("utf-8"))


def _note(path: str, document: str, kind: str = "run") -> str:
    plural = "runs" if kind == "run" else f"{kind} files"
    return (f"{path}: left out of the folder's {plural} ({document}, not a {kind} file); give it by its own path "
            "to read it as one")


def _runs_folder(conformance: Path, folder: Path, documents: bool = True) -> Path:
    """The six DL19 runs in folder, with DOCUMENTS beside them when documents."""
    shutil.copytree(conformance / "dl19-passage" / "runs", folder)
    for name, text in DOCUMENTS.items() if documents else ():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


NOTES = [("runs/LICENSE", "a LICENSE document"), ("runs/README.md", "a .md document"),
         ("runs/notes.yaml", "a .yaml document")]


def test_ingest_run_of_a_folder_leaves_its_documents_out(conformance, tmp_path):
    _runs_folder(conformance, tmp_path / "runs")
    result = _irw("ingest", "run", "runs/", "--db", "irw.duckdb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    for path, document in NOTES:
        assert lines.count(_note(path, document)) == 1, result.stderr
    assert not any("README" in line for line in lines if "left out" not in line), result.stderr
    with warehouse.open(tmp_path / "irw.duckdb", read_only=True) as wh:
        assert wh.run_names() == sorted(["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA",
                                         "SPLADE_P_P_ENSEMBLE_DISTIL"])


def test_trec_eval_of_a_folder_prints_what_it_prints_without_its_documents(conformance, tmp_path):
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    _runs_folder(conformance, tmp_path / "runs")
    _runs_folder(conformance, tmp_path / "plain", documents=False)
    with_documents = _irw("trec-eval", "-m", "map", "-m", "ndcg_cut.10", qrels, "runs/", cwd=tmp_path)
    without = _irw("trec-eval", "-m", "map", "-m", "ndcg_cut.10", qrels, "plain/", cwd=tmp_path)
    assert without.returncode == 0 and without.stderr == "", without.stderr
    assert with_documents.returncode == 0, with_documents.stderr
    assert with_documents.stdout == without.stdout  # trec_eval's bytes: the notes are on stderr only
    assert with_documents.stdout.count(b"map") == 6
    assert with_documents.stderr == "".join(_note(path, document) + "\n" for path, document in NOTES)


def _pattern_note(path: str, document: str, pattern: str) -> str:
    return (f"{path}: left out of the files {pattern} matches ({document}, not a run file); give it by its own "
            "path to read it as one")


def test_a_pattern_s_documents_are_left_out_as_a_folder_s(conformance, tmp_path):
    """`'runs/*'`, quoted so the shell left it, matched runs/README.md: trec-eval failed on it and
    ingest refused the batch, where `runs/` left it out."""
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    _runs_folder(conformance, tmp_path / "runs")
    _runs_folder(conformance, tmp_path / "plain", documents=False)
    notes = "".join(_pattern_note(path, document, "runs/*") + "\n" for path, document in NOTES)
    by_pattern = _irw("trec-eval", "-m", "map", qrels, "runs/*", cwd=tmp_path)
    assert by_pattern.returncode == 0, by_pattern.stderr
    assert by_pattern.stdout == _irw("trec-eval", "-m", "map", qrels, "plain/", cwd=tmp_path).stdout
    assert by_pattern.stderr == notes
    ingested = _irw("ingest", "run", "runs/*", "--db", "irw.duckdb", cwd=tmp_path)
    assert ingested.returncode == 0, ingested.stderr
    assert ingested.stderr.startswith(notes), ingested.stderr
    with warehouse.open(tmp_path / "irw.duckdb", read_only=True) as wh:
        assert len(wh.run_names()) == 6
    only = _irw("trec-eval", qrels, "runs/*.md", cwd=tmp_path)
    assert only.returncode != 0 and only.stdout == b""
    assert only.stderr == (_pattern_note("runs/README.md", "a .md document", "runs/*.md") + "\n"
                           "Error: runs/*.md: no run file matches this pattern (only 1 document, left out)\n")


def test_a_folder_of_documents_only_has_no_run_files(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text(README, encoding="utf-8")
    write_file(tmp_path, "q.txt", qrels_text())
    result = _irw("ingest", "run", "docs", "--db", "irw.duckdb", cwd=tmp_path)
    assert result.returncode == 1
    assert _note("docs/README.md", "a .md document") in result.stderr.splitlines()
    assert "Error: docs: a folder without run files" in result.stderr, result.stderr
    trec = _irw("trec-eval", "q.txt", "docs", cwd=tmp_path)
    assert trec.returncode != 0 and trec.stdout == b""
    assert "Error: docs: a folder without run files" in trec.stderr, trec.stderr
    assert _note("docs/README.md", "a .md document") in trec.stderr.splitlines()
    qrels = _irw("ingest", "qrels", "docs", "--db", "irw.duckdb", cwd=tmp_path)
    assert qrels.returncode == 1
    assert _note("docs/README.md", "a .md document", "qrels") in qrels.stderr.splitlines()
    assert "Error: docs: a folder without qrels files" in qrels.stderr, qrels.stderr


def test_a_document_given_by_its_path_is_read(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "README.md").write_text(README, encoding="utf-8")
    result = _irw("ingest", "run", "runs/README.md", "--db", "irw.duckdb", cwd=tmp_path)
    assert result.returncode == 1
    assert "left out" not in result.stderr
    assert "Error: runs/README.md:3: expected 6 fields (qid Q0 docid rank score tag), found 7" in result.stderr, \
        result.stderr


def test_a_qrels_folder_leaves_its_documents_out(tmp_path):
    folder = tmp_path / "judged"
    folder.mkdir()
    write_file(folder, "qrels.dl.txt", qrels_text())
    (folder / "README.md").write_text(README, encoding="utf-8")
    (folder / "COPYING").write_text("GPL\n", encoding="utf-8")
    result = _irw("ingest", "qrels", "judged", "--db", "irw.duckdb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[:2] == [_note("judged/COPYING", "a COPYING document", "qrels"),
                         _note("judged/README.md", "a .md document", "qrels")], result.stderr
    with warehouse.open(tmp_path / "irw.duckdb", read_only=True) as wh:
        assert [row[0] for row in wh.qrels_sets().rows] == ["qrels.dl"]


@pytest.mark.parametrize("name", ["README", "readme.txt", "ReadMe.rst", "LICENCE.md", "license", "NOTICE",
                                  "CHANGELOG.txt", "AUTHORS", "metadata.json", "Notes.YAML", "make_runs.py",
                                  "run.sh", "setup.cfg", "pyproject.toml", "index.html", "paper.pdf", "eval.ipynb",
                                  "settings.ini", "guide.markdown", "page.htm", "a.doc", "b.docx", "c.odt",
                                  "d.yml"])
def test_documents_by_suffix_and_name(name):
    from warehouse.ingestion.files import document_kind

    assert document_kind(Path("runs") / name) is not None


@pytest.mark.parametrize("name", ["run.dl19.BM25.txt", "bm25.run.gz", "BM25.trec", "readme_runs.txt", "licensed.res",
                                  "run.zst", "qrels.dl19-passage.txt", "results.tsv"])
def test_run_files_are_not_documents(name):
    from warehouse.ingestion.files import document_kind

    assert document_kind(Path("runs") / name) is None


def test_the_library_warns_of_a_left_out_document(tmp_path):
    from warehouse.ingestion.files import LeftOutNote, run_files

    (tmp_path / "runs").mkdir()
    write_file(tmp_path / "runs", "a.txt", run_text(RUN_ROWS))
    (tmp_path / "runs" / "README.md").write_text(README, encoding="utf-8")
    with pytest.warns(LeftOutNote, match="README.md: left out of the folder's runs"):
        assert run_files([tmp_path / "runs"]) == [tmp_path / "runs" / "a.txt"]


# -- Ctrl-C ----------------------------------------------------------------------------------------

def test_ctrl_c_in_irw_sql_says_nothing_was_changed(tmp_path):
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
    process = subprocess.Popen([sys.executable, "-m", "warehouse", "sql",
                                "select count(*) from range(100000000000) t(a) where a % 7 = 3", "--db", str(db)],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        time.sleep(3)  # python start-up, opening the warehouse, and the query running
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert stderr == INTERRUPTED_READING
    assert stdout == ""


@pytest.mark.parametrize("argv, message", [
    (["sql", "select 1"], INTERRUPTED_READING),
    (["runs"], INTERRUPTED_READING),
    (["qrels", "--db", "x.duckdb"], INTERRUPTED_READING),
    (["trec-eval", "q.txt", "runs/"], INTERRUPTED_READING),
    (["serve"], INTERRUPTED_READING),
    (["measures"], INTERRUPTED_READING),
    (["measures", "list"], INTERRUPTED_READING),
    # every command that stores, removes or writes something
    (["eval", "--engine", "spark", "--qrels", "q.txt", "--runs", "r", "-m", "map", "--into", "w.duckdb"],
     INTERRUPTED_WRITING),
    (["eval", "-m", "map"], INTERRUPTED_WRITING),
    (["ingest", "run", "runs/"], INTERRUPTED_WRITING),
    (["ingest", "qrels", "q.txt"], INTERRUPTED_WRITING),
    (["measures", "add", "m.sql"], INTERRUPTED_WRITING),
    (["measures", "rm", "m"], INTERRUPTED_WRITING),
    (["compare", "-m", "map"], INTERRUPTED_WRITING),
    (["report", "leaderboard", "-o", "b.html"], INTERRUPTED_WRITING),
    (["rm", "run", "a"], INTERRUPTED_WRITING),
    (["rename", "run", "a", "b"], INTERRUPTED_WRITING),
    (["edit", "run", "a", "--system", "s"], INTERRUPTED_WRITING),
    (["migrate"], INTERRUPTED_WRITING),
    (["copy", "--from", "a.duckdb", "--to", "b.duckdb"], INTERRUPTED_WRITING),
    (["export", "out"], INTERRUPTED_WRITING),
    (["demo"], INTERRUPTED_WRITING),
], ids=lambda value: " ".join(value) if isinstance(value, list) else "reading" if value == INTERRUPTED_READING
   else "writing")
def test_ctrl_c_says_what_the_command_left(argv, message, monkeypatch, capsys):
    from warehouse import __main__ as entry

    monkeypatch.setattr(sys, "argv", ["irw", *argv])
    assert entry.interrupted() == 130
    assert capsys.readouterr().err == message
