"""Ad-hoc SQL (`irw sql`, `Warehouse.sql`): one statement that reads the warehouse and nothing else.

Three layers, each enough for what the ones before it miss:

1. Statement checks (`refusal`): one statement, a SELECT (or PIVOT, or an EXPLAIN of one); no
   INSERT/UPDATE/DELETE/MERGE hidden in a CTE, no nextval()/setval(). These give the clearest
   message, but a parser-level check can be fooled, so it is not what the promise rests on.
2. DuckDB's own enforcement: the statement runs on the warehouse's sandbox connection
   (warehouse/db.py: read-only, no external access, no extension install or autoload, locked
   configuration). Writing, reading other files, COPY ... TO, ATTACH, INSTALL and SET fail there
   whatever the statement looks like.
3. A transaction that is always rolled back.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Iterator

import duckdb

from .db import Database, about_the_file, failure
from .errors import IrwError, QueryError, ReadOnlyError
from .table import Table

_STATEMENT = duckdb.StatementType
# Query nodes (in DuckDB's json_serialize_sql tree) and functions that write inside a SELECT.
_WRITE_NODES = {"INSERT_QUERY_NODE": "an INSERT", "UPDATE_QUERY_NODE": "an UPDATE",
                "DELETE_QUERY_NODE": "a DELETE", "MERGE_INTO_QUERY_NODE": "a MERGE"}
_WRITE_FUNCTIONS = {"nextval", "setval"}
# PIVOT reaches DuckDB's parser as a MULTI statement, and json_serialize_sql shows no PIVOT: those
# are checked token by token instead, refusing any of these words outside strings and comments.
_PIVOT_WORDS = {"pivot", "pivot_wider", "unpivot", "pivot_longer"}
_WRITE_WORDS = {"insert", "update", "delete", "merge", "copy", "attach", "detach", "create", "drop", "alter",
                "truncate", "install", "load", "checkpoint", "export", "import", "pragma", "set", "reset",
                "vacuum", "call", "returning", "nextval", "setval"}
_DID_YOU_MEAN = re.compile(r'\s*Did you mean "([^"]+)"\?')
_MISSING_TABLE = re.compile(r"^Catalog Error: Table with name \S+ does not exist")


def run(db: Database, query: Any, params: Any = None) -> Table:
    """Runs one read-only statement on the sandbox and returns its rows; refusals raise
    ReadOnlyError, SQL DuckDB rejects raises QueryError, misuse raises QueryError too."""
    query, params = _checked_arguments(query, params)
    if db.dialect == "postgres":
        return run_on_postgres(db, query, params)
    with db.sandbox() as con:
        try:
            statements = con.extract_statements(query)
        except duckdb.Error as exc:
            raise _query_failure(db, con, exc) from None
        if len(statements) != 1:
            raise QueryError(f"expected one SQL statement, found {len(statements)}")
        why = refusal(con, statements[0])
        if why:
            raise ReadOnlyError(f"irw sql is read-only: {why} (use irw ingest / irw rm to change the warehouse)")
        con.execute("begin transaction")
        failed: BaseException | None = None
        try:
            return Table.from_result(con.execute(query, params) if params is not None else con.execute(query))
        except (duckdb.Error, TypeError, ValueError, OverflowError, NotImplementedError) as exc:
            failed = exc  # TypeError ...: values DuckDB cannot bind
        finally:
            try:
                con.execute("rollback")
            except duckdb.Error:
                pass  # a fatal error leaves nothing to roll back
        if isinstance(failed, duckdb.Error):
            raise _query_failure(db, con, failed) from None
        raise QueryError(f"cannot bind the parameters: {failed}") from None


def _checked_arguments(query: Any, params: Any) -> tuple[str, Any]:
    if not isinstance(query, str):
        raise QueryError(f"sql() takes the SQL text as a str, not {type(query).__name__}")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise QueryError("the SQL text is not valid UTF-8") from None
    if params is None:
        return query, None
    if isinstance(params, Mapping):
        if not all(isinstance(key, str) for key in params):
            raise QueryError("named parameters take str keys ($name in the SQL)")
        return query, dict(params)
    if isinstance(params, Sequence) and not isinstance(params, (str, bytes)):
        return query, list(params)
    raise QueryError(f"params is a list or tuple (for ? in the SQL) or a mapping (for $name), "
                     f"not {type(params).__name__}")


# -- statement checks ---------------------------------------------------------------------------

def refusal(con: duckdb.DuckDBPyConnection, statement) -> str | None:
    """Why a parsed statement is refused (it could write, or cannot be checked), or None."""
    try:
        kind = statement.type
    except ValueError:  # a statement type this duckdb's Python enum does not know (UPDATE EXTENSIONS)
        return f"`{_opening_words(statement.query)}` is not a query irw sql runs"
    if kind == _STATEMENT.EXPLAIN:
        inner = _explained(statement.query)
        if inner is None:
            return "the statement this EXPLAIN wraps cannot be found, so it cannot be checked"
        try:
            inner_statements = con.extract_statements(inner)
        except duckdb.Error:
            return "the statement this EXPLAIN wraps cannot be parsed on its own, so it cannot be checked"
        if len(inner_statements) != 1:
            return "the statement this EXPLAIN wraps cannot be parsed on its own, so it cannot be checked"
        return refusal(con, inner_statements[0])
    if kind == _STATEMENT.MULTI and _PIVOT_WORDS & set(_words(statement.query)):
        return _write_word(statement.query)  # PIVOT, or a query that holds one
    if kind != _STATEMENT.SELECT:
        return f"{kind.name} statements are refused"
    try:
        tree = json.loads(con.execute("select json_serialize_sql(?)", [statement.query]).fetchone()[0])
    except (duckdb.Error, ValueError, TypeError):
        tree = {"error": True}
    if isinstance(tree, dict) and tree.get("error"):
        return _write_word(statement.query)  # e.g. a PIVOT inside a SELECT
    for node in _json_nodes(tree):
        if node.get("type") in _WRITE_NODES:
            return f"the query holds {_WRITE_NODES[node['type']]} statement"
        if node.get("class") == "FUNCTION" and str(node.get("function_name")).lower() in _WRITE_FUNCTIONS:
            return f"{node['function_name']}() changes a sequence"
    return None


def _json_nodes(value: Any) -> Iterator[dict]:
    """Every JSON object in a parsed json_serialize_sql tree."""
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _json_nodes(child)
    elif isinstance(value, list):
        for child in value:
            yield from _json_nodes(child)


def _tokens(text: str) -> list[tuple[int, str, str]]:
    """(position, text, kind) of every token but comments, by DuckDB's own tokenizer."""
    raw = duckdb.tokenize(text)
    ends = [position for position, _ in raw[1:]] + [len(text)]
    tokens = []
    for (position, kind), end in zip(raw, ends):
        kind_name = str(kind).rsplit(".", 1)[-1]
        if kind_name != "comment":
            tokens.append((position, text[position:end].strip(), kind_name))
    return tokens


def _words(text: str) -> list[str]:
    return [t.lower() for _, t, kind in _tokens(text) if kind in ("keyword", "identifier")]


def _opening_words(text: str) -> str:
    return " ".join(t for _, t, _ in _tokens(text)[:2]) or text.strip()[:40]


def _write_word(text: str) -> str | None:
    for _, token, kind in _tokens(text):
        if kind in ("keyword", "identifier") and token.lower() in _WRITE_WORDS:
            return f"the statement holds {token.upper()}, which irw sql does not run here"
    return None


def _explained(query: str) -> str | None:
    """The text of the statement an EXPLAIN wraps, after EXPLAIN [ANALYZE] or EXPLAIN (options),
    comments anywhere between; None when that prefix cannot be read."""
    tokens = _tokens(query)
    if not tokens or tokens[0][1].lower() != "explain":
        return None
    i = 1
    if i < len(tokens) and tokens[i][1].lower() in ("analyze", "analyse"):
        i += 1
        if i < len(tokens) and tokens[i][1].lower() == "verbose":
            i += 1
    elif i < len(tokens) and tokens[i][2] == "operator" and tokens[i][1].startswith("("):
        depth, j = 0, i
        while j < len(tokens):
            if tokens[j][2] == "operator":
                depth += tokens[j][1].count("(") - tokens[j][1].count(")")
            j += 1
            if depth <= 0:
                break
        if depth != 0:
            return None
        rest = [t for t in tokens[j:] if t[1] != ";"]
        if rest:  # EXPLAIN (options) statement; else EXPLAIN (statement in parentheses)
            i = j
    if i >= len(tokens):
        return None
    return query[tokens[i][0]:]


# -- what went wrong ------------------------------------------------------------------------------

def _query_failure(db: Database, con: duckdb.DuckDBPyConnection, error: duckdb.Error) -> IrwError:
    """DuckDB's message once, without empty lines; its catalogue suggestions (pg_constraint ...)
    replaced by the warehouse's own tables and views; sandbox refusals said as such."""
    if about_the_file(error):  # damaged blocks, a full disk: not a mistake in the SQL
        return failure(db.path, error)
    lines: list[str] = []
    for line in str(error).splitlines():
        if line.strip() and (not lines or lines[-1] != line.rstrip()):
            lines.append(line.rstrip())
    if not lines:
        return QueryError(type(error).__name__)
    first = lines[0]
    if (isinstance(error, duckdb.PermissionException) or "configuration has been locked" in first
            or "attached in read-only mode" in first or "read-only mode" in first):
        return ReadOnlyError(f"irw sql reads the warehouse and nothing else: {first}")
    if _MISSING_TABLE.match(first):
        known = _catalogue(con)
        hints = [line for line in lines[1:] if _DID_YOU_MEAN.fullmatch(line)]
        ours = [line.strip() for line in hints if _DID_YOU_MEAN.fullmatch(line).group(1).split(".")[-1]
                in known["names"]]  # "did you mean runs" is kept; "did you mean pg_constraint" is not
        rest = [line for line in lines[1:] if line not in hints]
        lines = [first, *ours, known["listing"], *rest]
    return QueryError("\n".join(lines))


def _catalogue(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    rows = con.execute(
        "select table_name, table_type from information_schema.tables "
        "where table_catalog = current_database() and table_schema = 'main' order by table_name").fetchall()
    tables = [name for name, kind in rows if kind != "VIEW"]
    views = [name for name, kind in rows if kind == "VIEW"]
    listing = f"the warehouse has tables: {', '.join(tables)}"
    if views:
        listing += f"; views: {', '.join(views)}"
    return {"names": set(tables) | set(views), "listing": listing}


# -- PostgreSQL ---------------------------------------------------------------------------------
# On a PostgreSQL warehouse the statement is PostgreSQL's SQL (parameters as psycopg takes them:
# %s, %(name)s). The same three layers: checks of the statement parsed by sqlglot, PostgreSQL's
# own enforcement (a READ ONLY transaction, and the role's privileges: the README asks for a
# read-only role for `irw sql` and report readers), and a rollback whatever happens.

_PG_QUERY_TYPES = ("Select", "Union", "Intersect", "Except", "Values")
_PG_WRITE_NODES = {"Insert": "an INSERT", "Update": "an UPDATE", "Delete": "a DELETE", "Merge": "a MERGE",
                   "Create": "a CREATE", "Drop": "a DROP", "Alter": "an ALTER", "Copy": "a COPY",
                   "Command": "a command", "Lock": "a row lock (FOR UPDATE / FOR SHARE)", "Into": "SELECT INTO"}
# Functions that act outside the query: files, large objects, other servers, sessions, sequences,
# settings, locks, or SQL text run by the server (query_to_xml).
_PG_REFUSED_FUNCTIONS = re.compile(
    r"^(nextval|setval|set_config|pg_read_\w*|pg_ls_\w*|pg_stat_file|pg_file\w*|lo_\w+|dblink\w*|"
    r"pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|"
    r"pg_create_\w+|pg_drop_\w+|pg_log_\w+|pg_advisory_\w+|pg_try_advisory_\w+|pg_notify|pg_sleep\w*|"
    r"query_to_xml\w*|cursor_to_xml\w*|pg_import_\w+|pg_replication_\w+|pg_logical_\w+)$", re.IGNORECASE)


def postgres_refusal(query: str) -> str | None:
    """Why a PostgreSQL statement is refused (it could write or act outside the query), or None."""
    import logging

    import sqlglot
    from sqlglot import exp

    # sqlglot warns on stderr when it reads a statement (EXPLAIN) as an opaque command; that is
    # handled here, and stderr is the user's.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        trees = [t for t in sqlglot.parse(query, read="postgres") if t is not None]
    except sqlglot.errors.ParseError:
        return "the statement cannot be parsed to be checked"
    if len(trees) != 1:
        return f"expected one SQL statement, found {len(trees)}"
    tree = trees[0]
    if isinstance(tree, exp.Command) and str(tree.this).lower() == "explain":
        inner = str(tree.expression.this if isinstance(tree.expression, exp.Literal) else tree.expression or "")
        if inner.lower().lstrip().startswith("analyze"):
            inner = inner.lstrip()[len("analyze"):]
        if inner.lstrip().startswith("("):
            return "EXPLAIN with options is not checked here: EXPLAIN the query alone"
        return postgres_refusal(inner) if inner.strip() else "EXPLAIN of nothing"
    if type(tree).__name__ not in _PG_QUERY_TYPES:
        return f"{type(tree).__name__.upper()} statements are refused"
    for node in tree.walk():
        kind = type(node).__name__
        if kind in _PG_WRITE_NODES:
            return f"the query holds {_PG_WRITE_NODES[kind]}"
        if isinstance(node, (exp.Anonymous, exp.Func)):
            name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
            if _PG_REFUSED_FUNCTIONS.match(str(name)):
                return f"{name}() acts outside the query"
    return None


def run_on_postgres(db, query: str, params: Any) -> Table:
    import psycopg

    why = postgres_refusal(query)
    if why:
        if why.startswith("expected one SQL statement"):
            raise QueryError(why)
        raise ReadOnlyError(f"irw sql is read-only: {why} (use irw ingest / irw rm to change the warehouse)")
    con = db.con
    con.execute("begin transaction read only")
    try:
        try:
            cursor = con.execute(query, params)
            return Table.from_result(cursor)
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            raise ReadOnlyError(f"irw sql reads the warehouse and nothing else: {db.scrub(str(exc).strip())}") from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise ReadOnlyError(f"irw sql: the server refused it: {db.scrub(str(exc).strip())}") from None
        except psycopg.Error as exc:
            lines = [line.rstrip() for line in db.scrub(str(exc)).splitlines() if line.strip()]
            raise QueryError("\n".join(lines) or type(exc).__name__) from None
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise QueryError(f"cannot bind the parameters: {exc}") from None
    finally:
        try:
            con.execute("rollback")
        except psycopg.Error:
            pass
