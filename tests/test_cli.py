"""The `irw` command: ingest options, listing, removing, output formats, where the warehouse lives."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import warehouse
from warehouse.commands.irw import app

from conftest import (COMMANDS, RUN_ROWS, Cli, fingerprint_at, help_commands, modules_loaded_by, qrels_text,
                      run_text, write_file)


def runs_in(db_path):
    with warehouse.open(db_path, read_only=True) as wh:
        return wh.sql("select name, system, tag, description, parameters, row_count from runs order by name").rows


# -- ingest ------------------------------------------------------------------------------------

def test_several_run_files_in_one_call_are_named_by_their_tags(irw, db_path, tmp_path):
    files = [write_file(tmp_path, f"run{i}.txt", run_text(RUN_ROWS[: i + 1], tag=f"sys{i}")) for i in range(3)]
    result = irw("ingest", "run", *files)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""  # messages go to stderr; stdout is for data
    assert result.stderr.splitlines() == [
        *(f"ingested run sys{i}: {i + 1} {'line' if i == 0 else 'lines'}, 1 query from {files[i]}" for i in range(3)),
        "3 files: 3 ingested"]  # what became of the batch, counted
    assert [(r[0], r[5]) for r in runs_in(db_path)] == [("sys0", 1), ("sys1", 2), ("sys2", 3)]


def test_one_bad_file_among_several_is_reported_and_nothing_is_stored(irw, db_path, tmp_path):
    good1 = write_file(tmp_path, "a.txt", run_text(RUN_ROWS, tag="a"))
    bad = write_file(tmp_path, "b.txt", run_text(RUN_ROWS, tag="b") + "q9 Q0 d1 1 NaN b\n")
    good2 = write_file(tmp_path, "c.txt", run_text(RUN_ROWS, tag="c"))
    result = irw("ingest", "run", good1, bad, good2)
    assert result.exit_code == 1
    assert f"Error: {bad}:5: score NaN is not finite" in result.stderr.splitlines()
    assert result.stderr.splitlines()[-1] == "Error: nothing was stored: 1 of 3 files cannot be ingested as they are; fix the files named above, or leave them out, and run the command again"
    # the batch is checked whole before anything is stored (a new warehouse is not even left behind)
    assert not db_path.exists() or runs_in(db_path) == []


def test_name_with_several_files_is_a_usage_error(irw, db_path, tmp_path):
    files = [write_file(tmp_path, f"r{i}.txt", run_text(RUN_ROWS, tag=f"t{i}")) for i in range(2)]
    result = irw("ingest", "run", *files, "--name", "one")
    assert result.exit_code == 2
    assert "--name names one run" in result.stderr
    assert not db_path.exists()  # refused before anything was opened or created


def test_name_system_description_and_params_are_stored(irw, db_path, tmp_path):
    path = write_file(tmp_path, "r.txt", run_text(RUN_ROWS, tag="bm25"))
    result = irw("ingest", "run", path, "--name", "bm25-tuned", "--system", "bm25", "--description",
                 "k1 and b tuned on dev", "--param", "k1=1.2", "--param", "b=0.75", "--param", "note=a=b")
    assert result.exit_code == 0, result.stderr
    assert runs_in(db_path) == [("bm25-tuned", "bm25", "bm25", "k1 and b tuned on dev",
                                 {"k1": "1.2", "b": "0.75", "note": "a=b"}, 4)]


def test_system_defaults_to_the_run_name(irw, db_path, tmp_path):
    irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS, tag="dense")))
    assert runs_in(db_path) == [("dense", "dense", "dense", None, {}, 4)]


@pytest.mark.parametrize("bad", ["k1", "=1.2"])
def test_malformed_param_is_a_usage_error(bad, irw, db_path, tmp_path):
    result = irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS)), "--param", bad)
    assert result.exit_code == 2
    assert f"--param takes key=value, got {bad!r}" in result.stderr
    assert not db_path.exists()


def test_same_bytes_again_is_a_no_op_that_says_so(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "again.run", run_text(RUN_ROWS))  # the bytes of the seeded run tagA
    qpath = write_file(tmp_path, "again.qrels", qrels_text())
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 0
    assert result.stderr.startswith("run tagA already holds these bytes (sha256 ")
    assert f" of {path}; " in result.stderr  # every message names its file
    assert result.stderr.rstrip().endswith("nothing to do")
    qresult = irw("ingest", "qrels", qpath, "--name", "base")
    assert qresult.exit_code == 0
    assert qresult.stderr.startswith("qrels base already holds these bytes")
    assert fingerprint_at(seeded_db) == before


def test_same_name_other_bytes_needs_replace(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "changed.run", run_text(RUN_ROWS[:1]))
    before = fingerprint_at(seeded_db)
    refused = irw("ingest", "run", path, "--name", "tagA")
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"Error: {path}: run tagA already exists with different content; pass `--replace`")
    assert fingerprint_at(seeded_db) == before
    replaced = irw("ingest", "run", path, "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    assert replaced.stderr.startswith(f"replaced run tagA: 1 line, 1 query from {path}")
    assert [(r[0], r[5]) for r in runs_in(seeded_db)] == [("tagA", 1)]


def test_qrels_name_taken_needs_replace(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "other.qrels", "q1 d1 1\n")
    refused = irw("ingest", "qrels", path, "--name", "base")
    assert refused.exit_code == 1 and "--replace" in refused.stderr
    assert irw("ingest", "qrels", path, "--name", "base", "--replace").exit_code == 0
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert wh.sql("select query_id, doc_id, grade from qrels").rows == [("q1", "d1", 1)]
        assert wh.qrels_sets().column("judgments") == [1]


def test_qrels_name_defaults_to_the_file_name(irw, db_path, tmp_path):
    result = irw("ingest", "qrels", write_file(tmp_path, "qrels.robust04.txt.gz", qrels_text()))
    assert result.exit_code == 0, result.stderr
    with warehouse.open(db_path, read_only=True) as wh:
        assert wh.qrels_sets().column("name") == ["qrels.robust04"]


# -- rm ----------------------------------------------------------------------------------------

def test_rm_run_removes_the_run_and_its_rows(seeded_db, irw, tmp_path):
    irw("ingest", "run", write_file(tmp_path, "other.run", run_text(RUN_ROWS, tag="other")))
    result = irw("rm", "run", "tagA")
    assert result.exit_code == 0 and result.stderr == "removed run tagA\n"
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert wh.runs().column("name") == ["other"]
        assert wh.sql("select count(*) from run_rows").rows == [(4,)]
        assert wh.sql("select count(*) from qrels").rows == [(4,)]  # qrels untouched


def test_rm_qrels_removes_the_set_and_its_judgments(seeded_db, irw):
    result = irw("rm", "qrels", "base")
    assert result.exit_code == 0 and result.stderr == "removed qrels base\n"
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert wh.sql("select (select count(*) from qrels_sets), (select count(*) from qrels), "
                      "(select count(*) from run_rows)").rows == [(0, 0, 4)]


@pytest.mark.parametrize("kind, listing", [("run", "irw runs"), ("qrels", "irw qrels")])
def test_rm_unknown_name_says_where_to_look(kind, listing, seeded_db, irw):
    before = fingerprint_at(seeded_db)
    result = irw("rm", kind, "nope")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: no {'run' if kind == 'run' else 'qrels set'} named 'nope'; ")
    # the one qrels set stored is named (the docs walk), and the listing command either way
    assert result.stderr.endswith(f"`{listing}` lists the stored {'runs' if kind == 'run' else 'sets'}\n")
    assert ("the only stored set is base; " in result.stderr) == (kind == "qrels")
    assert fingerprint_at(seeded_db) == before


def test_rm_on_a_missing_warehouse_creates_nothing(irw, db_path):
    result = irw("rm", "run", "x")
    assert result.exit_code == 1
    assert f"no warehouse at {db_path}" in result.stderr
    assert not db_path.exists()


# -- listings and formats -------------------------------------------------------------------------

def test_runs_listing_in_every_format(seeded_db, irw):
    table = irw("runs")
    assert table.exit_code == 0
    header, rule, row = table.stdout.splitlines()
    assert header.split() == ["name", "system", "tag", "rows", "queries", "date", "date_source", "ingested_at",
                              "description", "parameters", "judged_by"]
    assert set(rule) == {"-", " "}
    assert row.split()[:5] == ["tagA", "tagA", "tagA", "4", "2"]

    rows = list(csv.DictReader(io.StringIO(irw("runs", "--format", "csv").stdout)))
    assert [(r["name"], r["rows"], r["queries"]) for r in rows] == [("tagA", "4", "2")]
    rows = list(csv.DictReader(io.StringIO(irw("runs", "-f", "tsv").stdout), delimiter="\t"))
    assert [(r["name"], r["tag"]) for r in rows] == [("tagA", "tagA")]
    (run,) = json.loads(irw("runs", "--format", "json").stdout)
    assert (run["name"], run["rows"], run["queries"], run["description"]) == ("tagA", 4, 2, None)
    assert run["judged_by"] == "base 2/2"  # the stored qrels sets that judge its queries, and how many
    assert run["ingested_at"].startswith("20")


def test_qrels_listing_in_every_format(seeded_db, irw):
    (qrels,) = json.loads(irw("qrels", "--format", "json").stdout)
    # QRELS_ROWS: q1 d1 2, q1 d3 0, q2 d1 1, q2 d9 -1 -> 2 queries, 4 judgments, 2 with grade >= 1
    assert (qrels["name"], qrels["queries"], qrels["judgments"], qrels["relevant"]) == ("base", 2, 4, 2)
    rows = list(csv.reader(io.StringIO(irw("qrels", "--format", "csv").stdout)))
    assert rows[0] == ["name", "queries", "judgments", "relevant", "created_at", "description"]
    assert rows[1][:4] == ["base", "2", "4", "2"]
    assert irw("qrels").stdout.splitlines()[2].split()[:4] == ["base", "2", "4", "2"]


def test_empty_listings_keep_their_headers_say_what_fills_them_and_exit_1(irw, db_path, _templates):
    """An empty listing is not an answer: exit status 1, as grep's when nothing matches (it was 0,
    so a nightly script took an empty warehouse for a full one)."""
    import shutil

    shutil.copyfile(_templates["empty"], db_path)
    runs = irw("runs", "--format", "json")
    assert runs.exit_code == 1 and json.loads(runs.stdout) == []
    # and say on stderr what fills them (a bare header said nothing)
    assert runs.stderr == "# no run is stored; ingest runs with `irw ingest run FILE...`\n"
    qrels = irw("qrels", "--format", "csv")
    assert qrels.exit_code == 1 and qrels.stdout == "name,queries,judgments,relevant,created_at,description\n"
    assert qrels.stderr == "# no qrels set is stored; ingest one with `irw ingest qrels FILE`\n"
    measures = irw("measures", "list", "--format", "csv")
    assert measures.exit_code == 1 and measures.stdout == "name,parameters,aggregate,description,definition,source\n"
    assert measures.stderr == "# no measure is added to this warehouse; add one with irw measures add FILE\n"


def test_copy_typed_as_cp_says_how_it_names_its_warehouses(irw, db_path, tmp_path):
    """`irw copy A B` said only "Missing option '--from'"; the command it shows runs, with a
    password masked."""
    import shlex

    for argv, shows in (([str(db_path), "my copy.duckdb"], f"irw copy --from {db_path} --to 'my copy.duckdb'"),
                        ([str(db_path), "postgresql://u:secret@h/db"],
                         f"irw copy --from {db_path} --to 'postgresql://u:***@h/db'"),
                        (["--from", str(db_path)], f"irw copy --from {db_path} --to TO"),
                        ([], "irw copy --from FROM --to TO")):
        refused = irw("copy", *argv, db=False)
        assert refused.exit_code == 2 and refused.stdout == "", argv
        assert refused.stderr == f"Error: irw copy names the two warehouses with --from and --to: `{shows}`\n"
        assert "secret" not in refused.stderr
    write_file(tmp_path, "q.txt", qrels_text())
    assert irw("ingest", "qrels", tmp_path / "q.txt").exit_code == 0
    target = tmp_path / "my copy.duckdb"
    (command,) = irw("copy", str(db_path), str(target), db=False).stderr.split("`")[1:2]
    copied = irw(*shlex.split(command)[1:], db=False)
    assert copied.exit_code == 0, copied.stderr
    assert irw("qrels", "--db", str(target), db=False).stdout == irw("qrels").stdout
    # taken, but not shown as an argument of its usage (it said `irw copy [OPTIONS] [given]...`)
    usage = next(line for line in irw("copy", "--help", db=False).stdout.splitlines() if "Usage:" in line)
    assert usage.split() == ["Usage:", "irw", "copy", "[OPTIONS]"], usage


def test_unknown_format_is_a_usage_error(seeded_db, irw):
    result = irw("runs", "--format", "xml")
    assert result.exit_code == 2
    assert "xml" in result.stderr


# -- where the warehouse lives ------------------------------------------------------------------

def test_irw_db_environment_variable(seeded_db, tmp_path):
    cli = Cli(seeded_db)
    result = cli("runs", "--format", "csv", db=False, env={"IRW_DB": str(seeded_db)})
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].startswith("tagA,")


def test_db_option_wins_over_the_environment(seeded_db, tmp_path):
    elsewhere = tmp_path / "elsewhere.duckdb"
    result = Cli(seeded_db)("runs", "--format", "csv", env={"IRW_DB": str(elsewhere)})
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1].startswith("tagA,")
    assert not elsewhere.exists()


def test_default_warehouse_is_irw_duckdb_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IRW_DB", raising=False)
    cli = Cli(tmp_path / "unused")
    result = cli("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS)), db=False)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "irw.duckdb").exists()
    assert runs_in(tmp_path / "irw.duckdb")[0][0] == "tagA"


@pytest.mark.parametrize("command", [["runs"], ["qrels"], ["sql", "select 1"]])
def test_read_only_command_on_a_missing_warehouse(command, irw, db_path):
    result = irw(*command)
    assert result.exit_code == 1
    assert result.stderr == (f"Error: no warehouse at {db_path}; create one with `irw ingest` "
                             "or pass --db / IRW_DB\n")
    assert not db_path.exists()


def test_a_file_that_is_not_a_warehouse(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("not a database\n")
    result = Cli(path)("runs")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot open warehouse {path}: ")
    assert "not a valid DuckDB database file" in result.stderr


def test_a_warehouse_another_process_is_writing(seeded_db, monkeypatch):
    # DuckDB allows one writing process per file; a second gets a clear message, not a traceback
    # (at once here: test_open.py and test_concurrency.py test the wait before it)
    monkeypatch.setenv("IRW_BUSY_WAIT", "0")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, warehouse; wh = warehouse.open(sys.argv[1]); print('open', flush=True); "
                               "sys.stdin.read()", str(seeded_db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        result = Cli(seeded_db)("runs")
    finally:
        holder.communicate("")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot open warehouse {seeded_db}: ")
    assert "another process" in result.stderr


# Commands that print nothing on stdout but messages, and the trec_eval drop-in whose output is
# trec_eval's own format. Every other command prints data and takes --format (DESIGN: house rules).
NOT_PRINTING_DATA = {"ingest run", "ingest qrels", "ingest prefs", "rm run", "rm qrels", "rename run", "rename qrels",
                     "edit run", "trec-eval", "copy", "export", "serve", "measures add", "measures rm"}


def _commands(group, prefix=""):
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _commands(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", command


def test_every_printing_command_takes_format():
    from typer.main import get_command

    commands = dict(_commands(get_command(app)))
    assert {"runs", "qrels", "sql", "demo", "ingest run", "rm qrels"} <= set(commands)
    missing = [name for name, command in sorted(commands.items())
               if name not in NOT_PRINTING_DATA
               and "--format" not in {opt for param in command.params for opt in getattr(param, "opts", [])}]
    assert missing == []


def test_help_lists_the_commands():
    """Each command is a row of the commands panel (a word anywhere in the text would also match
    inside a description: "rm" in "information")."""
    result = Cli(None)("--help", db=False)
    assert result.exit_code == 0
    assert sorted(help_commands(result.stdout)) == sorted(COMMANDS)


def test_help_commands_reads_rows_not_words():
    """The reader above finds nothing in text that merely mentions the commands."""
    assert help_commands("Usage: irw [OPTIONS]\n  ingest runs, qrels, rm, sql and demo: information\n") == []
    panel = ("╭─ Commands ───╮\n│ runs   List the stored runs.  │\n│ sql    Run SQL (tables: runs, │\n"
             "│        qrels, rm ...).        │\n╰──────────────╯\n")
    assert help_commands(panel) == ["runs", "sql"]


@pytest.mark.parametrize("args, says", [
    (["eval", "-m", "AP", "--runs", "runs/"], "--runs: with --engine spark only"),
    (["eval", "-m", "AP", "--into", "other.duckdb"], "--into: with --engine spark only"),
    (["eval", "-m", "AP", "--engine", "spark", "--runs", "runs/"], "give --qrels FILE and --runs PATH"),
    (["eval", "-m", "AP", "--engine", "spark", "--qrels", "q.txt"], "give --qrels FILE and --runs PATH"),
    (["eval", "-m", "AP", "--engine", "spark", "--qrels", "q.txt", "BM25"], "with --engine spark, runs are files"),
    # a walk typed the synopsis's `--runs PATH...` as `--runs A B C`: B and C came as stored run names
    (["eval", "-m", "AP", "--engine", "spark", "--qrels", "q.txt", "--runs", "r/", ".", "/"],
     "--runs takes one path; repeat it for each: `--runs r/ --runs . --runs /` (. came as a stored run's name"),
    (["eval", "-m", "AP", "--engine", "spark", "--qrels", "q.txt", "--runs", "r/", "--recompute"],
     "an evaluation on Spark always computes"),
])
def test_eval_on_spark_usage_errors_say_what_to_do_before_spark_starts(irw, db_path, args, says):
    result = irw(*args, db=False)
    assert result.exit_code == 2 and says in result.stderr and result.stdout == ""
    assert not db_path.exists()


@pytest.mark.parametrize("given, meant", [("history", "irw report history"), ("leaderboard", "irw report leaderboard")])
def test_a_subcommand_typed_alone_names_its_command(given, meant, irw):
    """`irw history` said only "No such command 'history'"; a close top-level name (run: runs) is
    still Click's own hint."""
    result = irw(given, db=False)
    assert result.exit_code == 2
    assert f"No such command '{given}'; did you mean {meant}?" in result.output
    assert "Did you mean 'runs'?" in irw("run", db=False).output


@pytest.mark.parametrize("argv", [["runs"], ["eval", "-m", "AP", "-m", "nDCG@10", "--qrels", "base"],
                                  ["report", "leaderboard", "--qrels", "base", "-m", "AP", "--format", "tsv"]],
                         ids=["runs", "eval", "report"])
def test_a_command_does_not_load_pydantic(seeded_db, argv):
    """Typer 0.29 requires pydantic and imported it to check the parameters of whatever command
    ran: ~80 ms and 10 MB of every irw command. pyproject.toml holds Typer below 0.29; a Typer that
    loads pydantic again fails here."""
    done, loaded = modules_loaded_by([*argv, "--db", str(seeded_db)], seeded_db.parent)
    assert "tagA" in done.stdout
    pydantic = [m for m in loaded if m.split(".")[0] == "pydantic"]
    assert pydantic == [], pydantic


def test_no_help_text_is_cut_in_an_80_column_terminal():
    """Rich cuts a word longer than its column with an ellipsis: a newcomer's `irw eval --help` showed
    `postgresql://USER:PASSWO…` and `irw ingest run --help` `YYYY-MM-DDTHH:MM[:SS]…`."""
    from typer.main import get_command

    runner = Cli(Path("unused.duckdb")).runner
    cut = {}
    for name, _command in [("", None), *_commands(get_command(app))]:
        if name == "trec-eval":
            continue  # trec_eval's own usage text, not Rich's
        result = runner.invoke(app, [*name.split(), "--help"], env={"COLUMNS": "80", "TERM": "xterm"})
        assert result.exit_code == 0, name
        if lines := [line for line in result.stdout.splitlines() if "\u2026" in line]:
            cut[name] = lines
    assert cut == {}


@pytest.mark.parametrize("command", [[], ["ingest", "run"], ["eval"], ["report", "leaderboard"], ["measures", "add"]])
def test_every_command_takes_h_for_help_as_trec_eval_does(command):
    # a team walk's `irw ingest run -h` said "No such option: -h"; irw trec-eval -h prints its own flags
    runner = Cli(Path("unused.duckdb")).runner
    by_h, by_help = (runner.invoke(app, [*command, flag]) for flag in ("-h", "--help"))
    assert by_h.exit_code == by_help.exit_code == 0 and by_h.stdout == by_help.stdout and "Usage:" in by_h.stdout
