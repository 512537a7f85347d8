"""A read-only warehouse's "never computed" error names what stores exactly the scores it lacks.

A user walk on PostgreSQL: a reader's `irw report leaderboard --qrels covid -m nDCG@10 -m AP` was
refused once per run with "Judged@10 of run ... were never computed ...: run `irw eval` with the
same measures and settings first". The same measures (-m nDCG@10 -m AP) stored nothing new: the
leaderboard adds Judged@10 on its own, which the user never named. Now the error says which
measures of which runs were never computed with these settings, then the one `irw eval` command
(with the settings' options as irw eval spells them, and the runs when not every judged one) a
writer runs; a Python caller who opened the warehouse read-only gets the evaluate() call instead.
Each test runs what the message prints, as a writer, and then the refused command again."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import warehouse
from conftest import Cli
from warehouse.errors import ReadOnlyError

RUNS = ("BM25", "REP_LLAMA")
KEY = "level=1;depth=all;judged_only=0;complete=0;compat=9;norel=include"


def ingest_dl19(location, conformance: Path, runs=RUNS) -> None:
    folder = conformance / "dl19-passage"
    with warehouse.open(location) as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([folder / "runs" / f"run.dl19.{run}.txt" for run in runs])


def command_of(stderr: str) -> str:
    """The one `irw eval` command an error's lines hold (between backquotes)."""
    commands = re.findall(r"`(irw eval [^`]*)`", stderr)
    assert len(commands) == 1, stderr
    return commands[0]


def run_as_writer(command: str, writer_url: str) -> None:
    """The command as printed, in a shell, with IRW_DB set to a writing role's URL."""
    done = subprocess.run(["bash", "-c", f'irw() {{ "{sys.executable}" -m warehouse "$@"; }}; {command}'],
                          env={**os.environ, "IRW_DB": str(writer_url)}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Error: ")]


# -- PostgreSQL: a role that may only read, on the command line -------------------------------------

@pytest.mark.postgres
def test_a_reader_is_told_the_eval_command_that_stores_judged_at_10(postgres_url, postgres_readonly_url,
                                                                   conformance, tmp_path):
    ingest_dl19(postgres_url, conformance)
    writer, reader = Cli(postgres_url), Cli(postgres_readonly_url)
    assert writer("eval", "--qrels", "dl19", "-m", "all_trec").exit_code == 0
    board = ["report", "leaderboard", "--qrels", "dl19", "-m", "nDCG@10", "-m", "AP", "-o", str(tmp_path / "b.html")]
    refused = reader(*board)
    assert refused.exit_code == 1
    lines = error_lines(refused.stderr)
    # one line for the runs lacking the same measures, one saying what stores them: not a line per run
    assert lines[0] == f"Error: Judged@10 of runs BM25 and REP_LLAMA: never computed with these settings ({KEY})"
    assert len(lines) == 2, lines
    command = command_of(lines[1])
    # exactly the measure the leaderboard lacks, every judged run (none named), the URL from IRW_DB
    assert command == 'irw eval --db "$IRW_DB" --qrels dl19 -m Judged@10'
    assert "set IRW_DB to the URL of a role that may write" in lines[1]
    password = postgres_readonly_url.split(":")[2].split("@")[0]
    assert password not in refused.stderr and "***" not in command
    run_as_writer(command, postgres_url)
    again = reader(*board)
    assert again.exit_code == 0, again.stderr
    assert (tmp_path / "b.html").is_file()


@pytest.mark.postgres
@pytest.mark.parametrize("options", [
    ["-l", "2", "-M", "100", "-J", "-c", "--norel", "exclude", "--compat", "10", "--num-docs", "8841823"],
    ["--level", "2", "--depth", "20"],
])
def test_a_reader_s_eval_with_settings_is_told_a_command_with_those_settings(options, postgres_url,
                                                                            postgres_readonly_url, conformance):
    ingest_dl19(postgres_url, conformance)
    writer, reader = Cli(postgres_url), Cli(postgres_readonly_url)
    assert writer("eval", "--qrels", "dl19", "-m", "AP", *options).exit_code == 0
    asked = ["eval", "BM25", "--qrels", "dl19", "-m", "AP", "-m", "P@10", "-m", "infAP", *options]
    refused = reader(*asked)
    assert refused.exit_code == 1
    lines = error_lines(refused.stderr)
    assert lines[0].startswith("Error: P@10, infAP of run BM25: never computed with these settings (level=2;depth=")
    command = command_of(refused.stderr)
    # the missing measures, the settings' options, and the run: REP_LLAMA is judged too, and not asked
    assert command.startswith('irw eval --db "$IRW_DB" --qrels dl19 -m P@10 -m infAP -l 2 -M ')
    assert command.endswith(" BM25")
    run_as_writer(command, postgres_url)
    read = reader(*asked, "--format", "csv")
    assert read.exit_code == 0, read.stderr
    assert read.stdout == writer(*asked, "--format", "csv").stdout


@pytest.mark.postgres
def test_a_reader_s_compare_and_history_name_the_command_too(postgres_url, postgres_readonly_url, conformance):
    ingest_dl19(postgres_url, conformance)
    writer, reader = Cli(postgres_url), Cli(postgres_readonly_url)
    assert writer("eval", "--qrels", "dl19", "-m", "AP").exit_code == 0
    for asked in (["compare", "--qrels", "dl19", "-m", "nDCG@10", "--baseline", "BM25", "--format", "csv"],
                  ["report", "history", "--qrels", "dl19", "-m", "Rprec", "--format", "csv"]):
        refused = reader(*asked)
        assert refused.exit_code == 1, refused.stdout
        assert "never computed with these settings" in refused.stderr
        run_as_writer(command_of(refused.stderr), postgres_url)
        again = reader(*asked)
        assert again.exit_code == 0, again.stderr


@pytest.mark.postgres
def test_a_served_page_shows_its_own_command_not_the_library_s(postgres_url, postgres_readonly_url, conformance):
    """irw serve's page says which scores are missing with the library's lines, and the command
    its own: never a second command among the lines."""
    from warehouse.serve.access import ScoresMissing, WarehouseAccess

    ingest_dl19(postgres_url, conformance)
    access = WarehouseAccess(postgres_readonly_url)
    with pytest.raises(ScoresMissing) as missing:
        access.page(lambda wh: wh.evaluate(None, "dl19", ["nDCG@10"]),
                    lambda: access.eval_command("dl19", ["nDCG@10"]))
    assert missing.value.message_lines() == [
        f"nDCG@10 of runs BM25 and REP_LLAMA: never computed with these settings ({KEY})"]
    assert missing.value.command == 'irw eval --db "$IRW_DB" --qrels dl19 -m nDCG@10'


# -- Python: a warehouse opened read-only -------------------------------------------------------------

def test_a_python_reader_of_a_read_only_duckdb_file_is_told_the_evaluate_call(conformance, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest_dl19(db, conformance)
    with warehouse.open(db) as wh:
        wh.evaluate(None, "dl19", ["AP"], level=2, depth=50)
    with warehouse.open(db, read_only=True) as wh:
        with pytest.raises(ReadOnlyError) as refused:
            wh.evaluate("BM25", "dl19", ["AP", "P@10"], level=2, depth=50)
    lines = refused.value.message_lines()
    assert lines[0] == ("P@10 of run BM25: never computed with these settings (level=2;depth=50;judged_only=0;"
                        "complete=0;compat=9;norel=include)")
    assert len(lines) == 2 and "irw eval" not in lines[1] and "read_only=True" in lines[1]
    call = lines[1].rsplit(": ", 1)[1]
    assert call == f"warehouse.open({str(db)!r}).evaluate(['BM25'], 'dl19', ['P@10'], level=2, depth=50)"
    opened, evaluate = call.split(").", 1)  # the message's own call, run as the writer, closed after
    with eval(opened + ")", {"warehouse": warehouse}) as writer:  # noqa: S307
        eval("writer." + evaluate, {"writer": writer})  # noqa: S307
    with warehouse.open(db, read_only=True) as wh:
        assert wh.evaluate("BM25", "dl19", ["AP", "P@10"], level=2, depth=50).value("BM25", "P@10") > 0


def test_a_python_reader_who_asked_all_trec_is_told_all_trec_not_ninety_names(conformance, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest_dl19(db, conformance)

    def refused_lines() -> list[str]:
        with warehouse.open(db, read_only=True) as wh:
            with pytest.raises(ReadOnlyError) as refused:
                wh.evaluate(None, "dl19", "all_trec")
        return refused.value.message_lines()

    lines = refused_lines()
    assert lines[0].startswith("NumQ, NumRet, NumRel, NumRelRet, AP, GMAP, Rprec, Bpref and ")
    assert lines[0].endswith(f" more of runs BM25 and REP_LLAMA: never computed with these settings ({KEY})")
    assert lines[1].endswith(f"warehouse.open({str(db)!r}).evaluate(None, 'dl19', ['all_trec'])")
    # with some of its measures stored, still all_trec: the call computes only the rest (it said the
    # 89 names left, one by one)
    with warehouse.open(db) as wh:
        wh.evaluate(None, "dl19", ["AP", "P@10"])
    lines = refused_lines()
    assert lines[0].startswith("NumQ, NumRet, NumRel, NumRelRet, GMAP, Rprec, Bpref, RR and 83 more of runs ")
    assert lines[1].endswith(f"warehouse.open({str(db)!r}).evaluate(None, 'dl19', ['all_trec'])")


@pytest.mark.postgres
def test_a_python_reader_role_is_told_the_eval_command(postgres_url, postgres_readonly_url, conformance):
    """A role that may only read, from Python: whether a command or a program asked is unknown
    there, and the `irw eval` command, run from a shell, is what stores the scores."""
    ingest_dl19(postgres_url, conformance)
    with warehouse.open(postgres_readonly_url) as wh:
        with pytest.raises(ReadOnlyError) as refused:
            wh.evaluate(None, "dl19", ["nDCG@10"], judged_only=True)
    command = command_of(str(refused.value))
    assert command == 'irw eval --db "$IRW_DB" --qrels dl19 -m nDCG@10 -J'
    run_as_writer(command, postgres_url)
    with warehouse.open(postgres_readonly_url) as wh:
        assert wh.evaluate(None, "dl19", ["nDCG@10"], judged_only=True).value("BM25", "nDCG@10") > 0
