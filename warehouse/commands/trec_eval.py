"""`irw trec-eval`: a drop-in for trec_eval on files, through an in-memory warehouse.

Same flags (-q -c -l -M -J -n -m, measure parameters, -m all_trec / official), same output
(`%-22s\\t%s\\t%6.4f`, its names, its order, the runid line). Conventions: trec_eval 9.0.8 by
default, 10.0 with --compat 10 (see docs/conventions.md).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import repeat
from operator import itemgetter, mod
from pathlib import Path
from typing import Iterator, Sequence, TextIO

from warehouse.ingestion import files as ingest
from warehouse.evaluation import oneshot
from warehouse.engines import FILE_ENGINES, evaluates_files
from warehouse.errors import (InputFileError, IrwError, MeasureError, Problem, SettingError, UsageError,
                             command_line_terms)
from warehouse.evaluation.evaluator import (NO_DEPTH, ROWS_PER_BATCH, Evaluator, Settings, keeps_judged_rows_only,
                                            measure_params, runs_by_rows)
from warehouse.formats.escaping import shown as visible
from warehouse.formats.formatting import TREC_NAN, trec_line
from warehouse.ingestion.files import PrefsFormatError, SwappedFileError, display_name
from warehouse.evaluation.measures import (ALL_FAMILIES, CUTOFFS, FAMILIES, JG_FAMILIES, LEVELS, MEASURE_SETS, NONE,
                                           PREFS_FAMILIES, RAW, TIE_MODES, Measure, default_measures, missing_options,
                                           parse, parse_trec,
                                           suggestion, trec_measure_set)

# trec_eval's printing order: its all_trec table, then the measures of the other judgment formats
FAMILY_ORDER = {name: i for i, name in enumerate([*FAMILIES, *JG_FAMILIES, *PREFS_FAMILIES])}
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")


class NoQueriesError(IrwError):
    exit_code = 7


class IllegalFormatError(UsageError):
    """A -R or -T naming no format trec_eval reads: exit status 2, as trec_eval's "Illegal rel_format"
    and "Illegal retrieval results format"."""

    exit_code = 2


class MeasureArgumentError(MeasureError, UsageError):
    """A -m whose parameters irw trec-eval cannot use (a bad list, a measure the judgments' format
    cannot give): exit status 2, as trec_eval's "Cannot initialize measure"; a MeasureError still,
    as `irw eval` raises for the same name."""


class IllegalMeasureError(MeasureArgumentError):
    """A -m naming no measure irw trec-eval takes (nor one of trec_eval 9.0.8 under --compat 9):
    exit status 1, as trec_eval's "illegal measure"."""

    exit_code = 1


def exit_status(exc: IrwError) -> int:
    """trec_eval.c's exit status for what went wrong, which a script written for trec_eval tests: 1
    for its usage (an unknown flag or measure, a wrong number of files, a value irw does not take),
    2 for a file it cannot read or a measure's parameters it cannot use ("Quit in file", "Cannot
    initialize measure"), 7 when no query has both results and judgments. A document a run gives
    twice for a query is a bad file here (2), where trec_eval finds it while measuring (4)."""
    if isinstance(exc, (MeasureArgumentError, IllegalFormatError)):
        return exc.exit_code  # its class's: IllegalMeasureError's 1, the others' 2
    if isinstance(exc, UsageError):
        return 1
    if isinstance(exc, InputFileError):
        return 2
    return exc.exit_code


@dataclass
class TrecEvalArgs:
    qrels: Path | str
    runs: list  # the run files (Path; str under --engine spark), in the order given
    measures: list[str]
    per_query: bool
    no_summary: bool
    settings: Settings
    engine: str = "duckdb"
    master: str | None = None
    process_ends: bool = False  # the process exits right after (warehouse/__main__.py): nothing is closed
    zscores: Path | None = None  # -Z: a file of `qid measure mean stddev` lines (print z scores)
    rel_format: str = "qrels"    # -R: qrels, qrels_jg, prefs or qrels_prefs


@dataclass(frozen=True)
class Flag:
    """One flag of `irw trec-eval`: argparse reads `options`; `-h` prints `argument` and `help`."""
    names: tuple[str, ...]     # ("-q",), ("-h", "--help")
    argument: str | None       # what follows the flag in the usage and the help (None: a switch)
    help: str                  # as `-h` prints it, continuation lines indented by HELP_INDENT
    options: dict = field(default_factory=dict)   # argparse.add_argument's keywords
    repeatable: bool = False   # shown `[-m MEASURE]...` in the usage


# Every flag of `irw trec-eval`, once: the argparse parser (parse_args), the usage line and the `-h`
# text are made from this table, in this order (tests/test_trec_eval_runs.py holds that -h shows
# every flag the parser takes).
FLAGS: tuple[Flag, ...] = (
    Flag(("-h", "--help"), None, "print this help and exit", {"action": "store_true"}),
    Flag(("-v", "--version"), None, "print trec_eval's line to stderr, as trec_eval does, for the version followed\n"
         "(`trec_eval version 9.0.7`, as tag v9.0.8's binary prints it; 10.0-rc3 with --compat 10), and\n"
         "exit; `irw --version` prints irw's",
         {"action": "store_true"}),
    Flag(("-q", "--query_eval_wanted"), None, 'print the value of every measure for every query, then the summary ("all")',
         {"action": "store_true"}),
    Flag(("-n", "--nosummary"), None, "no summary: print only the per-query lines (with -q)", {"action": "store_true"}),
    # trec_eval's levels 1 to 6 print its internal dumps, which irw cannot print byte for byte
    Flag(("-D", "--Debug_level"), "N", "debug level: 0, trec_eval's default (the normal output), is the one taken;\n"
         "trec_eval's debug output (levels 1 to 6) and N.QID form are refused",
         {"default": "0"}),
    Flag(("-c", "--complete_rel_info_wanted"), None, "complete: average over every query of the qrels, a query the run lacks scoring 0",
         {"action": "store_true"}),
    Flag(("-l", "--level_for_rel"), "N", "relevance level: a document is relevant when its grade >= N (N >= 0, default 1); gain\n"
         "measures (ndcg, ndcg_cut, G ...) use the grades and ignore it", {"type": int, "default": 1}),
    Flag(("-M", "--Max_retrieved_per_topic"), "N", "depth: only the first N documents of each query count (after ranking);\n"
         "9223372036854775807, trec_eval's default (MAXLONG), or any N from 2^62 up: no limit",
         {"type": int, "default": None}),
    Flag(("-J", "--Judged_docs_only"), None, "judged only: drop unjudged documents (and negative grades) and re-rank the rest",
         {"action": "store_true"}),
    Flag(("-N", "--Number_docs_in_coll"), "N", "documents in the collection (default 0): only utility's fourth coefficient reads it",
         {"type": int, "default": 0}),
    Flag(("-T", "--Results_format"), "FORMAT", "the runs' format: trec_results, the only one trec_eval reads",
         {"default": "trec_results"}),
    # trec_eval: "Obsolete, no longer supported"; no effect
    Flag(("-o", "--Output_old_results_format"), None, "accepted and ignored, as trec_eval 9.0.8 and 10.0 do (its old output format is gone)",
         {"action": "store_true"}),
    Flag(("-R", "--Rel_info_format"), "FORMAT", "the judgments' format: qrels (default); qrels_jg, `qid group docid grade`, judgments\n"
         "of several groups (users), with -m qrels_jg (map_avgjg, P_avgjg, Rprec_mult_avgjg);\n"
         "prefs, `qid group docid rank? pref` preference judgments, and qrels_prefs, qrels\n"
         "read as preferences, with -m all_prefs (prefs_simp, prefs_pair, prefs_avgjg ...)",
         {"default": "qrels"}),
    Flag(("-Z", "--Zscore"), "FILE", "print z scores instead of values: FILE has `qid measure mean stddev` lines (the\n"
         "means and standard deviations of reference runs); names print with a Z before them,\n"
         "as trec_eval 10.0 prints them, and a query or measure FILE lacks as -1000000",
         {"default": None}),
    Flag(("-m", "--measure"), "MEASURE", "a measure to print; repeatable (default: official). trec_eval names with their\n"
         "parameters (map, P.5,10, ndcg_cut.10, recall.1000, set_F.0.25, iprec_at_recall..10,.5,\n"
         "ndcg.1=3,2=9; of a family's lists, the first is read, as trec_eval reads them), its\n"
         "sets official, all_trec and set (all_prefs, prefs, qrels_jg with -R), or ir_measures\n"
         "names (AP, P@10, nDCG@10, R@1000, RR, SetF(beta=0.5)), printed with trec_eval's names,\n"
         "each of them (-m P@5 -m P@10 as -m P.5,10); irw's own, which trec_eval lacks (Judged@10),\n"
         "in its form (judged_10). `irw measures` lists every measure.",
         {"action": "append", "default": []}, repeatable=True),
    Flag(("--compat",), "9|10", "follow trec_eval 9.0.8 (default: float32 score ties, floor(x*R + 0.9) for\n"
         "interpolated precision) or 10.0 (double scores, round(x*R), rbp, unj)",
         {"type": int, "default": 9, "choices": (9, 10)}),
    Flag(("--engine",), "E", "duckdb (default: in this process) or spark: the same SQL run by Spark SQL\n"
         "(irwarehouse's spark extra, and Java 17); the files are read and checked\n"
         "by Spark, so they may be on any file system Spark reads (hdfs://, s3a:// ...)",
         {"default": "duckdb", "choices": ("duckdb", *FILE_ENGINES)}),
    Flag(("--master",), "URL", "with --engine spark: the cluster (spark://host:7077, yarn, local[4] ...);\n"
         "default local[*], or what spark-submit set", {"default": None}),
)
# the usage shows a flag's choices where its help names no argument (-R's formats, --engine's engines)
USAGE_ARGUMENT = {"-R": "|".join(REL_FORMATS), "-Z": "ZSCORE_FILE", "--engine": "duckdb|spark"}
POSITIONALS = (
    ("QRELS_FILE", "qrels: `qid iter docid grade` (or `qid docid grade`); plain, .gz, .zst, .bz2, .xz"),
    ("RUN_FILE...", "runs: `qid Q0 docid rank score tag`, one or more files, folders (their files in\n"
     "name order) or glob patterns; each run's lines print in the order given, as\n"
     "trec_eval prints them for that run alone"),
)
HELP_INDENT = 17


def _usage_items() -> list[str]:
    items = []
    for flag in FLAGS:
        argument = USAGE_ARGUMENT.get(flag.names[0], flag.argument)
        item = f"[{flag.names[0]}{' ' + argument if argument else ''}]"
        items.append(item + ("..." if flag.repeatable else ""))
    return items + [name for name, _ in POSITIONALS]


def _wrapped_usage(head: str, width: int = 100) -> str:
    lines, line = [], head
    for item in _usage_items():
        if len(line) + 1 + len(item) > width and line.strip():
            lines.append(line)
            line = " " * 20 + item
        else:
            line = f"{line} {item}" if line else item
    return "\n".join([*lines, line]) + "\n"


def _help_entry(label: str, text: str) -> str:
    first, *rest = text.split("\n")
    if len(label) > HELP_INDENT - 4:  # trec_eval's long names (--query_eval_wanted): the text below
        rest, first = [first, *rest], None
    head = f"  {label:<13}  {first}\n" if first is not None else f"  {label}\n"
    return "".join([head, *(f"{' ' * HELP_INDENT}{line}\n" for line in rest)])


def _flag_label(flag: Flag) -> str:
    return ", ".join(flag.names) + (f" {flag.argument}" if flag.argument else "")


USAGE = "usage: irw trec-eval " + " ".join(_usage_items())
HELP = (_wrapped_usage("Usage: irw trec-eval") + """
A drop-in for trec_eval: evaluates TREC run files against one qrels file and prints trec_eval's
lines (name, query or "all", value), byte for byte as trec_eval 9.0.8 prints them (10.0 with
--compat 10), run after run, each block as `trec_eval QRELS_FILE RUN_FILE` prints it. Nothing is
stored; `irw ingest` and `irw eval` keep runs and scores.

""" + "".join(_help_entry(name, text) for name, text in POSITIONALS)
        + "".join(_help_entry(_flag_label(flag), flag.help) for flag in FLAGS) + """
Ties are broken by docid, descending, in byte order; the file's rank column is ignored.
trec_eval's long names may be shortened to a unique prefix (--meas, --query), as its getopt_long
takes them; --compat, --engine and --master are taken whole.
Exit status, as trec_eval's: 0 on success, 1 for a usage mistake (an unknown flag or measure, a
wrong number of files), 2 for a file that cannot be read or a measure's parameters that cannot be
used, 7 when no query has both results and relevance judgments (in any one of the runs given).
""")


class _Parser(argparse.ArgumentParser):
    """argparse saying a mistake once, as irw's error (argparse itself prints its usage to stderr
    and exits, and the command then printed irw's usage again)."""

    def error(self, message: str):
        raise UsageError.of_lines([message, USAGE])


FLAG_OF_SETTING = {"level": "-l", "depth": "-M", "judged_only": "-J", "complete": "-c", "compat": "--compat",
                   "num_docs": "-N"}


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="irw trec-eval", add_help=False, allow_abbrev=False)
    for flag in FLAGS:  # read by the short name trec_eval's getopt gives (ns.M), whatever name was typed
        parser.add_argument(*flag.names, dest=flag.names[0].lstrip("-"), **flag.options)
    # the files are checked below, where those after `--` (a file named -run) join them
    parser.add_argument("qrels", nargs="?", metavar="QRELS_FILE")
    parser.add_argument("runs", nargs="*", metavar="RUN_FILE")
    return parser


# irw's own long options, taken whole: only trec_eval's long names are read from a prefix
IRW_OPTIONS = ("--compat", "--engine", "--master")
TREC_EVAL_LONG_NAMES = tuple(name for flag in FLAGS for name in flag.names
                             if name.startswith("--") and name not in IRW_OPTIONS)
_KNOWN_NAMES = frozenset(name for flag in FLAGS for name in flag.names)
_TAKES_VALUE = frozenset(name for flag in FLAGS if flag.argument for name in flag.names)


def whole_long_names(argv: list[str]) -> list[str]:
    """ARGV with each unique prefix of one of trec_eval's long options written whole (`--meas map`
    as `--measure map`, `--Max=10` as `--Max_retrieved_per_topic=10`), as trec_eval's getopt_long
    reads them; an exact name is itself, an option's value is left alone, and so is everything
    after `--`. irw's own options (--compat, --engine, --master) are taken whole only, so that
    none of trec_eval's prefixes (--c, --m) becomes ambiguous. A prefix of two of trec_eval's
    names (--R, --Re) is refused, as getopt_long refuses it."""
    out: list[str] = []
    value_next = False
    for position, arg in enumerate(argv):
        if value_next:
            out.append(arg)
            value_next = False
        elif arg == "--":
            return out + argv[position:]
        elif arg.startswith("--") and len(arg) > 2:
            name, equals, value = arg.partition("=")
            if name not in _KNOWN_NAMES:
                matches = sorted(whole for whole in TREC_EVAL_LONG_NAMES if whole.startswith(name))
                if len(matches) > 1:
                    raise UsageError(f"{name} is ambiguous (trec_eval's {' or '.join(matches)}): give more of the "
                                     "name")
                name = matches[0] if matches else name
            out.append(name + equals + value)
            value_next = name in _TAKES_VALUE and not equals
        else:
            out.append(arg)
            if arg.startswith("-") and len(arg) > 1:
                # short flags, possibly several in one (-qc, -qm map, -M10): the first taking a value
                # takes the rest of the argument, or the next one
                for at, letter in enumerate(arg[1:], 1):
                    if f"-{letter}" in _TAKES_VALUE:
                        value_next = at == len(arg) - 1
                        break
    return out


def _debug_level_taken(value: str) -> None:
    """trec_eval's -D N (get_debug_level_query: atol(N)) or -D N.QID (QID alone is evaluated, with
    debug output at level N): irw prints trec_eval's normal output only, which is -D 0's."""
    level, dot, qid = value.partition(".")
    if dot:
        raise UsageError(f"-D {value}: trec_eval's N.QID form evaluates query {qid} alone (with debug output when N "
                         "is not 0), which irw trec-eval does not do: give -D 0 or no -D, and a run file holding "
                         f"that query's lines alone (grep '^{qid}[[:space:]]' RUN_FILE > RUN_FILE.{qid})")
    if not re.fullmatch(r"[+-]?[0-9]+", level.strip()):
        raise UsageError(f"-D takes a debug level, 0 here (trec_eval's default), not {value!r}")
    if int(level) != 0:
        raise UsageError(f"-D {value}: trec_eval prints debug output at levels 1 to 6, which irw trec-eval does not "
                         "reproduce: give -D 0 (trec_eval's default, the normal output) or no -D")


def parse_args(argv: list[str]) -> TrecEvalArgs:
    """argv with trec_eval's long names written whole already (whole_long_names, in run())."""
    after = []
    # getopt's end of options, as trec_eval reads it: here the second `--` typed (Click and main()
    # drop the first), so that `irw trec-eval -- -- -q run` reads -q as a file as trec_eval reads it
    if "--" in argv:
        argv, after = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    ns = _parser().parse_intermixed_args(argv)
    files = [*([ns.qrels] if ns.qrels is not None else []), *ns.runs, *after]
    if len(files) < 2:
        # `-m qrels run`: -m took the qrels file for its measure, leaving one file (a walk's slip)
        taken = [value for value in ns.m or () if os.path.isfile(value)]
        said = (f" (-m took {taken[0]}, a file, as its measure: give -m a measure, -m map)" if taken else "")
        raise UsageError.of_lines([f"{'a qrels file and ' if not files else ''}at least one run file "
                                   f"{'are' if not files else 'is'} required{said}", USAGE])
    ns.qrels, ns.runs = files[0], files[1:]
    # checked here, not by argparse's choices: trec_eval exits 2 for them, after its usage errors' 1
    if ns.R not in REL_FORMATS:
        raise IllegalFormatError(f"illegal rel_format {ns.R!r}: -R takes {', '.join(REL_FORMATS[:-1])} or "
                                 f"{REL_FORMATS[-1]}")
    if ns.T != "trec_results":
        raise IllegalFormatError(f"illegal retrieval results format {ns.T!r}: -T takes trec_results, the only one "
                                 "trec_eval reads")
    if ns.M is not None and ns.M < 1:
        raise UsageError(f"-M takes the number of documents to keep per query, at least 1, not {ns.M}")
    if ns.M is not None and ns.M >= NO_DEPTH:
        # trec_eval's own default is MAXLONG (2^63 - 1): a depth no run reaches, which is no depth
        ns.M = None
    _debug_level_taken(ns.D)
    if ns.master and not evaluates_files(ns.engine):
        raise UsageError("--master names a Spark cluster: use it with --engine spark")
    if evaluates_files(ns.engine) and (ns.Z or ns.R != "qrels"):
        raise UsageError("-Z and -R run with --engine duckdb (the default) only")
    if ns.N < 0:
        raise UsageError(f"-N takes the number of documents in the collection, not {ns.N}")
    try:
        settings = Settings(level=ns.l, depth=ns.M, judged_only=ns.J, complete=ns.c, compat=ns.compat, num_docs=ns.N)
    except SettingError as refused:  # said with trec_eval's flag the user typed
        raise refused.said_as(FLAG_OF_SETTING[refused.setting]) from None
    if evaluates_files(ns.engine):
        # Spark reads URLs (hdfs://host/..., s3a://bucket/...), which a Path would fold to hdfs:/host/...;
        # local folders and patterns are its files, as on DuckDB, each a run of its own
        from warehouse.engines.spark import refuse_missing_paths

        qrels = ns.qrels
        runs = [r for given in ns.runs
                for r in ([given] if ingest.has_scheme(given) else map(str, ingest.run_files([given])))]
        # a missing file or an .xz one, refused before Spark starts (~20 s) rather than after, as
        # irw eval --engine spark refuses them
        refuse_missing_paths(qrels, runs)
    else:
        qrels, runs = Path(ns.qrels), ingest.run_files(ns.runs)
    # trec_eval's default, official, reads TREC qrels: another format's default is its own set
    default = "official" if ns.R == "qrels" else "qrels_jg" if ns.R == "qrels_jg" else "all_prefs"
    return TrecEvalArgs(qrels, runs, ns.m or [default], ns.q, ns.n, settings, ns.engine, ns.master,
                        zscores=Path(ns.Z) if ns.Z else None, rel_format=ns.R)


def requested_measures(specs: list[str], compat: int) -> list[Measure]:
    """The measures trec_eval would print, in its table order (never in -m order).

    As in trec_eval, a family named in several -m arguments of trec_eval's syntax takes the first
    explicit parameter list given for it (`-m all_trec -m P.5,7` prints P_5 and P_7 only, `-m P.5
    -m P.10` P_5 only), else its defaults. A name trec_eval itself does not take (P@10, nDCG@10,
    P_10) always prints: see _family_measures.
    """
    families: list[str] = []
    explicit: dict[str, str] = {}  # each family's first list in trec_eval's syntax: the one trec_eval reads
    added: dict[str, list[tuple[str, str]]] = {}  # (as typed, trec_eval spec) of the names trec_eval lacks
    named: set[str] = set()  # families asked for by name, not through a set
    for typed in specs:
        name = typed.partition(".")[0]
        if name in ("all_trec", "official"):
            families.extend(m.family.trec_name for m in trec_measure_set(name, compat))
            continue
        if name in MEASURE_SETS:  # set, prefs, all_prefs, qrels_jg: trec_eval's other nicknames
            families.extend(MEASURE_SETS[name])
            continue
        family = ALL_FAMILIES.get(name)
        if family is not None and family.kind == NONE and typed.partition(".")[2]:
            typed = name  # trec_eval reads no parameter of a measure that takes none: map.5 prints map
        name, dot, spec, trec_syntax = _as_trec_spec(typed)
        families.append(name)
        named.add(name)
        if not trec_syntax:
            added.setdefault(name, []).append((typed, spec))
        elif dot:
            explicit.setdefault(name, spec)
    too_new = sorted(f for f in named if FAMILIES.get(f) is not None and FAMILIES[f].v10_only and compat == 9)
    if too_new:
        # trec_eval 9.0.8 has no such measure; all_trec under --compat 9 leaves them out as 9.0.8's does
        raise IllegalMeasureError(f"{', '.join(too_new)} {'is a measure' if len(too_new) == 1 else 'are measures'} of "
                           "trec_eval 10.0, which 9.0.8 (irw trec-eval's default) does not have: add --compat 10")
    ordered = []
    for family in sorted(set(families), key=lambda f: FAMILY_ORDER.get(f, len(FAMILY_ORDER))):
        if FAMILIES.get(family) is not None and FAMILIES[family].v10_only and compat == 9:
            continue
        if family == "relstring" and compat == 9:
            # trec_eval 9.0.8 printed relstring at its default width whatever the parameter.
            ordered.extend(parse_trec("relstring"))
            continue
        ordered.extend(_family_measures(family, explicit.get(family), added.get(family, [])))
    return ordered


# the families of one value that take a parameter list (trec_eval reads its first item)
_ONE_VALUE = ("set_F", "relstring")


def _family_measures(family: str, listed: str | None, added: list[tuple[str, str]]) -> list[Measure]:
    """One family's measures, from its first list in trec_eval's syntax (listed) and the names of
    it trec_eval does not take (added: (as typed, trec_eval spec)).

    trec_eval's rule, that the first list is read, holds among trec_eval's own syntax, so that its
    commands print as it prints them. A name trec_eval does not take is no trec_eval command, and
    dropping it would lose a measure asked for: its cutoffs (or levels) join the list, as if all of
    them were typed in it (`-m P@5 -m P@10` as `-m P.5,10`; `-m P.5 -m P.10 -m P@20` prints P_5
    and P_20, P.10 being the list trec_eval would not read), or, with no list in trec_eval's
    syntax, are the list (`-m all_trec -m P@7` prints P_7 alone, as `-m all_trec -m P.7` does).
    A family of one value (set_F, utility, ndcg's gains, rbp) has one list per run in trec_eval's
    table: two different ones cannot both print, and are refused rather than one dropped."""
    if not added:
        return _as_typed(listed or family)
    if ALL_FAMILIES[family].kind in (CUTOFFS, LEVELS) and family not in _ONE_VALUE:
        by_value: dict = {}
        for m in [*(_as_typed(listed) if listed else []), *(m for _, spec in added for m in parse_trec(spec))]:
            by_value.setdefault(m.param, m)
        return [by_value[value] for value in sorted(by_value)]
    asked = {}  # the printed names of each list asked for -> (what asked for it, its measures)
    for typed, spec in [*([(listed, listed)] if listed else []), *added]:
        measures = _as_typed(spec)
        asked.setdefault(tuple(m.trec_name for m in measures), (typed, measures))
    if len(asked) > 1:
        raise MeasureError(f"{', '.join(typed for typed, _ in asked.values())}: trec_eval computes {family} with "
                           "one parameter list, so one run prints one of them: ask for one here (`irw eval` "
                           "takes them all)")
    return next(iter(asked.values()))[1]


def _as_typed(spec: str) -> list[Measure]:
    """The measures of one trec_eval -m spec; a measure of one value with a parameter list (set_F,
    utility, 11pt_avg, relstring, and the gain measures' grade=gain pairs) keeps the list as typed,
    which trec_eval prints after its name even when it gives the defaults (`utility.1,-1,0,0` ->
    utility_1,-1,0,0, `relstring.10` -> relstring_10 in 10.0); set_F and relstring read the first
    value of their list only (atof, and relstring's width as a whole number)."""
    name, dot, params = spec.partition(".")
    family = ALL_FAMILIES.get(name)
    one_value = name in _ONE_VALUE
    if not dot or family is None or family.kind in (NONE, CUTOFFS, LEVELS) and not one_value:
        measures = parse_trec(spec)
        if dot and family is not None and family.kind in (CUTOFFS, LEVELS) and len(measures) < len(params.split(",")):
            # trec_eval reads the list with atol (cutoffs) or atof (recall levels, multiples of R)
            # and refuses it when two items read as the same number (meas_init.c)
            raise MeasureError(f"{spec}: the list gives a {'cutoff' if family.kind == CUTOFFS else 'level'} twice (as "
                               "trec_eval reads its numbers), which trec_eval refuses (\"duplicate cutoffs "
                               "detected\"): give each once")
        return measures
    if one_value:
        first = parse_trec(f"{name}.{params.split(',')[0]}")[0]
        return [replace(first, typed=params)]
    if family.kind == RAW and params == "" and family.defaults == ("",):
        # the gain measures' grade=gain pairs (and rbp's p=): trec_eval refuses an empty list
        # ("malformed pair parameters") rather than taking the defaults
        example = f"{name}.p=0.95" if name.startswith("rbp") else f"{name}.1=1,2=3"
        raise MeasureError(f"{spec}: an empty list of name=value pairs, which trec_eval refuses (\"malformed pair "
                           f"parameters\"): give pairs ({example}) or no list at all (-m {name})")
    measures = [replace(m, typed=params) for m in parse_trec(spec)]
    for m in measures:
        measure_params(m)  # a list that is not grade=gain pairs is said now, before any file is read
    return measures


def _as_trec_spec(spec: str) -> tuple[str, str, str, bool]:
    """(family, '.' if parameters were given, trec_eval spec, whether trec_eval takes it as typed)
    of one -m argument, which may be a trec_eval name (`ndcg_cut.10`) or an ir_measures name
    (`nDCG@10`), as `irw measures` lists."""
    try:
        named = parse_trec(spec)  # validates the name and parameters
        name, dot, _ = spec.partition(".")
        if not any(m.options or m.level is not None or missing_options(m) for m in named):
            if name not in ALL_FAMILIES and len(named) == 1:
                # a name as trec_eval prints it (P_10, unj_5), which its -m does not take: read as P.10
                return named[0].family.trec_name, ".", named[0].trec_spec, False
            return name, dot, spec, True
        # irw's own names: map_ties (which needs its ties=), a name irw prints (map_ties_min,
        # P_rel_2_10): said below as their ir_measures spellings are
    except MeasureError as trec_error:
        try:
            named = parse(spec)
        except MeasureError as ir_error:
            if not str(trec_error).startswith("unknown measure"):
                raise trec_error from None
            if not str(ir_error).startswith("unknown measure"):
                raise ir_error from None  # an ir_measures name with a wrong parameter (P@0), said as irw eval says it
            hint = suggestion(spec)
            if hint:
                # a hint naming a list (P.10,20 (P@10, P@20)) is trec_eval's spelling already
                spelled = hint.split(" (", 1)[0].split(", ")[0]
                trec = [m.trec_spec for m in parse(spelled)]
                hint = f"did you mean {hint}" + (f" (trec_eval: {trec[0]})? " if len(trec) == 1 else "? ")
            raise IllegalMeasureError(f"unknown measure {spec!r}; {hint or ''}irw trec-eval takes trec_eval names "
                               "(map, P.10, ndcg_cut.10) and ir_measures names (AP, P@10, nDCG@10); "
                               "`irw measures` lists both (a measure added with `irw measures add` is computed in "
                               "its warehouse: `irw eval -m NAME`)") from None
    unsaid = [m for m in named if missing_options(m)]
    if unsaid:  # map_ties computed without its ties= printed 0 for every query (a walk)
        example = replace(unsaid[0], options=(("ties", TIE_MODES[0]),)).name
        raise IllegalMeasureError(f"{spec}: irw's tie-aware measures need ties=expected, min or max, which trec_eval's "
                                  f"-m cannot say (trec_eval has no such measure); evaluate it with `irw eval -m "
                                  f"'{example}'` or warehouse.evaluate_files")
    if any(m.options for m in named):  # AP(ties=min), NRBP(alpha=0.3,beta=0.8): trec_eval's -m cannot say it
        # trec_eval has no measure of such a name: its "illegal measure", exit 1, as for map_ties
        raise IllegalMeasureError(f"{spec}: irw trec-eval takes a measure's options only at their defaults (a "
                                  "trec_eval name has none); evaluate it with `irw eval` or warehouse.evaluate_files")
    if any(m.level is not None for m in named):
        raise IllegalMeasureError(f"{spec}: irw trec-eval sets one relevance level for every measure, as trec_eval "
                                  f"does: use -l {named[0].level} -m {replace(named[0], level=None).trec_spec} (irw "
                                  "eval and warehouse.evaluate_files take a level per measure)")
    families = {m.family.trec_name for m in named}
    if len(named) > 1 or len(families) > 1 or named == default_measures(named[0].family):
        # P without @k: the family's defaults; SetF: set_F at its default, printed `set_F` as -m set_F is
        return named[0].family.trec_name, "", named[0].family.trec_name, False
    return named[0].family.trec_name, ".", named[0].trec_spec, False


def _format(m: Measure, qid: str, value) -> str:
    if m.family.trec_name == "relstring":
        return trec_line(_relstring_name(m), qid, f"'{value}'")
    return trec_line(m.trec_name, qid, value, m.is_count)


def _relstring_name(m: Measure) -> str:
    """relstring's printed name: its parameter list as typed (10.0) or none (9.0.8, which reads none)."""
    return m.trec_name if m.typed is not None else "relstring" if m.param == 10 else f"relstring_{m.param}"


def _per_query_lines(measures: list[Measure], rows: list, block: list[str], evaluated: list[str], in_run: set[str],
                     relstrings: dict[str, dict[str, str]], settings: Settings) -> str:
    """The -q lines of one run: every evaluated query in order, each measure's line in trec_eval's
    order, as _format() writes them (formatting.trec_line: `%-22s\t%s\t%6.4f`, `%ld` for counts,
    relstring quoted), from one line template per measure: a 7,000-query run has 700,000 lines with
    -m all_trec, so no Python code runs per line where it can be helped. rows: the run's rows of
    eval/per_query.sql; block: the measures (with SQL) in the order it lists them within a query."""
    scores, texts = [], []  # (line template, measure name) of each score; (position, template, strings)
    for m in (m for m in measures if m.family.per_query):
        if m.family.trec_name == "relstring":
            head = f"{_relstring_name(m):<22}".replace("%", "%%")
            texts.append((len(scores) + len(texts), head + "\t%s\t'%s'\n", relstrings[m.trec_name]))
        else:  # per-query values are numbers: scores.value is a double, counts ints
            head = f"{m.trec_name:<22}".replace("%", "%%")
            scores.append((head + ("\t%s\t%d\n" if m.is_count else "\t%s\t%6.4f\n"), m.name))
    templates = [template for template, _ in scores]
    out: list[str] = []
    for qid, values in zip(evaluated, _values_by_query(rows, block, evaluated, [name for _, name in scores])):
        answered = qid in in_run
        if not answered and not settings.prints_queries_not_in_run:
            continue
        printed = visible(qid)  # trec_line's rule: a control character in a query id is written escaped
        query_lines = list(map(mod, templates, zip(repeat(printed), values)))
        for position, template, strings in texts:
            query_lines.insert(position, template % (printed, strings.get(qid, "") if answered else ""))
        out.extend(query_lines)
    # '%6.4f' % nan is "   nan": trec_eval's is "  -nan" (a query id holds no blank, so only a value matches)
    return "".join(out).replace("\t   nan\n", f"\t{TREC_NAN}\n")


LINE_FORMAT_COLUMNS = [("position", "integer"), ("measure", "varchar"), ("head", "varchar"), ("kind", "varchar")]
RELSTRING_COLUMNS = [("run_id", "integer"), ("measure", "varchar"), ("query_id", "varchar"), ("relstring", "varchar")]


def _per_query_text(db, measures: list[Measure], relstrings: dict[str, dict[tuple, str]],
                    settings: Settings) -> dict[int, str] | None:
    """The -q lines of each run of the evaluation (by run_id) as _per_query_lines() writes them,
    formatted by sql/oneshot/per_query_lines.sql from the stored scores (evaluate() was called
    without per_query: no row reaches Python); None when a line lacks its value."""
    formats, relstring_rows = [], []
    for m in (m for m in measures if m.family.per_query):
        if m.family.trec_name == "relstring":
            formats.append((len(formats), m.name, f"{_relstring_name(m):<22}", "relstring"))
            relstring_rows.extend((run_id, m.name, qid, text)
                                  for (run_id, qid), text in relstrings[m.trec_name].items())
        else:
            formats.append((len(formats), m.name, f"{m.trec_name:<22}", "count" if m.is_count else "value"))
    db.load_rows("trec_eval_line_formats", LINE_FORMAT_COLUMNS, formats)
    db.load_rows("trec_eval_relstrings", RELSTRING_COLUMNS, relstring_rows)
    rows = db.run_file("oneshot/per_query_lines.sql",
                       {"lines_for_queries_not_in_run": settings.prints_queries_not_in_run}).fetchall()
    if any(missing for _, _, missing in rows):
        return None
    return {run_id: text for run_id, text, _ in rows}


def _values_by_query(rows: list, block: list[str], evaluated: list[str], names: list[str]) -> Iterator[Sequence]:
    """For each evaluated query of one run, the per-query values of the measures `names`, in that
    order, from the run's rows of eval/per_query.sql.

    eval/per_query.sql lists the values query by query in query-id order, and within a query in the
    order of evaluation.measures (those with SQL, `block`): then each query's values are a slice of
    the value column, picked without a Python step per value. Checked, not assumed; else each value
    is looked up by (query, measure)."""
    width = len(block)
    if width and len(rows) == width * len(evaluated) and set(names) <= set(block) \
            and list(map(itemgetter(2), rows)) == block * len(evaluated) \
            and list(map(itemgetter(1), rows[::width])) == evaluated:
        values = list(map(itemgetter(3), rows))
        positions = [block.index(name) for name in names]
        pick = itemgetter(*positions) if len(positions) > 1 else \
            (lambda v: (v[positions[0]],)) if positions else (lambda v: ())
        return (pick(values[i:i + width]) for i in range(0, len(values), width))
    found = {(query, measure): value for _, query, measure, value in rows}
    return ([found[(qid, name)] for name in names] for qid in evaluated)


_FORMAT_NAMES = {"qrels": "TREC qrels (-R qrels, the default)", "qrels_jg": "judgment groups (-R qrels_jg)",
                 "prefs": "preference judgments (-R prefs or -R qrels_prefs)"}
_FORMAT_SETS_SHOWN = {"qrels": "-m official, -m all_trec, -m set or any measure of `irw measures`",
                      "qrels_jg": "-m qrels_jg", "prefs": "-m all_prefs or -m prefs"}


def _require_format(measures: list[Measure], rel_format: str) -> None:
    """Each measure reads one judgment format (trec_eval refuses a measure of another: "Can't
    calculate measure"); runid and num_q read any. One error names every measure that cannot be
    computed from this -R format, and what to ask for instead."""
    wanted = "prefs" if rel_format in ("prefs", "qrels_prefs") else rel_format
    wrong = [m for m in measures if m.family.trec_name not in ("runid", "num_q") and m.family.rel_format != wanted]
    if wrong:
        needs = sorted({m.family.rel_format for m in wrong})
        names = list(dict.fromkeys(m.family.trec_name for m in wrong))
        raise MeasureError(f"{', '.join(names)} {'read' if len(names) > 1 else 'reads'} {' and '.join(_FORMAT_NAMES[n] for n in needs)}, "
                           f"not {_FORMAT_NAMES[wanted].split(' (')[0]} (-R {rel_format}): give -R "
                           f"{' or -R '.join('prefs' if n == 'prefs' else n for n in needs)} and a file in that format, or "
                           f"with -R {rel_format} ask for {_FORMAT_SETS_SHOWN[wanted]}")


# what sql/ingest/qrels_problems.sql tells `irw ingest qrels` to do with judgment groups; trec-eval says -R
_INGEST_GROUPS_HINT, _TREC_EVAL_GROUPS_HINT = "ingest the file with --subtopics", "give -R qrels_jg"


@contextmanager
def _said_with_r_flag() -> Iterator[None]:
    """A qrels file's duplicate judgments in several groups: ingestion's hint names `irw ingest
    qrels --subtopics`, an option trec-eval lacks; trec-eval reads such a file with -R qrels_jg."""
    try:
        yield
    except InputFileError as exc:
        if type(exc) is not InputFileError or not any(_INGEST_GROUPS_HINT in p.reason for p in exc.problems):
            raise
        problems = [replace(p, reason=p.reason.replace(_INGEST_GROUPS_HINT, _TREC_EVAL_GROUPS_HINT))
                    for p in exc.problems]
        raise InputFileError(problems, exc.total, read_lines=exc.read_lines, hint=exc.hint) from None


@contextmanager
def _swapped_files_named() -> Iterator[None]:
    """A qrels file that looks like a run, or a run that looks like qrels: trec_eval's own
    arguments are easy to give in the wrong order, so the first error line asks."""
    try:
        yield
    except SwappedFileError as exc:
        raise SwappedFileError(exc.path, exc.looks_like, "did you swap QRELS and RUN? "
                               "(irw trec-eval QRELS_FILE RUN_FILE)") from None


def _run_name(position: int) -> str:
    """The name of the run given at this position (from 0) in the one-shot database: never its tag,
    which runs share (all six DL19 passage runs are tagged `rank`), and never the file's, which may
    be given twice."""
    return "run" if position == 0 else f"run{position + 1}"


def _run_names(args: TrecEvalArgs) -> list[str]:
    """The run name of each RUN_FILE given, in order. Spark reads a file given twice once (its lines
    twice would be duplicates of one run), so both places name that run and print its block."""
    if not evaluates_files(args.engine):
        return [_run_name(position) for position in range(len(args.runs))]
    first = {}
    return [_run_name(first.setdefault(run, position)) for position, run in enumerate(args.runs)]


@contextmanager
def _files_database(args: TrecEvalArgs, measures: list[Measure]) -> Iterator:
    """A database holding the qrels set `qrels` and the runs of the files, named by _run_name, and
    the arguments with the run files it holds: a one-shot DuckDB database here, or (--engine spark) a
    warehouse/engines/spark.py SparkDatabase in a session of its own, the files read and checked by
    Spark (a folder or pattern on the cluster's file system listed there), a file given twice read
    once (_run_names)."""
    if evaluates_files(args.engine):
        from warehouse.engines import spark

        with spark.command_session(args.master) as session:
            # a folder or pattern on the cluster's file system is its files, as a local one is
            args = replace(args, runs=spark.run_file_locations(session, args.runs))
            db = spark.SparkDatabase(session)
            try:
                with _swapped_files_named():
                    spark.load_qrels(db, args.qrels)
                    spark.load_runs(db, dict(zip(_run_names(args), args.runs)), strict=False)
                yield db, args
            finally:
                db.close()
        return
    with oneshot.database(close=not args.process_ends,
                          input_bytes=oneshot.input_size([args.qrels, *args.runs])) as db, _swapped_files_named():
        # a qrels_jg file, `qid group docid grade`, is stored as a subtopic set: its groups as subtopics
        if args.rel_format in ("prefs", "qrels_prefs"):
            try:
                ingest.ingest_prefs(db, args.qrels, "qrels", digest=False, qrels_format=args.rel_format == "qrels_prefs")
            except PrefsFormatError as exc:  # ingestion names both commands' options: here -R's value
                hint = ("give -R qrels_prefs to read a qrels file as preferences" if args.rel_format == "prefs"
                        else "give -R prefs to read preference judgments")
                said = PrefsFormatError(exc.path, exc.looks_like, hint)
                said.read_lines = exc.read_lines  # as ingestion marked it (judged by the file's head)
                raise said from None
        else:
            with _said_with_r_flag():
                ingest.ingest_qrels(db, args.qrels, "qrels", digest=False, subtopics=args.rel_format == "qrels_jg")
        judged_rows_only = keeps_judged_rows_only(args.settings, measures)
        oneshot.ingest_runs(db, args.runs, [_run_name(i) for i in range(len(args.runs))],
                            judged_rows_only=judged_rows_only)
        yield db, args


def run(argv: list[str], out: TextIO, *, process_ends: bool = False) -> None:
    """Prints each run's block, in the order given, as trec_eval prints it for that run alone
    (_print_runs); an error carries trec_eval's exit status (exit_status)."""
    try:
        _print_runs(argv, out, process_ends=process_ends)
    except IrwError as exc:
        exc.exit_code = exit_status(exc)
        raise


def _print_runs(argv: list[str], out: TextIO, *, process_ends: bool = False) -> None:
    """Every run is evaluated in one database by the same SQL at once (the run as one more column of
    every table), in groups of about evaluate.ROWS_PER_BATCH rows; nothing is printed unless every
    file is read and every run has a query to evaluate. process_ends: the caller exits the
    process right after (main(), from warehouse/__main__.py), so the one-shot database is left
    open instead of torn down."""
    argv = whole_long_names(argv)
    if any(a in ("-h", "--help") for a in argv):
        out.write(HELP)
        return
    if any(a in ("-v", "--version") for a in argv):
        # trec_eval prints its version line to stderr and exits 0; its line alone, as scripts read its
        # third field (`irw --version` says irw's)
        print(f"trec_eval version {TREC_EVAL_VERSIONS[_compat_of(argv)]}", file=sys.stderr)
        return
    args = replace(parse_args(argv), process_ends=process_ends)
    try:
        measures = requested_measures(args.measures, args.settings.compat)
        _require_format(measures, args.rel_format)
    except MeasureArgumentError:
        raise
    except MeasureError as exc:
        raise MeasureArgumentError.of_lines(exc.message_lines()) from None
    zscores: dict[str, list] = {}  # the -Z file's lines, read once (after the first group's checks)
    with _files_database(args, measures) as (db, args):
        names = _run_names(args)
        blocks: dict[str, str] = {}
        for group in _groups(db, list(dict.fromkeys(names))):
            blocks.update(_blocks(db, args, measures, group, zscores))
        out.write("".join(blocks[name] for name in names))


# what `trec_eval -v` prints after "trec_eval version ", by --compat: what the binaries behind the
# conformance outputs print (../shared/conformance/dl19-passage/SOURCE.txt): tag v9.0.8's Makefile still
# says VERSIONID 9.0.7, and 10.0 (HEAD f4253652, with rbp, unj and gain_init.c) 10.0-rc3
TREC_EVAL_VERSIONS = {9: "9.0.7", 10: "10.0-rc3"}


def _compat_of(argv: list[str]) -> int:
    """The --compat of ARGV, read alone (-v prints before any other argument is checked, as trec_eval's
    does); a value it does not take is refused as without -v."""
    flag = next(f for f in FLAGS if f.names == ("--compat",))
    parser = _Parser(prog="irw trec-eval", add_help=False, allow_abbrev=False)
    parser.add_argument(*flag.names, dest="compat", **flag.options)
    return parser.parse_known_args(argv)[0].compat


def _groups(db, names: list[str]) -> list[list[str]]:
    """The runs in the order given, in groups evaluated together: about evaluate.ROWS_PER_BATCH
    lines each (a larger run alone), as Evaluator computes them, so that each group's evaluation
    tables (eval_run_queries) are in place when its lines are written."""
    if len(names) == 1:
        return [names]
    rows = dict(db.run_file("trec_eval/run_row_counts.sql").fetchall())
    return list(runs_by_rows(((name, rows[name]) for name in names), ROWS_PER_BATCH))


def _no_queries(args: TrecEvalArgs, name: str) -> NoQueriesError:
    message = "trec_eval: No queries with both results and relevance info"
    if len(args.runs) == 1:
        return NoQueriesError(message)
    path = args.runs[int(name[3:] or 1) - 1]
    return NoQueriesError(f"{path}: {message} (no run's lines were printed)")


def _blocks(db, args: TrecEvalArgs, measures: list[Measure], group: list[str],
            zscores: dict[str, list]) -> dict[str, str]:
    """Each run's block of lines, by run name, for a group of runs evaluated together."""
    s = args.settings
    scored = [m for m in measures if m.family.trec_name not in ("runid", "relstring")]
    # runid or relstring alone still evaluates, as trec_eval does, to find the queries with both
    # results and judgments (and refuse a run with none): num_ret, computed and never printed
    computed = scored or parse_trec("num_ret")
    # per-query lines are formatted in SQL on DuckDB (_per_query_text), from the stored scores
    lines_in_sql = args.per_query and not evaluates_files(args.engine) and args.zscores is None
    per_query_rows = args.per_query and not lines_in_sql or args.zscores is not None
    try:
        evaluation = Evaluator(db).evaluate(group, "qrels", computed, per_query=per_query_rows, settings=s)
    except MeasureError:
        # a measure refused before anything was prepared (a diversity measure: no subtopics here),
        # or a run without a query to evaluate
        prepared = db.has_table("eval_run_queries")
        if prepared:
            have = {r[0] for r in db.run_file("trec_eval/evaluated_runs.sql").fetchall()}
            for name in group:
                if name not in have:
                    raise _no_queries(args, name) from None
        raise
    evaluated: dict[str, list[str]] = {name: [] for name in group}
    # of each run's evaluated queries, those it answers (-c adds the others, in_run false)
    in_run: dict[str, set[str]] = {name: set() for name in group}
    if evaluation:
        for name, qid, answers in db.run_file("trec_eval/evaluated_queries.sql").fetchall():
            evaluated[name].append(qid)
            if answers:
                in_run[name].add(qid)
    for name in group:
        if not in_run[name]:  # no query in both the run and the qrels
            raise _no_queries(args, name)
    run_ids = dict(db.run_file("catalog/all_run_ids.sql").fetchall())
    tags = dict(db.run_file("trec_eval/run_tags.sql").fetchall())
    # relstring's text by measure: {trec name: {(run_id, query_id): relstring}}
    relstrings: dict[str, dict[tuple, str]] = {}
    for m in measures if args.per_query else ():
        if m.family.trec_name == "relstring":
            relstrings[m.trec_name] = {(run_id, qid): text for run_id, qid, text in db.run_file(
                "measures/relstring.sql",
                {"width": int(m.param), "compat": s.compat, "judged_only": s.judged_only,
                 "depth": s.depth or NO_DEPTH}).fetchall()}

    def of_run(name: str) -> dict[str, dict[str, str]]:
        run_id = run_ids[name]
        return {measure: {qid: text for (r, qid), text in texts.items() if r == run_id}
                for measure, texts in relstrings.items()}

    rows_by_run: dict[str, list] = {name: [] for name in group}
    if evaluation and evaluation.per_query:
        for row in evaluation.per_query.rows:
            rows_by_run[row[0]].append(row)
    block = [m.name for m in evaluation.measures if m.family.sql is not None] if evaluation else []
    # trec_eval -c replaces num_rel's sum by the qrels lines with grade > 0 (ignoring -l)
    num_rel = db.run_file("trec_eval/num_rel_complete.sql").fetchone()[0] \
        if s.complete and any(m.family.trec_name == "num_rel" for m in measures) else None
    if args.zscores is not None:
        if "lines" not in zscores:
            zscores["lines"] = read_zscores(args.zscores)
        return {name: _zscore_text(db, args, measures, rows_by_run[name], evaluated[name], in_run[name],
                                   of_run(name), tags[name], zscores["lines"], num_rel) for name in group}
    texts = _per_query_text(db, measures, relstrings, s) if lines_in_sql else None
    if texts is not None and any(visible(qid) != qid for qids in evaluated.values() for qid in qids):
        # the SQL writes query ids as they are: one holding a control character (a walk's ESC [31m
        # reached the terminal raw) is written escaped by _per_query_lines, as every trec_line is
        texts = None
    if args.per_query and texts is None:
        if lines_in_sql:  # a value missing from the SQL's lines: read them as rows, which says which
            evaluation = Evaluator(db).evaluate(group, "qrels", computed, per_query=True, settings=s)
            for row in evaluation.per_query.rows:
                rows_by_run[row[0]].append(row)
        texts = {run_ids[name]: _per_query_lines(measures, rows_by_run[name], block, evaluated[name], in_run[name],
                                                 of_run(name), s) for name in group}
    summary = {(row[0], row[1]): row[2] for row in evaluation.summary.rows} if evaluation else {}
    blocks = {}
    for name in group:
        out = [texts.get(run_ids[name], "")] if args.per_query else []
        if not args.no_summary:
            for m in measures:
                family = m.family.trec_name
                if not m.family.summary:
                    continue
                if family == "runid":
                    value = tags[name]
                elif family == "num_q":
                    value = len(evaluated[name])
                elif family == "num_rel" and s.complete:
                    value = num_rel
                else:
                    value = summary[(name, m.name)]
                out.append(_format(m, "all", value))
        blocks[name] = "".join(out)
    return blocks


ZSCORE_COLUMNS = [("query_id", "varchar"), ("measure", "varchar"), ("mean", "double"), ("stddev", "double")]
ZSCORE_VALUE_COLUMNS = [("position", "integer"), ("measure", "varchar"), ("aggregate", "varchar"),
                        ("query_id", "varchar"), ("value", "double"), ("in_run", "boolean")]


def read_zscores(path: Path) -> list[tuple[str, str, float, float]]:
    """The lines of a -Z file, `qid measure mean stddev` (whitespace between, as trec_eval's
    get_zscores.c reads them), checked: a line of other than four fields, a mean or stddev that is
    no number, or a (qid, measure) given twice is an error naming file:line; so is an empty file."""
    shown = str(path)  # as given, as every file problem is named (display_name is a run's name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputFileError([Problem(shown, 0, f"cannot read the zscore file: {exc.strerror or exc}")]) from None
    rows, problems, seen = [], [], {}
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the newline ending the last line, or an empty file
    for number, raw in enumerate(lines, 1):
        fields = raw.decode("utf-8", "replace").split()
        if len(fields) != 4:
            problems.append(Problem(shown, number, f"expected `qid measure mean stddev` (4 fields), found "
                                    f"{len(fields)}" + (": a measure's name and its mean and stddev are missing"
                                                        if len(fields) < 2 else "")))
            continue
        qid, measure, mean, stddev = fields
        try:
            values = float(mean), float(stddev)
        except ValueError:
            problems.append(Problem(shown, number, f"mean and stddev must be numbers, found {mean!r} {stddev!r}"))
            continue
        if not all(map(math.isfinite, values)):
            problems.append(Problem(shown, number, f"mean and stddev must be finite, found {mean!r} {stddev!r}"))
            continue
        if (qid, measure) in seen:
            problems.append(Problem(shown, number, f"query {qid} measure {measure} was given on line "
                                    f"{seen[(qid, measure)]} already"))
            continue
        seen[(qid, measure)] = number
        rows.append((qid, measure, *values))
    if not rows and not problems:
        problems.append(Problem(shown, 0, "the zscore file holds no line: expected `qid measure mean stddev` lines"))
    if problems:
        raise InputFileError(problems)
    return rows


def _zscore_text(db, args: TrecEvalArgs, measures: list[Measure], rows: list, evaluated: list[str],
                 in_run: set[str], relstrings: dict[str, dict[str, str]], tag: str, zscores: list,
                 num_rel: int | None) -> str:
    """The lines trec_eval 10.0 prints with -Z for one run (rows: its rows of eval/per_query.sql;
    zscores: read_zscores' lines): every value converted by sql/oneshot/zscores.sql, each name with
    a Z before it (`Z%-22s`), counts printed as values; runid and relstring as without -Z. num_rel:
    -c's num_rel summary (_blocks), printed in place of the converted sum."""
    s = args.settings
    scored = [m for m in measures if m.family.sql is not None]
    position = {m.name: i for i, m in enumerate(scored)}
    values = []
    for _, qid, name, value in rows:
        if name in position:
            m = scored[position[name]]
            aggregate = "count" if m.family.trec_name == "num_q" else m.aggregate
            values.append((position[name], m.trec_name, aggregate, qid, value, qid in in_run))
    db.load_rows("trec_eval_zscores", ZSCORE_COLUMNS, zscores)
    db.load_rows("trec_eval_zscore_values", ZSCORE_VALUE_COLUMNS, values)
    z_by_query: dict[str, dict[int, float]] = {}
    summary: dict[int, float] = {}
    for is_summary, at, _, qid, value in db.run_file("oneshot/zscores.sql",
                                                     {"num_queries": len(evaluated)}).fetchall():
        if is_summary:
            summary[at] = value
        else:
            z_by_query.setdefault(qid, {})[at] = value

    def line(m: Measure, qid: str, value) -> str:
        return "Z" + trec_line(m.trec_name, qid, math.nan if value is None else float(value))

    out: list[str] = []
    if args.per_query:
        for qid in evaluated:
            if qid not in in_run and not s.prints_queries_not_in_run:
                continue
            for m in measures:
                if not m.family.per_query:
                    continue
                if m.family.trec_name == "relstring":
                    out.append(trec_line(_relstring_name(m), qid, f"'{relstrings[m.trec_name].get(qid, '')}'"))
                else:
                    out.append(line(m, qid, z_by_query.get(qid, {}).get(position[m.name])))
    if not args.no_summary:
        for m in measures:
            if not m.family.summary:
                continue
            if m.family.trec_name == "runid":
                out.append(_format(m, "all", tag))
            elif m.family.trec_name == "num_rel" and s.complete:
                out.append(line(m, "all", num_rel))  # -c's, z scores and all
            else:
                out.append(line(m, "all", summary.get(position[m.name])))
    return "".join(out)


def in_this_process(argv: list[str]) -> bool:
    """Whether `irw trec-eval ARGV` surely evaluates in this process alone (DuckDB), starting
    nothing that must be stopped at exit (--engine spark starts Spark's JVM): no argument says
    spark or --engine=... (an argument that only looks like it, a file named spark, errs safe)."""
    return not any(a in FILE_ENGINES or a.startswith(("--engine=", "--master")) for a in argv)


def main(argv: list[str], *, process_ends: bool = False) -> int:
    """`irw trec-eval ARGV` without building the Typer app (warehouse/__main__.py calls it before
    importing warehouse/commands/irw.py): the same output, messages and exit status as the Typer command,
    which calls run() too. Returns the exit status. process_ends: as for run()."""
    if "--" in argv:  # Click drops the first `--` before the command sees its arguments
        argv = argv[:argv.index("--")] + argv[argv.index("--") + 1:]
    try:
        with command_line_terms():  # errors name the command's flags, not a Python caller's arguments
            run(argv, sys.stdout, process_ends=process_ends)
        sys.stdout.flush()
    except IrwError as exc:
        from typer import echo  # as warehouse/commands/irw.py's reported_errors prints it: a line each,

        from warehouse.formats.escaping import shown  # escaped whole

        for line in exc.message_lines():
            echo(shown(f"Error: {line}"), err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`irw trec-eval ... | head`): exit 1 without a traceback, as Click
        # does; stdout points at /dev/null so that the interpreter's final flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        from warehouse.formats.files import OUTPUT_ERRNOS, output_failed

        if exc.errno not in OUTPUT_ERRNOS:
            raise
        return output_failed(exc)
    return 0
