"""The CLI declares each shared option and each output format once, and its command list reads
as written: each command's summary (its docstring's first paragraph) is one line, not a paragraph
hard-wrapped in the source and shown broken in `irw --help`."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from warehouse.commands import irw as cli

SOURCE = (Path(__file__).resolve().parent.parent / "warehouse" / "commands" / "irw.py").read_text(encoding="utf-8")


def _commands(command, path: tuple[str, ...] = ("irw",)):
    yield path, command
    if hasattr(command, "commands"):  # a group (Typer's own click, not necessarily the click package's)
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(cli.app)))


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_a_command_summary_is_one_line(path, command):
    summary = (command.help or "").strip().split("\n\n")[0]
    assert "\n" not in summary, f"{' '.join(path)}: its first paragraph is wrapped, and shows so in --help: {summary!r}"


def test_the_command_list_shows_no_broken_line():
    result = CliRunner().invoke(cli.app, ["--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert result.exit_code == 0
    listed = result.stdout.split("Commands", 1)[1]
    # a continuation line of the table: only spaces before the text in the description column
    assert not re.search(r"│ {12,}\S", listed), listed


@pytest.mark.parametrize("flag", ["--format", "--measure", "--qrels", "--db", "--baseline", "--output", "--replace"])
def test_a_shared_option_is_declared_once(flag):
    declared = re.findall(rf"""typer\.Option\(\s*(?:"-\w", )?["']{flag}["']""", SOURCE)
    assert len(declared) == 1, f"{flag} is declared {len(declared)} times in warehouse/commands/irw.py"


def test_the_format_choices_come_from_one_list():
    assert SOURCE.count("Enum(") == 1  # _choices: every format enum (and the engine's) is made by it
    tables = set(cli.TABLE_FORMATS)
    for enum, own in ((cli.SqlFormat, {"jsonl", "parquet", "arrow"}), (cli.EvalFormat, {"trec"}),
                      (cli.CompareFormat, {"latex", "markdown"}),
                      (cli.ReportFormat, {"html", "latex", "markdown"})):
        assert {f.value for f in enum} == tables | own, enum


@pytest.mark.parametrize("argv, flag, default", [
    (["eval"], "--measure", None),  # eval asks for measures: no default
    (["compare"], "--measure", None),  # AP, nDCG@10, P@10 (the reports' DEFAULT_MEASURES)
    (["report", "history"], "--measure", ["AP"]),  # one measure; several are refused (reports.history)
    (["eval"], "--qrels", None),
    (["report", "leaderboard"], "--format", None),  # html, or the format -o's name says (_chosen_format)
    (["eval"], "--format", "table"),
    (["eval"], "--engine", None),  # the engine of --db
])
def test_each_command_keeps_its_default(argv, flag, default):
    command = typer.main.get_command(cli.app)
    for name in argv:
        command = command.commands[name]
    (option,) = [p for p in command.params if flag in p.opts]
    value = option.default.value if hasattr(option.default, "value") else option.default
    assert value == default


@pytest.mark.parametrize("argv, negatable", [
    (["ingest", "qrels"], True), (["ingest", "prefs"], True), (["ingest", "run"], True),
    (["copy"], False), (["export"], False), (["eval"], False), (["measures", "add"], False),
])
def test_replace_takes_what_it_took(argv, negatable):
    """--replace is declared once (_replace_option); the ingest commands still take --no-replace."""
    command = typer.main.get_command(cli.app)
    for name in argv:
        command = command.commands[name]
    (option,) = [p for p in command.params if "--replace" in p.opts]
    assert option.secondary_opts == (["--no-replace"] if negatable else []) and option.default is False
