"""A warehouse on a PostgreSQL server: the same interface as warehouse/engines/duckdb.py's Database.

`--db postgresql://user:password@host:5432/dbname` (or IRW_DB, or warehouse.open(url)) opens one.
Every statement comes from the same files under sql/ as DuckDB's, derived by warehouse/engines/dialect.py
(the one place the engines differ). What PostgreSQL does not do the way irw needs is kept local:

- Files are read and validated by DuckDB in a local in-memory database (`staging`), exactly as for
  a DuckDB warehouse (same rules, same FILE:LINE errors); the validated rows go to the server in
  one transaction with COPY (warehouse/store/transfer.py). A killed ingest leaves nothing behind.
- Schema migrations are the same files, applied once per database, so two clients opening a fresh
  database together do not both migrate it.
- Writers never wait on a lock a reader can take. Advisory locks (pg_advisory_lock) are anyone's:
  every role that may connect can take any key, so irw takes none. Writers serialise on what
  needs a writer's privileges, which PostgreSQL checks before granting the lock: migrations on
  `LOCK TABLE irw_schema IN EXCLUSIVE MODE` (a role with only SELECT may lock a table in ACCESS
  SHARE mode alone, which EXCLUSIVE does not conflict with), and writers of scores on the row of
  their qrels set, `SELECT ... FOR NO KEY UPDATE` (a row lock needs UPDATE; NO KEY, so the
  foreign-key checks of concurrent inserts, FOR KEY SHARE, do not wait on it). Before any table
  exists there is nothing to lock: the first writer creates irw_schema alone, in a statement of
  its own (a second client doing the same meanwhile fails on the catalog and finds it made),
  then migrates under the lock. What a reader can still hold is what any PostgreSQL
  reader holds: ACCESS SHARE on the tables it reads, which delays only a migration's ALTER of one
  (`irw sql` holds it at most --timeout seconds).
- `irw sql` runs in a READ ONLY transaction that is always rolled back, with statement and lock
  timeouts, in a session whose login role can only read: the URL's own session when its role
  (and every role it may SET ROLE to) can only read, else a session of its own logged in as the
  warehouse's reader login (reader_session; made by _grant_reader), whose session_user can only
  read, so no set_config('role', ...) or RESET ROLE in user SQL regains a writer's powers; else
  it refuses (warehouse/store/adhoc.py; docs/engines.md, "A shared warehouse"). A warehouse opened
  read_only is otherwise read-only by irw's own refusals (ReadOnlyError) and the role's privileges,
  not by a read-only session: reading scores fills temporary tables (Database.load_rows), and
  PostgreSQL refuses CREATE, temporary or not, in a READ ONLY transaction.
- Only irw's own objects are read: every open first compares the schema's catalog with what irw's
  migrations make (_check_objects, one query), and refuses what they did not make, as DuckDB's
  Database does: a view over pg_read_file in place of `runs`, a trigger, policy or rule on irw's
  tables, or a function or operator named like a built-in one (PostgreSQL picks a better-matching
  function of a schema on the search_path over pg_catalog's, wherever pg_catalog stands).
- The URL's password is never shown: `path` (what messages, reports and `irw runs` print) is the
  URL with the password masked, and server messages that quote it are scrubbed. A location meant
  as a server that is no URL irw can use (postgresql:/..., a libpq key=value string, a password
  holding an unencoded @) is refused before anything is opened or made, masked (location_problem).
"""
from __future__ import annotations

import os
import re
import time
from contextlib import contextmanager
from functools import partial
from typing import Any, Iterator, Sequence

from warehouse.engines.dialect import postgres_statements
from warehouse import interrupt
from warehouse.errors import (ConflictError, DatabaseError, IrwError, NotAWarehouse, QueryError, QueryTimeoutError,
                              ReadOnlyError, ServerUnreachable, UnknownTableError, WarehouseClosed,
                              WarehouseNotFound, WarehouseOpenError)
from warehouse.engines.base import RowStream, Statements, chunks_of
from warehouse.resources import keep_cached, read_cached, read_sql
from warehouse.formats.table import Table

# default_statistics_target while the run tables are analyzed after an ingest (refresh_statistics)
RUN_STATISTICS_TARGET = 10
# default_statistics_target of irw's sessions: the evaluation's temp tables are analyzed with it
EVAL_STATISTICS_TARGET = 10
# After runs, a run table is analyzed again only while ANALYZE reads all of it (at most 300 x the
# target pages) or once it has grown by this share of its size at its last ANALYZE (autovacuum's
# own rule, autovacuum_analyze_scale_factor): refresh_statistics
RUN_STATISTICS_GROWTH = 0.1
RUN_STATISTICS_WHOLE_PAGES = 300 * RUN_STATISTICS_TARGET  # a table ANALYZE reads all of
# the run tables of sql/ingest/statistics_after_runs.sql that refresh_statistics should analyze
_RUN_TABLES_TO_ANALYZE = (
    "select t from pg_catalog.unnest(%(tables)s::text[]) as t, pg_catalog.pg_class as c "
    "where c.oid = pg_catalog.to_regclass(t) and (c.reltuples < 0 or c.relpages = 0 "
    "or pg_catalog.pg_relation_size(c.oid) <= %(whole)s * pg_catalog.current_setting('block_size')::bigint "
    "or pg_catalog.pg_relation_size(c.oid) > %(growth)s * c.relpages * pg_catalog.current_setting('block_size')::bigint)"
)

# A PostgreSQL URL, its scheme in any letter case (schemes are case-insensitive, RFC 3986 3.1; libpq
# takes lower case only, so PostgresDatabase writes it so before connecting).
URL = re.compile(r"^postgres(?:ql)?(?:\+psycopg)?://", re.IGNORECASE)
# What starts so was meant as a PostgreSQL URL, however mistyped (postgresql:/..., postgres:host,
# postgresql//user:password@host, postgresql+asyncpg://...): never a DuckDB file named so
# (location_problem); postgres_backup.duckdb still is one. _SCHEME_TYPED: the scheme as typed, and
# the colon and slashes after it.
_MEANT_AS_URL = re.compile(r"^\s*postgres(?:ql)?(?:\+\w*)?(?::|//|[^@]*:[^@]*@)", re.IGNORECASE)
_SCHEME_TYPED = re.compile(r"^\s*postgres(?:ql)?(?:\+\w*)?[:/;]*", re.IGNORECASE)
URL_FORM = "postgresql://USER:PASSWORD@HOST:PORT/DBNAME"
# libpq's connection string (`host=... dbname=... password=...`): key=value words, a value quoted
# or not; and the keys of libpq's own parameters, one of which makes it a connection string
_CONNINFO_WORD = re.compile(r"\s*([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)")
_CONNINFO_KEYS = frozenset((
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "options", "sslmode",
    "sslcert", "sslkey", "sslrootcert", "sslpassword", "application_name", "connect_timeout", "client_encoding",
    "target_session_attrs", "channel_binding", "gssencmode", "require_auth", "krbsrvname", "requirepeer"))
# a password given as a key=value word, in a connection string or a URL's query
_PASSWORD_WORD = re.compile(r"(?i)(?<![\w])(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&']*)")
# where a server's or libpq's message can hold a password (PostgresDatabase.scrub): a quoted value or a URL
_QUOTED_OR_URL = re.compile(r"""\"[^\"\n]*\"|'[^'\n]*'|\b[a-z][a-z0-9+.-]*://\S+""", re.IGNORECASE)
RESERVED_HINT = "in the user name and password, percent-encode @ as %40, and : / ? # % as %3A %2F %3F %23 %25"


def is_url(path: Any) -> bool:
    return isinstance(path, str) and bool(URL.match(path))


def _location_text(location: Any) -> str | None:
    import os

    if isinstance(location, bytes):
        return os.fsdecode(location)
    if isinstance(location, (str, os.PathLike)):
        text = os.fspath(location)
        return text if isinstance(text, str) else os.fsdecode(text)
    return None


def _conninfo(text: str) -> dict[str, str] | None:
    """The key=value words of a libpq connection string, or None when text is not one."""
    found: dict[str, str] = {}
    at = 0
    while at < len(text.rstrip()):
        word = _CONNINFO_WORD.match(text, at)
        if word is None or word.end() == at:
            return None
        found[word.group(1).lower()] = word.group(2)
        at = word.end()
    return found if found.keys() & _CONNINFO_KEYS else None


def _login_is_unencoded(url: str) -> bool:
    """The URL's user name or password holds a character a URL reserves, unencoded: libpq ends the
    login at the first @ (and the host at the first /, ? or #), so the password's rest would be
    read as the host and shown in the server's messages."""
    rest = url[URL.match(url).end():]
    at = rest.find("@")
    return at >= 0 and (rest.count("@") > 1 or any(0 <= rest.find(mark) < at for mark in "/?#"))


def masked(text: str) -> str:
    """A location with every password in it replaced by ***, however malformed: a URL's (its login
    taken up to the last @, so a password holding @ or / is masked whole) and a password=... word's."""
    text = _PASSWORD_WORD.sub(lambda match: match.group(1) + "***", text)
    if not _MEANT_AS_URL.match(text):
        return text
    scheme = _SCHEME_TYPED.match(text).end()
    head, rest = text[:scheme], text[scheme:]
    login, at, host = rest.rpartition("@")
    if at and ":" in login:
        login = login.split(":", 1)[0] + ":***"
    return head + login + at + host


def location_problem(location: Any) -> str | None:
    """Why location cannot be the warehouse it was meant as, said with its password masked; None
    when it can be (a well-formed PostgreSQL URL, or a path for a DuckDB file). Refused: what starts
    like a PostgreSQL URL and is not one (postgresql:/..., one slash), a URL whose login holds an
    unencoded @, / ? or # (libpq would read the password's rest as the host), and a libpq connection
    string (host=... password=...): as a file path each would create a file named by the password."""
    text = _location_text(location)
    if text is None:
        return None
    if URL.match(text):
        if _login_is_unencoded(text):
            return (f"cannot open warehouse {masked(text)}: its password or user name holds an @ (or / ? #) "
                    f"that is not percent-encoded, so the server would take part of it for the host: "
                    f"{RESERVED_HINT}; the URL is {URL_FORM}")
        if _names_no_database(text):
            shown = shown_url(text)
            base = shown.split("?", 1)[0].rstrip("/")
            query = f"?{shown.split('?', 1)[1]}" if "?" in shown else ""
            return (f"cannot open warehouse {shown}: the URL names no database, and the server would take the "
                    f"one named after the user (a superuser's irw would make its tables in the server's own "
                    f"database); add the database's name: {base}/DBNAME{query}")
        return None
    if _MEANT_AS_URL.match(text):
        return (f"cannot open warehouse {masked(text)}: not a PostgreSQL URL irw can use; write it as "
                f"{URL_FORM}, with two slashes; {RESERVED_HINT}")
    words = _conninfo(text)
    if words is not None or _PASSWORD_WORD.search(text):
        example = ""
        if words and "host" in words:
            word = {key: value.strip("'") for key, value in words.items()}
            port = f":{word['port']}" if "port" in word else ""
            example = (f": here --db postgresql://{word.get('user', 'USER')}:PASSWORD@{word['host']}{port}/"
                       f"{word.get('dbname', 'DBNAME')}")
        return (f"cannot open warehouse {masked(text)}: a libpq key=value connection string, and irw takes a "
                f"PostgreSQL URL, {URL_FORM}{example}; {RESERVED_HINT}")
    return None


def _names_no_database(url: str) -> bool:
    """A URL without a database (no path, nor ?dbname=), which libpq fills with PGDATABASE or the
    user's name: without PGDATABASE, a database nobody named."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    if parts.path.strip("/") or parse_qs(parts.query).get("dbname", [""])[0]:
        return False
    return not os.environ.get("PGDATABASE")


def check_location(location: Any) -> None:
    """Refuses a location location_problem finds, before anything is opened or created."""
    problem = location_problem(location)
    if problem:
        raise WarehouseOpenError(problem)


def shown_url(url: str) -> str:
    """The URL as irw prints it: the password (in the URL or as ?password=) replaced by ***."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    if not is_url(url) or _login_is_unencoded(url):  # urlsplit would end the login too early
        return masked(url)
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{host}"
    query = parts.query
    if query:
        pairs = [(k, "***" if k.lower() == "password" else v) for k, v in parse_qsl(query, keep_blank_values=True)]
        query = urlencode(pairs, safe="*")
    scheme = parts.scheme.split("+", 1)[0]
    return urlunsplit((scheme, netloc, parts.path, query, parts.fragment))


def _secrets(url: str) -> list[str]:
    from urllib.parse import parse_qsl, unquote, urlsplit

    parts = urlsplit(url)
    found = []
    if parts.password:
        found += [parts.password, unquote(parts.password)]
    found += [v for k, v in parse_qsl(parts.query) if k.lower() == "password"]
    return [s for s in found if s]


def _public_parts(url: str) -> list[str]:
    """The parts of the URL a server's message names that are no secret (host, port, user, database),
    longest first: a password that is part of one (127 of host 127.0.0.1) is not masked there."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    try:
        port = str(parts.port or "")
    except ValueError:
        port = ""
    found = {parts.hostname or "", port, unquote(parts.username or ""), unquote(parts.path.lstrip("/"))}
    return sorted((p for p in found if p), key=len, reverse=True)


class PostgresDatabase(Statements):
    """One PostgreSQL database holding an irw warehouse (its tables in the connection's schema)."""

    dialect = "postgres"
    read_statements = "SELECT (or EXPLAIN of one)"
    keeps_scores = True  # a warehouse: see warehouse/engines/duckdb.py Database.keeps_scores
    # the capabilities warehouse/engines/__init__.py's WarehouseEngine states
    batches_runs = True
    sandbox_in_process = False  # irw sql: a READ ONLY transaction of a reader's session (warehouse/store/adhoc.py)
    text_holds_nul = False
    writes_parquet = False

    def __init__(self, url: str, *, read_only: bool = False, create: bool = True, sandboxed: bool = False):
        import psycopg

        check_location(url)
        self._url = URL.sub("postgresql://", url, count=1)  # the scheme as libpq takes it (URL)
        self._secrets = _secrets(url)
        self._public = _public_parts(url)
        self.path = shown_url(url)
        self.sandboxed = sandboxed
        self.read_only = read_only or sandboxed
        self.read_only_reason: str | None = None  # why read_only when it was not asked for
        self.upgraded: tuple[int, int] | None = None
        self.created = False
        self._closed = False
        self._staging = None
        self._engine = None
        self._in_transaction = False
        self._reader = None  # reader_session()
        self._known = None  # _known_objects()
        self._upgrading = False  # applying migrations to a warehouse made by an older irw (failure)
        self._con = None
        try:
            self._con = psycopg.connect(self._url, autocommit=True)
        except psycopg.Error as exc:
            kind, advice = _connect_failure(exc, self._url)
            # the advice is irw's own words, over the URL's public parts: never masked (a walk's
            # `postgresql://USER:PASSWORD@...` there read postgr***sql, showing the password `e`)
            raise kind(f"cannot open warehouse {self.path}: {self.scrub(_first_line(exc))}"
                       + (f"; {advice}" if advice else "")) from None
        interrupt.register(self._con)  # Ctrl-C in the irw command cancels its statement on the server
        _configure(self._con)
        if self._con.info.server_version >= 140000:
            # No Memoize (PostgreSQL 14+) in irw's plans: it costs a nested loop of index probes as if
            # their keys repeated, and the evaluation's join of run_rows (indexed by run) to the
            # evaluated (run, query) pairs (sql/eval/04b_run_rows_graded.sql) became 5,000 probes
            # each reading a whole run's rows (5.4 s of the tie-aware measures at 100 runs) instead
            # of one hash join (0.5 s). Without it, a few runs still take the index, many a hash.
            self._con.execute("set enable_memoize = off")
        # No JIT compilation of irw's statements: an evaluation's statements over a batch of runs
        # are costed far above jit_above_cost (the tie-aware measures' at 10M, sql/measures/ties.sql),
        # and compiling them with inlining and optimisation took 3.2 s of such a statement's 12.2 s
        # (EXPLAIN ANALYZE, 200 runs of a 1,000-run warehouse), every batch again, to save less than
        # it cost.
        self._con.execute("set jit = off")
        # Every statement planned for its parameters' values, as DuckDB folds them: irw's statements
        # say "this run, or every run when NULL" ((cast($run_id as integer) is null or r.run_id =
        # $run_id), sql/ingest/link_judged_rows.sql), which a generic plan cannot narrow to the run's
        # index. psycopg prepares a statement on its fifth call; the server then kept a generic plan
        # that read every stored run's rows, so `irw copy` of 400 runs into PostgreSQL linked the last
        # runs in 135 ms each against 11 ms for the first (38.6 s in all; with custom plans 14.8 s,
        # each run 11 ms). Planning each call costs far less than any of these statements.
        if self._con.info.server_version >= 120000:  # the setting's first release
            self._con.execute("set plan_cache_mode = force_custom_plan")
        # The evaluation's temp tables (sql/eval/) are analyzed from a sample of EVAL_STATISTICS_TARGET
        # x 300 rows: their plans need a run's and a query's share of the rows, which that sample
        # gives, and the default sample (100 x 300 rows, every column's distinct values sorted) took
        # 0.16 to 0.23 s per table of a 1M-row batch, 10% of a cold `irw eval` at 1,000 stored runs.
        # The qrels keep the server's default (refresh_statistics).
        self._con.execute(f"set default_statistics_target = {EVAL_STATISTICS_TARGET}")  # an int of ours
        try:
            # The warehouse's schema is the session's whole search_path (pg_catalog implicitly
            # first): no function of another schema on the URL's path (public, "$user") can stand
            # for a built-in one in irw's statements; those of this schema are refused at open.
            self.schema = self._con.execute(
                "select s, case when s is not null then pg_catalog.set_config('search_path', "
                "pg_catalog.quote_ident(s), false) end from (select pg_catalog.current_schema() as s) as x"
            ).fetchone()[0]
            if self.schema is None:
                self._refuse_search_path()
            self._check_event_triggers()
            self._check_objects()
            version = self.schema_version()
            if version == 0:
                # what a command that writes would refuse, a command that reads says too
                self._check_is_warehouse()
            if version == 0 and self.read_only:
                raise WarehouseNotFound(f"no warehouse in {self.path} (its schema has no irw_schema table); "
                                        "create one with `irw ingest` or `irw migrate` through a role that may "
                                        "create tables")
            if version == 0 and not create:
                raise WarehouseNotFound(f"no warehouse in {self.path}; create one with `irw ingest`")
            if version and not self.read_only and not self._role_may_write():
                # A reader's role (docs/engines.md): irw reads stored scores and stores nothing, as for a
                # warehouse opened read-only, instead of failing at its first write.
                self.read_only = True
                self.read_only_reason = "its role may read but not write the warehouse's tables"
            self._upgrading = version > 0
            self._migrate()
            self._upgrading = False
        except BaseException:
            self.close()
            raise

    # -- errors ------------------------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """text (libpq's message of a connection that failed) with the password masked where such a
        message can hold it: in a value it quotes (host "pw@h", a connection string) or a URL, except
        where it is part of the URL's host, port, user or database. Not in its prose: a walk's password
        `on` made "c***necti*** refused ... listening *** 127.0.0.1", which garbled the message and
        showed which word the password was. A statement's error is never masked: it quotes the
        statement (irw sql's, typed by a user), and masking there told whoever typed a guess that it
        held the password (`relation "js***_runs"`), from irw serve's console too."""
        if not self._secrets:
            return text

        public = re.compile("(" + "|".join(map(re.escape, self._public)) + ")") if self._public else None

        def masked(piece: str) -> str:
            for secret in self._secrets:
                piece = piece.replace(secret, "***")
            return piece

        def masked_within(match: re.Match) -> str:
            if public is None:
                return masked(match.group(0))
            pieces = public.split(match.group(0))  # odd pieces are the URL's public parts, kept
            return "".join(piece if i % 2 else masked(piece) for i, piece in enumerate(pieces))

        return _QUOTED_OR_URL.sub(masked_within, text)

    def failure(self, error: BaseException) -> IrwError:
        import psycopg
        import psycopg.errors as pe

        message = _first_line(error)  # a statement's error: no password in it to mask (scrub)
        if isinstance(error, pe.UniqueViolation):
            # the server's text names a constraint; the user knows the run or qrels set by its name
            return ConflictError(f"another writer stored {_stored_meanwhile(error)} meanwhile in {self.path}; "
                                 "run the command again (it then finds what the other writer stored)")
        if isinstance(error, pe.ReadOnlySqlTransaction):
            return DatabaseError(f"the warehouse {self.path} is open read-only: {message}")
        if isinstance(error, pe.InsufficientPrivilege):
            return DatabaseError(self._denied(message))
        if isinstance(error, pe.DiskFull):
            return DatabaseError(f"the server's disk is full: {message}; the transaction was rolled back, so "
                                 "nothing was stored")
        if isinstance(error, (pe.AdminShutdown, pe.CrashShutdown, pe.CannotConnectNow)) or (
                isinstance(error, psycopg.OperationalError) and getattr(error, "sqlstate", None) is None):
            # the server went away under the command (stopped, restarted, the connection cut): what
            # it had not committed was rolled back by the server
            return DatabaseError(f"the connection to the warehouse {self.path} was lost: {message}; the step under "
                                 "way was rolled back (what the command had finished is kept): run it again once "
                                 "the server is back")
        return DatabaseError(f"PostgreSQL failed on the warehouse {self.path}: {message}")

    def _refuse_search_path(self) -> None:
        """The session starts in no schema: none of its search_path exists, or the role may not use
        those that do (a schema's USAGE, which PostgreSQL gives every role on `public` only)."""
        path, unusable = self._con.execute(
            "select pg_catalog.current_setting('search_path'), array(select n.nspname::text "
            "from pg_catalog.pg_namespace n where n.nspname = any(pg_catalog.string_to_array(pg_catalog.replace("
            "pg_catalog.replace(pg_catalog.current_setting('search_path'), '\"', ''), ' ', ''), ',')) "
            "and not pg_catalog.has_schema_privilege(n.oid, 'USAGE') order by 1)").fetchone()
        see = "(see docs/engines.md, \"A shared warehouse\")"
        if unusable:
            raise WarehouseOpenError(
                f"cannot open warehouse {self.path}: its role may not use the schema {unusable[0]}; its owner "
                f"grants it: grant usage on schema {unusable[0]} to {self._con.info.user}; {see}")
        raise WarehouseOpenError(
            f"cannot open warehouse {self.path}: no schema of its search_path ({path}) exists in the database; "
            f"create the schema first (create schema NAME; by the role that will own the warehouse), or name one "
            f"that exists in the URL: ?options=-csearch_path%3DNAME {see}")

    def _denied(self, message: str) -> str:
        """What the role lacks, by what the server refused it in irw's own statements (irw sql says
        its own): the server's English message names a table or sequence, or the schema."""
        see = "(see docs/engines.md, \"A shared warehouse\")"
        if self._upgrading:
            return (f"the role in {self.path} may not apply this irw's migrations to the warehouse: {message}; only "
                    "the role that owns irw's tables may change them: run `irw migrate --db URL` once with that "
                    f"role's URL, then every writer's irw works on it {see}")
        if re.match(r"permission denied for (?:table|view|sequence|relation) ", message):
            return (f"the role in {self.path} lacks a privilege on irw's tables: {message}; {WRITER_PRIVILEGES} "
                    f"{see}")
        if re.match(r"permission denied for schema ", message):
            return (f"the role in {self.path} may not create irw's tables: {message}; the role that makes the "
                    f"warehouse needs CREATE on its schema {see}")
        return (f"the role in {self.path} may not do this: {message}; the role that makes the warehouse needs CREATE "
                f"on its schema, and {WRITER_PRIVILEGES} {see}")

    # -- connections -------------------------------------------------------------------------
    @property
    def con(self):
        if self._closed:
            raise WarehouseClosed(f"the warehouse {self.path} was closed; open it again with warehouse.open()")
        return self._con

    @property
    def staging(self):
        """A local in-memory DuckDB database where files are read and validated before their rows
        are sent here (warehouse/store/transfer.py)."""
        if self._staging is None:
            from warehouse.engines.duckdb import MEMORY, Database

            self._staging = Database(MEMORY)
        return self._staging

    @property
    def engine(self):
        """A SQLAlchemy engine (psycopg 3) on the same URL: full access as the URL's role."""
        if self._engine is None:
            import sqlalchemy as sa

            self._engine = sa.create_engine(
                re.sub(r"^postgres(?:ql)?(?:\+psycopg)?://", "postgresql+psycopg://", self._url), poolclass=sa.pool.NullPool)
        return self._engine

    # -- statements --------------------------------------------------------------------------
    def _bind(self, statement, params):
        if statement.names:
            if not isinstance(params, dict):
                raise TypeError(f"statement takes named parameters {statement.names}, got {type(params).__name__}")
            return {name: _adapted(params[name]) for name in statement.names}
        if statement.positional:
            return [_adapted(v) for v in params]
        return None

    def _run(self, statement, params):
        import psycopg

        cursor = self.con.cursor()
        try:
            cursor.execute(statement.text, self._bind(statement, params))
        except psycopg.Error as exc:
            cursor.close()
            if self._in_transaction:
                raise
            raise self.failure(exc) from None
        return cursor

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None):
        result = None
        for statement in postgres_statements(sql):
            result = self._run(statement, params)
        return result

    def run_sql(self, sql: str, params: dict[str, Any] | None = None):
        return self.execute(sql, params or {})

    def load_rows(self, table: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]) -> None:
        """Replaces temporary table `table` (a name of irw's own) with rows, as Database.load_rows."""
        definition = ", ".join(f"{name} {kind}" for name, kind in columns)
        self.execute(f"drop table if exists {table}")
        self.execute(f"create temp table {table} ({definition})")
        if rows:
            with self.con.cursor() as cursor:
                with cursor.copy(f"copy {table} ({', '.join(n for n, _ in columns)}) from stdin") as copy:
                    for row in rows:
                        copy.write_row(row)
        # Statistics, as sql/eval's steps take for their tables: without them PostgreSQL guesses
        # the measures' join 100x too small and nested-loops nDCG@k over every ranked row (2.2 s of
        # a 7M-line run's 3.2 s evaluation, benchmarks/postgres.py).
        self.execute(f"analyze {table}")

    def has_table(self, name: str) -> bool:
        """A table (temporary or not) of that name is on the session's search path."""
        return self.fetchone("select pg_catalog.to_regclass(?) is not null", [name])[0]

    def statements(self, sql: str) -> tuple[tuple[str, frozenset[str]], ...]:
        """The statements of SQL text of our own (DuckDB's) as PostgreSQL runs them (warehouse/engines/dialect.py),
        each with the $names it binds (as psycopg's %(name)s)."""
        return tuple((statement.text, frozenset(statement.names)) for statement in postgres_statements(sql))

    @property
    def identity(self) -> tuple[str, str]:
        """Two opens of one warehouse have the same identity (the URL, its password masked)."""
        return (self.dialect, self.path)

    @property
    def files(self) -> list[str]:
        """The local files the warehouse lives in: none, it is on the server."""
        return []

    def copy_in(self, table: str, columns: Sequence[str], csv_path: str) -> None:
        """Appends a headerless CSV file's rows to a table (irw's own name) with COPY."""
        with self.con.cursor() as cursor:
            with cursor.copy(f"copy {table} ({', '.join(columns)}) from stdin with (format csv)") as copy:
                with open(csv_path, "rb") as handle:
                    while chunk := handle.read(1 << 20):
                        copy.write(chunk)

    def copy_out(self, sql: str, params, csv_path: str) -> None:
        """Writes a query's rows (irw's own SQL under sql/) to a headerless CSV file with COPY."""
        from psycopg import ClientCursor
        from psycopg import sql as psql

        (statement,) = postgres_statements(sql)
        bound = self._bind(statement, params)
        # COPY takes no parameters: the values are bound client-side (psycopg quotes them).
        query = ClientCursor(self.con).mogrify(statement.text, bound) if bound is not None else statement.text
        with self.con.cursor() as cursor, open(csv_path, "wb") as handle:
            with cursor.copy(psql.SQL("copy ({}) to stdout with (format csv)").format(psql.SQL(query))) as copy:
                for chunk in copy:
                    handle.write(chunk)

    def release_memory(self) -> None:
        """Nothing to do: the server manages its own memory (DuckDB's Database.release_memory)."""

    def lock_scores(self, qrels_set_id: int) -> None:
        """Serialises, until the caller's transaction ends, the writers that store scores computed
        with one qrels set: two clients evaluating the same runs at once then store each score
        once, the second finding the first's (the evaluation's row, and every score, have unique
        keys as well). The lock is the qrels set's row, which only a writer may lock (module notes)."""
        self.con.execute("select 1 from qrels_sets where qrels_set_id = %s for no key update", [qrels_set_id])

    def transaction(self) -> "_Transaction":
        return _Transaction(self)

    def refresh_statistics(self, kind: str) -> None:
        """ANALYZE what an ingest of `kind` (qrels or runs) wrote: planned before autovacuum samples
        them, a user measure over ranked_judged nested-loops (sql/ingest/statistics_after_*.sql).

        After runs, from a sample of RUN_STATISTICS_TARGET x 300 rows rather than the server's
        default (100 x 300): the run tables grow by every run, and ANALYZE reads one page per
        sampled row, so at 1,000 stored runs the default sample read 30,000 pages of run_rows and
        as many of judged_run_rows after every run ingested. The estimates the evaluation's plans
        need, a run's and a query's share of the rows, come out as well from the smaller sample.

        And a run table only while it is small (ANALYZE then reads all of it) or once it has grown
        by RUN_STATISTICS_GROWTH since its last ANALYZE: the shares change little in between (the
        planner scales the row counts by the table's size as it is), and at 1,000 stored runs
        analyzing run_rows and judged_run_rows after every run ingested took 0.056 s of its 0.31 s."""
        if kind != "runs":
            with self.transaction():
                self.con.execute("set local default_statistics_target to default")
                self.run_file(f"ingest/statistics_after_{kind}.sql")
            return
        statements = postgres_statements(read_sql(f"ingest/statistics_after_{kind}.sql"))
        tables = [statement.text.split()[-1] for statement in statements]  # each is `analyze <table>`
        with self.transaction():
            due = {row[0] for row in self.con.execute(_RUN_TABLES_TO_ANALYZE, {
                "tables": tables, "whole": RUN_STATISTICS_WHOLE_PAGES, "growth": 1 + RUN_STATISTICS_GROWTH})}
            self.con.execute(f"set local default_statistics_target = {RUN_STATISTICS_TARGET}")  # an int of ours
            for statement, table in zip(statements, tables):
                if table in due:
                    self._run(statement, {})

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read-only REPEATABLE READ transaction: every statement in it reads the same state of
        every table (`irw export` reads them one by one while others may write). Its text output is
        the kind that reads back exactly: ISO dates, and doubles as their shortest exact digits
        whatever the server's extra_float_digits."""
        with self.transaction():
            self.con.execute("set transaction isolation level repeatable read, read only")
            self.con.execute("set local datestyle = 'ISO, YMD'")
            self.con.execute("set local extra_float_digits = 1")
            yield

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        for thing in (self._staging,):
            if thing is not None:
                thing.close()
        self._staging = None
        if self._engine is not None:
            self._engine.dispose()
        for con in (self._reader, self._con):
            if con is None:
                continue
            interrupt.unregister(con)
            try:
                con.close()
            except Exception:
                pass

    def discard(self) -> None:
        self.close()

    def error_of(self, error: BaseException) -> IrwError | None:
        """None: the server's errors are said where they are met (failure), not after a block."""
        return None

    def _role_may_write(self) -> bool:
        return self.con.execute("select has_table_privilege('scores', 'INSERT') "
                                "and has_table_privilege('runs', 'INSERT')").fetchone()[0]

    # -- schema ------------------------------------------------------------------------------
    def schema_version(self) -> int:
        """0 when the schema has no irw_schema table. From the catalog, which every role reads:
        information_schema lists only the tables the role holds a privilege on, and a writer lacking
        its grants would be told there is no warehouse. Reading the version itself needs SELECT,
        whose lack failure() says."""
        if not self._has_own_table("irw_schema"):
            return 0
        return self.execute("select coalesce(max(version), 0) from irw_schema").fetchone()[0]

    def _has_own_table(self, name: str) -> bool:
        """The warehouse's schema holds a table of that name (not a temporary one)."""
        return self.con.execute(
            "select exists (select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = "
            "c.relnamespace where n.nspname = pg_catalog.current_schema() and c.relname = %s)", [name]).fetchone()[0]

    def _check_is_warehouse(self) -> None:
        rows = self.con.execute(
            "select c.relname::text from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = "
            "c.relnamespace where n.nspname = pg_catalog.current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f') "
            "and c.relname <> 'irw_schema' order by 1 limit 6").fetchall()
        if rows and self.schema_version():
            return  # another client's migrations committed meanwhile
        if rows:
            names = [r[0] for r in rows]
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            raise NotAWarehouse(
                f"cannot open warehouse {self.path}: its schema {self.schema} holds tables ({shown}) and no irw_schema "
                "table; irw does not add its tables to another application's schema: use an empty database, or a "
                "schema of irw's own (CREATE SCHEMA irw, then add ?options=-csearch_path%3Dirw to the URL; see "
                "docs/engines.md, \"A shared warehouse\")")

    def _check_event_triggers(self) -> None:
        """Refuses a database holding an enabled event trigger (database-wide, made by a superuser;
        irw makes none): it fires on DDL irw runs (its migrations, and the temporary tables
        _known_objects makes), running a function of someone else's in irw's session, where the
        schema check (_check_objects) cannot see it. One catalog query, readable by every role."""
        rows = self.con.execute(
            "select e.evtname::text, e.evtevent::text, pg_catalog.pg_get_userbyid(e.evtowner)::text "
            "from pg_catalog.pg_event_trigger e where e.evtenabled <> 'D' order by 1").fetchall()
        if rows:
            shown = "; ".join(f"event trigger {name} (on {event}, owner {owner})" for name, event, owner in rows[:5])
            shown += f"; and {len(rows) - 5} more" if len(rows) > 5 else ""
            raise NotAWarehouse(
                f"cannot open warehouse {self.path}: its database holds an event trigger irw did not make ({shown}); "
                "it would run a function of someone else's on the statements irw runs. If you trust it, a "
                "superuser can disable it (ALTER EVENT TRIGGER name DISABLE) or drop it; else use a database "
                "without one")

    def _check_objects(self) -> None:
        """Refuses a warehouse whose schema holds what irw's migrations did not make (_foreign,
        one catalog query): a view, function, trigger, rule or policy of someone else's would run in
        every command that reads the warehouse, as the reader's role, and could read server files or
        reach the network; a function or operator in the schema can stand for a built-in one. A
        schema without irw_schema is not a warehouse yet (_check_is_warehouse)."""
        rows = self.con.execute(_OBJECTS_SQL, {"s": self.schema}).fetchall()
        if ("table", "irw_schema") not in {(kind, name) for kind, name, _ in rows}:
            return
        from warehouse.engines.duckdb import (only_stale_views, refuse_a_newer_schema, remake_views, stale_view_message,
                                              stale_views)
        from warehouse.errors import SchemaVersionError

        strange = _foreign(rows, self._known_objects())
        if strange:
            refuse_a_newer_schema(self, strange, self.con.execute)
        if stale_views(strange) and not self.read_only and self._role_may_write():
            try:
                remake_views(self, stale_views(strange))
            except IrwError:
                pass  # a role that may write but not drop the view: refused as below
            else:
                strange = _foreign(self.con.execute(_OBJECTS_SQL, {"s": self.schema}).fetchall(), self._known_objects())
        if only_stale_views(strange):
            raise SchemaVersionError(stale_view_message(self.path, stale_views(strange)))
        if strange:
            shown = "; ".join(strange[:5]) + (f"; and {len(strange) - 5} more" if len(strange) > 5 else "")
            raise NotAWarehouse(
                f"cannot open warehouse {self.path}: its schema {self.schema} holds what irw's migrations did not "
                f"make ({shown}); irw reads only its own tables and views, as others' could read server files or "
                "reach the network when read. If you trust whoever made them, drop them or restore irw's "
                "definitions (as the schema's owner, with psql); else ask for the run and qrels files instead")

    def _known_objects(self) -> frozenset[tuple[str, str, str]]:
        """Every _OBJECTS_SQL row of a warehouse made by any prefix of irw's migrations on this
        server's PostgreSQL version: the migrations applied once to temporary tables of this session
        in a transaction rolled back (~0.3 s), the rows kept in the user's cache folder under a name
        holding the server's version and a hash of the migration files (as db.known_objects)."""
        import hashlib

        import psycopg

        from warehouse.engines.duckdb import migration_sql, migrations

        if self._known is not None:
            return self._known
        version = self.con.info.server_version
        steps = [(0, "schema/000_schema_version.sql"), *migrations()]
        key = (version, tuple(steps))
        if key in _KNOWN:
            self._known = _KNOWN[key]
            return self._known
        digest = hashlib.sha256(f"postgres {version}\0{_OBJECTS_SQL}".encode())
        for _, relative_path in steps:
            digest.update(relative_path.encode() + b"\0" + migration_sql(relative_path).encode() + b"\0")
        cache = f"known-postgres-objects-{digest.hexdigest()[:24]}.json"
        kept = read_cached(cache, lambda rows: frozenset(tuple(row) for row in rows))
        if kept is not None:
            self._known = _KNOWN[key] = kept
            return self._known
        rows: set[tuple[str, str, str]] = set()
        self._in_transaction = True
        try:
            self.con.execute("begin")
            self.con.execute("set local search_path = pg_temp")
            for number, relative_path in steps:
                self.run_sql(migration_sql(relative_path))
                if number == 0:
                    scratch = self.con.execute("select nspname::text from pg_catalog.pg_namespace "
                                               "where oid = pg_my_temp_schema()").fetchone()[0]
                rows |= {tuple(row) for row in self.con.execute(_OBJECTS_SQL, {"s": scratch}).fetchall()}
        except psycopg.Error as exc:
            raise WarehouseOpenError(
                f"cannot open warehouse {self.path}: irw checks it against what its migrations make, which it works "
                f"out once in temporary tables, and that failed: {_first_line(exc)}; let the role "
                "create temporary tables in the database (GRANT TEMP), or open the warehouse once from this "
                "account where a role may (not on a read-only standby): the result is kept in ~/.cache/irw") from None
        finally:
            self._in_transaction = False
            _roll_back(self.con)
        self._known = _KNOWN[key] = frozenset(rows)
        keep_cached(cache, sorted(self._known))
        return self._known

    def _migrate(self) -> None:
        from warehouse.engines.duckdb import apply_migrations

        if not self.read_only:
            self._make_schema_table()
        apply_migrations(self)
        if not self.read_only:
            self._grant_reader()

    def _grant_reader(self) -> None:
        """The login role `irw sql` runs user SQL as when the URL's role may do more than read
        (warehouse/store/adhoc.py): one per warehouse, irw_sql_<random>, made LOGIN by a writer whose role
        may create roles, with a random password kept in irw_reader_login (which the owner reads, and
        a writer, a role that may insert scores, may read: its `irw sql` and the measures written in
        SQL it evaluates run as the login, which can read no more than the writer can; every other
        privilege on the table, and any a role that cannot write the scores holds, is revoked, so
        that no writer can point the login at a role of its choosing) and sent to the server only
        as a SCRAM verifier, so that no server log holds it. It gets CONNECT on the database (when
        this role may grant it), USAGE on the schema and SELECT on each table and view but
        irw_reader_login, nothing else: no membership, so no SET ROLE regains anything. Two
        queries when all that is in place."""
        import secrets

        import psycopg
        from psycopg import sql as psql

        may_create, may_use = self.con.execute(
            "select (select rolsuper or rolcreaterole from pg_catalog.pg_roles where rolname = current_user),"
            " to_regclass('irw_reader_login') is not null"
            " and has_table_privilege('irw_reader_login', 'SELECT, INSERT')").fetchone()
        if not may_use:
            return
        state = self.con.execute(_LOGIN_STATE, {"s": self.schema}).fetchone()
        role, exists, missing, usage, others = state if state else (None, False, [], False, [])
        if role and exists and not missing and usage and not others:
            return
        if not may_create and not (role and exists):
            return
        schema = psql.Identifier(self.schema)
        try:
            with self.transaction():
                self.lock_migrations()
                row = self.con.execute("select role_name, password from irw_reader_login").fetchone()
                if row is None:
                    row = (f"irw_sql_{secrets.token_hex(6)}", secrets.token_hex(24))
                    self.con.execute("insert into irw_reader_login (role_name, password) values (%s, %s)", row)
                role, password = row
                reader = psql.Identifier(role)
                if not self.con.execute("select to_regrole(%s) is not null", [role]).fetchone()[0]:
                    self.con.execute(psql.SQL(
                        "create role {} login nosuperuser nocreatedb nocreaterole noinherit noreplication "
                        "nobypassrls password {}").format(reader, psql.Literal(_scram_verifier(password))))
                if self.con.execute("select has_database_privilege(current_database(), 'CONNECT WITH GRANT OPTION')"
                                    " and not has_database_privilege(%s, current_database(), 'CONNECT')",
                                    [role]).fetchone()[0]:
                    database = self.con.execute("select current_database()").fetchone()[0]
                    self.con.execute(psql.SQL("grant connect on database {} to {}").format(
                        psql.Identifier(database), reader))
                self.con.execute(psql.SQL("grant usage on schema {} to {}").format(schema, reader))
                _, _, missing, _, others = self.con.execute(_LOGIN_STATE, {"s": self.schema}).fetchone()
                for name in missing:
                    self.con.execute(psql.SQL("grant select on {}.{} to {}").format(
                        schema, psql.Identifier(name), reader))
                for other in others:
                    grantee = psql.SQL("public") if other == "public" else psql.Identifier(other)
                    self.con.execute(psql.SQL("revoke all on {}.irw_reader_login from {}").format(schema, grantee))
                    if other != "public" and self.con.execute(_MAY_WRITE_SCORES, {"s": self.schema, "role": other}
                                                              ).fetchone()[0]:
                        self.con.execute(psql.SQL("grant select on {}.irw_reader_login to {}").format(schema, grantee))
        except (psycopg.Error, IrwError):
            pass  # another client made it meanwhile, or this role may not: irw sql then says why

    def reader_login(self) -> tuple[str, str] | None:
        """(role, password) of `irw sql`'s login role (_grant_reader), when this role may read it."""
        if not self.con.execute("select to_regclass('irw_reader_login') is not null"
                                " and has_table_privilege('irw_reader_login', 'SELECT')").fetchone()[0]:
            return None
        row = self.con.execute("select role_name, password from irw_reader_login").fetchone()
        if row is None or not self.con.execute("select to_regrole(%s) is not null", [row[0]]).fetchone()[0]:
            return None
        return row[0], row[1]

    def reader_session(self, role: str, password: str):
        """A session of its own on the same server and database, logged in as role (autocommit),
        kept until close(); WarehouseOpenError with the server's reason when the login is refused."""
        import psycopg
        from psycopg.conninfo import make_conninfo

        if self._reader is not None and not self._reader.closed:
            return self._reader
        if password not in self._secrets:
            self._secrets.append(password)
        try:
            self._reader = psycopg.connect(make_conninfo(self._url, user=role, password=password), autocommit=True)
        except psycopg.Error as exc:
            raise _connect_failure(exc, self._url)[0](self.scrub(_first_line(exc))) from None
        interrupt.register(self._reader)
        _configure(self._reader)
        return self._reader

    # -- irw sql's read-only session (warehouse/store/adhoc.py's notes on PostgreSQL, 1 and 2) -------------

    def volatile_functions(self, names: set[str]) -> set[str]:
        """Those of names the server's pg_proc marks VOLATILE (adhoc refuses a statement calling one)."""
        rows = self.con.execute("select distinct proname from pg_catalog.pg_proc where provolatile = 'v' "
                                "and proname = any(%s)", [sorted(names)]).fetchall()
        return {row[0] for row in rows}

    def relations(self) -> list[tuple[str, str]]:
        """The warehouse's tables and views, (name, 'BASE TABLE' or 'VIEW') in byte order of their names,
        as DuckDB's information_schema gives them, for irw sql's error about an unknown name
        (adhoc._listing); but irw_reader_login, whose password only the owner and the writers read."""
        return self.con.execute(
            "select c.relname::text, case when c.relkind in ('v', 'm') then 'VIEW' else 'BASE TABLE' end "
            "from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace "
            "where n.nspname = %(s)s and c.relkind in ('r', 'p', 'v', 'm', 'f') and c.relname <> 'irw_reader_login' "
            "order by c.relname collate \"C\"", {"s": self.schema}).fetchall()

    def user_sql_session(self):
        """The session user SQL runs in: this one when its login role can only read, else irw's reader
        login of this warehouse; ReadOnlyError saying why irw runs none."""
        con = self.con
        user = con.execute("select session_user").fetchone()[0]
        powers = _powers(con, self.schema)
        if not powers:
            return con
        why = (f"irw sql runs SQL only in a session whose role can only read, and the role {user} "
               f"{' and '.join(powers)}")
        login = self.reader_login()
        if login is None:
            raise ReadOnlyError(
                f"{why}; connect with a read-only role (docs/engines.md, \"A shared warehouse\"), or let irw make its "
                "reader login for this warehouse: `irw migrate --db URL` through a role that may create roles")
        role, password = login
        try:
            session = self.reader_session(role, password)
        except WarehouseOpenError as exc:
            database = con.execute("select current_database()").fetchone()[0]
            raise ReadOnlyError(
                f"{why}, so it runs it as irw's reader login {role} of this warehouse, and the server refused that "
                f"login: {exc}; allow it in the server's pg_hba.conf (a line such as `host {database} {role} "
                f"samenet scram-sha-256`), or connect with a read-only role (docs/engines.md, \"A shared "
                "warehouse\")") from None
        left = _powers(session, self.schema)
        if left:
            raise ReadOnlyError(f"irw sql runs SQL only in a session whose role can only read, and irw's reader login "
                                f"{role} {' and '.join(left)}; revoke that from it")
        return session

    def parse_error(self, query: str) -> list[str] | None:
        """The server's error for a statement irw's checker could not parse (`select * frm runs`), as
        its message lines (LINE n and its caret included), or None where the server parses it: asked
        with libpq's Parse message alone (an unnamed prepared statement, never executed), in the
        session user SQL runs in, so nothing runs and the caret points into the user's own text."""
        from psycopg import pq

        con = self.user_sql_session()
        if con.info.transaction_status != pq.TransactionStatus.IDLE:
            return None  # a failed Parse would abort the transaction under way
        result = con.pgconn.prepare(b"", query.encode("utf-8"))
        if result.status != pq.ExecStatus.FATAL_ERROR:
            return None
        text = (result.error_message or b"").decode("utf-8", "replace").strip()
        for lead in ("ERROR:  ", "FATAL:  "):
            text = text.removeprefix(lead)
        return [line.rstrip() for line in text.splitlines() if line.strip()] or None

    @contextmanager
    def user_sql_rows(self, query: str, params: Any, timeout: float | None, chunk_rows: int | None = None, *,
                      hash_joins: bool = False, server_cursor: bool = False) -> Iterator[RowStream]:
        """A user's statement, already checked (adhoc.stream_on_postgres), in user_sql_session(),
        inside a READ ONLY transaction always rolled back, with statement_timeout, lock_timeout and
        search_path (pg_catalog first) set for it alone; the server's refusals as irw's errors. It
        yields a RowStream: the result's columns, its chunks of rows (chunk_rows at a time through a
        server-side cursor where server_cursor says the statement may be declared as one, so that a
        result larger than memory is never held whole; None: all at once) and arrow_types, read
        while the context is open.

        hash_joins: the statement reads ranked_judged, whose steps (sql/eval's, as CTEs) the planner
        sizes at a few dozen rows where there are tens of thousands: it then joined run_rows by
        run_id alone and filtered 600 million pairs, or ran a step once per row (DL19's six runs
        and a user measure: 68 to 218 s, in a warehouse of four qrels sets; 0.7 s with hash joins,
        which the built-in evaluation's analysed temporary tables get without being told)."""
        import psycopg
        from psycopg import sql as psql

        con = self.user_sql_session()
        con.execute("begin transaction read only")
        try:
            milliseconds = 0 if not timeout else max(1, int(timeout * 1000))
            con.execute(f"set local statement_timeout = {milliseconds}")  # an int of ours
            con.execute(f"set local lock_timeout = {milliseconds}")
            if con.info.server_version >= 140000:
                # a client killed with its statement under way (no timeout: --timeout 0) leaves the
                # server running it for ever unless the server looks for the client now and then
                con.execute("set local client_connection_check_interval = 1000")
            con.execute(psql.SQL("set local search_path = pg_catalog, {}, pg_temp").format(psql.Identifier(self.schema)))
            if hash_joins:
                con.execute("set local enable_nestloop = off")
                con.execute("set local enable_mergejoin = off")

            def server_lines(exc: Exception, lead: str = "") -> list[str]:
                """The server's message, scrubbed, after lead, as its lines (DETAIL, HINT, LINE n and
                its caret): each a line of irw's message (IrwError.of_lines)."""
                return f"{lead}{str(exc).strip()}".splitlines()

            def timed_out() -> QueryTimeoutError:
                return QueryTimeoutError(f"the query ran longer than irw sql's timeout of {timeout:g} s and was "
                                         "cancelled on the server; give it more with --timeout SECONDS")

            def translated(exc: Exception) -> Exception:
                """irw's error for what the server (or psycopg) said of the statement or its rows."""
                if isinstance(exc, psycopg.errors.QueryCanceled):
                    if "statement timeout" in str(exc) and timeout:
                        return timed_out()
                    return QueryError.of_lines(server_lines(exc) or ["the query was cancelled"])
                if isinstance(exc, psycopg.errors.LockNotAvailable):
                    return QueryError.of_lines(server_lines(exc, "the query waited for a lock longer than irw sql's "
                                                                 "timeout: "))
                if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
                    return ReadOnlyError.of_lines(server_lines(exc, "irw sql reads the warehouse and nothing else: "))
                if isinstance(exc, psycopg.errors.InsufficientPrivilege):
                    return ReadOnlyError.of_lines(server_lines(exc, "irw sql: the server refused it: "))
                if isinstance(exc, psycopg.Error):
                    lines = [line.rstrip() for line in str(exc).splitlines() if line.strip()]
                    unknown = isinstance(exc, psycopg.errors.UndefinedTable)  # adhoc lists the tables there are
                    lines = lines or [type(exc).__name__]
                    if _connection_lost(exc):
                        lines.append("the server ended the connection (it was shut down or restarted): run the "
                                     "command again once it is up")
                    elif params is not None and _placeholders_refused(exc):
                        lines.append(PLACEHOLDERS)
                    return (UnknownTableError if unknown else QueryError).of_lines(lines)
                return QueryError(f"cannot bind the parameters: {exc}; {PLACEHOLDERS}")

            caught = (psycopg.Error, TypeError, ValueError, IndexError, KeyError)
            declared = chunk_rows is not None and server_cursor
            try:
                if declared:
                    con.execute("savepoint irw_user_sql")
                cursor = con.cursor(name="irw_user_sql") if declared else con.cursor()
                cursor.execute(query, params)
            except caught as exc:
                if declared and isinstance(exc, psycopg.Error) and not isinstance(exc, psycopg.errors.QueryCanceled) \
                        and not _connection_lost(exc):
                    # the server quotes the statement it read (LINE 1: DECLARE "irw_user_sql" CURSOR FOR ...):
                    # the query alone fails where the DECLARE did, as it is parsed and planned, and is
                    # said as the user wrote it
                    try:
                        con.execute("rollback to savepoint irw_user_sql")
                        con.cursor().execute(query, params)
                    except caught as plain:
                        raise translated(plain) from None
                raise translated(exc) from None
            description = cursor.description or []
            spent = 0.0  # the fetches' time: a server-side cursor runs the query a FETCH at a time

            def fetch(count: int | None) -> list[tuple]:
                nonlocal spent
                if declared and timeout:
                    # one limit for the whole statement, as on DuckDB: what is left of it for this FETCH
                    left = timeout - spent
                    if left <= 0:
                        raise timed_out()
                    con.execute(f"set local statement_timeout = {max(1, int(left * 1000))}")  # an int of ours
                started = time.monotonic()
                try:
                    return cursor.fetchall() if count is None else cursor.fetchmany(count)
                except caught as exc:
                    raise translated(exc) from None
                finally:
                    spent += time.monotonic() - started

            # each column's Arrow type by its SQL type, for parquet and arrow output (formats.table)
            yield RowStream([d[0] for d in description], None, chunks_of(fetch, chunk_rows), partial(
                arrow_types, [(c.type_code, c.precision, c.scale) for c in description], con.info.timezone))
        finally:
            try:
                con.execute("rollback")
                con.execute("select pg_catalog.pg_advisory_unlock_all()")
            except psycopg.Error:
                pass

    def outdated(self, current: int, latest: int, missing: list[int]) -> str:
        return (f"{self.path} has schema version {current} and lacks migration"
                f"{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of this irw; upgrade it with "
                "`irw migrate --db URL` through the role that owns its tables (an older irw cannot open it then: "
                "everyone who shares it upgrades irw, and a pg_dump first keeps a copy)")

    def _make_schema_table(self) -> None:
        """irw_schema, in a statement of its own, so that there is a table for lock_migrations to
        lock before the first migration (module notes). Two clients creating it at once: the second
        waits for the first to commit, then fails on the catalog ("relation/type already exists", or
        its unique key), and finds it made."""
        exists = "select to_regclass('irw_schema') is not null"
        if self.con.execute(exists).fetchone()[0]:
            return
        try:
            self.run_file("schema/000_schema_version.sql")
        except IrwError:
            if not self.con.execute(exists).fetchone()[0]:
                raise

    def lock_migrations(self) -> None:
        """Two clients opening a fresh database together: the second waits here until the first
        commits, then finds the migrations applied. A lock only a writer may take (module notes)."""
        self.con.execute("lock table irw_schema in exclusive mode")


class _Transaction:
    def __init__(self, db: PostgresDatabase):
        self.db = db

    def __enter__(self):
        self.db.con.execute("begin")
        self.db._in_transaction = True
        return self

    def __exit__(self, exc_type, exc, tb):
        import psycopg

        self.db._in_transaction = False
        if exc_type is None:
            try:
                self.db.con.execute("commit")
            except psycopg.Error as error:
                _roll_back(self.db.con)
                raise self.db.failure(error) from None
            return False
        _roll_back(self.db.con)
        if isinstance(exc, psycopg.Error):
            raise self.db.failure(exc) from None
        return False


# -- what irw's migrations make ------------------------------------------------------------------
# One row per object in the warehouse's schema (%(s)s), and per part of a table that holds an
# expression or a type, as this server writes them: (kind, name, what). Names of objects in the
# schema come unqualified (the schema is current), so the rows of temporary tables made by the
# migrations (_known_objects) compare equal. irw's migrations make tables, views, sequences,
# indexes and constraints; every function, procedure, aggregate, operator, type (but the row types
# of relations and their arrays), trigger, rule, policy, inheritance, extension, collation,
# conversion, text search object, operator class or family and statistics object is someone else's.
_OBJECTS_SQL = """
with ns as (select oid from pg_catalog.pg_namespace where nspname = %(s)s),
rel as (select c.* from pg_catalog.pg_class c join ns on c.relnamespace = ns.oid)
select case c.relkind when 'r' then 'table' when 'p' then 'table' when 'v' then 'view'
         when 'm' then 'materialized view' when 'S' then 'sequence' when 'f' then 'foreign table'
         when 'c' then 'type' else 'relation' end,
       c.relname::text,
       c.relkind::text || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
       || case when c.relrowsecurity then ' row security' else '' end
       || case when c.relkind in ('v', 'm') then ' ' || pg_catalog.pg_get_viewdef(c.oid) else '' end
  from rel c where c.relkind not in ('i', 'I', 't')
union all
select 'column', c.relname || '.' || a.attname,
       pg_catalog.format_type(a.atttypid, a.atttypmod) || case when a.attnotnull then ' not null' else '' end
       || coalesce(' collate ' || (select l.collname from pg_catalog.pg_collation l
                                   where l.oid = a.attcollation and a.attcollation <> 0), '')
       || ' ' || a.attgenerated::text || a.attidentity::text
       || coalesce(' default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
  from rel c join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
  where c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')
union all
select 'index', i.relname::text,
       t.relname || case when x.indisunique then ' unique ' else ' ' end || m.amname || ' ('
       || (select string_agg(pg_catalog.pg_get_indexdef(x.indexrelid, k, true), ', ' order by k)
           from generate_series(1, x.indnatts) k) || ')'
       || coalesce(' where ' || pg_catalog.pg_get_expr(x.indpred, x.indrelid, true), '')
  from pg_catalog.pg_index x join pg_catalog.pg_class i on i.oid = x.indexrelid
  join rel t on t.oid = x.indrelid join pg_catalog.pg_am m on m.oid = i.relam
union all
select 'constraint', t.relname || '.' || k.conname, pg_catalog.pg_get_constraintdef(k.oid)
  from pg_catalog.pg_constraint k join rel t on t.oid = k.conrelid
union all
select 'trigger', t.relname || '.' || g.tgname, '' from pg_catalog.pg_trigger g join rel t on t.oid = g.tgrelid
  where not g.tgisinternal
union all
select 'rule', t.relname || '.' || r.rulename, '' from pg_catalog.pg_rewrite r join rel t on t.oid = r.ev_class
  where r.rulename <> '_RETURN'
union all
select 'policy', t.relname || '.' || p.polname, '' from pg_catalog.pg_policy p join rel t on t.oid = p.polrelid
union all
select 'inheritance', c.relname || ' of ' || pg_catalog.format('%%I.%%I', pn.nspname, p.relname), ''
  from pg_catalog.pg_inherits h join pg_catalog.pg_class c on c.oid = h.inhrelid
  join pg_catalog.pg_class p on p.oid = h.inhparent join pg_catalog.pg_namespace pn on pn.oid = p.relnamespace
  where c.relnamespace in (select oid from ns) or p.relnamespace in (select oid from ns)
union all
select case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' when 'w' then 'window function'
         else 'function' end,
       p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')', ''
  from pg_catalog.pg_proc p join ns on p.pronamespace = ns.oid
union all
select 'type', t.typname::text, '' from pg_catalog.pg_type t join ns on t.typnamespace = ns.oid
  where t.typrelid = 0 and not exists (select 1 from pg_catalog.pg_type e where e.oid = t.typelem
                                       and e.typrelid <> 0 and e.typarray = t.oid)
union all
select 'operator', o.oprname || '(' || pg_catalog.format_type(o.oprleft, null) || ', '
       || pg_catalog.format_type(o.oprright, null) || ')', ''
  from pg_catalog.pg_operator o join ns on o.oprnamespace = ns.oid
union all
select 'extension', e.extname::text, '' from pg_catalog.pg_extension e join ns on e.extnamespace = ns.oid
union all select 'collation', collname::text, '' from pg_catalog.pg_collation join ns on collnamespace = ns.oid
union all select 'conversion', conname::text, '' from pg_catalog.pg_conversion join ns on connamespace = ns.oid
union all select 'text search configuration', cfgname::text, ''
  from pg_catalog.pg_ts_config join ns on cfgnamespace = ns.oid
union all select 'text search dictionary', dictname::text, ''
  from pg_catalog.pg_ts_dict join ns on dictnamespace = ns.oid
union all select 'text search parser', prsname::text, '' from pg_catalog.pg_ts_parser join ns on prsnamespace = ns.oid
union all select 'text search template', tmplname::text, ''
  from pg_catalog.pg_ts_template join ns on tmplnamespace = ns.oid
union all select 'operator class', opcname::text, '' from pg_catalog.pg_opclass join ns on opcnamespace = ns.oid
union all select 'operator family', opfname::text, '' from pg_catalog.pg_opfamily join ns on opfnamespace = ns.oid
union all select 'statistics', stxname::text, '' from pg_catalog.pg_statistic_ext join ns on stxnamespace = ns.oid
"""
_KNOWN: dict[tuple, frozenset[tuple[str, str, str]]] = {}  # (server version, migrations) -> _known_objects()
_RELATION_KINDS = {"table", "view", "materialized view", "sequence", "foreign table", "type", "relation"}


def _foreign(rows, known) -> list[str]:
    """What rows hold that known does not, as `kind name` labels: an object of a name irw never
    uses, or one of irw's names defined otherwise; the parts (columns, indexes, constraints) of a
    relation already named are not repeated."""
    known_names = {name for kind, name, _ in known if kind in _RELATION_KINDS}
    found: list[str] = []
    strange_relations: set[str] = set()
    for kind, name, what in sorted(rows, key=lambda row: (row[0] not in _RELATION_KINDS, row)):
        if (kind, name, what) in known:
            continue
        if kind in _RELATION_KINDS:
            strange_relations.add(name)
            label = f"{kind} {name}" + (" (not irw's definition)" if name in known_names else "")
        elif kind in ("column", "constraint", "trigger", "rule", "policy") and \
                name.split(".", 1)[0] in strange_relations:
            continue
        elif kind == "index" and what.split(" ", 1)[0] in strange_relations:
            continue
        elif (kind, name) in {(k, n) for k, n, _ in known}:
            label = f"{kind} {name} (not irw's definition)"
        else:
            label = f"{kind} {name}"
        if label not in found:
            found.append(label)
    return found


# irw sql's login role (_grant_reader): its name, whether it exists, the tables and views of the
# schema it may not read yet, whether it may use the schema, and the roles other than the owner
# granted anything on irw_reader_login.
_LOGIN_STATE = """
select l.role_name, to_regrole(l.role_name) is not null,
 array(select c.relname::text from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       where n.nspname = %(s)s and c.relkind in ('r', 'v', 'm', 'p') and c.relname <> 'irw_reader_login'
       and case when to_regrole(l.role_name) is null then true
                else not has_table_privilege(l.role_name, c.oid, 'SELECT') end
       order by 1),
 case when to_regrole(l.role_name) is null then false else has_schema_privilege(l.role_name, %(s)s, 'USAGE') end,
 array(select distinct case when a.grantee = 0 then 'public' else pg_catalog.pg_get_userbyid(a.grantee)::text end
       from pg_catalog.pg_class c, aclexplode(c.relacl) a
       where c.oid = 'irw_reader_login'::regclass and a.grantee <> c.relowner
         and (a.grantee = 0 or a.privilege_type <> 'SELECT' or a.is_grantable
              or not coalesce(has_table_privilege(a.grantee, to_regclass(quote_ident(%(s)s) || '.scores'), 'INSERT'),
                              false)))
from irw_reader_login l
"""

# A role that may insert scores: a writer, which may read irw_reader_login (_grant_reader)
_MAY_WRITE_SCORES = """
select coalesce(has_table_privilege(to_regrole(%(role)s), to_regclass(quote_ident(%(s)s) || '.scores'), 'INSERT'),
                false)
"""


def _scram_verifier(password: str) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for password (RFC 5803; what psql's \\password
    sends): the server never sees the password itself."""
    import base64
    import hashlib
    import hmac
    import os

    salt, iterations = os.urandom(16), 4096
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    stored = hashlib.sha256(hmac.new(salted, b"Client Key", "sha256").digest()).digest()
    server = hmac.new(salted, b"Server Key", "sha256").digest()
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored)}:{b64(server)}"


def _roll_back(con) -> None:
    try:
        con.execute("rollback")
    except Exception:
        pass


# What a role other than the tables' owner needs (docs/engines.md, "A shared warehouse", holds the grants).
WRITER_PRIVILEGES = ("a role that writes the warehouse needs SELECT, INSERT, UPDATE and DELETE on its tables and "
                     "USAGE and SELECT on its sequences, one that reads SELECT on its tables: the owner of the "
                     "tables grants them")
# What a unique key of a table stands for, by the table: kind and the column naming it.
_NAMED_BY_KEY = {"runs": ("run", "name"), "qrels_sets": ("qrels set", "name"), "measures": ("measure", "measure"),
                 "user_measures": ("measure", "name")}
_STORED_ROWS = {"scores": "scores", "evaluated": "scores", "evaluations": "evaluation", "score_summaries": "scores",
                "significance_results": "significance results"}


def _stored_meanwhile(error) -> str:
    """What a unique violation says another writer stored: `run NAME` from the key the server's
    detail quotes (Key (name)=(NAME) already exists.), else what the table holds."""
    from warehouse.formats.escaping import shown

    table = error.diag.table_name or ""
    key = re.fullmatch(r"Key \((.+?)\)=\((.*)\) already exists\.?", error.diag.message_detail or "", re.S)
    kind, column = _NAMED_BY_KEY.get(table, (None, None))
    if kind and key and key.group(1) == column:
        return f"{kind} {shown(key.group(2))}"
    if kind:
        return f"the same {kind}"
    return f"the same {_STORED_ROWS[table]}" if table in _STORED_ROWS else "the same thing"


# What irw sql and wh.sql(query, params) add when psycopg refuses a query's placeholders (docs/engines.md:
# "parameters as psycopg writes them: `%s`, `%(name)s`")
PLACEHOLDERS = ("on PostgreSQL write placeholders as psycopg does: %s (not ?), or %(name)s with a mapping (not "
                "$name), and a literal % as %%")


# The Arrow type of a result's column by the name of its PostgreSQL type (psycopg's types by OID),
# pyarrow's function of no argument that makes it; numeric, timestamptz and the others: arrow_types.
# float4 is float64: psycopg loads the server's shortest text of a real (0.0018238885) as a double,
# which a float32 would change (0.0018238885095342994).
_ARROW_BY_NAME = {"int2": "int16", "int4": "int32", "int8": "int64", "oid": "uint32", "float4": "float64",
                  "float8": "float64", "text": "string", "varchar": "string", "bpchar": "string", "name": "string",
                  "bool": "bool_", "date": "date32", "bytea": "binary"}


def arrow_types(columns: Sequence[tuple[int, int | None, int | None]], timezone) -> list:
    """The Arrow type of each column of a result, from its (type OID, precision, scale) in psycopg's
    description (None for a type not mapped: an array, json, uuid ..., whose values give it, as
    formats.table infers it): integers by size, float4 and float8 float64, text, bool, date, bytea,
    time and timestamp (microseconds, as psycopg's values are), timestamptz in the session's zone
    (`timezone`, the zone of psycopg's values), interval a duration (psycopg's timedelta). A numeric
    loads as an int or a float (_configure, as DuckDB's sum() gives): numeric(p, 0) is int64, any
    other float64, where its values are floats (whole ones, a sum of bigints, keep int64)."""
    import datetime

    import pyarrow
    from psycopg.postgres import types

    found = []
    for oid, precision, scale in columns:
        info = types.get(oid)
        name = info.name if info is not None and info.oid == oid else None  # an array's OID gives its element
        if name in _ARROW_BY_NAME:
            found.append(getattr(pyarrow, _ARROW_BY_NAME[name])())
        elif name == "numeric":
            found.append(pyarrow.int64() if precision and not scale else pyarrow.float64())
        elif name in ("timestamp", "time", "interval"):
            found.append({"timestamp": pyarrow.timestamp("us"), "time": pyarrow.time64("us"),
                          "interval": pyarrow.duration("us")}[name])
        elif name == "timestamptz" and timezone is not None:
            # the zone pyarrow gives psycopg's values, so an all-NULL column and others are alike
            zone = pyarrow.array([datetime.datetime(2000, 1, 1, tzinfo=timezone)]).type.tz
            found.append(pyarrow.timestamp("us", tz=zone))
        else:
            found.append(None)
    return found


def _placeholders_refused(error: BaseException) -> bool:
    """psycopg refused the query's placeholders before sending it (its ProgrammingError, no sqlstate:
    "the query has 0 placeholders but 1 parameters were passed", "only '%s', '%b', '%t' are allowed
    as placeholders"), or the server met a ? or $name psycopg left in it."""
    import psycopg

    state = getattr(error, "sqlstate", None)
    if type(error) is psycopg.ProgrammingError and state is None:
        return True
    return state == "42601" and re.search(r'at or near "(?:\?|\$)', str(error)) is not None


def _connection_lost(error: BaseException) -> bool:
    """The server ended the session under a statement: shut down (57P01, also pg_terminate_backend),
    crashed (57P02), or the connection cut (an OperationalError without sqlstate)."""
    import psycopg

    state = getattr(error, "sqlstate", None)
    return state in ("57P01", "57P02", "57P03") or (isinstance(error, psycopg.OperationalError) and state is None)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _adapted(value):
    """A Python value as psycopg binds it the way DuckDB does: a dict as JSONB (runs.parameters),
    a tuple as a list (an array)."""
    if isinstance(value, dict):
        from psycopg.types.json import Jsonb

        return Jsonb(value)
    if isinstance(value, tuple):
        return list(value)
    return value


# What a failed connect means, by what the server (FATAL: ..., its SQLSTATE) or libpq said. psycopg
# gives no sqlstate for a failed connect (libpq keeps only the message: 28P01's "password
# authentication failed" comes with sqlstate None), so the server's English text is read too.
_NO_SUCH_ROLE = re.compile(r'role ".*" does not exist')
_NO_SUCH_DATABASE = re.compile(r'database ".*" does not exist')
_STARTING_OR_STOPPING = re.compile(
    r"the database system is (?:starting up|shutting down|in recovery mode|not yet accepting connections|"
    r"not accepting connections)|terminating connection due to administrator command")
_NO_SLOT = re.compile(r"too many clients|too many connections|remaining connection slots are reserved")
_NOT_REACHED = re.compile(
    r"Connection refused|could not connect|timeout expired|timed out|failed to resolve host|could not translate "
    r"host name|Name or service not known|No such file or directory|Network is unreachable|No route to host|"
    r"server closed the connection unexpectedly|Connection reset", re.IGNORECASE)


def _connect_failure(exc, url: str) -> tuple[type[WarehouseOpenError], str]:
    """The error of a failed connect to url, and what to do about it ('' when irw cannot tell).
    Only a server not reached, starting or stopping, or without a free connection is
    ServerUnreachable (a later try may connect: irw serve says 503, load the page again); a login or
    database the server refuses is a WarehouseOpenError: the URL, or the server's settings, need
    fixing, and trying again changes nothing."""
    import psycopg

    text = str(exc)
    state = getattr(exc, "sqlstate", None)
    pgconn = getattr(exc, "pgconn", None)
    user, database, where = _connect_target(url, pgconn)
    if getattr(pgconn, "needs_password", False) or "no password supplied" in text:
        return WarehouseOpenError, (f"the server asks a password of {user}, and the URL gives none: put it in the "
                                    f"URL ({URL_FORM}; a password holding @ : / ? # % is percent-encoded), or in "
                                    "~/.pgpass (mode 0600) or the PGPASSWORD environment variable")
    if state == "28P01" or "password authentication failed" in text:
        return WarehouseOpenError, (f"check the user name and password in the URL ({URL_FORM}; a password holding "
                                    "@ : / ? # % is percent-encoded)")
    if state == "3D000" or _NO_SUCH_DATABASE.search(text):
        return WarehouseOpenError, (f"create it (`createdb {database}`, or ask its owner) or fix the database's name "
                                    f"in the URL ({URL_FORM})")
    if _NO_SUCH_ROLE.search(text):
        return WarehouseOpenError, (f"fix the user name in the URL ({URL_FORM}), or have the server's administrator "
                                    f"create the role: create role {user} login password '...';")
    if state == "28000" or "pg_hba.conf" in text:
        return WarehouseOpenError, (f"the server's pg_hba.conf does not let {user} connect to {database} from this "
                                    "machine: ask whoever runs the server to allow it (a line such as `host "
                                    f"{database} {user} samenet scram-sha-256`), or use a role it allows")
    if state == "42501" or "permission denied for database" in text:
        return WarehouseOpenError, (f"the role {user} lacks CONNECT on the database: its owner grants it: grant "
                                    f"connect on database {database} to {user};")
    if state in ("57P01", "57P02", "57P03") or _STARTING_OR_STOPPING.search(text):
        return ServerUnreachable, "the server is starting or shutting down: run the command again in a moment"
    if state == "53300" or _NO_SLOT.search(text):
        return ServerUnreachable, "the server has no connection free now: run the command again in a moment"
    if state is None and re.search(r"failed to resolve host|could not translate host name", text):
        return ServerUnreachable, f"check the server's host name in the URL ({where}): this machine cannot resolve it"
    if state is None and _NOT_REACHED.search(text):
        return ServerUnreachable, f"is the server running and listening on {where}?"
    if isinstance(exc, psycopg.OperationalError) and state is None and "FATAL:" not in text:
        return ServerUnreachable, ""  # libpq's own failure: no server answered
    return WarehouseOpenError, ""


def _connect_target(url: str, pgconn) -> tuple[str, str, str]:
    """(user, database, HOST:PORT) of a connect to url, as libpq tried it (its pgconn, kept by
    psycopg's error) or else as the URL says."""
    from psycopg.conninfo import conninfo_to_dict

    def tried(name: str) -> str:
        value = getattr(pgconn, name, None) if pgconn is not None else None
        return value.decode(errors="replace") if isinstance(value, bytes) else ""

    try:
        given = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - only what to print is at stake
        given = {}
    user = tried("user") or str(given.get("user") or "USER")
    database = tried("db") or str(given.get("dbname") or user)
    host = tried("host") or str(given.get("host") or "localhost")
    port = tried("port") or str(given.get("port") or "5432")
    where = f"{host}:{port}" if not host.startswith("/") else f"port {port} (its socket in {host})"
    return user, database, where


def _configure(con) -> None:
    """Strings bind as text (psycopg sends them untyped, and PostgreSQL cannot type an array of
    untyped values); numerics load as int or float, as DuckDB returns them (PostgreSQL's sum of
    bigints is numeric); the session's time zone is UTC."""
    from psycopg.adapt import Loader
    from psycopg.types.string import StrDumper

    class NumericAsNumber(Loader):
        def load(self, data):
            text = bytes(data).decode()
            if text.lstrip("-").isdigit():
                return int(text)
            return float(text)

    con.adapters.register_dumper(str, StrDumper)
    con.adapters.register_loader("numeric", NumericAsNumber)
    # timestamps in UTC whatever the server's or the client's (PGTZ) zone, as on DuckDB (engines/duckdb.py UTC)
    con.execute("set time zone 'UTC'")


# Roles whose members act on the server beyond reading the warehouse (irw sql's session, _powers).
_PG_SERVER_ROLES = ("pg_read_server_files", "pg_write_server_files", "pg_execute_server_program",
                    "pg_signal_backend", "pg_checkpoint", "pg_read_all_data", "pg_write_all_data")


def _powers(con, schema: str) -> list[str]:
    """What the session's login role (session_user), or a role it may SET ROLE to, may do beyond
    reading the warehouse; [] for none."""
    superuser, writes, creates, roles, others = con.execute(
        "with mine as (select r.oid, r.rolname, r.rolsuper from pg_catalog.pg_roles r"
        "              where pg_has_role(session_user, r.oid, 'MEMBER')),"
        " powerful as (select m.rolname, m.rolsuper,"
        "   exists (select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace"
        "           where n.nspname = %(s)s and (c.relkind in ('r', 'v', 'm', 'p', 'f')"
        "           and has_table_privilege(m.oid, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')"
        "           or c.relkind = 'S' and has_sequence_privilege(m.oid, c.oid, 'USAGE, UPDATE'))) as writes,"
        "   coalesce(has_schema_privilege(m.oid, to_regnamespace(%(s)s), 'CREATE'), false) as creates"
        "   from mine m)"
        " select bool_or(rolsuper), bool_or(writes), bool_or(creates),"
        " array(select x from unnest(%(roles)s::text[]) x where to_regrole(x) is not null"
        "       and pg_has_role(session_user, x, 'MEMBER')),"
        " array(select rolname::text from powerful where rolname <> session_user"
        "       and (rolsuper or writes or creates) order by 1)"
        " from powerful", {"s": schema, "roles": list(_PG_SERVER_ROLES)}).fetchone()
    powers = []
    if superuser:
        powers.append("is a superuser")
    if writes:
        powers.append("may write the warehouse's tables")
    if creates:
        powers.append("may create objects in the warehouse's schema")
    if roles:
        powers.append(f"is a member of {', '.join(roles)}")
    if others:
        powers.append(f"may SET ROLE to {', '.join(others)}, which may do more than read")
    return powers
