"""Ad-hoc SQL (`irw sql`, `Warehouse.sql`): one statement that reads the warehouse and nothing else.

Three layers, each enough for what the ones before it miss:

1. Statement checks (`refusal`): one statement, a SELECT (or PIVOT, or an EXPLAIN of one); no
   INSERT/UPDATE/DELETE/MERGE hidden in a CTE, no nextval()/setval(). These give the clearest
   message, but a parser-level check can be fooled, so it is not what the promise rests on.
2. DuckDB's own enforcement: the statement runs on the warehouse's sandbox connection
   (warehouse/engines/duckdb.py: read-only, no external access, no extension install or autoload, locked
   configuration). Writing, reading other files, COPY ... TO, ATTACH, INSTALL and SET fail there
   whatever the statement looks like.
3. A transaction that is always rolled back.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Iterator

from warehouse.engines.duckdb import (Database, DuckDBConnection, DuckDBError, DuckDBPermissionError,
                                      StatementType, about_the_file, arrow_types, failure, tokenize)
from warehouse.engines.base import RowStream, chunks_of
from warehouse.resources import read_sql
from warehouse.errors import IrwError, QueryError, QueryTimeoutError, ReadOnlyError, UnknownTableError, UsageError
from warehouse.formats.table import Table

_STATEMENT = StatementType
# Query nodes (in DuckDB's json_serialize_sql tree) and functions that write inside a SELECT.
_WRITE_NODES = {"INSERT_QUERY_NODE": "an INSERT", "UPDATE_QUERY_NODE": "an UPDATE",
                "DELETE_QUERY_NODE": "a DELETE", "MERGE_INTO_QUERY_NODE": "a MERGE"}
_WRITE_FUNCTIONS = {"nextval", "setval"}
# functions that act on the file or read outside the warehouse, though the sandbox keeps them harmless:
# checkpoint() answered Success where CHECKPOINT is refused, and duckdb_secrets() named the server
# account's home folder in its error (a security walk)
_OUTSIDE_FUNCTIONS = {"checkpoint": "maintenance", "force_checkpoint": "maintenance", "duckdb_secrets": "database",
                      "which_secret": "database"}
# PIVOT reaches DuckDB's parser as a MULTI statement, and json_serialize_sql shows no PIVOT: those
# are checked token by token instead, refusing any of these words outside strings and comments.
_PIVOT_WORDS = {"pivot", "pivot_wider", "unpivot", "pivot_longer"}
_WRITE_WORDS = {"insert", "update", "delete", "merge", "copy", "attach", "detach", "create", "drop", "alter",
                "truncate", "install", "load", "checkpoint", "export", "import", "pragma", "set", "reset",
                "vacuum", "call", "returning", "nextval", "setval"}
# What to do instead, by what the refused statement is for: the warehouse is changed by irw's own
# commands, but a SET, an INSTALL or a BEGIN is not a change to it, and saying so would mislead.
_ADVICE = {
    "write": "use irw ingest / irw rm to change the warehouse",
    "file": "irw sql -o FILE writes a query's result to a file and irw export the warehouse's tables; "
            "irw ingest adds data",
    "database": "irw sql reads the one warehouse --db names; irw copy moves runs and qrels between warehouses",
    "setting": "irw fixes the sandbox's settings; --timeout sets irw sql's time limit",
    "pragma": "irw fixes the sandbox's settings; a pragma that reads is a table function: "
              "SELECT * FROM pragma_table_info('runs')",
    "call": "call a table function as SELECT * FROM name(...)",
    "extension": "no extension is installed or loaded in irw sql's sandbox; "
                 "it reads the warehouse with DuckDB's built-in functions",
    "maintenance": "irw and DuckDB look after the warehouse file; there is nothing to run",
    "transaction": "irw sql runs each query in a transaction of its own, always rolled back",
    "prepare": "irw sql runs one query as given; in Python, wh.sql(query, params) binds values",
}
# The word a refused statement opens with, as the user typed it, and the advice that fits it;
# a statement opening otherwise (WITH ... INSERT) is named by its DuckDB statement type.
_OPENING_ADVICE = {
    **dict.fromkeys(("INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "IMPORT",
                     "RETURNING", "NEXTVAL", "SETVAL"), "write"),
    **dict.fromkeys(("COPY", "EXPORT"), "file"),
    **dict.fromkeys(("ATTACH", "DETACH", "USE"), "database"),
    **dict.fromkeys(("SET", "RESET"), "setting"),
    "PRAGMA": "pragma",
    "CALL": "call",
    **dict.fromkeys(("INSTALL", "FORCE INSTALL", "LOAD"), "extension"),
    **dict.fromkeys(("CHECKPOINT", "FORCE CHECKPOINT", "VACUUM", "ANALYZE"), "maintenance"),
    **dict.fromkeys(("BEGIN", "START", "COMMIT", "ROLLBACK", "ABORT", "END"), "transaction"),
    **dict.fromkeys(("PREPARE", "EXECUTE", "DEALLOCATE"), "prepare"),
}
_KIND_ADVICE = {"LOAD": "extension", "SET": "setting", "PRAGMA": "pragma", "CALL": "call", "COPY": "file",
                "EXPORT": "file", "ATTACH": "database", "DETACH": "database", "TRANSACTION": "transaction",
                "VACUUM": "maintenance", "PREPARE": "prepare", "EXECUTE": "prepare"}
_DID_YOU_MEAN = re.compile(r'\s*Did you mean "([^"]+)"\?')
_MISSING_TABLE = re.compile(r"^Catalog Error: Table with name \S+ does not exist")
# DuckDB's advice to change a setting (`Use "SET max_expression_depth TO x" to ...`, `..., or SET
# error_on_division_by_zero=false to ...`), which the sandbox refuses: a walk was told to run a SET
# that irw sql then refused. The clause or sentence goes, and what can be done is said instead.
_SET_CLAUSE = re.compile(r""",? or SET \w+\s*(?:=|TO)\s*\S+ [^.]*(?=\.)""")
_SET_SENTENCE = re.compile(r"""\s*Use ["']?SET \w+\s*(?:=|TO)\s*[^"'\s]+["']? [^.]*\.""", re.IGNORECASE)
_NO_SET = "irw sql refuses SET, so the setting stays as it is: change the query instead"


# How many rows `irw sql` reads at a time (RowStream): the rows it writes are never all held.
CHUNK_ROWS = 10_000


def run(db: Database, query: Any, params: Any = None, timeout: float | None = None,
        max_rows: int | None = None) -> Table:
    """Runs one read-only statement on the sandbox and returns its rows (the first max_rows of them
    when given: DuckDB streams the result, so the rest are never made); refusals raise
    ReadOnlyError, SQL DuckDB rejects raises QueryError, misuse raises QueryError too. A statement
    still running after timeout seconds (DEFAULT_TIMEOUT when None; 0 for no limit) is stopped and
    raises QueryError; Ctrl-C (KeyboardInterrupt) stops it too, on the server for PostgreSQL."""
    with stream(db, query, params, timeout, chunk_rows=max_rows) as rows:
        return rows.table(max_rows)


# the databases whose rows a stream is reading: one statement at a time runs in a sandbox (DuckDB's
# connection holds one result; PostgreSQL's transaction one cursor)
_READING: set[int] = set()


@contextmanager
def stream(db: Database, query: Any, params: Any = None, timeout: float | None = None,
           chunk_rows: int | None = CHUNK_ROWS) -> Iterator[RowStream]:
    """As run(), the rows read chunk_rows at a time (None: all at once) while the context is open,
    so that `irw sql` writes them as they come: a result larger than memory is never held whole,
    and a reader that stops (`| head`) stops the statement. The timeout counts the time the
    statement and its fetches take, not the time the caller spends writing. Another query while
    the rows are read, or rows read after the context, is a UsageError saying so."""
    if id(db) in _READING:
        raise UsageError("the rows of another query (wh.sql_rows) are still being read: read them, or leave its "
                         "with block, before running another query on this warehouse")
    _READING.add(id(db))
    open_ = True

    def guarded(chunks: Iterator[list[tuple]]) -> Iterator[list[tuple]]:
        while True:
            if not open_:
                raise UsageError("the rows of wh.sql_rows are read inside its with block; it has ended")
            chunk = next(chunks, None)
            if chunk is None:
                return
            yield chunk

    try:
        with _stream(db, query, params, timeout, chunk_rows) as rows:
            yield RowStream(rows.columns, rows.types, guarded(rows.chunks), rows.arrow_types)
    finally:
        open_ = False
        _READING.discard(id(db))


@contextmanager
def _stream(db: Database, query: Any, params: Any, timeout: float | None,
            chunk_rows: int | None) -> Iterator[RowStream]:
    query, params = _checked_arguments(query, params)
    timeout = checked_timeout(timeout)
    if not db.sandbox_in_process:
        with stream_on_postgres(db, query, params, timeout, chunk_rows) as rows:
            yield rows
        return
    with db.sandbox() as con:
        try:
            statements = con.extract_statements(query)
        except DuckDBError as exc:
            raise _query_failure(db, con, exc) from None
        if len(statements) != 1:
            raise QueryError(f"expected one SQL statement, found {len(statements)}"
                             + ("" if not statements else ": irw sql runs one at a time"))
        refused = _refused(con, statements[0])
        if refused:
            raise ReadOnlyError(f"irw sql is read-only: {refused[0]} ({_ADVICE[refused[1]]})")
        con.begin()

        def rolled_back() -> None:
            try:
                con.execute("rollback")
            except DuckDBError:
                pass  # a fatal error leaves nothing to roll back

        def failed(exc: DuckDBError) -> IrwError:
            rolled_back()  # first: the failure's catalogue hints read the warehouse (_query_failure)
            return _query_failure(db, con, exc)

        try:
            budget = _Budget(timeout)
            try:
                result = budget.spend(con, lambda: con.execute(query, params) if params is not None
                                      else con.execute(query))
            except (DuckDBError, TypeError, ValueError, OverflowError, NotImplementedError) as exc:
                # TypeError ...: values DuckDB cannot bind
                if isinstance(exc, DuckDBError):
                    raise failed(exc) from None
                raise QueryError(f"cannot bind the parameters: {exc}") from None
            description = result.description or []
            types = [str(d[1]) for d in description]

            def fetch(count: int | None) -> list[tuple]:
                try:
                    return budget.spend(con, lambda: result.fetchall() if count is None else result.fetchmany(count))
                except DuckDBError as exc:
                    raise failed(exc) from None

            yield RowStream([d[0] for d in description], types, chunks_of(fetch, chunk_rows),
                            partial(arrow_types, types))
        finally:
            rolled_back()


class _Budget:
    """A statement's time limit (seconds; 0: none), spent only while DuckDB works on it: running the
    statement and fetching its rows, each in _interruptible."""

    def __init__(self, timeout: float):
        self.timeout, self.left = timeout, timeout

    def spend(self, con: DuckDBConnection, call):
        import time

        if not self.timeout:
            return _interruptible(con, call, 0, self.timeout)
        started = time.monotonic()
        try:
            return _interruptible(con, call, max(self.left, 1e-3), self.timeout)
        finally:
            self.left -= time.monotonic() - started


def checked_timeout(timeout: Any) -> float:
    """A Python caller's timeout= in seconds (None: DEFAULT_TIMEOUT; 0: no limit), refused as a usage
    error when it is not a number of seconds, 0 or more (the command's --timeout takes no other)."""
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0 \
            or timeout == float("inf"):
        raise UsageError(f"timeout={timeout!r}: give seconds, 0 or more (0: no limit; None: {DEFAULT_TIMEOUT:g})")
    return float(timeout)


def _interruptible(con: DuckDBConnection, call, timeout: float, limit: float | None = None):
    """call() (a statement on con, or the reading of its rows) on a thread of its own, while this
    thread waits: Ctrl-C reaches Python only here (DuckDB's execute holds the main thread in C until
    done), and interrupts DuckDB (con.interrupt()) before KeyboardInterrupt goes on; so does the
    timeout (what is left of the statement's limit, the limit as the user gave it), which raises
    QueryError."""
    import threading
    import time

    outcome: dict[str, Any] = {}
    # Waited on with an Event, not Thread.join: a join interrupted by Ctrl-C marks a running thread
    # as stopped (Python 3.11's _wait_for_tstate_lock releases the lock the thread still holds).
    done = threading.Event()

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc
        finally:
            done.set()

    def stop() -> None:
        # again and again: an interrupt that comes before the statement starts is forgotten by it
        while not done.is_set():
            con.interrupt()
            done.wait(0.02)

    worker = threading.Thread(target=work, name="irw-sql", daemon=True)
    deadline = time.monotonic() + timeout if timeout else None
    worker.start()
    try:
        while not done.wait(0.05):
            if deadline is not None and time.monotonic() >= deadline:
                stop()
                raise QueryTimeoutError(f"the query ran longer than irw sql's timeout of {limit or timeout:g} s and was "
                                        "stopped; give it more with --timeout SECONDS")
    except KeyboardInterrupt:
        stop()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


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

def refusal(con: DuckDBConnection, statement) -> str | None:
    """Why a parsed statement is refused (it could write, or cannot be checked), or None."""
    refused = _refused(con, statement)
    return refused[0] if refused else None


def _refused(con: DuckDBConnection, statement) -> tuple[str, str] | None:
    """(why, advice key of _ADVICE) for a parsed statement that is refused, or None."""
    try:
        kind = statement.type
    except ValueError:  # a statement type this duckdb's Python enum does not know (UPDATE EXTENSIONS)
        return f"`{_opening_words(statement.query)}` is not a query irw sql runs", "write"
    if kind == _STATEMENT.EXPLAIN:
        inner = _explained(statement.query)
        if inner is None:
            return "the statement this EXPLAIN wraps cannot be found, so it cannot be checked", "write"
        try:
            inner_statements = con.extract_statements(inner)
        except DuckDBError:
            return "the statement this EXPLAIN wraps cannot be parsed on its own, so it cannot be checked", "write"
        if len(inner_statements) != 1:
            return "the statement this EXPLAIN wraps cannot be parsed on its own, so it cannot be checked", "write"
        return _refused(con, inner_statements[0])
    if kind == _STATEMENT.MULTI and _PIVOT_WORDS & set(_words(statement.query)):
        return _write_word(statement.query)  # PIVOT, or a query that holds one
    if kind != _STATEMENT.SELECT:
        opening = _opening_keyword(statement.query)
        if opening in _OPENING_ADVICE:
            return f"{opening} statements are refused", _OPENING_ADVICE[opening]
        return f"{kind.name} statements are refused", _KIND_ADVICE.get(kind.name, "write")
    try:
        tree = json.loads(con.execute(read_sql("adhoc/serialized.sql"), {"query": statement.query}).fetchone()[0])
    except (DuckDBError, ValueError, TypeError):
        tree = {"error": True}
    if isinstance(tree, dict) and tree.get("error"):
        return _write_word(statement.query)  # e.g. a PIVOT inside a SELECT
    for node in _json_nodes(tree):
        if node.get("type") in _WRITE_NODES:
            return f"the query holds {_WRITE_NODES[node['type']]} statement", "write"
        if node.get("class") == "FUNCTION":
            name = str(node.get("function_name"))
            if name.lower() in _WRITE_FUNCTIONS:
                return f"{name}() changes a sequence", "write"
            if name.lower() in _OUTSIDE_FUNCTIONS:
                return f"{name}() acts outside the query", _OUTSIDE_FUNCTIONS[name.lower()]
    return None


def _opening_keyword(text: str) -> str:
    """The statement's first word in capitals (FORCE INSTALL and FORCE CHECKPOINT as two)."""
    words = [token.upper() for _, token, kind in _tokens(text)[:2] if kind in ("keyword", "identifier")]
    if words[:1] == ["FORCE"]:
        return " ".join(words)
    return words[0] if words else ""


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
    raw = tokenize(text)
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


def _write_word(text: str) -> tuple[str, str] | None:
    for _, token, kind in _tokens(text):
        if kind in ("keyword", "identifier") and token.lower() in _WRITE_WORDS:
            return (f"the statement holds {token.upper()}, which irw sql does not run here",
                    _OPENING_ADVICE.get(token.upper(), "write"))
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

def _query_failure(db: Database, con: DuckDBConnection, error: DuckDBError) -> IrwError:
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
    without_set = [_SET_SENTENCE.sub("", _SET_CLAUSE.sub("", line)) for line in lines]
    if without_set != lines:
        lines = [line.rstrip() for line in without_set] + [f"({_NO_SET})"]
    first = lines[0]
    if first.startswith("Out of Memory Error"):
        # DuckDB's "Possible solutions" are SETs the sandbox refuses (a walk): irw's own limit instead
        from warehouse.engines.duckdb import DEFAULT_MEMORY_LIMIT, memory_limit

        return QueryError.of_lines([first, f"irw lets DuckDB use {memory_limit()} (IRW_MEMORY_LIMIT, default "
                                           f"{DEFAULT_MEMORY_LIMIT}): narrow the query, or run it with a larger "
                                           "IRW_MEMORY_LIMIT (IRW_MEMORY_LIMIT=8GiB irw sql ...)"])
    if (isinstance(error, DuckDBPermissionError) or "configuration has been locked" in first
            or "attached in read-only mode" in first or "read-only mode" in first):
        return ReadOnlyError(f"irw sql reads the warehouse and nothing else: {first}")
    if _MISSING_TABLE.match(first):
        known = _catalogue(con)
        hints = [line for line in lines[1:] if _DID_YOU_MEAN.fullmatch(line)]
        ours = [line.strip() for line in hints if _DID_YOU_MEAN.fullmatch(line).group(1).split(".")[-1]
                in known["names"]]  # "did you mean runs" is kept; "did you mean pg_constraint" is not
        rest = [line for line in lines[1:] if line not in hints]
        lines = [first, *ours, known["listing"], *rest]
    return QueryError.of_lines(lines)


def _catalogue(con: DuckDBConnection) -> dict[str, Any]:
    return _listing(con.execute(read_sql("adhoc/catalogue.sql")).fetchall())


def _listing(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """The names of the warehouse's tables and views, and the line an error about an unknown name
    lists them in, on either engine: rows of (name, table type), a view's type VIEW."""
    tables = [name for name, kind in rows if kind != "VIEW"]
    views = [name for name, kind in rows if kind == "VIEW"]
    listing = f"the warehouse has tables: {', '.join(tables)}"
    if views:
        listing += f"; views: {', '.join(views)}"
    return {"names": set(tables) | set(views), "listing": listing}


# -- PostgreSQL ---------------------------------------------------------------------------------
# On a PostgreSQL warehouse the statement is PostgreSQL's SQL (parameters as psycopg takes them:
# %s, %(name)s). Read-only is the server's guarantee:
#
# 1. The statement runs in a session whose login role (session_user) can only read, so that no
#    set_config('role', ...), SET ROLE or RESET ROLE in it gains anything: the URL's own session
#    when its role, and every role it is a member of, may do no more than read (no superuser, no
#    write privilege on a warehouse table or sequence, no CREATE on its schema, in none of the
#    roles that act on the server: pg_read_server_files, pg_signal_backend ...); else a session
#    of its own logged in as the warehouse's reader login, irw_sql_<random>, which a writer whose
#    role may create roles makes with SELECT on the warehouse's tables and views, no membership,
#    and a random password kept in irw_reader_login, which only the owner and the writers read
#    (warehouse/engines/postgres.py _grant_reader). When there is no such login, or the server refuses it
#    (pg_hba.conf allows it no method, or asks a password it has no way to check), irw refuses
#    and says what to do: allow the login in pg_hba.conf, or pass the URL of a read-only role. It
#    never falls back to SET ROLE in the writer's session, where the role could be reset.
# 2. In a READ ONLY transaction that is always rolled back, with statement_timeout, lock_timeout
#    and search_path (pg_catalog first, so no object of the schema stands for a built-in one) set
#    for it (SET LOCAL, so nothing outlives it).
# 3. Checks first, on the statement as the server reads it (U&"..." names decoded): one query, no
#    writing node, and no VOLATILE function (the server's own pg_proc says which): functions that
#    take locks, signal sessions, read files, change settings or the role, or run SQL given as text
#    (ts_stat, query_to_xml) are volatile. The role is what the promise rests on; the checks keep
#    what the role cannot take away (advisory locks, which no writer of irw waits on) and give the
#    clearest messages.

DEFAULT_TIMEOUT = 300.0  # seconds, `irw sql --timeout`
# Volatile only because they are random or read the clock.
_PG_HARMLESS_VOLATILE = {"random", "random_normal", "clock_timestamp", "timeofday", "gen_random_uuid",
                         "uuid_generate_v4"}
_PG_QUERY_TYPES = ("Select", "Union", "Intersect", "Except", "Values")
_PG_WRITE_NODES = {"Insert": "an INSERT", "Update": "an UPDATE", "Delete": "a DELETE", "Merge": "a MERGE",
                   "Create": "a CREATE", "Drop": "a DROP", "Alter": "an ALTER", "Copy": "a COPY",
                   "Command": "a command", "Lock": "a row lock (FOR UPDATE / FOR SHARE)", "Into": "SELECT INTO"}
# Functions that act outside the query, refused by name even before the server is asked.
_PG_REFUSED_FUNCTIONS = re.compile(
    r"^(nextval|setval|set_config|pg_read_\w*|pg_ls_\w*|pg_stat_file|pg_file\w*|lo_\w+|dblink\w*|"
    r"pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|"
    r"pg_create_\w+|pg_drop_\w+|pg_log_\w+|pg_advisory_\w+|pg_try_advisory_\w+|pg_notify|pg_sleep\w*|"
    r"pg_backup_\w+|pg_start_backup|pg_stop_backup|ts_stat|ts_rewrite|"
    r"query_to_xml\w*|cursor_to_xml\w*|pg_import_\w+|pg_replication_\w+|pg_logical_\w+)$")
# What PostgreSQL's lexer reads whole; U&"..." identifiers are decoded (_server_text).
_PG_SCAN = re.compile(
    r"""--[^\n]*|/\*.*?\*/|[Ee]'(?:[^'\\]|\\.|'')*'|(?<![\w$])[Uu]&'(?:[^']|'')*'|'(?:[^']|'')*'"""
    r"""|\$\$.*?\$\$|\$([A-Za-z_]\w*)\$.*?\$\1\$"""
    r"""|(?<![\w$])[Uu]&"((?:[^"]|"")*)"(\s*[Uu][Ee][Ss][Cc][Aa][Pp][Ee]\s*'([^'])')?"""
    r'|"(?:[^"]|"")*"', re.S)
_MAX_DEPTH = 100_000  # recursion limit while sqlglot parses (deeply nested parentheses)


def _decoded_identifier(body: str, escape: str) -> str | None:
    """The name a U&"..." identifier stands for (PostgreSQL's rules: ESC hhhh, ESC+hhhhhh, ESC ESC),
    or None when PostgreSQL would reject it."""
    body = body.replace('""', '"')
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char != escape:
            out.append(char)
            i += 1
            continue
        if body[i + 1:i + 2] == escape:
            out.append(escape)
            i += 2
        elif re.fullmatch(r"[0-9A-Fa-f]{4}", body[i + 1:i + 5]):
            out.append(chr(int(body[i + 1:i + 5], 16)))
            i += 5
        elif body[i + 1:i + 2] == "+" and re.fullmatch(r"[0-9A-Fa-f]{6}", body[i + 2:i + 8]):
            code = int(body[i + 2:i + 8], 16)
            if code > 0x10FFFF:
                return None
            out.append(chr(code))
            i += 8
        else:
            return None
    return "".join(out)


def _server_text(query: str) -> str:
    """The statement with every U&"..." identifier written as the plain quoted name PostgreSQL reads
    it as, so that the checks see `U&"pg\\005fsleep"` as "pg_sleep"."""
    def plain(match: re.Match) -> str:
        if match.group(2) is None:
            return match.group(0)
        escape = match.group(4) or "\\"
        name = _decoded_identifier(match.group(2), escape)
        if name is None:
            raise _Unreadable("a U&\"...\" name in it has an escape PostgreSQL would reject")
        return '"' + name.replace('"', '""') + '"'
    return _PG_SCAN.sub(plain, query)


class _Unreadable(Exception):
    pass


def _parsed(query: str):
    """sqlglot's trees of the statement; deep nesting is parsed with a higher recursion limit on a
    thread of its own with a large stack, as sqlglot's parser recurses per level."""
    import logging
    import sys
    import threading

    import sqlglot

    # sqlglot warns on stderr when it reads a statement (EXPLAIN) as an opaque command; that is
    # handled here, and stderr is the user's.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        return sqlglot.parse(query, read="postgres")
    except RecursionError:
        pass
    result: dict[str, Any] = {}

    def parse() -> None:
        try:
            result["trees"] = sqlglot.parse(query, read="postgres")
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    limit, stack = sys.getrecursionlimit(), threading.stack_size()
    try:
        sys.setrecursionlimit(_MAX_DEPTH)
        threading.stack_size(512 << 20)
        worker = threading.Thread(target=parse)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(stack)
        sys.setrecursionlimit(limit)
    if isinstance(result.get("error"), RecursionError):
        raise _Unreadable("it is nested too deeply to be checked")
    if "error" in result:
        raise result["error"]
    return result["trees"]


def _first_word(query: str) -> str:
    text = _PG_SCAN.sub(lambda m: " " if m.group(0).startswith(("--", "/*")) else m.group(0), query)
    match = re.search(r"[A-Za-z_]\w*", text)
    return match.group(0).upper() if match else "this"


def postgres_refusal(query: str, volatile=None) -> str | None:
    """Why a PostgreSQL statement is refused (it could write or act outside the query), or None.
    volatile(names) gives those of the names that are VOLATILE functions on the server."""
    return _postgres_refusal(query, volatile)[0]


# what the checker says of a statement it cannot parse: the server is then asked to parse it alone
# (PostgresDatabase.parse_error), and its syntax error is said instead
UNPARSED = "the statement cannot be parsed to be checked"


def _postgres_refusal(query: str, volatile=None) -> tuple[str | None, str]:
    """(why, kind): kind is "write" for what would change the warehouse, "shape" for not one
    query, "server" for what acts outside the query."""
    import sqlglot
    from sqlglot import exp

    try:
        trees = [t for t in _parsed(_server_text(query)) if t is not None]
    except _Unreadable as exc:
        return f"the statement cannot be checked: {exc}", "server"
    except sqlglot.errors.ParseError:
        word = _first_word(query)
        if word not in ("SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "THIS"):
            return f"{word} statements are refused: irw sql runs one query (SELECT, VALUES, or EXPLAIN of one)", \
                "server"
        return UNPARSED, "server"
    if len(trees) != 1:
        return f"expected one SQL statement, found {len(trees)}" + ("" if not trees else ": irw sql runs one at a time"), \
            "shape"
    tree = trees[0]
    if isinstance(tree, exp.Command) and str(tree.this).lower() == "explain":
        inner = str(tree.expression.this if isinstance(tree.expression, exp.Literal) else tree.expression or "")
        if inner.lower().lstrip().startswith("analyze"):
            inner = inner.lstrip()[len("analyze"):]
        if inner.lstrip().startswith("("):
            return "EXPLAIN with options is not checked here: EXPLAIN the query alone", "shape"
        return _postgres_refusal(inner, volatile) if inner.strip() else ("EXPLAIN of nothing", "shape")
    query_node = tree
    while isinstance(query_node, exp.Subquery):  # (select 1), ((select 1)) order by 1: the query in parentheses
        query_node = query_node.this
    if type(query_node).__name__ not in _PG_QUERY_TYPES:
        word = _first_word(query)
        if type(tree).__name__ in _PG_WRITE_NODES and type(tree).__name__ not in ("Command", "Into"):
            word = type(tree).__name__.upper()  # WITH ... DELETE is a DELETE
        kind = "write" if word in (
            "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "COPY",
            "GRANT", "REVOKE", "COMMENT", "REINDEX", "CLUSTER", "VACUUM", "REFRESH") else "server"
        return f"{word} statements are refused: irw sql runs one query (SELECT, VALUES, or EXPLAIN of one)", kind
    names: set[str] = set()
    for node in tree.walk():
        kind = type(node).__name__
        if kind in _PG_WRITE_NODES:
            return f"the query holds {_PG_WRITE_NODES[kind]}", "write"
        if isinstance(node, exp.Anonymous):
            names.add(str(node.name))
        elif isinstance(node, exp.Func):
            names.add(node.sql_name().lower())
    # a function is named as PostgreSQL folds an unquoted name, in lower case: a measure file's
    # query reaches here written out by sqlglot (PG_SLEEP), the console's as typed (pg_sleep)
    for name in sorted({n.lower() for n in names}):
        if _PG_REFUSED_FUNCTIONS.match(name):
            return f"{name}() acts outside the query", "server"
    if volatile is not None and names:
        acting = sorted({n.lower() for n in volatile(names | {n.lower() for n in names})}
                        - set(_PG_HARMLESS_VOLATILE))
        if acting:
            return (f"{acting[0]}() acts outside the query: the server marks it VOLATILE (it may change "
                    "state, take locks, signal sessions or read files)"), "server"
    return None, ""


@contextmanager
def stream_on_postgres(db, query: str, params: Any, timeout: float | None = DEFAULT_TIMEOUT,
                       chunk_rows: int | None = CHUNK_ROWS) -> Iterator[RowStream]:
    """Checks the statement as the server reads it (module notes, 3), then runs it in the server's
    read-only session (1, 2: PostgresDatabase.user_sql_rows), with hash joins where it reads
    ranked_judged (the view, or a user measure's statement: its steps' sizes are beyond the
    planner's estimates), its rows read chunk_rows at a time through a server-side cursor. A name
    of no table is answered with the warehouse's tables and views, as on DuckDB (_listing)."""
    mistyped = _pg_syntax_error(query)
    if mistyped:
        raise mistyped
    why, kind = _postgres_refusal(query, db.volatile_functions)
    if why == UNPARSED:  # a typo (`select * frm runs`) is the server's syntax error, not a refusal
        said = db.parse_error(query)
        if said:
            raise QueryError.of_lines(said)
    if why:
        if kind == "shape":
            raise QueryError(why)
        if kind == "write":
            raise ReadOnlyError(f"irw sql is read-only: {why} (use irw ingest / irw rm to change the warehouse)")
        raise ReadOnlyError(f"irw sql reads the warehouse and nothing else: {why}")
    try:
        # a server-side cursor holds a SELECT's rows on the server until fetched; EXPLAIN and SHOW
        # cannot be declared as one, and their results are small
        with db.user_sql_rows(query, params, timeout, chunk_rows, hash_joins="ranked_judged" in _words(query),
                              server_cursor=_first_word(query) in ("SELECT", "WITH", "VALUES", "TABLE")) as rows:
            yield rows
    except UnknownTableError as exc:
        first, *rest = exc.message_lines()
        raise UnknownTableError.of_lines([first, _listing(db.relations())["listing"], *rest]) from None


def run_on_postgres(db, query: str, params: Any, timeout: float | None = DEFAULT_TIMEOUT,
                    max_rows: int | None = None) -> Table:
    """stream_on_postgres's rows as one Table (every row, or the first max_rows)."""
    with stream_on_postgres(db, query, params, timeout, max_rows) as rows:
        return rows.table(max_rows)


# The words a PostgreSQL statement can open with (its grammar's statements, gram.y), and what comes
# before the first: blanks and comments.
_PG_STATEMENT_WORDS = frozenset((
    "ABORT", "ALTER", "ANALYSE", "ANALYZE", "BEGIN", "CALL", "CHECKPOINT", "CLOSE", "CLUSTER", "COMMENT", "COMMIT",
    "COPY", "CREATE", "DEALLOCATE", "DECLARE", "DELETE", "DISCARD", "DO", "DROP", "END", "EXECUTE", "EXPLAIN",
    "FETCH", "GRANT", "IMPORT", "INSERT", "LISTEN", "LOAD", "LOCK", "MERGE", "MOVE", "NOTIFY", "PREPARE",
    "REASSIGN", "REFRESH", "REINDEX", "RELEASE", "RESET", "REVOKE", "ROLLBACK", "SAVEPOINT", "SECURITY", "SELECT",
    "SET", "SHOW", "START", "TABLE", "TRUNCATE", "UNLISTEN", "UPDATE", "VACUUM", "VALUES", "WITH"))
_PG_LEADING = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/)*", re.S)
_PG_WORD = re.compile(r"[^\W\d][\w$]*")


def _pg_syntax_error(query: str) -> QueryError | None:
    """A statement opening with a word no PostgreSQL statement opens with (`selec 1`) is a syntax
    error, which the server's parser reports before it runs anything: said as the server says it
    (the word, its line, a caret under it), not as a statement irw refuses."""
    start = _PG_LEADING.match(query).end()
    word = _PG_WORD.match(query, start)
    if word is None or word.group(0).upper() in _PG_STATEMENT_WORDS:
        return None
    line_start = query.rfind("\n", 0, start) + 1
    line_end = query.find("\n", start)
    lead = f"LINE {query.count(chr(10), 0, start) + 1}: "
    return QueryError.of_lines([f'syntax error at or near "{word.group(0)}"',
                                lead + query[line_start:line_end if line_end >= 0 else len(query)].rstrip(),
                                " " * (len(lead) + start - line_start) + "^"])
