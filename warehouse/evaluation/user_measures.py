"""User measures: a SQL file over the view `ranked_judged` (sql/eval/ranked_judged_view.sql), added to a
warehouse with `irw measures add FILE`, and from then on computed, stored and reported like the
built-in measures.

A measure file is one SELECT (DuckDB's SQL in the portable form of sql/, so that the same file runs
on PostgreSQL through warehouse/engines/dialect.py) that returns one row per run x query: `run_id`,
`query_id`, `value`. Its header, SQL comments before the statement, declares:

    -- measure: P_sub              (required: the name irw eval -m takes)
    -- parameters: k=10           (required: name=default numbers, comma separated, or `none`)
    -- aggregate: mean            (required: mean over the evaluated queries, as trec_eval; sum; geo)
    -- description: ...           (optional)

Other `-- word: ...` lines of the header are the author's comments (the examples' `-- Grain:`),
kept in the stored text; a word close to a field's (`-- agregate:`) is refused at its line. A name
irw reads as a built-in measure in any letter case or cutoff spelling (`ap`, `p_10`, `P10`) is
refused: `-m NAME` must not mean the user's measure where it would otherwise ask "did you mean"
the built-in.

Parameters are bound as values ($k in the SQL, a double), never pasted in. When irw computes the
measure, `ranked_judged` is a CTE of the view's columns holding the evaluation's runs, qrels set,
relevance level, depth and query set only, made by the same SQL that prepares the built-ins' rows
(sql/eval/01_qrels.sql .. 05_judged.sql, then 08_ranked_judged.sql): the file reads only that.
It runs through `irw sql`'s sandbox (warehouse/store/adhoc.py: DuckDB's read-only connection with no
external access; PostgreSQL's read-only transaction under a reading role, and its checks), so it
can write nothing and read no file. Its values reach the scores table from Python, keyed with the
sha256 of the definition (evaluated.definition_hash): a replaced definition never reuses them.
"""
from __future__ import annotations

import functools
import hashlib
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace as replaced
from pathlib import Path
from typing import Any, Iterator, Sequence

from warehouse.formats.escaping import shell_word
from warehouse.engines import db_option
from warehouse.errors import IrwError, MeasureError, MeasureValueError, UsageError
from warehouse.formats.table import Table

AGGREGATES = ("mean", "sum", "geo")
REQUIRED = ("measure", "parameters", "aggregate")
KNOWN_FIELDS = (*REQUIRED, "description")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_FIELD = re.compile(r"--\s*([A-Za-z_]+)\s*:\s*(.*?)\s*$")
_LINE = re.compile(r"LINE (\d+):")
# DuckDB's table functions that read files or URLs: the sandbox refuses them; this finds the line
_FILE_FUNCTIONS = re.compile(r"^(read_\w+|glob|\w+_scan|sniff_csv|parquet_\w+|iceberg_\w+|delta_\w+|"
                             r"pg_read_\w+|pg_ls_\w+|lo_\w+)$", re.I)
# the parameters of irw's own in the statement that computes a user measure
OWN_PARAMS = ("irw_run_ids", "irw_qrels_set_id", "irw_level", "irw_depth", "irw_complete", "irw_judged_only",
              "irw_exclude_norel")


class MeasureFileError(IrwError):
    """A user measure file that cannot be added (its header, its SQL, or what the SQL would do)."""


@dataclass(frozen=True)
class Definition:
    name: str
    parameters: tuple[tuple[str, float], ...]
    aggregate: str
    description: str
    text: str           # the whole file: what is stored, hashed and run
    path: str
    # set by add() when the warehouse already holds this very definition under this name: adding
    # it again changed nothing (and kept its scores)
    unchanged: bool = field(default=False, compare=False)
    # set by add(replace=True) when it replaced a stored definition: how many per-query scores of
    # that one it deleted; None when it replaced none
    scores_deleted: int | None = field(default=None, compare=False)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def sql(self) -> str:
        """The statement, without a final `;`."""
        return _without_final_semicolon(self.text)


def _without_final_semicolon(text: str) -> str:
    """text up to its final `;` (by DuckDB's tokenizer: not one in a string or a comment)."""
    from warehouse.store import adhoc

    tokens = adhoc._tokens(text)
    if tokens and tokens[-1][1] == ";":
        return text[:tokens[-1][0]]
    return text


def parse_definition(text: str, path: str) -> Definition:
    """The header of a measure file, checked; errors name path:line."""
    fields: dict[str, tuple[str, int]] = {}
    last_header_line = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("--"):
            break
        last_header_line = number
        match = _FIELD.match(stripped)
        if match and match.group(1).lower() not in KNOWN_FIELDS:
            _refuse_misspelled_field(match.group(1), f"{path}:{number}")
        if match and match.group(1).lower() in KNOWN_FIELDS:
            key = match.group(1).lower()
            if key in fields:
                raise MeasureFileError(f"{path}:{number}: the header gives `{key}:` twice")
            fields[key] = (match.group(2), number)
    for key in REQUIRED:
        if key not in fields:
            raise MeasureFileError(
                f"{path}:{last_header_line + 1 if last_header_line else 1}: the header lacks `-- {key}: ...`; a measure "
                "file starts with `-- measure: NAME`, `-- parameters: k=10` (or none) and `-- aggregate: mean` "
                "(or sum, geo)" + ("; a measure without parameters says `-- parameters: none`" if key == "parameters"
                                   else ""))
    name, line = fields["measure"]
    if not _NAME.fullmatch(name):
        raise MeasureFileError(f"{path}:{line}: measure name {name!r}: use ASCII letters (A-Z, a-z), digits and _ "
                               "(a letter first)")
    _refuse_builtin_name(name, f"{path}:{line}")
    aggregate, line = fields["aggregate"]
    aggregate = aggregate.lower()  # as the header's field names are read (`-- Aggregate: Mean`)
    if aggregate not in AGGREGATES:
        raise MeasureFileError(f"{path}:{line}: aggregate {aggregate!r}: say mean (over the evaluated queries, as "
                               "trec_eval), sum or geo (geometric mean, values floored at 1e-5)")
    parameters = _parse_parameters(*fields["parameters"], path)
    description = fields.get("description", ("", 0))[0] or f"User measure {name} (irw measures add)."
    if last_header_line == len(text.splitlines()) or not text.strip():
        raise MeasureFileError(f"{path}:{last_header_line + 1}: no SQL after the header")
    return Definition(name, parameters, aggregate, description, text, path)


# words a header field is mistaken for, beside the misspellings difflib finds
_FIELD_WORDS = {"name": "measure", "param": "parameters", "params": "parameters", "agg": "aggregate",
                "desc": "description"}


def _refuse_misspelled_field(word: str, where: str) -> None:
    """A `-- word:` header line that misspells a field (`-- agregate: mean`) is refused at its own
    line: read as a comment, it would leave the field missing, or its value ignored. A word close to
    none (`-- Grain:`, `-- trec_eval:`, `-- author:`, as the examples' headers and sql/'s have) is
    a comment of the author's, kept in the stored text and not read."""
    import difflib

    lowered = word.lower()
    # 0.75: agregate, parameter, params, descripton, measur are fields; grain, author, trec_eval are not
    close = difflib.get_close_matches(lowered, KNOWN_FIELDS, n=1, cutoff=0.75)
    meant = _FIELD_WORDS.get(lowered) or (close[0] if close else None)
    if meant is not None:
        raise MeasureFileError(f"{where}: `-- {word}:` is not a header field; did you mean `-- {meant}:`? (a header "
                               "takes `-- measure:`, `-- parameters:`, `-- aggregate:` and `-- description:`)")


def _parse_parameters(text: str, line: int, path: str) -> tuple[tuple[str, float], ...]:
    if text.strip().lower() in ("none", ""):
        return ()
    out: list[tuple[str, float]] = []
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not _NAME.fullmatch(key):
            raise MeasureFileError(f"{path}:{line}: parameters are name=default pairs separated by commas "
                                   f"(k=10, weight=0.5), or none; not {part.strip()!r}")
        if key.lower() == "rel" or key.lower().startswith("irw_"):
            raise MeasureFileError(f"{path}:{line}: parameter name {key!r} is irw's own (rel= is the relevance "
                                   "level of any measure); choose another")
        try:
            number = float(value)
        except ValueError:
            raise MeasureFileError(f"{path}:{line}: parameter {key}: the default {value!r} is not a number") from None
        if key in dict(out):
            raise MeasureFileError(f"{path}:{line}: parameter {key} is declared twice")
        out.append((key, number))
    return tuple(out)


def _refuse_builtin_name(name: str, where: str) -> None:
    from warehouse.evaluation import measures

    try:
        measures.parse(name, builtin_only=True)
        known = True
    except MeasureError as exc:  # a built-in's name refused for its parameters is still its name
        known = not str(exc).startswith("unknown measure")
    if known and name in measures.NICKNAMES:
        raise MeasureFileError(f"{where}: {name} is the name of trec_eval's measure set `-m {name}`; "
                               "give yours another name")
    if known:
        raise MeasureFileError(f"{where}: {name} is the name of a built-in measure (`irw measures` lists them); "
                               "give yours another name")
    # `-m ap` would be the user's measure and `-m AP` irw's: one slip of the shift key apart (so
    # would `-m mrr` and `-m MRR`, ir_measures' alias of RR)
    builtin = measures.builtin_name_in_any_case(name)
    if builtin is not None:
        raise MeasureFileError(f"{where}: {name} differs from the built-in measure {builtin} only in letter case "
                               "(`irw measures` lists them); give yours another name")
    # a cutoff in the name, in another case or spelling: `-m p_10` (or P10, nDCG_cut_10, MAP_CUT_10)
    # asks "did you mean P@10?" where no measure has that name, and would silently be the user's
    spelled = measures.builtin_spelled_otherwise(name)
    if spelled is not None:
        raise MeasureFileError(f"{where}: {name} is the built-in measure {spelled} in other letter case or with its "
                               f"cutoff written otherwise (`-m {name}` asks \"did you mean {spelled}?\"); give yours "
                               "another name (`irw measures` lists the built-in measures)")


# -- checks: adhoc's, on the file's own lines -----------------------------------------------------

def _file_line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def check_statement(definition: Definition) -> None:
    """The file's SQL read by DuckDB's parser and adhoc's statement checks (irw sql's): one SELECT,
    nothing that writes, no function that reads a file. Errors name the file's line."""
    from warehouse.store import adhoc
    from warehouse.engines.duckdb import DuckDBError, parser_connection

    text, path = definition.text, definition.path
    con = parser_connection()
    try:
        try:
            statements = con.extract_statements(definition.sql)
        except DuckDBError as exc:
            raise MeasureFileError(f"{path}:{_error_line(str(exc), text)}: {_first_line(exc)}") from None
        body = _first_code_position(text)
        if len(statements) != 1:
            raise MeasureFileError(f"{path}:{_file_line(text, body)}: a measure file holds one SELECT statement, "
                                   f"not {len(statements)}")
        why = adhoc.refusal(con, statements[0])
        if why:
            raise MeasureFileError(f"{path}:{_refused_line(text, body)}: a measure file only reads "
                                   f"(it runs in irw sql's read-only sandbox): {why}")
    finally:
        con.close()


def _first_code_position(text: str) -> int:
    from warehouse.store import adhoc

    tokens = adhoc._tokens(text)
    return tokens[0][0] if tokens else 0


def _refused_line(text: str, body: int) -> int:
    from warehouse.store import adhoc

    for position, token, kind in adhoc._tokens(text):
        if kind in ("keyword", "identifier") and token.lower() in adhoc._WRITE_WORDS:
            return _file_line(text, position)
    return _file_line(text, body)


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _error_line(message: str, text: str, offset: int = 0) -> int:
    match = _LINE.search(message)
    if match:
        line = int(match.group(1)) - offset
        if 1 <= line <= len(text.splitlines()):
            return line
    return _file_line(text, _first_code_position(text))


# -- the statement that computes a measure ---------------------------------------------------------

# The statement around a measure file: ranked_judged is made, in common table expressions, by the
# SELECTs of the steps that prepare the built-ins' tables (sql/eval/01_qrels.sql .. 05_judged.sql,
# evaluate.prepare_steps) and sql/eval/08_ranked_judged.sql over them (db.ranked_judged_ctes, which
# the stored view ranked_judged is also made of), with irw's parameters named irw_* (a measure's
# own may not be): one ranking and one judging for the built-ins, a user measure and the view. The
# temp tables themselves cannot be read here: the sandbox is another connection.


def ranked_judged_ctes() -> str:
    """`with ... ranked_judged as (...)`: the evaluation's ranked_judged, a query may follow; it
    binds $irw_* (run_statement's params)."""
    from warehouse.engines.duckdb import ranked_judged_ctes

    return ranked_judged_ctes()


STATEMENT = "user_measures/statement.sql"
VALUE_CHECK = "user_measures/value_is_a_number.sql"
COLUMNS = "user_measures/ranked_judged_columns.sql"


@functools.lru_cache(maxsize=2)
def _around(file: str = STATEMENT) -> tuple[str, str]:
    """(the text before a measure's SELECT, the text after it): sql/user_measures/statement.sql (or
    another file of that form: VALUE_CHECK) after its header, the evaluation's CTEs in place."""
    from warehouse.resources import read_sql

    lines = read_sql(file).splitlines()
    body = "\n".join(lines[next(i for i, line in enumerate(lines) if not line.startswith("--")):])
    before, after = body.split("/* measure */")
    return before.replace("/* ranked_judged */", ranked_judged_ctes()), after


def _prefix() -> str:
    return _around()[0]


def prefix_lines() -> int:
    return _prefix().count("\n")


def statement(definition: Definition, file: str = STATEMENT) -> str:
    before, after = _around(file)
    return before + definition.sql + after


def bound_names(definition: Definition) -> list[str]:
    """The $names the file's SQL uses: its declared parameters (others are refused)."""
    from warehouse.engines.duckdb import split_statements

    names: set[str] = set()
    for _query, found in split_statements(definition.sql):
        names |= set(found)
    return sorted(names)


def check_parameters(definition: Definition) -> None:
    """Every $name the SQL binds is declared, and every declared parameter is bound: one the SQL never
    reads would give `prec(j=3)` and `prec(j=5)` the same numbers, stored as two measures."""
    declared = dict(definition.parameters)
    bound = bound_names(definition)
    for name in bound:
        if name not in declared:
            line = _file_line(definition.text, definition.text.find("$" + name))
            raise MeasureFileError(f"{definition.path}:{line}: ${name} is not a declared parameter; declare it in "
                                   f"the header (-- parameters: {name}=...)")
    for name in declared:
        if name not in bound:
            line = _file_line(definition.text, definition.text.find("-- parameters:"))
            raise MeasureFileError(f"{definition.path}:{line}: the parameter {name} is declared but the SQL never "
                                   f"reads it (${name}); use it, or remove it from the header")


def own_params(run_ids: Sequence[int], qrels_set_id: int, settings) -> dict[str, Any]:
    """The values of ranked_judged_ctes()'s $irw_* for an evaluation (evaluate.Settings)."""
    from warehouse.evaluation.settings import NO_DEPTH

    return {"irw_run_ids": list(run_ids), "irw_qrels_set_id": qrels_set_id, "irw_level": settings.level,
            "irw_depth": settings.depth or NO_DEPTH, "irw_complete": settings.complete,
            "irw_judged_only": settings.judged_only, "irw_exclude_norel": settings.norel == "exclude"}


# How long a measure's statement may run: irw sql's default (300 s), or what a caller sets for its
# own work (irw serve: its --timeout, so that one slow measure cannot hold the warehouse for every
# page). A measure ran with no limit: an endless recursive CTE held `irw eval`, `irw measures add`
# and a served page (and DuckDB's file lock) until killed.
_time_limit: ContextVar[float | None] = ContextVar("irw_measure_time_limit", default=None)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Within the block, a user measure's statement is stopped after seconds."""
    token = _time_limit.set(seconds)
    try:
        yield
    finally:
        _time_limit.reset(token)


def _seconds() -> float:
    from warehouse.store import adhoc

    limit = _time_limit.get()
    return adhoc.DEFAULT_TIMEOUT if limit is None else limit


def run_statement(db, definition: Definition, values: dict[str, float], run_ids: Sequence[int], qrels_set_id: int,
                  settings, file: str = STATEMENT, timeout: float | None = None) -> Table:
    """The measure's rows (run_id, query_id, value) through irw sql's sandbox (adhoc.run), for the
    evaluation of run_ids on the qrels set with these settings (evaluate.Settings); with file
    VALUE_CHECK, its values added to a decimal (trial). timeout: seconds (0: no limit), else the
    time_limit in force."""
    from warehouse.store import adhoc

    params: dict[str, Any] = own_params(run_ids, qrels_set_id, settings)
    params.update({name: float(values[name]) for name in bound_names(definition)})
    sql = statement(definition, file)
    (text, names), = db.statements(sql)  # as the engine runs it (PostgreSQL's: warehouse/engines/dialect.py)
    return adhoc.run(db, text, {name: params[name] for name in names},
                     timeout=_seconds() if timeout is None else timeout)


def trial(db, definition: Definition) -> None:
    """Runs the measure on nothing (no run) in the sandbox: names, types and columns are checked by
    the engine itself, and what the sandbox refuses is refused here, before anything is stored. Its
    two statements share one time limit (each had the whole of it: `irw measures add` of a slow file
    waited ten minutes under the 300 s default)."""
    import time

    from warehouse.errors import QueryError, QueryTimeoutError, ReadOnlyError

    from warehouse.evaluation.settings import Settings

    limit, started = _seconds(), time.monotonic()
    too_slow = MeasureFileError(f"{definition.path}: {_too_slow('run on no run at all', adding=True)}")
    try:
        run_statement(db, definition, dict(definition.parameters), [], -1, Settings(), timeout=limit)
    except QueryTimeoutError:
        raise too_slow from None
    except (QueryError, ReadOnlyError) as exc:
        line = _located(str(exc), definition.text, isinstance(exc, ReadOnlyError))
        said = _describe(exc)
        if _UNKNOWN_COLUMN.search(said):  # DuckDB's candidates were on a line of their own, PostgreSQL names none
            said += f" (ranked_judged's columns: {', '.join(_ranked_judged_columns(db))})"
        raise MeasureFileError(f"{definition.path}:{line}: {said}") from None
    left = 0.0 if limit == 0 else limit - (time.monotonic() - started)
    if limit and left <= 0:
        raise too_slow
    # statement.sql casts value to double, which text passes until its first row that is not a
    # number, at `irw eval`: a value of any type but a number's is refused here
    try:
        run_statement(db, definition, dict(definition.parameters), [], -1, Settings(), VALUE_CHECK, timeout=left)
    except QueryTimeoutError:
        raise too_slow from None
    except (QueryError, ReadOnlyError) as exc:
        found = _VALUE_TYPE.search(str(exc))
        raise MeasureFileError(f"{definition.path}:{_value_line(definition.text)}: {_NOT_A_NUMBER}"
                               + (f"; it is {found.group(1) or found.group(2)}" if found else "")) from None


_NOT_A_NUMBER = ("the column value must be a number (an integer, decimal or double, one per run x query); "
                 "cast it: cast(... as double)")
# the type DuckDB's (`'+(VARCHAR, DECIMAL(2,1))'`) or PostgreSQL's (`text + numeric`) error names
_VALUE_TYPE = re.compile(r"'\+\(([A-Z][A-Z0-9_ ]*?), DECIMAL|operator does not exist: ([a-z][a-z0-9_ ]*?) \+ numeric")
# the engines' words for a value text that is not a number, cast to double (statement.sql)
_NOT_A_DOUBLE = re.compile(r"Could not convert string .* to DOUBLE|invalid input syntax for type double precision")


def _value_line(text: str) -> int:
    """The file's line that names the column value: its first `as value`, else its first `value`,
    else the statement's first line."""
    from warehouse.store import adhoc

    tokens = [(position, token.lower()) for position, token, kind in adhoc._tokens(text)
              if kind in ("identifier", "keyword")]
    for (_, before), (position, token) in zip(tokens, tokens[1:]):
        if before == "as" and token == "value":
            return _file_line(text, position)
    for position, token in tokens:
        if token == "value":
            return _file_line(text, position)
    return _file_line(text, _first_code_position(text))


def _located(message: str, text: str, refused: bool) -> int:
    """The file's line an engine's error is about: the line DuckDB names (LINE n, past the
    statement irw puts around the file); else the first line of the file that holds a name the
    message quotes or calls (PostgreSQL's `function read_csv(unknown) does not exist`); else, for
    what the sandbox refused without naming it (DuckDB's `Scanning CSV files is disabled`), the
    first call of a function that reads files; else the statement's first line."""
    from warehouse.store import adhoc

    match = _LINE.search(message)
    if match and 1 <= int(match.group(1)) - prefix_lines() <= len(text.splitlines()):
        return int(match.group(1)) - prefix_lines()
    tokens = [(position, token) for position, token, kind in adhoc._tokens(text)
              if kind in ("identifier", "keyword")]
    for position, token in tokens:
        if re.search(rf'"{re.escape(token)}"|\b{re.escape(token)}\(', message, re.I) and \
                token.lower() not in ("u", "value", "run_id", "query_id"):
            return _file_line(text, position)
    if refused:
        for position, token in tokens:
            if _FILE_FUNCTIONS.match(token) and text[position + len(token):].lstrip().startswith("("):
                return _file_line(text, position)
    return _file_line(text, _first_code_position(text))


_RETURNS = "a measure returns the columns run_id, query_id and value, one row per run x query"
# an engine's words for a column statement.sql reads (u.run_id, u.query_id, u.value) that the
# measure's SELECT does not return: DuckDB's, then PostgreSQL's
_MISSING_COLUMN = re.compile(r'Values list "u" does not have a column named "(\w+)"|column u\.(\w+) does not exist')


_DIVISION_BY_ZERO = re.compile(r"^division by zero", re.I)
# the engines' words for a name the SELECT reads that no table of it has: DuckDB's binder, PostgreSQL's
_UNKNOWN_COLUMN = re.compile(r'Referenced column "[^"]*" not found|column "[^"]*" does not exist')


def _ranked_judged_columns(db) -> list[str]:
    """ranked_judged's column names, as a measure's SELECT reads the view
    (sql/user_measures/ranked_judged_columns.sql)."""
    from warehouse.evaluation.settings import Settings
    from warehouse.store import adhoc

    before, _after = _around(COLUMNS)
    (text, names), = db.statements(before)
    params = own_params([], -1, Settings())
    return list(adhoc.run(db, text, {name: params[name] for name in names}, timeout=_seconds()).columns)


def _describe(exc: BaseException) -> str:
    """The engine's first line, in the measure file's terms: a column the SELECT lacks is said as
    such (the engine names statement.sql's alias u, which is not in the user's file), and what the
    sandbox refuses is said of the measure, not of `irw sql`, which runs it but was not typed."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not _LINE.match(line.strip())]
    message = lines[0] if lines else type(exc).__name__
    message = re.sub(r"^irw sql (reads the warehouse and nothing else|is read-only)", r"a measure \1", message)
    missing = _MISSING_COLUMN.search(message)
    if missing:
        column = missing.group(1) or missing.group(2)
        return f"the SELECT returns no column {column}; {_RETURNS} (name a column with `as {column}`)"
    if any(text in message for text in ("u.run_id", "u.query_id", "u.value")):
        message += f" ({_RETURNS})"
    return message


# -- the warehouse's user measures ---------------------------------------------------------------

def stored(db) -> list[dict[str, Any]]:
    """Every user measure of the warehouse (an older schema has none)."""
    try:
        rows = db.run_file("catalog/user_measures.sql").fetchall()
    except Exception:  # noqa: BLE001 - a warehouse before schema 13 has no user_measures table
        return []
    return [dict(zip(("name", "definition", "definition_hash", "source_path", "parameters", "aggregate",
                      "description", "added_at"), row)) for row in rows]


def register(db) -> None:
    """Makes the warehouse's user measures known to measure parsing (warehouse/evaluation/measures.py)."""
    from warehouse.evaluation import measures

    measures.set_user_families({row["name"]: measures.user_family(
        row["name"], _parse_parameters(row["parameters"], 0, row["name"]), row["aggregate"], row["description"],
        row["definition_hash"]) for row in stored(db)})


def add(db, path: str, replace: bool = False) -> Definition:
    """Checks a measure file and stores it; with replace, a stored measure of that name is replaced
    and its scores deleted (they were computed with the old definition: the result's
    scores_deleted says how many). A file whose definition is the stored one changes nothing,
    with replace or without: the result's `unchanged` says so."""
    from warehouse.errors import ConflictError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if str(path) == "-":  # a pipe's usual name
            raise MeasureFileError("-: no such file; standard input is not read: a measure is stored with the path "
                                   "of its file (`irw measures list` shows it); save it to a file and add "
                                   "that") from None
        raise MeasureFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MeasureFileError(f"{path}: is a directory; give the measure's file (a SELECT under its header)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MeasureFileError(f"{path}: cannot read it: {exc}") from None
    definition = parse_definition(text, path)
    check_statement(definition)
    check_parameters(definition)
    existing = {row["name"]: row for row in stored(db)}
    other_case = [name for name in existing if name.lower() == definition.name.lower() and name != definition.name]
    if other_case:
        raise ConflictError(f"{path}: {definition.name} differs from this warehouse's measure {other_case[0]} only in "
                            f"letter case; give this one another name, or name it {other_case[0]} in the file to "
                            f"replace that one (`irw measures add {shell_word(path)} --replace {db_option(db)}`)")
    if definition.name in existing and existing[definition.name]["definition_hash"] == definition.hash:
        # adding what is there is done already; replace=True too keeps its scores, which this
        # definition computed (as `irw ingest run --replace` of the same bytes). It is still tried
        # here: `irw copy` keeps a definition the target's engine refuses (saying so), and adding it
        # again answered "nothing changed" (a user-measures walk on PostgreSQL)
        trial(db, definition)
        return replaced(definition, unchanged=True)
    if definition.name in existing and not replace:
        raise ConflictError(f"{path}: a measure {definition.name} is already added with another definition; "
                            f"replace it (and drop its scores) with `irw measures add {shell_word(path)} "
                            f"--replace {db_option(db)}`, or give this one another name")
    trial(db, definition)
    with db.transaction():
        if definition.name in existing:
            definition = replaced(definition, scores_deleted=_forget(db, definition.name))
        db.run_file("catalog/add_user_measure.sql", {
            "name": definition.name, "definition": definition.text, "definition_hash": definition.hash,
            "source_path": str(Path(path).resolve()), "aggregate": definition.aggregate,
            "description": definition.description,
            "parameters": ", ".join(f"{k}={_number_text(v)}" for k, v in definition.parameters) or "none"})
    register(db)
    return definition


def remove(db, name: str) -> int:
    """Removes the user measure name with everything computed with it; returns how many per-query
    scores it deleted."""
    from warehouse.errors import NotFoundError

    names = [row["name"] for row in stored(db)]
    if name not in names and _is_builtin(name):
        raise NotFoundError(f"{name} is a built-in measure, which cannot be removed; `irw measures rm` removes a "
                            "measure added with `irw measures add` (`irw measures list` lists them)")
    if name not in names:
        from warehouse.store.catalog import close_names

        # not removed in another letter case: rm deletes scores, so it takes the name as stored
        close = close_names(name, names)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise NotFoundError(f"no user measure {name!r}; {hint}`irw measures list` lists them")
    with db.transaction():
        deleted = _forget(db, name)
    register(db)
    return deleted


def _is_builtin(name: str) -> bool:
    from warehouse.evaluation import measures

    try:
        measures.parse(name, builtin_only=True)
    except MeasureError:
        return False
    return True


def _forget(db, name: str) -> int:
    """Deletes the measure and every score, record and stored test of it (NAME, NAME(...)), in the
    caller's transaction; returns how many per-query scores it deleted."""
    names = {"name": name, "prefix": name + "("}
    deleted = db.run_file("catalog/user_measure_score_count.sql", names).fetchone()[0]
    db.run_file("catalog/remove_user_measure.sql", names)
    return deleted


def _number_text(value: float) -> str:
    return f"{value:g}"


def listing(db) -> Table:
    rows = [(row["name"], row["parameters"], row["aggregate"], row["description"], row["definition_hash"][:12],
             row["source_path"]) for row in stored(db)]
    return Table(["name", "parameters", "aggregate", "description", "definition", "source"], rows)


def definition_of(db, name: str) -> Definition:
    for row in stored(db):
        if row["name"] == name:
            return Definition(name, _parse_parameters(row["parameters"], 0, name), row["aggregate"],
                              row["description"], row["definition"], row["source_path"])
    raise MeasureError(f"unknown measure {name!r}: it is not added to this warehouse (`irw measures add FILE`)")


def check_settings(settings, names: Sequence[str]) -> None:
    if names and (settings.judged_only or settings.compat != 9):
        raise UsageError(f"{', '.join(names)}: a user measure reads ranked_judged, trec_eval 9.0.8's ranking of the "
                         "judged documents; it takes --level, --depth, -c and --norel, not --judged-only or --compat 10: "
                         "evaluate it in a call without those, and the built-in measures with them in another")


def compute(db, measures_: Sequence, run_ids: Sequence[int], qrels_set_id: int,
            settings) -> list[tuple[str, int, str, float]]:
    """(stored name, run_id, query_id, value) of each user measure, run by run's queries. Rows of
    other runs (a measure that reads other tables than ranked_judged: runs, scores ...) are left
    out, as rows of queries the evaluation does not score are (eval/store_user_scores.sql)."""
    from warehouse.errors import QueryError, QueryTimeoutError, ReadOnlyError
    from warehouse.evaluation.measures import stored_name
    from warehouse.store import catalog

    evaluated = set(run_ids)
    rows: list[tuple[str, int, str, float]] = []
    for m in measures_:
        definition = definition_of(db, m.family.trec_name)
        if definition.hash != m.family.definition_hash:
            register(db)
            raise MeasureValueError(f"{m.name}: its definition changed while it was being evaluated; evaluate again")
        values = {**dict(definition.parameters), **dict(m.options)}
        try:
            table = run_statement(db, definition, values, run_ids, qrels_set_id, settings)
        except QueryTimeoutError:
            runs = f"{len(run_ids):,} run{'s' if len(run_ids) != 1 else ''}"
            raise MeasureValueError(f"{m.name} ({definition.path}): {_too_slow(f'run on {runs}', on_runs=True)}") \
                from None
        except QueryError as exc:  # the file's error, not irw's statement around it
            if _NOT_A_DOUBLE.search(str(exc)):
                raise MeasureValueError(f"{m.name} ({definition.path}:{_value_line(definition.text)}): "
                                        f"{_NOT_A_NUMBER}; {_describe(exc)}") from None
            said = _describe(exc)
            if _DIVISION_BY_ZERO.search(said):  # PostgreSQL stops where DuckDB's double is infinite (evaluator.py)
                said += ("; a user measure's value is a number: nullif(divisor, 0) gives null, which scores 0; "
                         "cast('nan' as double) marks a value undefined for the query, as trec_eval's -nan")
            raise MeasureValueError(f"{m.name} ({definition.path}:{_located(str(exc), definition.text, False)}): "
                                    f"{said}") from None
        except ReadOnlyError as exc:  # what the sandbox refuses here that it let pass where the file was added
            raise MeasureValueError(f"{m.name} ({definition.path}:{_located(str(exc), definition.text, True)}): "
                                    f"{_describe(exc)}") from None
        seen: set[tuple[int, str]] = set()
        for run_id, query_id, value in table.rows:
            if run_id not in evaluated:
                continue
            if (run_id, query_id) in seen:
                raise MeasureValueError(f"{m.name} ({definition.path}) gives more than one row for run "
                                        f"{catalog.run_name(db, run_id)}, query {query_id}: return one row per run "
                                        "x query (group by run_id, query_id)")
            seen.add((run_id, query_id))
            rows.append((stored_name(m), run_id, query_id, value))
        if not seen:
            _say_no_row(m.name, definition.path, len(run_ids))
        elif all(value is None for _name, run_id, _query, value in rows[-len(seen):]):
            _say_only_nulls(m.name, definition.path, len(run_ids))
    return rows


def _say_no_row(name: str, path: str, runs: int) -> None:
    """A Note: the measure gave no row for any query of the runs evaluated, so each of their values
    is 0 (a query it gives no row scores 0). Almost always a filter of its own (`where qrels =
    'dl21'`, `level = 1`, copied from an `irw sql` over the view) that the evaluation's qrels set
    or level does not meet: the rows it reads are already the evaluation's."""
    import warnings

    from warehouse.errors import Note

    warnings.warn(Note(f"{name} ({path}) gave no row for any query of the {runs:,} run{'s' if runs != 1 else ''} "
                       "evaluated, so every value is 0 (a query it gives no row scores 0): the ranked_judged rows "
                       "it reads are already this evaluation's runs, qrels set and level, so a filter on qrels or "
                       "level of its own is not needed, and one naming another set or level keeps no row"),
                  stacklevel=2)


def _say_only_nulls(name: str, path: str, runs: int) -> None:
    """A Note: the measure's value was NULL on every query of the runs evaluated, so each of their
    values is 0 (NULL scores 0): almost always a mistake in its SQL (an expression over a column
    that is NULL in every row, a nullif that always holds), which printed 0.0000 silently."""
    import warnings

    from warehouse.errors import Note

    warnings.warn(Note(f"{name} ({path}) gave NULL on every query of the {runs:,} run{'s' if runs != 1 else ''} "
                       "evaluated, so every value is 0 (a NULL value scores 0): check its value expression with "
                       "`irw sql` over ranked_judged"), stacklevel=2)


def _too_slow(doing: str, *, on_runs: bool = False, adding: bool = False) -> str:
    """on_runs: the measure ran on runs (it may only need longer there), not on no run at all;
    adding: it ran to be checked before it is added (irw measures add)."""
    longer = ("if it only needs longer on these runs, compute it with a longer limit (`irw eval --timeout "
              "SECONDS`, Warehouse.evaluate(..., timeout=SECONDS); 0 for none), and the reports read its stored "
              "scores; " if on_runs else
              "if it only needs longer, add it with a longer limit (`irw measures add FILE --timeout SECONDS`, "
              "Warehouse.add_measure(..., timeout=SECONDS); 0 for none); " if adding else "")
    return (f"its SQL, {doing}, ran longer than {_seconds():g} s and was stopped, and nothing was stored: "
            f"{longer}a measure that never ends (a recursive CTE without a bound, a cross join of run_rows) holds "
            "the warehouse; bound it, or read ranked_judged, which holds only the evaluation's rows")


