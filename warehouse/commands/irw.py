"""The `irw` command: a thin shell over the library. Errors become `Error: ...` and an exit code."""
from __future__ import annotations

import difflib
import re
import functools
import inspect
import os
import sys
from collections import Counter
from enum import Enum
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Iterator, List, NoReturn, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from warehouse.formats.escaping import shell_command, shell_join, shell_word
from warehouse.formats import formatting
from warehouse import core
from warehouse.engines.duckdb import DEFAULT_PATH as DEFAULT_DB
from warehouse.engines import ENGINES, evaluates_files
from warehouse.engines import chosen as chosen_engine
from warehouse.errors import BatchError, IrwError, SettingError, UsageError, WarehouseLocked, command_line_terms
from warehouse.formats.formatting import OutputFormat
from warehouse.formats.table import Table
from warehouse.formats.cells import listed_name

if TYPE_CHECKING:
    from warehouse.evaluation.evaluator import Settings
    from warehouse.evaluation.stats import StatsSettings

# `irw --help` lists the commands as a user meets them: data in, numbers, pages, then housekeeping
# (Typer listed them as registered, groups last: ingest came fifteenth)
COMMAND_ORDER = ("ingest", "eval", "trec-eval", "compare", "report", "serve", "sql", "runs", "qrels", "measures",
                 "edit", "rename", "rm", "copy", "export", "migrate", "demo")


class _Commands(TyperGroup):
    """irw's commands: an unknown one that is a subcommand's name (`irw history`, of `irw report
    history`) says which command it is, where Click would say only that there is no such command."""

    def list_commands(self, ctx) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: COMMAND_ORDER.index(name) if name in COMMAND_ORDER else len(COMMAND_ORDER))

    def resolve_command(self, ctx, args: list[str]):
        name = args[0] if args else ""
        # where Click finds a close name of its own (run: runs) it says that instead
        if name and not name.startswith("-") and self.get_command(ctx, name) is None \
                and not difflib.get_close_matches(name, self.commands):
            found = [f"irw {group} {name}" for group, command in sorted(self.commands.items())
                     if name in getattr(command, "commands", {})]
            if found:
                ctx.fail(f"No such command '{name}'; did you mean {' or '.join(found)}?")
        return super().resolve_command(ctx, args)


class _SqlCommand(TyperCommand):
    """irw sql: a query that starts with a -- comment is the query, not an option (Click said "No such
    option: -- note ..." to a walk's `irw sql '-- note\nselect 1'`); an option's name holds no
    whitespace, so an argument starting with -- and holding whitespace is SQL, and goes last, after --."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        commented = [a for a in args if re.match(r"--\S*\s", a)]
        if len(commented) == 1 and "--" not in args:
            args = [a for a in args if a is not commented[0]] + ["--", commented[0]]
        return super().parse_args(ctx, args)


app = typer.Typer(
    name="irw",
    cls=_Commands,
    help="irw: an evaluation warehouse for information retrieval (TREC qrels and runs in DuckDB).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # -h as trec-eval takes it (a team walk's `irw ingest run -h` said "No such option: -h"); every
    # command's context inherits it (trec-eval reads its own -h: help_option_names [] there)
    context_settings={"help_option_names": ["-h", "--help"]},
)
ingest_app = typer.Typer(help="Ingest TREC qrels and run files.", no_args_is_help=True)
rm_app = typer.Typer(help="Remove a run or a qrels set and everything derived from it.", no_args_is_help=True)
rename_app = typer.Typer(help="Rename a run or a qrels set; its scores and history stay with it.", no_args_is_help=True)
edit_app = typer.Typer(help="Change a stored run's system, description, date or parameters.", no_args_is_help=True)


def _print_version(value: bool) -> None:
    if value:
        from warehouse.engines.duckdb import latest_schema_version
        from warehouse.version import __version__

        # the schema too: what a warehouse a newer irw wrote names when this irw refuses it
        typer.echo(f"irw {__version__} (warehouse schema {latest_schema_version()})")
        raise typer.Exit()


@app.callback()
def _main_options(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print irw's version and exit.")] = False,
) -> None:
    """irw: an evaluation warehouse for information retrieval (TREC qrels and runs in DuckDB)."""
    # the library's errors name this command's options (--replace), not a Python caller's arguments
    ctx.with_resource(command_line_terms())
    if ctx.invoked_subcommand != "serve":  # a server's requests run on threads of their own, and its log is its own
        ctx.with_resource(_steps_on_terminal())
    # A name the terminal's encoding cannot write (PYTHONIOENCODING=latin-1) goes out as \uXXXX
    # instead of ending the command in a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass  # not a text stream of its own (a test's capture)


app.add_typer(ingest_app, name="ingest")
app.add_typer(rm_app, name="rm")
app.add_typer(rename_app, name="rename")
app.add_typer(edit_app, name="edit")

# A str, not a Path: Path would turn postgresql://host/db into postgresql:/host/db, which the
# library could no longer tell from a file name (it opens PostgreSQL URLs and refuses other URLs).
DbOption = Annotated[
    str, typer.Option("--db", envvar="IRW_DB", help="Warehouse: a DuckDB file (default ./irw.duckdb, or $IRW_DB) "
                                                     "or a PostgreSQL URL (postgresql://..., docs/engines.md).")
]

# -- output formats: each named once here; a command takes the ones it can write -------------------
TABLE_FORMATS = tuple(f.value for f in OutputFormat)  # any table: table, csv, tsv, json (warehouse/formats/formatting.py)
PAPER_FORMATS = ("latex", "markdown")  # a runs x measures table for a paper (warehouse/reports/paper.py)


def _choices(name: str, *values: str) -> type[Enum]:
    """An option's choices, as Typer takes them."""
    return Enum(name, {value: value for value in values}, type=str)


def _format_option(help: str = "Output format.") -> typer.models.OptionInfo:
    return typer.Option("--format", "-f", help=help)


SqlFormat = _choices("SqlFormat", *TABLE_FORMATS, "jsonl", *formatting.FILE_FORMATS)
EvalFormat = _choices("EvalFormat", *TABLE_FORMATS, "trec")
CompareFormat = _choices("CompareFormat", *TABLE_FORMATS, *PAPER_FORMATS)
ReportFormat = _choices("ReportFormat", "html", *TABLE_FORMATS, *PAPER_FORMATS)  # the leaderboard's
PageFormat = _choices("PageFormat", "html", *TABLE_FORMATS)  # report run, compare, history: no paper table
FormatOption = Annotated[OutputFormat, _format_option()]


# -- options more than one command takes: each declared once --------------------------------------
def _measure_option(help: str) -> typer.models.OptionInfo:
    """-m / --measure. What it takes and its default are each command's: eval needs one measure or more,
    compare and the reports default to AP, nDCG@10, P@10, history follows one measure (AP by default)."""
    return typer.Option("-m", "--measure", help=help)


def _baseline_option(help: str = "Run every other run is tested against.") -> typer.models.OptionInfo:
    return typer.Option("--baseline", help=help)


def _output_option(help: str) -> typer.models.OptionInfo:
    return typer.Option("-o", "--output", help=help)


def _replace_option(help: str, *, negatable: bool = False) -> typer.models.OptionInfo:
    """--replace. The ingest commands also take --no-replace (their default, as they always have);
    copy, export, eval --into and measures add take --replace alone."""
    return typer.Option("--replace" + ("/--no-replace" if negatable else ""), help=help)


def _qrels_option(more: str = "", *, help: str | None = None) -> typer.models.OptionInfo:
    return typer.Option("--qrels", help=help or f"Stored qrels set to evaluate against (may be left out when one stored "
                                                f"set alone judges the runs chosen){more}.")


# The evaluation settings, shared by eval, compare and the reports.
QrelsOption = Annotated[Optional[str], _qrels_option()]
CompleteOption = Annotated[bool, typer.Option("--complete", "-c", help="Every qrels query counts; missing ones "
                                              "score 0 (trec_eval -c).")]
LevelOption = Annotated[int, typer.Option("--level", "-l", help="Relevant means grade >= level (0 or more).")]
DepthOption = Annotated[Optional[int], typer.Option("--depth", "-M", help="Only the top N documents count.")]
JudgedOnlyOption = Annotated[bool, typer.Option("--judged-only", "-J", help="Drop unjudged documents.")]
CompatOption = Annotated[int, typer.Option("--compat", help="trec_eval version conventions: 9 (9.0.8) or 10.")]
NorelOption = Annotated[str, typer.Option("--norel", help="Queries without relevant documents: include or exclude.")]
NumDocsOption = Annotated[int, typer.Option(
    "--num-docs", help="Documents in the collection (trec_eval -N); only utility's fourth coefficient reads it.")]
SystemOption = Annotated[Optional[List[str]], typer.Option(
    "--system", help="Only the runs of this system; repeatable.")]
RUNS_HELP = ("Stored run names and shell-style patterns ('BM25*'; case-sensitive) (default: every stored run); "
             "with --qrels, the runs a pattern, --system or the default chose that it does not judge are left "
             "out (irw runs shows which sets judge each run).")


class TestName(str, Enum):
    randomization = "randomization"
    ttest = "ttest"
    bootstrap = "bootstrap"


class CorrectionName(str, Enum):
    holm = "holm"
    bonferroni = "bonferroni"
    bh = "bh"
    none = "none"


TestOption = Annotated[TestName, typer.Option("--test", help="Paired two-sided test.")]
AlphaOption = Annotated[float, typer.Option("--alpha", help="Significance level (after correction).")]
CorrectionOption = Annotated[CorrectionName, typer.Option(
    "--correction", help="Multiple-testing correction over every comparison the report makes.")]
PermutationsOption = Annotated[int, typer.Option(
    "--permutations", help="Randomization sign flips, and bootstrap resamples (also for the confidence interval).")]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the permutations and resamples.")]


# -- options shared by eval, compare and the reports: declared once --------------------------------
# A command decorated with @shared_options names `settings` and/or `stats` among its parameters
# (keyword-only: Typer passes every value by name); the decorator puts the group's options in their
# place in the signature Typer reads (so --help lists them there) and hands the command the Settings /
# StatsSettings built from them.
SETTINGS_OPTIONS = (
    ("complete", CompleteOption, False),
    ("level", LevelOption, 1),
    ("depth", DepthOption, None),
    ("judged_only", JudgedOnlyOption, False),
    ("compat", CompatOption, 9),
    ("norel", NorelOption, "include"),
    ("num_docs", NumDocsOption, 0),
)
STATS_OPTIONS = (
    ("test", TestOption, TestName.randomization),
    ("alpha", AlphaOption, 0.05),
    ("correction", CorrectionOption, CorrectionName.holm),
    ("permutations", PermutationsOption, 10_000),
    ("seed", SeedOption, 0),
)


def _settings(complete: bool, level: int, depth: Optional[int], judged_only: bool, compat: int, norel: str,
              num_docs: int = 0):
    from warehouse.evaluation.evaluator import Settings

    return Settings(level=level, depth=depth, judged_only=judged_only, complete=complete, compat=compat, norel=norel,
                    num_docs=num_docs)


def _stats(test: TestName, alpha: float, correction: CorrectionName, permutations: int, seed: int):
    from warehouse.evaluation.stats import StatsSettings

    return StatsSettings(test=test.value, alpha=alpha, correction=correction.value, permutations=permutations,
                         seed=seed)


_GROUPS = {"settings": (SETTINGS_OPTIONS, _settings), "stats": (STATS_OPTIONS, _stats)}
# Typer keeps an Annotated option's first name as its `default`, the others in param_decls
OPTION_OF_SETTING = {name: next(word for word in (option.default, *option.param_decls) if str(word).startswith("--"))
                     for name, annotation, _ in (*SETTINGS_OPTIONS, *STATS_OPTIONS)
                     for option in annotation.__metadata__[:1]}


def shared_options(command):
    """Replaces a command's `settings` / `stats` parameters by their options (SETTINGS_OPTIONS,
    STATS_OPTIONS); the command is called with the Settings / StatsSettings they make. A value the
    library refuses (--compat 8) is an `Error:` line, as the command's own errors are."""
    # Typer reads the annotations as objects; Settings and StatsSettings are imported only when a
    # command runs (numpy is slow to load), so their names stay names
    signature = inspect.signature(command, eval_str=True, locals={"Settings": "Settings",
                                                                  "StatsSettings": "StatsSettings"})
    parameters, groups = [], []
    for parameter in signature.parameters.values():
        if parameter.name in _GROUPS:
            options, build = _GROUPS[parameter.name]
            groups.append((parameter.name, [name for name, _, _ in options], build))
            parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                             default=default) for name, annotation, default in options]
        else:
            parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))

    @functools.wraps(command)
    def with_settings(**values):
        with reported_errors():
            for group, names, build in groups:
                try:
                    values[group] = build(*(values.pop(name) for name in names))
                except SettingError as refused:  # said with the option the user typed, not the keyword
                    raise refused.said_as(OPTION_OF_SETTING[refused.setting]) from None
        return command(**values)

    with_settings.__signature__ = signature.replace(parameters=parameters)
    with_settings.__annotations__ = {p.name: p.annotation for p in parameters}
    return with_settings


def err(message: str) -> None:
    """One line on stderr, its control and bidi characters escaped (warehouse/formats/escaping.py):
    a name holding ESC or a backspace cannot drive the terminal, nor one holding a line break start
    a line of its own. A message of several lines is several calls."""
    from warehouse.formats.escaping import shown

    typer.echo(shown(str(message)), err=True)


BUSY_WAIT_ENV = "IRW_BUSY_WAIT"
DEFAULT_BUSY_WAIT = 10.0  # seconds: a page `irw serve` builds, or a short command, holds a DuckDB file for less


def busy_wait() -> float:
    """How long a command waits for another process to close the warehouse file ($IRW_BUSY_WAIT)."""
    import math

    text = os.environ.get(BUSY_WAIT_ENV)
    if text is None or not text.strip():
        return DEFAULT_BUSY_WAIT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or seconds < 0:
        raise UsageError(f"{BUSY_WAIT_ENV}={text!r}: give the seconds a command waits for another process to close "
                         f"the warehouse, 0 or more (0: no wait; unset: {DEFAULT_BUSY_WAIT:g})")
    return seconds


class Warehouse(core.Warehouse):
    """The library's Warehouse, which says on stderr when opening it migrated an existing
    warehouse to this irw's schema: whoever shares it on an older irw can no longer open it.

    A DuckDB file another process holds (`irw serve` building a page, a nightly ingest) is tried
    again for busy_wait() seconds, said once on stderr, before its WarehouseLocked is the error: a
    cron job's ingest beside a served warehouse waits its turn instead of failing."""

    def __init__(self, *args, **kwargs):
        import time

        wait = busy_wait()
        deadline, waiting = time.monotonic() + wait, False
        while True:
            try:
                super().__init__(*args, **kwargs)
                break
            except WarehouseLocked as locked:
                if locked.holder_pid is None:  # this process holds it, or DuckDB named no one: no wait helps
                    raise
                if time.monotonic() >= deadline:
                    if not waiting:
                        raise
                    raise WarehouseLocked(f"{locked} (waited {wait:g} s; {BUSY_WAIT_ENV} sets how long)") from None
                if not waiting:
                    err(f"waiting for {locked.holder} to close the warehouse (up to {wait:g} s; {BUSY_WAIT_ENV} sets "
                        "how long)")
                    waiting = True
                time.sleep(0.1)
        from warehouse.engines import upgrade_said

        if said := upgrade_said(self.db):
            err(said)


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turns a library error into `Error: ...` lines on stderr and the error's exit code."""
    try:
        yield
    except IrwError as exc:
        from warehouse.interrupt import Interrupted, pending

        if pending():  # a query Ctrl-C interrupted: said as such by the entry point (exit 130)
            raise Interrupted() from None
        for line in exc.message_lines():
            err(f"Error: {line}")
        raise typer.Exit(exc.exit_code) from None


def emit(table: Table, fmt: OutputFormat) -> None:
    sys.stdout.write(formatting.render(table, fmt))


def found_nothing(note: str) -> NoReturn:
    """Ends a listing or query that found no row: the note on stderr (stdout keeps what its format
    writes for no rows) and exit status 1, as grep's when no line matches, so that a script never
    takes an empty answer for one."""
    err(f"# {note}")
    raise typer.Exit(1)


def _measures_first(measures: Optional[List[str]]) -> None:
    """Parses the measures a report names before its qrels set and runs are chosen: a misspelt one
    was said after the notes of that choice (a walk: "# 9 stored runs left out", then the error)."""
    if measures:
        from warehouse.evaluation.measures import parse_all

        parse_all(list(measures))


def _report_qrels(wh: Warehouse, qrels: Optional[str], runs, systems=None, baseline: Optional[str] = None) -> str:
    """The qrels set a report is of (Warehouse.qrels_name): the one given, else the one judging the
    runs chosen, which stderr names where the warehouse holds several (a report's page names it,
    its `wrote FILE` line did not; eval and compare print `# qrels X; ...`)."""
    taken = wh.qrels_name(qrels, runs, systems, baseline)
    if qrels is None and len(wh.qrels_sets().rows) > 1:
        err(f"# qrels {listed_name(taken)}: the one stored set judging the runs chosen")
    return taken


def _selected_runs(wh: Warehouse, runs: Optional[List[str]], systems: Optional[List[str]], qrels: str):
    """The runs a command takes (Warehouse.select_runs: names, patterns, --system, and the runs
    qrels judges), saying on stderr how many stored runs were left out and why."""
    selection = wh.select_runs(runs, systems=systems, qrels=qrels)
    for note in selection.notes():
        err(f"# {note}")
    return selection


def _progress(total: int):
    """A progress bar on stderr, only when a person is watching."""
    if not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import Progress

    progress = Progress(console=Console(stderr=True), transient=True)
    progress.start()
    progress.add_task("ingesting", total=total)
    return progress


def _parse_params(items: Optional[List[str]]) -> dict[str, str]:
    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes key=value, got {item!r}")
        if key in params and params[key] != value:  # the last one silently won
            raise UsageError(f"--param {key} is given twice, as {params[key]!r} and {value!r}: give it once")
        params[key] = value
    return params


@ingest_app.command("qrels")
def ingest_qrels(
    files: Annotated[list[Path], typer.Argument(
        help="TREC qrels: `qid iter docid grade` or `qid docid grade`; several files, or folders of them, each "
             "a qrels set named by its file name.")],
    name: Annotated[Optional[str], typer.Option(help="Name of the qrels set (default: the stored set's holding the "
                                                     "same bytes, else the file name); one file only.")] = None,
    description: Annotated[Optional[str], typer.Option(help="Free text kept with the set.")] = None,
    replace: Annotated[bool, _replace_option("Replace a set of the same name and its scores.", negatable=True)] = False,
    subtopics: Annotated[bool, typer.Option(
        "--subtopics", help="Diversity qrels (ndeval's `qid subtopic docid grade`), for alpha_nDCG@k, ERR_IA@k ...")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Ingest qrels files as named qrels sets."""
    with reported_errors():
        if len(files) == 1 and not files[0].is_dir():
            with Warehouse(db) as wh:
                _report_ingest(wh.ingest_qrels(files[0], name, description=description, replace=replace,
                                               subtopics=subtopics))
            return
        with Warehouse(db) as wh:
            results = wh.ingest_qrels_files(files, name, description=description, replace=replace,
                                            subtopics=subtopics)
        for result in results:
            _report_ingest(result)
        if len(results) > 1:
            err(_ingest_total(results))


@ingest_app.command("prefs")
def ingest_prefs(
    file: Annotated[Path, typer.Argument(help="Preference judgments, trec_eval's prefs format: `qid jg jsg docid "
                                              "rel_level` (judgment group, sub-group).")],
    name: Annotated[Optional[str], typer.Option(help="Name of the prefs set (default: the stored set's holding the "
                                                     "same bytes, else the file name).")] = None,
    description: Annotated[Optional[str], typer.Option(help="Free text kept with the set.")] = None,
    replace: Annotated[bool, _replace_option("Replace a set of the same name and its scores.", negatable=True)] = False,
    qrels_format: Annotated[bool, typer.Option(
        "--qrels-format", help="Read a qrels file (`qid jg docid rel_level`) as preferences, as trec_eval -R "
                               "qrels_prefs does (one sub-group per judgment group).")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Ingest preference judgments as a named set, for the prefs_* measures (irw measures lists them)."""
    with reported_errors(), Warehouse(db) as wh:
        result = wh.ingest_prefs(file, name, description=description, replace=replace, qrels_format=qrels_format)
        _report_ingest(result)


class NameFrom(str, Enum):
    auto = "auto"
    file = "file"
    tag = "tag"


@ingest_app.command("run")
def ingest_run(
    files: Annotated[List[Path], typer.Argument(help="TREC run files (`qid Q0 docid rank score tag`; plain, .gz, "
                                                     ".zst, .bz2 or .xz), or folders of them.")],
    name: Annotated[Optional[str], typer.Option(help="Run name (one file only; default: see --name-from).")] = None,
    name_from: Annotated[NameFrom, typer.Option(
        "--name-from", help="Run names: tag; file (the file name without extensions and the prefix the file "
                            "names of its folder share); auto: the rule of docs/input-formats.md, \"Run names and "
                            "dates\" (the tag unless it is a placeholder or shared, else from the file and folder "
                            "names).")] = NameFrom.auto,
    name_template: Annotated[Optional[str], typer.Option(
        "--name-template", help="Run names from the fields {tag} {file} {stem} {short} {folder} {above} "
                                "(the folder holding the file's folder), e.g. '{folder}.{short}'.")] = None,
    system: Annotated[Optional[str], typer.Option(help="System the run belongs to; may hold the fields of "
                                                       "--name-template, e.g. '{folder}' (default: by the naming "
                                                       "rule, else the run name).")] = None,
    description: Annotated[Optional[str], typer.Option(help="Free text kept with the run.")] = None,
    param: Annotated[Optional[List[str]], typer.Option("--param", help="key=value run parameter; repeatable.")] = None,
    date: Annotated[Optional[str], typer.Option(
        help="The runs' date: YYYY-MM-DD, or YYYY-MM-DDTHH:MM with optional seconds and zone (Z or +HH:MM). "
             "Default: the ir_metadata header's date:, else the date its folder, or the folder above it, is named "
             "by, as 2026-02-02/, else the file's modification time.")] = None,
    replace: Annotated[bool, _replace_option("Replace a stored run of the same name and its scores.",
                                             negatable=True)] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Ingest run files; each file is one run. The whole batch is checked before anything is stored."""
    from warehouse.ingestion.batch import given_date

    with reported_errors():  # options are checked before the warehouse is opened (or created)
        if name and len(files) > 1:
            raise UsageError("--name names one run; with several files each is named by the rule of --name-from")
        if name and name_from is not NameFrom.auto:
            raise UsageError("--name and --name-from both name the run: give one of them")
        if name_template is not None and (name or name_from is not NameFrom.auto):
            raise UsageError("--name-template names the runs, as --name and --name-from do: give one of them")
        parameters = _parse_params(param)
        run_date = given_date(date) if date is not None else None
    with reported_errors(), Warehouse(db) as wh:
        progress = _progress(2 * len(files))

        def on_step(done: int, total: int) -> None:
            if progress:
                progress.update(0, completed=done, total=total)

        try:
            results = wh.ingest_runs(files, name=name, name_from=name_from.value, name_template=name_template,
                                     system=system,
                                     description=description, parameters=parameters, replace=replace,
                                     date=run_date.value if run_date else None, on_step=on_step)
        except BatchError as exc:
            for result in exc.stored:  # a backfill's nights stored before a later one was refused
                _report_ingest(result)
            raise
        finally:
            if progress:
                progress.stop()
        for result in results:
            _report_ingest(result)
        if len(results) > 1:
            err(_ingest_total(results))


def _ingest_total(results) -> str:
    """The last line of a batch: what became of its files, counted (a walk counted 188 stored and
    12 unchanged of 200 files with grep)."""
    counts = Counter(result.status for result in results)
    said = ", ".join(f"{counts[status]:,} {status}" for status in
                     ("ingested", "replaced", "updated", "redated", "rows stored", "unchanged") if counts[status])
    return f"{len(results):,} files: {said}"


def _report_ingest(result) -> None:
    for message in result.messages:
        err(message)
    if result.status != "unchanged":
        lines = "line" if result.rows == 1 else "lines"
        queries = "query" if result.queries == 1 else "queries"
        err(f"{result.status} {result.kind} {result.name}: {result.rows} {lines}, {result.queries} {queries} "
            f"from {result.path}")


@app.command("runs")
def runs(
    runs: Annotated[Optional[List[str]], typer.Argument(help=RUNS_HELP)] = None,
    qrels: Annotated[Optional[str], _qrels_option(help="Only the runs this stored qrels set judges (a query "
                                                       "and, where any set does, a document of each).")] = None,
    system: SystemOption = None,
    db: DbOption = DEFAULT_DB,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List the stored runs (every one, or those chosen by name, pattern, --system and --qrels)."""
    with reported_errors(), Warehouse(db, read_only=True) as wh:
        chosen = runs or system or qrels is not None
        selection = _selected_runs(wh, runs, system, qrels) if chosen else None
        listing = wh.runs(selection)
        for note in selection.listed_notes() if selection is not None else ():
            err(f"# {note}")
        emit(listing, fmt)
        if not chosen and not listing.rows:
            found_nothing("no run is stored; ingest runs with `irw ingest run FILE...`")


@app.command("qrels")
def qrels(db: DbOption = DEFAULT_DB, fmt: FormatOption = OutputFormat.table) -> None:
    """List the stored qrels sets."""
    with reported_errors(), Warehouse(db, read_only=True) as wh:
        listing = wh.qrels_sets()
        emit(listing, fmt)
        if not listing.rows:
            found_nothing("no qrels set is stored; ingest one with `irw ingest qrels FILE`")


@rm_app.command("run")
def rm_run(names: Annotated[List[str], typer.Argument(metavar="NAME...", help="The runs to remove.")],
           db: DbOption = DEFAULT_DB) -> None:
    """Remove runs and their scores, all or none (a name no run has removes nothing)."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        wh.remove_runs(names)
        for name in dict.fromkeys(names):
            err(f"removed run {name}")


@rm_app.command("qrels")
def rm_qrels(name: str, db: DbOption = DEFAULT_DB) -> None:
    """Remove a qrels set, its judgments and every score computed with it."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        wh.remove_qrels(name)
        err(f"removed qrels {name}")


@rename_app.command("run")
def rename_run(name: str, new_name: str, db: DbOption = DEFAULT_DB) -> None:
    """Rename a run; its scores, significance results and history stay with it."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        for line in wh.rename_run(name, new_name):
            err(line)


@rename_app.command("qrels")
def rename_qrels(name: str, new_name: str, db: DbOption = DEFAULT_DB) -> None:
    """Rename a qrels set; its judgments and every evaluation made with it stay with it."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        for line in wh.rename_qrels(name, new_name):
            err(line)


@edit_app.command("run")
def edit_run(
    name: str,
    system: Annotated[Optional[str], typer.Option(help="The system the run belongs to.")] = None,
    description: Annotated[Optional[str], typer.Option(help="Free text kept with the run.")] = None,
    date: Annotated[Optional[str], typer.Option(help="The run's date: YYYY-MM-DD, or YYYY-MM-DDTHH:MM with optional "
                                                                          "seconds and zone (Z or +HH:MM).")] = None,
    param: Annotated[Optional[List[str]], typer.Option("--param", help="key=value run parameter; repeatable "
                                                                       "(replaces the stored parameters).")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Change a stored run's system, description, date or parameters without ingesting it again."""
    from warehouse.ingestion.batch import given_date

    with reported_errors():
        parameters = _parse_params(param) if param else None
        if date is not None:
            given_date(date)  # a bad date is refused before the warehouse is opened
    with reported_errors(), Warehouse(db, create=False) as wh:
        for line in wh.edit_run(name, system=system, description=description, date=date, parameters=parameters):
            err(line)


@app.command("sql", cls=_SqlCommand)
def sql(
    query: Annotated[str, typer.Argument(help="One SELECT statement (a -- comment may open it), or - to read it "
                                              "from stdin.")],
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[Optional[SqlFormat], _format_option(
        "Output format (default: table, or the one -o's name says: rows.csv is csv); parquet and arrow (an Arrow "
        "IPC file) are written to -o and need pyarrow (irwarehouse's arrow extra); jsonl is one JSON object a "
        "line.")] = None,
    output: Annotated[Optional[Path], _output_option(
        "File to write, - for stdout (parquet and arrow need a file; the others print to stdout without).")] = None,
    timeout: Annotated[float, typer.Option(
        "--timeout", min=0, help="Stop the query after this many seconds (0: no limit).")] = 300.0,
) -> None:
    """Run read-only SQL over the warehouse (tables: runs, run_rows, qrels_sets, qrels, scores ...).

    Only the sandboxed connection is opened: read-only, nothing outside the warehouse. The rows are written by irw as they come (a file whole or not at all), never by the SQL."""
    with reported_errors():
        try:
            text = sys.stdin.read() if query == "-" else query
        except UnicodeDecodeError:
            raise UsageError("the SQL on stdin is not UTF-8 text") from None
        fmt = _chosen_format(fmt, output, SqlFormat, SqlFormat.table, "irw sql")
        if output is not None and str(output) == "-":  # stdout, as for the reports (a file named - is ./-)
            output = None
        if fmt.value in formatting.FILE_FORMATS and output is None:
            raise UsageError(f"--format {fmt.value} writes a file: name it with -o FILE")
        if output is not None:  # not over the warehouse or any database, checked before the query runs
            from warehouse.formats.files import check_output

            # the warehouse is named: it is not open yet, and its WAL may hold what a killed
            # command committed, which a file written there would lose (a server's URL names no
            # file, and matches no path)
            check_output(output, warehouse=db)
    try:
        with reported_errors(), Warehouse(db, sandboxed=True) as wh:
            if fmt.value in formatting.FILE_FORMATS:  # parquet and arrow: pyarrow writes the table whole
                result = wh.sql(text, timeout=timeout)
                formatting.write(result, fmt.value, output)
                count = len(result)
            else:  # the rows written as they come, never all held (Warehouse.sql_rows)
                with wh.sql_rows(text, timeout=timeout) as rows:
                    count = 0

                    def counted():
                        nonlocal count
                        for chunk in rows.chunks:
                            count += len(chunk)
                            yield chunk

                    pieces = formatting.render_chunks(rows.columns, counted(), fmt.value)
                    if output is None:
                        try:
                            for piece in pieces:
                                sys.stdout.write(piece)
                        except IrwError:  # the statement failed midway: what was printed is not all of it
                            if count:
                                err(f"# the {count:,} {'row' if count == 1 else 'rows'} printed are not the whole "
                                    "result: the query failed after them (-o FILE writes a result whole or not at all)")
                            raise
                    else:
                        from warehouse.formats.files import write_atomically

                        write_atomically(output, (piece.encode("utf-8") for piece in pieces))
    except KeyboardInterrupt:
        err("Error: interrupted; the query was stopped")
        raise typer.Exit(130) from None
    with reported_errors():
        if output is not None:
            err(f"wrote {count:,} {'row' if count == 1 else 'rows'} to {output}")
        if not count:  # said where the rows would be read, not in the data itself
            found_nothing("the query returned no rows")


@app.command("migrate")
def migrate(db: DbOption = DEFAULT_DB, fmt: FormatOption = OutputFormat.table) -> None:
    """Upgrade a warehouse made by an older irw (commands that write do it too); list its migrations.

    On a PostgreSQL server it also creates the schema in an empty database. An upgrade is one way: an
    older irw cannot open the warehouse after it, so copy the file (or pg_dump the database) first if
    one still needs it."""
    from warehouse.engines import on_server

    with reported_errors(), Warehouse(db, create=on_server(db)) as wh:
        if not wh.db.upgraded and not wh.db.created:
            err(f"# {wh.db.path} is at schema {wh.db.schema_version()}, this irw's: nothing to migrate")
        emit(wh.migrations(), fmt)


# `irw copy A B`, as cp is typed, is taken (as extra arguments, which the usage line does not show)
# only to say how irw copy names its warehouses
@app.command("copy", context_settings={"allow_extra_args": True})
def copy_command(
    ctx: typer.Context,
    source: Annotated[Optional[str], typer.Option("--from", help="The warehouse to copy from: a DuckDB file or a "
                                                                 "postgresql:// URL (opened read-only). Required.",
                                                  show_default=False)] = None,
    target: Annotated[Optional[str], typer.Option("--to", help="The warehouse to copy into (created if new). "
                                                               "Required.", show_default=False)] = None,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="Copy only this run (repeatable); "
                                                                   "default: every run.")] = None,
    replace: Annotated[bool, _replace_option("Replace runs and qrels sets the target holds under the same name "
                                             "with other content.")] = False,
) -> None:
    """Copy qrels sets, runs and stored scores between warehouses (DuckDB file <-> PostgreSQL)."""
    from warehouse.core import copy as copy_warehouse
    from warehouse.engines import shown

    with reported_errors():
        if ctx.args or source is None or target is None:
            typed = list(ctx.args)
            source = source or (typed.pop(0) if typed else "FROM")
            target = target or (typed.pop(0) if typed else "TO")
            example = f"irw copy --from {shell_word(shown(source))} --to {shell_word(shown(target))}"
            raise UsageError(f"irw copy names the two warehouses with --from and --to: `{example}`")
        result = copy_warehouse(source, target, replace=replace, runs=run)
        for line in result.lines():
            err(line)


@app.command("export")
def export_command(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write (new, empty, or an earlier "
                                                                  "export with --replace).")],
    db: DbOption = DEFAULT_DB,
    replace: Annotated[bool, _replace_option("Replace an earlier export in DIR.")] = False,
) -> None:
    """Write the warehouse's tables as Parquet, for Spark or any other engine.

    A file per table, run rows in a folder per run (DIR/run_rows/run=NAME/), judgments per qrels set."""
    with reported_errors(), Warehouse(db, read_only=True) as wh:
        result = wh.export(directory, replace=replace)
        for line in result.lines():
            err(line)


@app.command("demo")
def demo(
    directory: Annotated[Path, typer.Argument(help="Folder for the sample data and demo warehouse.")] = Path("demo"),
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Build a demo warehouse from generated sample data and show what it holds."""
    from warehouse.commands.demo import run_demo

    with reported_errors():
        run_demo(directory, fmt)


Engine = _choices("Engine", *ENGINES)


@app.command("eval")
@shared_options
def eval_(
    ctx: typer.Context,
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(help=RUNS_HELP)] = None,
    qrels: Annotated[Optional[str], _qrels_option(help=(
        "Stored qrels set to evaluate against (left out: each run against the one stored set judging it, "
        "judged_by in irw runs; a qrels column then says which when there are several); with --engine spark, "
        "a qrels file or path Spark reads."))] = None,
    system: SystemOption = None,
    measure: Annotated[List[str], _measure_option("Measure, e.g. AP, P@10, nDCG@10, SetF(beta=0.5), map, P.5,10, "
                                                  "all_trec; repeatable.")] = ...,
    per_query: Annotated[bool, typer.Option("-q", "--per-query", help="One row per query.")] = False,
    settings: Settings,
    micro: Annotated[bool, typer.Option("--micro", help="Also print micro averages (pooled counts).")] = False,
    recompute: Annotated[bool, typer.Option(
        "--recompute", help="Compute the scores again and replace the stored ones.")] = False,
    timeout: Annotated[float, typer.Option(
        "--timeout", min=0, help="Seconds a measure of your own (irw measures add) may run before it is stopped "
                                 "and nothing is stored (0: no limit); built-in measures have none.")] = 300.0,
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[EvalFormat, _format_option()] = EvalFormat.table,
    engine: Annotated[Optional[Engine], typer.Option(
        "--engine", help="duckdb or postgres evaluates stored runs, on the engine of --db (the default); spark "
                         "evaluates run files on Spark (--runs).")] = None,
    master: Annotated[Optional[str], typer.Option(
        "--master", help="With --engine spark: the cluster (spark://host:7077, yarn, local[4] ...).")] = None,
    run_paths: Annotated[Optional[List[str]], typer.Option(
        "--runs", help="With --engine spark: run files, globs, folders or Parquet Spark reads; repeatable.")] = None,
    into: Annotated[Optional[str], typer.Option(
        "--into", help="With --engine spark: store the qrels, the runs' descriptions and their per-query scores "
                       "in this warehouse (DuckDB file or PostgreSQL URL).")] = None,
    replace: Annotated[bool, _replace_option(
        "With --into: replace runs or qrels of the same name holding other content.")] = False,
    # `irw copy --run NAME` names a run so; here click offered Spark's --runs (run files) instead
    run_option: Annotated[Optional[List[str]], typer.Option("--run", hidden=True)] = None,
) -> None:
    """Evaluate stored runs; per-query scores are stored and reused by later calls.

    With --engine spark, evaluate run files on Spark, and store the scores with --into."""
    with reported_errors():
        if run_option:
            named = shell_command(["irw", "eval", "-m", "MEASURE"], [*(runs or ()), *run_option])
            raise UsageError(f"irw eval names stored runs as arguments, without --run: `{named}` "
                             "(--runs is Spark's: run files, with --engine spark)")
        on_files = evaluates_files(chosen_engine(engine.value if engine else None, db))
    if on_files:
        with reported_errors():
            if system:
                raise UsageError("--system chooses stored runs: with --engine duckdb only")
        # --db typed with --engine spark (not IRW_DB, which a user of both engines keeps set)
        source = ctx.get_parameter_source("db")
        db_typed = source is not None and source.name == "COMMANDLINE"
        _eval_on_spark(master=master, qrels=qrels, run_paths=run_paths, runs=runs, measures=measure,
                       settings=settings, per_query=per_query, micro=micro, into=into, replace=replace,
                       recompute=recompute, fmt=fmt, db=db if db_typed else None)
        return
    with reported_errors():
        spark_only = [name for name, given in (("--master", master), ("--runs", run_paths), ("--into", into),
                                               ("--replace", replace)) if given]
        if spark_only:
            raise UsageError(f"{', '.join(spark_only)}: with --engine spark only (stored runs are named as arguments)")
    with reported_errors(), Warehouse(db, create=False) as wh:  # nothing to evaluate in a new file
        if qrels is None:  # the set judging the runs chosen; of several collections, each run's own
            each = wh.evaluate_each(runs, measure, systems=system, per_query=per_query, settings=settings,
                                    recompute=recompute, timeout=timeout)
            if len(each.by_qrels) > 1:
                _print_evaluations(each, per_query, micro, fmt)
                return
            (qrels, evaluation), = each.by_qrels.items()
        else:
            selection = wh.select_runs(runs, systems=system, qrels=qrels)
            evaluation = wh.evaluate(selection, qrels, measure, per_query=per_query, settings=settings,
                                     recompute=recompute, timeout=timeout)
        _print_evaluation(evaluation, qrels, per_query, micro, fmt)


def _eval_on_spark(*, master, qrels, run_paths, runs, measures, settings, per_query, micro, into, replace,
                   recompute, fmt, db) -> None:
    """db: the --db typed on the command line, else None."""
    from warehouse.engines import shown
    from warehouse.ingestion.files import RUN_FILE_LOOKS, SwappedFileError

    with reported_errors():
        if runs and run_paths and any(os.path.exists(path) for path in runs):
            # `--runs A B C`, as a synopsis's PATH... reads: B and C came as stored run names
            repeated = " ".join(f"--runs {shell_word(path)}" for path in [*run_paths, *runs])
            raise UsageError(f"--runs takes one path; repeat it for each: `{repeated}` ({shell_word(runs[0])} came "
                             "as a stored run's name, which --engine spark does not take)")
        if runs:
            raise UsageError(f"with --engine spark, runs are files given with --runs, not stored runs' names: "
                             f"{shell_word(runs[0])} (stored runs are evaluated by --engine duckdb)")
        if recompute:
            raise UsageError("--recompute: an evaluation on Spark always computes")
        if db is not None and into is None:
            raise UsageError(f"--db {shell_word(shown(db))}: Spark evaluates the files and stores nothing unless "
                             f"--into: pass --into {shell_word(shown(db))} to store its scores there")
        if db is not None:
            raise UsageError(f"--db {shell_word(shown(db))}: with --engine spark the scores are stored in the "
                             "warehouse of --into: leave out --db")
        if replace and into is None:
            raise UsageError("--replace applies to what --into stores, and Spark stores nothing without --into: "
                             "pass --into WAREHOUSE, or leave out --replace")
        if not qrels or not run_paths:
            raise UsageError("--engine spark evaluates files: give --qrels FILE and --runs PATH (repeatable)")
        from warehouse.core import evaluate_on_spark

        try:
            result = evaluate_on_spark(qrels, run_paths, measures, into=into, master=master, replace=replace,
                                       per_query=per_query, settings=settings)
        except SwappedFileError as exc:  # said with the options (the library says its call's arguments)
            command = ["irw", "eval", "--engine", "spark", *(["--master", master] if master else []),
                       "--qrels", "QRELS_FILE", "--runs", "RUN_PATH"]
            if exc.looks_like.startswith(RUN_FILE_LOOKS):  # the --qrels file is a run
                if len(run_paths) == 1 and Path(run_paths[0]).is_file():
                    command[-3:] = [run_paths[0], "--runs", qrels]
                    command += [word for m in measures for word in ("-m", m)]
                    command += [*(["--into", shown(into)] if into else []), *(["--replace"] if replace else [])]
                hint = f"did you swap --qrels and --runs? ({shell_join(command)})"
            else:
                hint = f"--runs takes run files, and the qrels file is given with --qrels ({shell_join(command)})"
            raise SwappedFileError(exc.path, exc.looks_like, hint) from None
        for line in result.lines():
            err(line)
        _print_evaluation(result.evaluation, result.qrels, per_query, micro, fmt)


def _print_evaluation(evaluation, qrels: str, per_query: bool, micro: bool, fmt: EvalFormat) -> None:
    err(f"# qrels {qrels}; {evaluation.settings.describe()}")
    selection = getattr(evaluation, "selection", None)  # None: runs given as files (Spark), nothing chosen
    for note in selection.notes() if selection is not None else []:
        err(f"# {note}")
    for note in evaluation.measure_notes():
        err(f"# {note}")
    _print_set_notes(evaluation, qrels)
    if fmt is EvalFormat.trec:
        sys.stdout.write(formatting.render_trec(evaluation, per_query))
    else:
        emit(evaluation.wide(per_query=per_query, micro=micro), OutputFormat(fmt.value))


def _print_set_notes(evaluation, qrels: str, of_set: str = "") -> None:
    """The notes of one qrels set's evaluation on stderr; of_set, `qrels X: `, says whose they are
    where several sets were evaluated."""
    for note in evaluation.judgment_notes(qrels):
        err(f"# {note}")
    for run, count in sorted(evaluation.ignored_queries.items()):
        err(f"# {run}: {count} {'query' if count == 1 else 'queries'} not in the qrels {'was' if count == 1 else 'were'} ignored")
    unanswered = sorted(evaluation.unanswered_queries.items())
    if len(unanswered) > 3:  # one line for many runs (a warehouse of partial runs), naming three
        named = ", ".join(f"{listed_name(run)}: {count:,}" for run, count in unanswered[:3])
        err(f"# {of_set}{len(unanswered):,} runs do not answer every qrels query ({named} and {len(unanswered) - 3:,} "
            "more): " + ("those queries scored 0 (-c)" if evaluation.settings.complete else
                         "those queries were left out of their means, as trec_eval leaves them; -c scores them 0, "
                         "as ir_measures does"))
    for run, count in unanswered if len(unanswered) <= 3 else ():
        one = count == 1
        err(f"# {listed_name(run)}: {count} qrels {'query' if one else 'queries'} not in the run "
            + ("scored 0 (-c)" if evaluation.settings.complete else
               f"{'was' if one else 'were'} left out of its means, as trec_eval leaves them; -c scores "
               f"{'it' if one else 'each'} 0, as ir_measures does"))
    if evaluation.norel_queries:
        action = ("excluded" if evaluation.settings.norel == "exclude"
                  else "included, scoring 0 on recall-based measures")
        count = evaluation.norel_queries
        err(f"# {of_set}{count} qrels {'query has' if count == 1 else 'queries have'} no relevant document ({action})")


def _print_evaluations(each, per_query: bool, micro: bool, fmt: EvalFormat) -> None:
    """irw eval of runs of several collections, each run against the one stored set judging it:
    the settings once, each set's notes, then one table with a qrels column (trec: each set's lines)."""
    evaluations = each.by_qrels
    first = next(iter(evaluations.values()))
    sets = ", ".join(f"{listed_name(qrels)} for {len(e.selection):,} run{'' if len(e.selection) == 1 else 's'}"
                     for qrels, e in evaluations.items())
    err(f"# qrels: each run's own ({sets}); {first.settings.describe()}")
    for note in [*each.notes_left_out, *first.measure_notes()]:
        err(f"# {note}")
    for qrels, evaluation in evaluations.items():
        _print_set_notes(evaluation, qrels, f"qrels {listed_name(qrels)}: ")
    if fmt is EvalFormat.trec:
        sys.stdout.write("".join(formatting.render_trec(e, per_query) for e in evaluations.values()))
    else:
        emit(each.wide(per_query=per_query, micro=micro), OutputFormat(fmt.value))


measures_app = typer.Typer(help="List the measures irw computes; add measures you write in SQL.")
app.add_typer(measures_app, name="measures")


@measures_app.callback(invoke_without_command=True)
def measures_(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """List the measures irw computes, with their trec_eval names (add your own: irw measures add FILE)."""
    if ctx.invoked_subcommand is not None:
        return
    from warehouse.evaluation.measures import measure_table

    emit(measure_table(), fmt)


@measures_app.command("list")
def measures_list(db: DbOption = DEFAULT_DB, fmt: FormatOption = OutputFormat.table) -> None:
    """List the measures added to the warehouse with irw measures add."""
    with reported_errors(), Warehouse(db, read_only=True, create=False) as wh:
        table = wh.user_measures()
        emit(table, fmt)
        if not table.rows:
            found_nothing("no measure is added to this warehouse; add one with irw measures add FILE")


@measures_app.command("add")
def measures_add(
    file: Annotated[Path, typer.Argument(help="A measure file: a SELECT over ranked_judged with a header.")],
    replace: Annotated[bool, _replace_option("Replace a measure of that name and delete its scores.")] = False,
    timeout: Annotated[float, typer.Option(
        "--timeout", min=0, help="Seconds its check (its SQL run on no run) may take before it is stopped and "
                                 "nothing is added (0: no limit).")] = 300.0,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a measure written in SQL; from then on irw eval -m NAME, compare and reports compute it."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        definition = wh.add_measure(file, replace=replace, timeout=timeout)
        if definition.unchanged:
            err(f"measure {definition.name} is already added with this same definition; nothing changed")
            return
        params = ", ".join(f"{k}={v:g}" for k, v in definition.parameters) or "none"
        deleted = definition.scores_deleted
        replacing = ("" if deleted is None else ", replacing its earlier definition " + (
            f"and deleting that one's {_scores(deleted)}" if deleted else "(no scores stored with it)"))
        err(f"added measure {definition.name} (parameters: {params}; aggregate: {definition.aggregate}) "
            f"from {file}{replacing}")


def _scores(count: int) -> str:
    return f"{count:,} stored per-query score{'' if count == 1 else 's'}"


@measures_app.command("rm")
def measures_rm(name: str, db: DbOption = DEFAULT_DB) -> None:
    """Remove a user measure and every score computed with it."""
    with reported_errors(), Warehouse(db, create=False) as wh:
        deleted = wh.remove_measure(name)
        err(f"removed measure {name} " + (f"and its {_scores(deleted)}" if deleted else "(no scores stored with it)"))


@app.command("trec-eval", context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                            "help_option_names": []})
def trec_eval(ctx: typer.Context) -> None:
    """A drop-in for trec_eval: irw trec-eval [FLAGS] QRELS_FILE RUN_FILE... prints each run's lines as trec_eval 9.0.8 does (10.0 with --compat 10); `irw trec-eval -h` lists the flags."""
    from warehouse.commands import trec_eval as te

    with reported_errors():
        te.run(list(ctx.args), sys.stdout)


# -- comparisons and HTML reports (library: warehouse/evaluation/stats.py, warehouse/reports/) -----------
report_app = typer.Typer(help="Write self-contained HTML reports: leaderboard, run, compare, history, systems.",
                         no_args_is_help=True)
app.add_typer(report_app, name="report")


MeasuresOption = Annotated[Optional[List[str]], _measure_option(
    "Measure, e.g. AP, nDCG@10, P@10; repeatable; the first is the primary (default: AP, nDCG@10, P@10).")]
BaselineOption = Annotated[Optional[str], _baseline_option()]
OutputOption = Annotated[Optional[Path], _output_option(
    "File to write the report to (HTML; with --format, that format); - writes it to stdout.")]


_REPORT_FORMAT_HELP = ("html writes the report to -o; the others print its main table to stdout, or write it to "
                       "-o (default: html, or the one -o's name says: board.csv is csv).")
ReportFormatOption = Annotated[Optional[ReportFormat], _format_option(_REPORT_FORMAT_HELP)]
PageFormatOption = Annotated[Optional[PageFormat], _format_option(_REPORT_FORMAT_HELP)]


def _chosen_format(fmt: Optional[Enum], output: Optional[Path], formats: type[Enum], default: Enum,
                   command: str) -> Enum:
    """--format as given, else the format -o's file name says, else the command's default
    (warehouse.formats.files.format_for_output)."""
    from warehouse.formats.files import format_for_output

    return formats(format_for_output(output, None if fmt is None else fmt.value, [f.value for f in formats],
                                     default.value, command))


def _report_format(fmt: Optional[Enum], output: Optional[Path], formats: type[Enum], command: str) -> Enum:
    """A report's format (_chosen_format: --format, else what -o's name says, else html), refused
    when it is html and there is no -o to write it to."""
    fmt = _chosen_format(fmt, output, formats, formats("html"), command)
    if fmt.value == "html" and output is None:
        raise UsageError("write the report with -o FILE (or -o - for stdout), or print its table with --format")
    return fmt


def _emit_report(report, fmt: Enum, output: Optional[Path], render) -> None:
    """The report in fmt (ReportFormat or PageFormat), written to output (-o FILE, whole or not at
    all) or, without -o or with -o -, to stdout: HTML needs -o, a table or paper format prints
    unless -o names a file."""
    if fmt.value == "html":
        text = render(report)
    elif fmt.value in PAPER_FORMATS:
        from warehouse.reports import paper

        text = paper.render(report.paper_table(), fmt.value)
    else:
        text = formatting.render(report.table(), OutputFormat(fmt.value))
    _write_output(output, text)


@contextmanager
def _steps_on_terminal() -> Iterator[None]:
    """Long work's steps (warehouse/progress.py: runs evaluated, comparisons tested) as bars on
    stderr, only when a person is watching; gone when the command ends."""
    from warehouse import progress

    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import Progress

    bars = Progress(console=Console(stderr=True), transient=True)
    tasks: dict[str, Any] = {}

    def step(label: str, done: int, total: int) -> None:
        if label not in tasks:
            if not tasks:
                bars.start()
            tasks[label] = bars.add_task(label, total=total)
        bars.update(tasks[label], completed=done, total=total)

    try:
        with progress.reported_to(step):
            yield
    finally:
        if tasks:
            bars.stop()


def _write_output(output: Optional[Path], text: str) -> None:
    from warehouse.formats.files import write_atomically

    if output is None or str(output) == "-":
        sys.stdout.write(text)
        return
    write_atomically(output, text.encode("utf-8"))  # whole or not at all; OutputError says why
    err(f"wrote {output}")


@app.command("compare")
@shared_options
def compare(
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(
        help=RUNS_HELP + " With no --baseline every pair is tested.")] = None,
    qrels: QrelsOption = None,
    system: SystemOption = None,
    measure: MeasuresOption = None,
    baseline: BaselineOption = None,
    stats: StatsSettings,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[CompareFormat, _format_option(
        "Output format; latex and markdown print a runs x measures table for a paper (best in bold, superscript "
        "letters for significance).")] = CompareFormat.table,
) -> None:
    """Paired significance tests: means, difference, confidence interval, p and corrected p, wins/ties/losses."""
    from warehouse import reports

    with reported_errors(), Warehouse(db, create=False) as wh:
        qrels = wh.qrels_name(qrels, runs, system, baseline)
        selection = wh.select_runs(runs, systems=system, qrels=qrels)
        comparison = reports.compare(wh, selection, qrels, measure, baseline=baseline, settings=settings, stats=stats)
        notes = comparison.notes()
        for line in notes[:1] + selection.notes() + notes[1:]:
            err(f"# {line}")
        if fmt.value in PAPER_FORMATS:
            from warehouse.reports import paper

            sys.stdout.write(paper.render(comparison.paper_table(), fmt.value))
        else:
            emit(comparison.table(), OutputFormat(fmt.value))


@report_app.command("leaderboard")
@shared_options
def report_leaderboard(
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(help=RUNS_HELP)] = None,
    qrels: QrelsOption = None,
    system: SystemOption = None,
    output: OutputOption = None,
    measure: MeasuresOption = None,
    baseline: Annotated[Optional[str], _baseline_option(
        "Run the others are tested against (default: the top run by the primary measure).")] = None,
    run_pages: Annotated[bool, typer.Option(
        "--run-pages/--no-run-pages",
        help="Also write each run's page to a folder named after the leaderboard (dl19.html: dl19_runs/).")] = True,
    stats: StatsSettings,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: ReportFormatOption = None,
) -> None:
    """The stored runs on one qrels set, ranked, with significance against a baseline.

    Every run the qrels set judges, by default."""
    from warehouse import reports

    with reported_errors():
        fmt = _report_format(fmt, output, ReportFormat, "irw report leaderboard")
    with reported_errors(), Warehouse(db, create=False) as wh:
        _measures_first(measure)
        qrels = _report_qrels(wh, qrels, runs, system, baseline)
        selection = _selected_runs(wh, runs, system, qrels)
        if fmt is not ReportFormat.html or str(output) == "-":
            board = reports.leaderboard(wh, qrels, measure, runs=selection, baseline=baseline, settings=settings,
                                        stats=stats)
            if board.unreachable:
                err(f"# {board.unreachable}")
            _emit_report(board, fmt, output, reports.render_leaderboard)
            return
        from warehouse import progress

        # the run pages' bar is one of _steps_on_terminal's, beside the tests' (a display of its own
        # drew a second live bar over the first on stderr)
        written = reports.write_leaderboard(wh, qrels, output, measure, runs=selection, baseline=baseline,
                                            settings=settings, stats=stats, run_pages=run_pages,
                                            progress=lambda done, total: progress.step("run pages", done, total))
        for line in written.messages():  # which pages were written, which were unchanged
            err(line)


@report_app.command("run")
@shared_options
def report_run(
    *,
    run: Annotated[str, typer.Argument(help="Stored run name.")],
    qrels: QrelsOption = None,
    output: OutputOption = None,
    measure: MeasuresOption = None,
    baseline: BaselineOption = None,
    query: Annotated[Optional[str], typer.Option(
        "--query", help="Query whose relevant documents' ranks are shown (default: where the run loses most "
                        "to the baseline); with a data format, they are what is printed, not the per-query "
                        "values.")] = None,
    stats: StatsSettings,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: PageFormatOption = None,
) -> None:
    """One run: metadata, per-query values, difference to a baseline, precision-recall, relevant ranks."""
    from warehouse import reports

    with reported_errors():
        fmt = _report_format(fmt, output, PageFormat, "irw report run")
    with reported_errors(), Warehouse(db, create=False) as wh:
        _measures_first(measure)
        page = reports.run_page(wh, run, _report_qrels(wh, qrels, [run], baseline=baseline), measure, baseline=baseline,
                                query=query, settings=settings, stats=stats)
        if query is not None and fmt.value != "html":  # the query asked for, as data
            _write_output(output, formatting.render(page.relevant_table(), OutputFormat(fmt.value)))
            return
        _emit_report(page, fmt, output, reports.render_run_page)


@report_app.command("compare")
@shared_options
def report_compare(
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(
        help="Stored run names and shell-style patterns ('BM25*'), two runs or more, or one with --baseline "
             "(default: every stored run, as irw compare); with --qrels, the runs a pattern, --system or the "
             "default chose that it does not judge are left out.")] = None,
    qrels: QrelsOption = None,
    system: SystemOption = None,
    output: OutputOption = None,
    measure: MeasuresOption = None,
    baseline: BaselineOption = None,
    stats: StatsSettings,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: PageFormatOption = None,
) -> None:
    """Two or more runs: paired tests per measure, win/tie/loss, per-query scatter, precision-recall."""
    from warehouse import reports

    with reported_errors():
        fmt = _report_format(fmt, output, PageFormat, "irw report compare")
    with reported_errors(), Warehouse(db, create=False) as wh:
        _measures_first(measure)
        qrels = _report_qrels(wh, qrels, runs, system, baseline)
        selection = _selected_runs(wh, runs, system, qrels)
        page = reports.compare_page(wh, selection, qrels, measure, baseline=baseline, settings=settings, stats=stats)
        _emit_report(page, fmt, output, reports.render_compare_page)


@report_app.command("history")
@shared_options
def report_history(
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(help=RUNS_HELP)] = None,
    qrels: QrelsOption = None,
    output: OutputOption = None,
    measure: Annotated[List[str], _measure_option("The measure to follow over time (one).")] = ["AP"],  # noqa: B006 (typer reads it)
    system: SystemOption = None,
    stats: StatsSettings,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: PageFormatOption = None,
) -> None:
    """Each system's runs over time, the best so far, and flags where a newer run is significantly worse."""
    from warehouse import reports

    with reported_errors():
        fmt = _report_format(fmt, output, PageFormat, "irw report history")
    with reported_errors(), Warehouse(db, create=False) as wh:
        _measures_first(measure)
        qrels = _report_qrels(wh, qrels, runs, system)
        selection = _selected_runs(wh, runs, system, qrels)
        page = reports.history(wh, qrels, measure, runs=selection, settings=settings, stats=stats)
        if page.unreachable:
            err(f"# {page.unreachable}")
        _emit_report(page, fmt, output, reports.render_history)


@report_app.command("systems")
@shared_options
def report_systems(
    *,
    runs: Annotated[Optional[List[str]], typer.Argument(help=RUNS_HELP)] = None,
    qrels: Annotated[Optional[List[str]], _qrels_option(help=(
        "Qrels set, a column; repeatable, in the order given (default: every stored set that judges one of "
        "the runs chosen, by name)."))] = None,
    output: OutputOption = None,
    measure: Annotated[List[str], _measure_option("The measure of the table (one).")] = ["AP"],  # noqa: B006 (typer reads it)
    system: SystemOption = None,
    settings: Settings,
    db: DbOption = DEFAULT_DB,
    fmt: PageFormatOption = None,
) -> None:
    """Each system's latest run on each qrels set, and its mean over the sets: systems x collections."""
    from warehouse import reports

    with reported_errors():
        fmt = _report_format(fmt, output, PageFormat, "irw report systems")
    with reported_errors(), Warehouse(db, create=False) as wh:
        page = reports.systems(wh, measure, qrels=qrels, runs=runs, systems=system, settings=settings)
        for note in page.notes():
            err(f"# {note}")
        _emit_report(page, fmt, output, reports.render_systems)


@app.command("serve")
def serve_command(
    db: DbOption = DEFAULT_DB,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; the default answers this machine only.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)] = 8000,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds a SQL-console statement, or a measure of your own computed for a page, may run "
                     "before it is cut.", min=0.1)] = 10.0,
) -> None:
    """Serve the reports as a live, read-only web application.

    Leaderboards, run, compare and history pages, the SQL console, and every page's data as JSON under /api."""
    from warehouse import serve

    with reported_errors(), Warehouse(db, read_only=True):
        pass  # a warehouse that cannot be opened is said so now, not on the first page
    with reported_errors():
        sock = serve.listening_socket(host, port)  # a port in use is said before "serving"
    from warehouse.engines import shown as shown_location

    err(f"serving {shown_location(db)} at http://{host if ':' not in host else f'[{host}]'}:{port}/ (Ctrl-C stops)")
    from warehouse.interrupt import Interrupted, end_here

    try:
        serve.serve(db, host=host, port=port, sql_timeout=timeout, sock=sock)
    except (Interrupted, KeyboardInterrupt):  # Ctrl-C is how a server is stopped: no error, exit 0
        end_here()  # else the entry point would say "interrupted" and exit 130
        err(f"stopped serving {shown_location(db)}")
