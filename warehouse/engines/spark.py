"""Evaluation on Spark: the same measure SQL as DuckDB and PostgreSQL, run by Spark SQL.

    from pyspark.sql import SparkSession
    import warehouse.engines.spark

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    result = warehouse.engines.spark.evaluate(spark, "qrels.txt", ["runs/"], ["AP", "nDCG@10"])
    result.summary            # a Table: run, measure, value, micro, queries
    result.per_query          # a Spark DataFrame: run, query, measure, value

`SparkDatabase` is a third implementation of warehouse/engines/__init__.py's Engine, which warehouse/engines/duckdb.py's
Database and warehouse/engines/postgres.py's PostgresDatabase implement too (execute, run_file, load_rows,
transaction ...), so warehouse/evaluation/evaluator.py's Evaluator runs on it unchanged: every statement of
sql/eval and sql/measures is derived for Spark by warehouse/engines/dialect.py's spark_statements (the one place where
the engines differ). Spark SQL has no temporary tables and no INSERT or DELETE on views, so each
table is a cached DataFrame under a temporary view of the same name, and a statement that writes
one computes its rows with Spark and replaces the DataFrame (SparkStatement says how). The tables
start empty, with the columns of sql/oneshot/schema.sql (a warehouse's tables without its
history): a SparkDatabase evaluates what it is given once, as warehouse/evaluation/oneshot.py does locally.

Everything runs in a session of its own (SparkSession.newSession(): the same SparkContext and
cluster, its own temporary views and SQL settings), so the views irw makes (`runs`, `qrels`,
`scores` ...) never shadow a table of the caller's. Rows reach the driver only where Python needs
them: the summary (runs x measures), the few bookkeeping rows the Evaluator reads, problems of
input files, and file names; the ranking, the joins, every measure and every sum are Spark's.

Inputs (files validated by Spark SQL under sql/spark/, with the rules and messages of local ingest):
TREC text files, globs of them and folders of them (plain or compressed as Spark's codecs read
them: .gz, .bz2 ...), folders of Parquet (a `.parquet` file or a folder holding one), and Spark
DataFrames with the column names of warehouse/ingestion/frames.py (query_id/qid, doc_id/docno, score,
grade/relevance/label; a run frame may hold several runs in a `run` column).
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from warehouse.engines.dialect import SparkStatement, spark_statements
from warehouse.errors import InputFileError, IrwError, MissingExtraError, Problem, install_command, UsageError
from warehouse.ingestion.files import NOT_UTF8, has_scheme, not_utf8_reason
from warehouse.store.catalog import GLOB_CHARS
from warehouse.ingestion.frames import (QRELS_COLUMNS, RUN_COLUMNS, FrameProblem, empty_frame, frame_label, name_one_of,
                                        refuse_float_ids)
from warehouse.engines.base import Statements
from warehouse.resources import read_sql
from warehouse.formats.table import Table

# Portable column types of load_rows (warehouse/engines/duckdb.py) -> Spark SQL's
_LOAD_TYPES = {"integer": "INT", "bigint": "BIGINT", "double": "DOUBLE", "varchar": "STRING", "boolean": "BOOLEAN"}
QRELS_SET_NAME = "qrels"
# a run frame's column naming the run of each row, when it holds several
RUN_NAME_COLUMNS = ("run", "run_name", "name", "system")


# SQL settings of the session irw works in (its own: the caller's is not changed)
SESSION_CONF = {
    # Spark 4.3's rule fails on sql/eval/07_dcg.sql's eval_dcg_totals ("PLAN_VALIDATION_FAILED_RULE_IN_BATCH
    # ... PushdownPredicatesAndPruneColumnsForCTEDef ... generated an invalid plan"); without it, the CTEs
    # are planned as written
    "spark.sql.optimizer.excludedRules": "org.apache.spark.sql.catalyst.optimizer.PushdownPredicatesAndPruneColumnsForCTEDef",
    # A checkpoint (SparkDatabase._materialised) keeps the constraints of the plan it came from, and
    # Spark 4.3's constraint propagation then fails on a union of it whose constraints name a column
    # the checkpoint does not output ("NoSuchElementException: key not found: query_id#1997", in
    # Union.rewriteConstraints); constraints only infer extra filters
    "spark.sql.constraintPropagation.enabled": "false",
    # A Hive-style partition folder (`run=007/`, as `irw export` writes run rows) names a run: read
    # its value as the text it is (with inference, Spark reads run 007 as the integer 7)
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
}
# Settings of the caller's session that irw's session keeps (newSession() starts from the cluster's
# settings, not the caller's): how many partitions a shuffle makes is the caller's to tune for its
# cluster and its data (Spark's default, 200, makes every small join and group run 200 tasks)
CALLER_CONF = ("spark.sql.shuffle.partitions",)


class SparkError(IrwError):
    """Spark failed on a statement of irw's (the message is Spark's first line)."""


# what Spark's path imports beyond the default install: pyspark, and pyarrow for the rows it hands
# to a warehouse (DataFrame.toArrow: irw eval --engine spark --into); the spark extra lists both
SPARK_MODULES = ("pyspark", "pyarrow")


def _pyspark():
    import importlib

    for module in SPARK_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtraError(f"{module} is not installed; install it with {install_command('spark')} "
                                    "(Spark 4 also needs a Java 17 runtime, e.g. Debian's openjdk-17-jre-headless)") \
                from None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@dataclass
class _Result:
    """A statement's result with the DB-API calls irw uses (fetchall, fetchone, description); a
    query's rows are collected only when asked for."""

    frame: Any = None
    rows: list[tuple] | None = None
    columns: tuple[str, ...] = ()

    @property
    def description(self):
        names = self.frame.columns if self.frame is not None else list(self.columns)
        return [(name,) for name in names] if names else None

    def fetchall(self) -> list[tuple]:
        if self.rows is None:
            self.rows = [tuple(row) for row in self.frame.collect()] if self.frame is not None else []
        return self.rows

    def fetchone(self):
        rows = self.fetchall()
        return rows[0] if rows else None


@dataclass(frozen=True)
class _Column:
    name: str
    spark_type: str
    sequence: bool = False   # default nextval(...): ids irw assigns
    now: bool = False        # default current_timestamp (UTC)


@lru_cache(maxsize=None)
def _schema() -> dict[str, tuple[tuple[_Column, ...], tuple[str, ...]]]:
    """table -> (its columns, its primary key) from sql/oneshot/schema.sql."""
    import sqlglot
    from sqlglot import exp

    tables = {}
    for tree in sqlglot.parse(read_sql("oneshot/schema.sql"), read="duckdb"):
        if not (isinstance(tree, exp.Create) and tree.kind == "TABLE"):
            continue
        schema = tree.this
        columns, key = [], []
        for item in schema.expressions:
            if isinstance(item, exp.PrimaryKey):
                key = [c.name for c in item.expressions]
                continue
            constraints = [c.args.get("kind") for c in item.args.get("constraints") or []]
            default = next((c.this for c in constraints if isinstance(c, exp.DefaultColumnConstraint)), None)
            if any(isinstance(c, exp.PrimaryKeyColumnConstraint) for c in constraints):
                key = [item.name]
            columns.append(_Column(
                item.name, item.args["kind"].sql(dialect="spark"),
                sequence=default is not None and "nextval" in default.sql().lower(),
                now=default is not None and "current_timestamp" in default.sql().lower()))
        tables[schema.this.name] = (tuple(columns), tuple(key))
    return tables


class SparkDatabase(Statements):
    """The warehouse interface over a SparkSession (see the module docstring)."""

    dialect = "spark"
    read_only = False
    sandboxed = False
    created = False
    keeps_scores = True  # its evaluated rows go into a warehouse (warehouse/engines/spark_store.py)
    batches_runs = False  # Spark plans the whole evaluation at once (warehouse/engines/__init__.py)

    def __init__(self, spark):
        _pyspark()
        self.spark = spark.newSession()
        for key in CALLER_CONF:
            self.spark.conf.set(key, spark.conf.get(key))
        for key, value in SESSION_CONF.items():
            self.spark.conf.set(key, value)
        master = spark.sparkContext.master
        self.path = f"spark:{master}"
        self._tables: dict[str, Any] = {}   # name -> its cached DataFrame (registered as a temp view)
        self._views: set[str] = set()
        self._ids: dict[str, int] = {}      # table -> the last id its sequence gave
        self._staging = None
        self._closed = False
        for table in _schema():
            self.replace_table(table, self._empty(table), cache=False)

    # -- tables ------------------------------------------------------------------------------
    def _empty(self, table: str):
        columns, _ = _schema()[table]
        return self.spark.createDataFrame([], ", ".join(f"`{c.name}` {c.spark_type}" for c in columns))

    def replace_table(self, name: str, frame, *, cache: bool = True) -> Any:
        """Makes `frame` table `name` (a name of irw's own), registered as a temporary view; with
        cache, computed now and checkpointed (see _materialised)."""
        if cache:
            frame = self._materialised(frame)
        self._tables[name] = frame
        frame.createOrReplaceTempView(name)
        return frame

    def _materialised(self, frame, *, lazily: bool = False):
        """`frame` computed now and kept with its lineage cut: a checkpoint, reliable where the
        SparkContext has a checkpoint folder (SparkContext.setCheckpointDir, on a cluster a folder
        every executor reaches), else local to the executors (lost with an executor: with dynamic
        allocation, set a checkpoint folder). lazily (a local checkpoint only): the lineage is cut
        now, the rows computed by the first job that reads them, so a table costs no Spark job of
        its own and one no statement reads is never computed (a reliable checkpoint made lazily
        would compute its rows twice: it is made at once).

        Why not persist(): a cached DataFrame keeps the plan it came from, so every statement's plan
        held the whole chain back to the input files, and Spark matched each of its nodes against
        every cached plan: on DL19 (one run, AP and nDCG@10) a measure's INSERT took 63 s to plan
        and 0.5 s to run, and the evaluation 215 s. With the lineage cut, each plan reads tables."""
        if self.spark.sparkContext.getCheckpointDir():
            return frame.checkpoint(eager=True)
        return frame.localCheckpoint(eager=not lazily)

    def adopt(self, frame):
        """A caller's DataFrame as a DataFrame of this database's session (a temporary view is
        registered in the session a DataFrame belongs to): the same plan, read by this session."""
        from pyspark.sql import DataFrame

        if frame.sparkSession is self.spark:
            return frame
        jvm = self.spark._jvm
        plan = frame._jdf.queryExecution().analyzed()
        return DataFrame(jvm.org.apache.spark.sql.classic.Dataset.ofRows(self.spark._jsparkSession, plan), self.spark)

    def table(self, name: str):
        """Table `name` as a DataFrame."""
        return self._tables[name]

    def _typed(self, table: str, frame, columns: Sequence[str]):
        """The rows of `frame` (its columns in the order of `columns`, or of the table) as table's
        columns: defaults for the others (ids from its sequence, the time now, null), every value
        cast to the column's type."""
        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        schema, _ = _schema()[table] if table in _schema() else (None, ())
        if schema is None:
            raise UsageError(f"irw writes no table {table} on Spark")
        given = list(columns) or [c.name for c in schema][:len(frame.columns)]
        if list(frame.columns) != given:
            frame = frame.toDF(*given)
        types = dict(frame.dtypes)
        out = []
        for column in schema:
            if column.name in given and types[column.name] == column.spark_type.lower():
                out.append(F.col(f"`{column.name}`"))
                continue
            if column.name in given:
                value = F.col(f"`{column.name}`")
            elif column.sequence:
                start = self._ids.get(table, 0)
                count = frame.count()
                self._ids[table] = start + count
                value = F.lit(start) + F.row_number().over(Window.orderBy(F.monotonically_increasing_id()))
            elif column.now:
                # UTC, as the DuckDB and PostgreSQL engines store it (engines/duckdb.py UTC): Spark
                # hands a timestamp over as its wall time in the session's zone, so the instant
                # whose wall time there is UTC's
                value = F.to_utc_timestamp(F.current_timestamp(), F.current_timezone())
            else:
                value = F.lit(None)
            out.append(value.cast(column.spark_type).alias(column.name))
        return frame.select(*out)

    # -- statements --------------------------------------------------------------------------
    def _sql(self, text: str, params: dict | Sequence | None):
        try:
            return self.spark.sql(text, args=params or None)
        except Exception as exc:  # pyspark's AnalysisException, ParseException ...
            if isinstance(exc, IrwError):
                raise
            raise SparkError(f"Spark failed on irw's SQL: {_first_line(exc)}") from exc

    def _bind(self, statement: SparkStatement, params) -> dict | None:
        if not statement.names:
            return None
        if not isinstance(params, Mapping):
            raise TypeError(f"statement takes named parameters {statement.names}, got {type(params).__name__}")
        return {name: _spark_value(params[name]) for name in statement.names}

    def _run(self, statement: SparkStatement, params) -> _Result:
        from pyspark.sql import functions as F

        if self._closed:
            from warehouse.errors import WarehouseClosed

            raise WarehouseClosed(f"the Spark evaluation database {self.path} was closed")
        bound = self._bind(statement, params)
        kind, name = statement.kind, statement.table
        if kind == "query":
            return _Result(self._sql(statement.text, bound))
        if kind == "create":
            self.replace_table(name, self._materialised(self._sql(statement.text, bound), lazily=True), cache=False)
            return _Result()
        if kind == "view":
            if bound:
                raise SparkError(f"Spark refuses parameters in a view ({name}): make it a table")
            self._sql(statement.text, None).createOrReplaceTempView(name)
            self._views.add(name)
            return _Result()
        if kind == "drop":
            self._tables.pop(name, None)
            self._views.discard(name)
            self.spark.catalog.dropTempView(name)
            return _Result()
        if kind == "rename":
            frame = self._tables.pop(name)
            self.spark.catalog.dropTempView(name)
            self._tables[statement.target] = frame
            frame.createOrReplaceTempView(statement.target)
            return _Result()
        if kind == "delete":
            self.replace_table(name, self._sql(statement.text, bound))
            return _Result()
        if kind == "insert":
            new = self._typed(name, self._sql(statement.text, bound), statement.columns)
            old = self._tables[name]
            if not statement.conflict and not statement.returning:
                # rows added: only they are computed; the table is the union of its parts, each
                # materialised once (materialising the union would copy every earlier row again on
                # each insert: all_trec inserts into scores 15 times)
                self.replace_table(name, old.unionByName(self._materialised(new)), cache=False)
                return _Result()
            new = self._materialised(new)
            if statement.conflict:
                keys = list(statement.conflict)
                if statement.keep_existing:
                    new = new.join(old.select(*keys), keys, "left_anti")
                else:
                    old = old.join(new.select(*keys), keys, "left_anti")
            rows = new.select(*statement.returning).collect() if statement.returning else None
            self.replace_table(name, old.unionByName(new))
            if rows is not None:
                return _Result(rows=[tuple(r) for r in rows], columns=statement.returning)
            return _Result()
        raise SparkError(f"no way to run a {kind} statement on Spark")

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> _Result:
        """Runs DuckDB SQL of irw's own (never user input) on Spark, as spark_statements derives it.
        Positional parameters (?) are numbered into named ones first."""
        if params is not None and not isinstance(params, Mapping):
            sql, params = _named(sql, params)
        result = _Result()
        for statement in spark_statements(sql):
            result = self._run(statement, params)
        return result

    def run_sql(self, sql: str, params: dict[str, Any] | None = None) -> _Result:
        return self.execute(sql, params or {})

    def frame(self, relative_path: str, params: dict[str, Any] | None = None):
        """The rows of one query file under sql/ (DuckDB SQL) as a Spark DataFrame, not collected."""
        statements = spark_statements(read_sql(relative_path))
        if len(statements) != 1 or statements[0].kind != "query":
            raise UsageError(f"{relative_path} is not one query")
        return self._sql(statements[0].text, self._bind(statements[0], params or {}))

    def spark_frame(self, relative_path: str, params: dict[str, Any] | None = None):
        """The rows of one Spark SQL query file (sql/spark/), bound to its :names, not collected."""
        text = read_sql(relative_path)
        names = set(re.findall(r"(?<![:\w]):([a-z_]+)\b", _without_comments(text)))
        return self._sql(text, {n: _spark_value((params or {})[n]) for n in names})

    def load_rows(self, table: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]) -> None:
        """Replaces table `table` (a name of irw's own) with `rows`, as Database.load_rows does."""
        schema = ", ".join(f"`{name}` {_LOAD_TYPES[kind]}" for name, kind in columns)
        # rows from the driver: nothing to compute, so nothing to cache
        self.replace_table(table, self.spark.createDataFrame([tuple(r) for r in rows], schema), cache=False)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Nothing to commit: a SparkDatabase holds temporary views of one session, which a failed
        evaluation leaves to be thrown away with it."""
        yield

    @property
    def staging(self):
        """A local in-memory DuckDB database, as PostgresDatabase has (warehouse/ingestion/files.py reads
        local files there)."""
        if self._staging is None:
            from warehouse.engines.duckdb import MEMORY, Database

            self._staging = Database(MEMORY)
        return self._staging

    def lock_scores(self, qrels_set_id: int) -> None:
        """Nothing to serialise: one SparkDatabase, one writer (its own session's views)."""

    def has_table(self, name: str) -> bool:
        return name in self._tables

    def close(self) -> None:
        """Lets go of the cached tables and drops the views (the session is this object's own)."""
        if self._closed:
            return
        self._closed = True
        for name in self._tables:
            self.spark.catalog.dropTempView(name)
        for name in self._views:
            self.spark.catalog.dropTempView(name)
        self._tables.clear()
        if self._staging is not None:
            self._staging.close()


def _spark_value(value: Any) -> Any:
    """A parameter as spark.sql binds it (lists and tuples are arrays)."""
    if isinstance(value, tuple):
        return list(value)
    return value


def _named(sql: str, params: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """`?` placeholders (outside string literals) as $p1, $p2 ... with their values."""
    out, values, quoted = [], {}, False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            name = f"p{len(values) + 1}"
            values[name] = params[len(values)]
            out.append("$" + name)
        else:
            out.append(char)
    return "".join(out), values


def _without_comments(sql: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in sql.splitlines())


# -- inputs -----------------------------------------------------------------------------------

def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pyspark")


def _pick(columns: Sequence[str], roles: Mapping[str, tuple[str, ...]], required: Sequence[str], what: str) -> dict:
    present = {c.lower(): c for c in columns}
    chosen = {}
    for role, names in roles.items():
        found = next((present[n] for n in names if n in present), None)
        if found is not None:
            chosen[role] = found
        elif role in required:
            raise UsageError(f"the {what} DataFrame has no {role} column: {name_one_of(names)} "
                             f"(it has {', '.join(columns)})")
    return chosen


def _picked(frame, roles: Mapping[str, tuple[str, ...]], required: Sequence[str], what: str) -> dict:
    """_pick of a DataFrame's columns, refusing float ids as local ingest of a frame does."""
    chosen = _pick(frame.columns, roles, required, what)
    refuse_float_ids(what, chosen, dict(frame.dtypes), "frame.withColumn('{column}', F.col('{column}').cast('long'))")
    return chosen


def _paths(spec: str | os.PathLike[str]) -> list[str]:
    """A path, glob or folder as Spark reads it: local paths must exist (a glob must match);
    URLs (hdfs://, s3a:// ...) are left to Spark."""
    text = os.fspath(spec)
    if isinstance(spec, Path) or not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", text):
        text = os.path.abspath(text) if not _is_pattern(text) else text
    if has_scheme(text) and not text.startswith("file://"):
        refuse_unreadable([text])
        return [text]
    local = text[len("file://"):] if text.startswith("file://") else text
    if _is_pattern(local):
        import glob

        matched = glob.glob(local)
        if not matched:
            raise InputFileError([Problem(text, 0, "no file matches this pattern")])
        refuse_unreadable(matched)
        return [text]
    if not os.path.exists(local):
        raise InputFileError([Problem(text, 0, "no such file or folder")])
    refuse_unreadable([os.path.join(local, name) for name in os.listdir(local)] if os.path.isdir(local) else [local])
    return [text]


def _input_files(paths: Sequence[str]) -> list[str]:
    """paths (of _paths) as the files Spark is to read: a local folder's files as irw ingest takes
    them (ingestion.files.folder_files: not hidden, not a subfolder, not a document such as its
    README.md, which is said), so that Spark reads no file local ingest leaves out; patterns, URLs
    and files as they are. A folder with no such file stays, for Spark to say so."""
    from warehouse.ingestion.files import folder_files

    files: list[str] = []
    for path in paths:
        local = _local(path)
        if _is_pattern(path) or has_scheme(local) or not os.path.isdir(local):
            files.append(path)
            continue
        inside = folder_files(Path(local))
        prefix = "file://" if path.startswith("file://") else ""
        files.extend([prefix + str(file) for file in inside] or [path])
    return files


def refuse_unreadable(files: Sequence[str]) -> None:
    """Files Spark would read as text when they are not: Hadoop picks a decompressor by the file's
    suffix and has none for xz (gzip, bzip2 and zstd it reads), so an .xz file's bytes became a
    thousand 'problems' of control characters."""
    unreadable = [f for f in files if f.endswith(".xz")]
    if unreadable:
        raise InputFileError([Problem(f, 0, "xz-compressed, which Spark cannot read: decompress it (xz -d) or "
                                         "compress it as .gz, .bz2 or .zst, or evaluate it with --engine duckdb")
                              for f in unreadable])


def _local(spec: str) -> str:
    return spec[len("file://"):] if spec.startswith("file://") else spec


def _is_parquet(spark, spec: str) -> bool:
    """A `.parquet` file, or a folder holding Parquet files directly or in Hive-style partition
    folders (`run=NAME/`, as `irw export` writes run rows), or a pattern matching such
    (`run_rows/run=*.dl21`). Local paths are looked at with os, URLs (hdfs://, s3a:// ...) through
    the file system Spark reads them with."""
    local = _local(spec)
    if local.endswith(".parquet"):
        return True
    if has_scheme(local):
        return _remote_holds_parquet(spark, spec)
    if _is_pattern(local):
        import glob

        return any(match.endswith(".parquet") or _holds_parquet(match) for match in glob.glob(local))
    return _holds_parquet(local)


def _is_pattern(spec: str) -> bool:
    """Whether spec is a pattern to expand: it holds `*`, `?` or `[` and names no local file or
    folder as it is (one that does is that file, as ingestion.files.run_files takes it)."""
    return any(c in GLOB_CHARS for c in spec) and not os.path.exists(_local(spec))


def _spark_path(spec: str) -> str:
    """spec as Spark's readers must be told it. Hadoop expands `* ? [ ] { }` in every path it reads
    and takes `\\` as an escape (`s{a,b}.txt` read sa.txt and sb.txt, `s\\x.txt` failed), so a local
    file or folder is named with each of them escaped; a pattern, and a URL Spark lists itself, as
    given."""
    if _is_pattern(spec) or (has_scheme(spec) and not spec.startswith("file://")):
        return spec
    return re.sub(r"([\\{}\[\]*?])", r"\\\1", spec)


def _read_parquet(spark, paths: Sequence[str]):
    """The Parquet at paths. Partition folders given themselves or by a pattern (`run_rows/run=*.dl21`:
    one collection's runs of an export) keep their partition column (`run`), as when the folder
    above them is read: Spark finds it only below the base path it is told."""
    folders = [os.path.split(p.rstrip("/")) for p in paths]
    parents = {parent for parent, _ in folders}
    reader = spark.read
    if len(parents) == 1 and all("=" in name for _, name in folders):
        reader = reader.option("basePath", parents.pop())
    return reader.parquet(*map(_spark_path, paths))


def _holds_parquet(folder: str) -> bool:
    if not os.path.isdir(folder):
        return False
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".parquet"):
                return True
            if "=" in entry.name and entry.is_dir() and _holds_parquet(entry.path):
                return True
    return False


def run_items(runs) -> list:
    """The items of runs as load_runs takes them: a path or DataFrame, a list of them, or a mapping's values."""
    return list(runs.values()) if isinstance(runs, Mapping) else \
        [runs] if isinstance(runs, (str, os.PathLike)) or _is_frame(runs) else list(runs)


def refuse_missing_paths(qrels, runs) -> None:
    """The checks load_qrels and load_runs make of each path they read (_paths: a local file or
    folder must exist, a pattern match, no file be xz-compressed), made before the session starts
    (a JVM's ~15-30 s), with the same messages: DataFrames are not paths, and a URL Spark reads
    (hdfs://, s3a:// ...) is looked at only for its suffix."""
    for item in [qrels, *run_items(runs)]:
        if isinstance(item, (str, os.PathLike)):
            _paths(item)


def refuse_folders_of_folders(runs) -> None:
    """A local folder of runs holding no file, only folders (one per system, as publishers keep
    them), said as `irw ingest run` says it (its subfolders are not read), before anything is read:
    Spark found no run there and said only "name at least one run"."""
    from warehouse.ingestion.files import folder_files, no_input_files

    for item in run_items(runs):
        if _is_frame(item) or (isinstance(item, str) and has_scheme(item) and not item.startswith("file://")):
            continue
        folder = Path(_local(os.fspath(item)))
        if folder.is_dir() and not _holds_parquet(str(folder)) and not folder_files(folder):
            raise InputFileError([Problem(os.fspath(item), 0, no_input_files(
                folder, "run", "name its folders instead, each as a folder of runs (with `--runs` once per folder)"))])


def run_file_locations(spark, locations: Sequence[str]) -> list[str]:
    """The run files of locations Spark reads (hdfs://, s3a://, file:// ...), as `irw trec-eval` takes
    local ones (ingestion.files.run_files): a file as is, a folder's files (not hidden, not `_SUCCESS`
    and the like, not in subfolders) in name order, a pattern's matches in name order; listed
    through the file system Spark reads them with. A location it cannot list is left to Spark to
    report when it reads it."""
    out: list[str] = []
    for location in locations:
        if not has_scheme(location):
            out.append(location)
            continue
        path = spark._jvm.org.apache.hadoop.fs.Path(location)
        try:
            fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
            if _is_pattern(location):
                statuses = [s for s in (fs.globStatus(path) or []) if not s.isDirectory()]
            elif fs.getFileStatus(path).isDirectory():
                statuses = [s for s in fs.listStatus(path)
                            if not s.isDirectory() and not s.getPath().getName().startswith((".", "_"))]
            else:
                statuses = None
        except Exception as exc:  # py4j's Java exceptions (no such file, no access)
            if type(exc).__name__ != "Py4JJavaError":
                raise
            statuses = None
        if statuses is None:
            out.append(location)
        elif not statuses:
            raise InputFileError([Problem(location, 0, "no run file in this folder or matching this pattern")])
        else:
            found = (_as_given(s.getPath().toString()) for s in statuses)
            out.extend(sorted(found, key=lambda p: p.rsplit("/", 1)[-1]))
    return out


def _as_given(url: str) -> str:
    """Hadoop writes a local file's URL file:/x; irw (_paths) and users write file:///x."""
    return "file://" + url[len("file:"):] if url.startswith("file:/") and not url.startswith("file://") else url


def _remote_holds_parquet(spark, url: str) -> bool:
    """_holds_parquet through Hadoop's FileSystem API (a path Spark cannot list is left to Spark
    to report when it reads it)."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(url)
    try:
        fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

        def holds(folder) -> bool:
            if not fs.getFileStatus(folder).isDirectory():
                return folder.getName().endswith(".parquet")
            for status in fs.listStatus(folder):
                name = status.getPath().getName()
                if name.endswith(".parquet"):
                    return True
                if "=" in name and status.isDirectory() and holds(status.getPath()):
                    return True
            return False

        if _is_pattern(url):
            return any(holds(status.getPath()) for status in (fs.globStatus(path) or []))
        return holds(path)
    except Exception as exc:  # py4j's Java exceptions (no such file, no access)
        if type(exc).__name__ != "Py4JJavaError":
            raise
        return False


def _shown(file: str) -> str:
    """A file as Spark names it (file:/a/b), as irw's messages name local files (/a/b)."""
    from urllib.parse import unquote

    if file.startswith("file:"):
        return unquote(re.sub(r"^file:(//)?", "", file))
    return file


def _read_lines(db: SparkDatabase, paths: Sequence[str]) -> None:
    """The data lines of TREC text files as irw_lines (sql/spark/text_lines.sql), computed once."""
    from pyspark.sql import functions as F

    text = db.spark.read.option("lineSep", "\n").text([_spark_path(p) for p in paths])
    text = text.select(F.col("_metadata.file_path").alias("file"), F.col("_metadata.file_block_start").alias("block"),
                       F.monotonically_increasing_id().alias("row_id"), "value")
    db.replace_table("irw_text", text, cache=False)
    db.replace_table("irw_lines", db.spark_frame("spark/text_lines.sql"))


def _problems(db: SparkDatabase, sql_file: str, params: dict | None = None) -> None:
    """Raises InputFileError with the problems sql_file finds in irw_lines (first 20 in file and
    line order, and how many there are), as local ingest reports them."""
    found = db.spark_frame(sql_file, params)
    shown = found.orderBy("file", "line_no", "reason").limit(InputFileError.MAX_SHOWN).collect()
    if shown:
        total = found.count()
        raise InputFileError([Problem(_shown(r.file), r.line_no, _reason_said(r.file, r.reason)) for r in shown], total)


def _reason_said(file: str, reason: str) -> str:
    """A problem's reason as local ingest says it: a local file that is not UTF-8 with the command
    that converts it (warehouse/ingestion/files.py's not_utf8_reason)."""
    shown = _shown(file)
    return not_utf8_reason(Path(shown)) if reason == NOT_UTF8 and not has_scheme(shown) else reason


def _refuse_swapped(db: SparkDatabase, kind: str) -> None:
    """Refuses a file that is plainly the other kind, by local ingest's rule and message
    (warehouse/ingestion/files.py's _refuse_swapped), said first and alone."""
    from warehouse.ingestion.files import header_error, header_line, refuse_if_swapped

    for row in db.spark_frame("spark/swapped_files.sql", {"kind": kind}).collect():
        refuse_if_swapped(Path(_shown(row.file)), kind, row.first_count, row.first_grade)
    # a header line (BEIR's `query-id corpus-id score`) is refused as local ingest refuses it
    for row in db.spark_frame("spark/first_lines.sql").collect():
        header = header_line(row.line_no, list(row.fields or ()), row.lines)
        if header is not None:
            raise header_error(Path(_shown(row.file)), header, kind)


def _refuse_files_without_lines(paths: Sequence[str], read: Sequence[str]) -> None:
    """Refuses, as local ingest does, a local run file named among paths that gave Spark no data line
    (read: the files that did, as Spark names them): it has no row to find it by, and was left out
    of the runs, which then lacked a run the command was given (a traceback of `irw trec-eval`, or
    `name at least one run` for the one file given). Patterns and URLs are Spark's to list."""
    seen = {os.path.abspath(_shown(file)) for file in read}
    for path in paths:
        local = _local(path)
        if _is_pattern(path) or has_scheme(local) or not os.path.isfile(local):
            continue
        if os.path.abspath(local) not in seen:
            raise _no_data([local], "run")


def _no_data(paths: Sequence[str], what: str) -> InputFileError:
    return InputFileError([Problem(", ".join(paths), 0, f"no {what} lines (the file is empty, or holds only "
                                                       "blank lines and comments)")])


def qrels_set_name(qrels) -> str:
    """The name `irw ingest qrels` gives qrels read from a path (its file's or folder's name
    without extensions: qrels.dl21-passage), which messages then name; QRELS_SET_NAME for a
    DataFrame or a pattern."""
    from warehouse.ingestion.files import display_name

    from urllib.parse import unquote

    if _is_frame(qrels) or _is_pattern(os.fspath(qrels)):
        return QRELS_SET_NAME
    path = Path(_local(os.fspath(qrels)).rstrip("/"))
    key, is_partition, value = path.name.partition("=")
    if is_partition and key == "qrels_set" and value:
        # a partition folder of `irw export` (qrels/qrels_set=dl21): the set's name, unescaped as a
        # run's partition folder is read (run=BM25.dl21 names BM25.dl21)
        return unquote(value)
    return display_name(path) or QRELS_SET_NAME


def load_qrels(db: SparkDatabase, qrels, name: str = QRELS_SET_NAME) -> None:
    """Qrels set `name` of db from text files or a DataFrame, validated."""
    from pyspark.sql import functions as F

    if _is_frame(qrels):
        qrels = db.adopt(qrels)
        chosen = _picked(qrels, QRELS_COLUMNS, ("query", "doc", "grade"), "qrels")
        rows = qrels.select(F.lit(1).alias("qrels_set_id"), F.col(f"`{chosen['query']}`").cast("string").alias("query_id"),
                            F.col(f"`{chosen['doc']}`").cast("string").alias("doc_id"),
                            F.col(f"`{chosen['grade']}`").alias("grade"),
                            F.monotonically_increasing_id().alias("frame_row"))
        db.replace_table("irw_qrels_input", rows)
        floating = dict(qrels.dtypes)[chosen["grade"]] in ("float", "double")
        _frame_problems(db, "spark/frame_qrels_problems.sql", {"grade_floating": floating}, "irw_qrels_input",
                        lambda frame_no, run_id: frame_label("qrels", None), chosen)
        rows = db.table("irw_qrels_input").drop("frame_row").withColumn("grade", F.col("grade").cast("int"))
        source = "DataFrame"
    else:
        paths = _paths(qrels)
        if any(_is_parquet(db.spark, p) for p in paths):
            return load_qrels(db, _read_parquet(db.spark, paths), name)
        _read_lines(db, _input_files(paths))
        _problems(db, "spark/line_problems.sql")
        _refuse_swapped(db, "qrels")
        _problems(db, "spark/qrels_problems.sql")
        rows = db.spark_frame("spark/qrels_from_lines.sql", {"qrels_set_id": 1})
        source = ", ".join(paths)
    qrels_rows = db.replace_table("qrels", db._typed("qrels", rows, ()))
    counts = qrels_rows.agg(F.countDistinct("query_id"), F.count("*")).first()
    if not counts[1]:  # local ingest's words
        raise empty_frame(frame_label("qrels", None)) if _is_frame(qrels) else _no_data([source], "qrels")
    db.execute("insert into qrels_sets (qrels_set_id, name, source_path, sha256, query_count, judgment_count) "
               "values ($id, $name, $source, '', $queries, $judgments)",
               {"id": 1, "name": name, "source": source, "queries": counts[0], "judgments": counts[1]})


def _frame_problems(db: SparkDatabase, sql_file: str, params: dict, table: str, label, columns: Mapping[str, str],
                    frames: int = 1) -> None:
    """Raises InputFileError with the problems sql_file finds in the DataFrame rows of `table` as
    local ingest of a data frame reports them (warehouse/ingestion/frames.py): first the values a
    TREC line cannot carry, each role's first 21 rows, in row order; else the file rules' problems,
    the first 20 in row order and how many there are. A problem names its frame (label(frame_no,
    run_id)) and the row's 0-based position there, as FrameProblem; `columns` are the frame's column
    of each role, which the messages name; frames, how many DataFrames the rows come from."""
    found = db.spark_frame(sql_file, params)
    # one job when all is well: stage 1 holds at most 21 rows per frame and role (4), before stage 2
    first = found.orderBy("stage", "frame_no", "frame_row", "role_order", "reason").limit(
        21 * 4 * frames + InputFileError.MAX_SHOWN).collect()
    stage_one = [r for r in first if r.stage == 1]
    rows = stage_one or first[:InputFileError.MAX_SHOWN]
    if not rows:
        return
    position = _frame_positions(db, table, {(r.frame_no, r.frame_row) for r in rows} |
                                {(r.frame_no, r.first_row) for r in rows if r.first_row is not None})
    problems = []
    for r in rows:
        run_id = getattr(r, "run_id", None)
        if r.stage == 1:
            column = columns[r.role]
            reason = (f"its {column} is missing (None or NaN)" if r.value is None else
                      f"its {column} {r.value!r} holds whitespace, which a TREC line cannot carry")
        else:
            reason = r.reason + ("" if r.first_row is None else f" (first at row {position[(r.frame_no, r.first_row)]})")
        problems.append(FrameProblem(label(r.frame_no, run_id), position[(r.frame_no, r.frame_row)], reason))
    if stage_one:
        raise InputFileError(problems)
    raise InputFileError(problems, found.where("stage = 2").count())


def _frame_positions(db: SparkDatabase, table: str, keys: "set[tuple[int, int]]") -> "dict[tuple[int, int], int]":
    """(frame_no, frame_row) -> the row's 0-based position in its frame, for the rows `keys` of
    `table`. frame_row is monotonically_increasing_id(): the partition's index times 2^33 plus the
    row's place in the partition, so a position is the rows of the frame's earlier partitions plus
    that place (one aggregate of the frame, only when it holds problems)."""
    from pyspark.sql import functions as F

    low = (1 << 33) - 1
    sizes = db.table(table).where(F.col("frame_row").isNotNull()).groupBy(
        F.coalesce(F.col("frame_no") if "frame_no" in db.table(table).columns else F.lit(0), F.lit(0)).alias("frame_no"),
        F.shiftright("frame_row", 33).alias("part")).count().collect()
    before: dict[tuple[int, int], int] = {}
    for frame_no in {r.frame_no for r in sizes}:
        held = 0
        for r in sorted((r for r in sizes if r.frame_no == frame_no), key=lambda r: r.part):
            before[(frame_no, r.part)] = held
            held += r["count"]
    return {(frame_no, row): before[(frame_no, row >> 33)] + (row & low) for frame_no, row in keys}


def load_runs(db: SparkDatabase, runs, *, strict: bool = True) -> list[str]:
    """The runs of db (runs, run_rows, run_queries, judged_run_rows) from text files, globs,
    folders, Parquet or DataFrames, validated; returns their names in order."""
    from pyspark.sql import functions as F

    named_frames: list[tuple[str, Any]] = []
    text_paths: list[str] = []
    given_names: dict[str, str] = {}  # a local file's absolute path -> the name the caller gave its run
    items = runs.items() if isinstance(runs, Mapping) else \
        [(None, runs)] if isinstance(runs, (str, os.PathLike)) or _is_frame(runs) else [(None, r) for r in runs]
    for name, item in items:
        if _is_frame(item):
            named_frames.append((name, db.adopt(item)))
        else:
            paths = _paths(item)
            if any(_is_parquet(db.spark, p) for p in paths):
                named_frames.append((name, _read_parquet(db.spark, paths)))
            else:
                text_paths.extend(_input_files(paths))
                if name is not None:
                    if os.path.isdir(_local(paths[0])) or _is_pattern(paths[0]):
                        raise UsageError(f"run {name}: a name is given to one file, not to {paths[0]}")
                    given_names[os.path.abspath(_local(paths[0]))] = str(name)
    # run_id -> its name; a file's name is given, or given after its rows are read (_name_files)
    run_names: dict[int, str | None] = {}
    parts = []
    ranked = False  # a DataFrame has a rank column
    frame_columns: dict[str, str] = {}  # role -> the column of a DataFrame that holds it, which messages name
    file_ids = []
    if text_paths:
        _read_lines(db, text_paths)
        _problems(db, "spark/line_problems.sql")
        _refuse_swapped(db, "run")
        _problems(db, "spark/run_problems.sql", {"strict": strict})
        files = sorted({r.file for r in db.spark_frame("spark/run_tags.sql").select("file").distinct().collect()})
        _refuse_files_without_lines(text_paths, files)
        tags = _file_tags(db, strict)
        for file in files:
            run_id = len(run_names) + 1
            run_names[run_id] = given_names.get(os.path.abspath(_shown(file)))
            file_ids.append((file, run_id, run_names[run_id], tags[file], _shown(file)))
        db.load_rows("irw_run_files", [("file", "varchar"), ("run_id", "integer"), ("name", "varchar"),
                                       ("tag", "varchar"), ("source", "varchar")], file_ids)
        parts.append(db.spark_frame("spark/run_input_from_lines.sql"))
    for position, (name, frame) in enumerate(named_frames, 1):
        chosen = _picked(frame, {**RUN_COLUMNS, "run": RUN_NAME_COLUMNS}, ("query", "doc", "score"), "run")
        if "run" in chosen and name is None:
            in_frame = sorted(r[0] for r in frame.select(F.col(f"`{chosen['run']}`").cast("string")).distinct()
                              .collect())
        else:
            in_frame = [name or f"run {position}"]
        ids = {}
        for run_name in in_frame:
            if run_name is None:
                raise InputFileError([Problem("run DataFrame", 0, f"a row has no {chosen['run']}")])
            if run_name in ids:
                raise UsageError(f"two runs are named {run_name}: name each run once")
            ids[run_name] = len(run_names) + 1
            run_names[ids[run_name]] = run_name
        if len(ids) == 1:
            run_id = F.lit(next(iter(ids.values())))
        else:
            mapping = F.create_map(*[F.lit(v) for pair in ids.items() for v in pair])
            run_id = mapping[F.col(f"`{chosen['run']}`").cast("string")]
        rank = F.col(f"`{chosen['rank']}`").cast("bigint") if "rank" in chosen else F.lit(None).cast("bigint")
        ranked = ranked or "rank" in chosen
        frame_columns.update({role: column for role, column in chosen.items() if role not in frame_columns})
        parts.append(frame.select(run_id.cast("int").alias("run_id"),
                                  F.col(f"`{chosen['query']}`").cast("string").alias("query_id"),
                                  F.col(f"`{chosen['doc']}`").cast("string").alias("doc_id"),
                                  rank.alias("rank_given"), F.col(f"`{chosen['score']}`").cast("double").alias("score"),
                                  F.lit(position).alias("frame_no"), F.monotonically_increasing_id().alias("frame_row")))
    if not parts:
        raise UsageError("name at least one run")
    run_input = parts[0]
    for part in parts[1:]:
        run_input = run_input.unionByName(part, allowMissingColumns=True)
    db.replace_table("irw_run_input", run_input, cache=bool(named_frames))
    if named_frames:
        _frame_problems(db, "spark/frame_run_problems.sql", {"ranked": ranked}, "irw_run_input",
                        lambda frame_no, run_id: frame_label("run", run_names.get(run_id)), frame_columns,
                        frames=len(named_frames))
    db.replace_table("run_rows", db._typed("run_rows", db.spark_frame("spark/run_rows.sql"), ()))
    db.replace_table("run_queries", db._typed("run_queries", db.spark_frame("spark/run_queries.sql"), ()))
    db.run_file("ingest/link_judged_rows.sql", {"run_id": None, "qrels_set_id": 1})
    counts = {r.run_id: (r.rows, r.queries) for r in db.table("run_queries").groupBy("run_id").agg(
        F.sum("num_ret").alias("rows"), F.count("*").alias("queries")).collect()}
    file_tags = {r[1]: r[3] for r in file_ids}
    sources = {r[1]: r[4] for r in file_ids}
    for run_id, run_name in run_names.items():
        if run_id not in counts:
            raise (_no_data([sources[run_id]], "run") if run_id in sources else empty_frame(frame_label("run", run_name)))
    run_names.update(_name_files(db, [(run_id, Path(source), tag) for _, run_id, given, tag, source in file_ids
                                      if given is None]))
    names: dict[str, int] = {}
    for run_id, run_name in run_names.items():
        if run_name in names:
            raise UsageError(f"two runs are named {run_name} ({sources.get(run_id, 'a DataFrame')}, "
                             f"{sources.get(names[run_name], 'a DataFrame')}): name each run once")
        names[run_name] = run_id
    rows = [(run_id, run_name, file_tags.get(run_id, run_name), sources.get(run_id, "DataFrame"), *counts[run_id])
            for run_name, run_id in names.items()]
    db.replace_table("runs", db._typed("runs", db.spark.createDataFrame(
        rows, "run_id INT, name STRING, tag STRING, source_path STRING, row_count BIGINT, query_count INT").withColumn(
        "sha256", F.lit("")), ("run_id", "name", "tag", "source_path", "row_count", "query_count", "sha256")))
    return list(names)


def _file_tags(db: SparkDatabase, strict: bool) -> dict[str, str]:
    """file -> its run tag, as warehouse/ingestion/files.py's staged_tag decides it (refusing two tags in a
    file under irw's rules; trec_eval's runid is the last line's)."""
    from warehouse.ingestion.files import staged_tag

    by_file: dict[str, list[tuple[str, int, int]]] = {}
    for r in db.spark_frame("spark/run_tags.sql").collect():
        by_file.setdefault(r.file, []).append((r.tag, r.first_line, r.last_line))
    return {file: staged_tag(Path(_shown(file)), sorted(tags, key=lambda t: t[1]), strict)
            for file, tags in by_file.items()}


def _name_files(db: SparkDatabase, files: list[tuple[int, Path, str]]) -> dict[int, str]:
    """run_id -> the name `irw ingest run` gives its file (warehouse/ingestion/batch.py's rule),
    for files (run_id, path, tag) read into db's run_queries. The rule tells one system's folder of
    several collections from one collection's files of several systems by the queries each file
    answers: they reach the driver only where the tags leave a name to the rule."""
    from collections import Counter

    from warehouse.ingestion import batch

    if not files:
        return {}
    tag_count = Counter(tag for _, _, tag in files)
    queries: dict[int, set] = {run_id: set() for run_id, _, _ in files}
    top: dict[int, set] = {run_id: set() for run_id, _, _ in files}  # the documents each ranks first (batch.Answered)
    if len(files) > 1 and any(batch.is_placeholder(tag) or tag_count[tag] > 1 for _, _, tag in files):
        table = db.table("run_queries")
        for row in table.where(table["run_id"].isin(list(queries))).select("run_id", "query_id").collect():
            queries[row.run_id].add(row.query_id)
        rows = db.table("run_rows")
        for row in (rows.where(rows["run_id"].isin(list(queries)) & (rows["trec_rank"] <= batch.TOP_DOCUMENTS))
                    .select("run_id", "query_id", "doc_id").collect()):
            top[row.run_id].add((row.query_id, row.doc_id))
    named = batch.name_read_files([(path, tag, batch.Answered(queries[run_id], top[run_id]), "", None)
                                   for run_id, path, tag in files])
    return {run_id: file.name for (run_id, _, _), file in zip(files, named)}


# -- evaluation -------------------------------------------------------------------------------

@dataclass
class SparkEvaluation:
    """What warehouse.engines.spark.evaluate computed: the summary (small, in Python) and the per-query
    values (a Spark DataFrame: run, query, measure, value, computed by Spark when read)."""

    settings: Any
    measures: list
    summary: Table
    per_query: Any
    db: SparkDatabase
    evaluation: Any = None  # the Evaluation (warehouse/evaluation/evaluator.py) the command line prints
    left_out: tuple[str, ...] = ()  # runs given of which the qrels judge no query: not evaluated, not stored

    def table(self) -> Table:
        return self.summary

    def close(self) -> None:
        """Lets go of the cached tables (the per-query DataFrame is computed again if read later)."""
        self.db.close()


def evaluate(spark, qrels, runs, measures: Iterable[str] | str, *, strict: bool = True, settings=None,
             collect_per_query: bool = False, **options: Any) -> SparkEvaluation:
    """Evaluates runs against qrels on Spark with the measure SQL of sql/ (the numbers of
    warehouse.evaluate_files and trec_eval), keeping nothing.

    qrels: a Spark DataFrame (query_id/qid, doc_id/docno, grade/relevance/label) or a path (a TREC
    qrels file, a glob, a folder of text files or of Parquet). runs: a DataFrame (query_id/qid,
    doc_id/docno, score, and a `run` column when it holds several runs), a path, glob or folder of
    TREC run files (one run per file, named as `irw ingest run` names the same files:
    warehouse/ingestion/batch.py's rule) or of Parquet, a list of those, or a mapping name ->
    DataFrame (or file). The qrels set is named as `irw ingest qrels` names it (qrels_set_name).
    strict: irw ingest's rules for run lines (exactly 6 fields, an integer rank); False reads as
    trec_eval does. options are Settings fields (level, depth,
    judged_only, complete, compat, norel), as for warehouse.evaluate_files. collect_per_query
    also brings the per-query values to the driver, in .evaluation (for printing them).
    """
    from warehouse.evaluation.evaluator import Evaluator, Settings

    settings = Settings.resolve(settings, options)
    measures = [measures] if isinstance(measures, str) else list(measures)
    refuse_folders_of_folders(runs)
    db = SparkDatabase(spark)
    try:
        qrels_name = qrels_set_name(qrels)
        load_qrels(db, qrels, qrels_name)
        names = load_runs(db, runs, strict=strict)
        left_out = _leave_out_runs_judging_none(db, names)
        evaluation = Evaluator(db).evaluate([n for n in names if n not in left_out], qrels_name, measures,
                                            settings=settings, per_query=collect_per_query)
        return SparkEvaluation(settings, evaluation.measures, evaluation.summary, db.frame("eval/per_query.sql"), db,
                               evaluation, left_out)
    except BaseException:
        db.close()
        raise


def _leave_out_runs_judging_none(db: SparkDatabase, names: list[str]) -> tuple[str, ...]:
    """The runs given of which the qrels judge no query, left out (neither evaluated nor stored with
    --into; still named with the others, as ingest of their folder names them) when others are
    judged: a publisher's folder per system holds its runs of every collection, and one qrels set
    judges one (a walk's `--runs runs/BM25/` against DL 2021's qrels: refused after 81 s, one error
    per covid, dl22 and news run). When none is judged, none is left out: the evaluation says why
    each has no value."""
    none = tuple(row.name for row in db.spark_frame("spark/runs_judging_none.sql").collect())
    return () if len(none) == len(names) else none


@contextmanager
def command_session(master: str | None = None) -> Iterator[Any]:
    """session(master) for one command, stopped afterwards unless it was running before (a test's,
    a notebook's)."""
    _pyspark()
    from pyspark.sql import SparkSession

    running = SparkSession.getActiveSession()
    spark = session(master)
    try:
        yield spark
    except IrwError:
        raise
    except Exception as exc:
        # a job that failed on the cluster surfaces where its rows are read (collect, count), as
        # pyspark's or py4j's exception with the JVM's stack: said as one line, with what to do
        if not type(exc).__module__.startswith(("pyspark", "py4j")):
            raise
        raise SparkError(f"Spark failed: {_spark_message(exc)}{_hint(exc)}") from exc
    finally:
        if running is None:
            spark.stop()


def _spark_message(exc: BaseException) -> str:
    """The line of a Spark failure that says what failed: py4j's first line only names the Java
    call ("An error occurred while calling o62.collectToPython."), the next one the exception."""
    for line in str(exc).splitlines():
        line = line.strip().lstrip(": ").strip()
        if line and not line.startswith("An error occurred while calling"):
            return line
    return type(exc).__name__


def _hint(exc: BaseException) -> str:
    text = str(exc)
    if any(sign in text for sign in ("UNABLE_TO_ACQUIRE_MEMORY", "OutOfMemoryError", "Java heap space")):
        return ("; the driver ran out of memory: give it more (SPARK_DRIVER_MEMORY=8g, spark-submit --driver-memory "
                "8g, or spark.driver.memory), or fewer per-query lines (without -q)")
    return ""


# The master URLs Spark 4 takes (SparkSubmit and SparkContext's SparkMasterRegex; Mesos was removed
# in Spark 4): the JVM a bad one is given exits before it says why, which looked like a missing Java
MASTER_FORMS = ("local", "local[N]", "local[*]", "local[N,F]", "local-cluster[N,C,M]", "spark://HOST:PORT",
                "spark://HOST1:PORT1,HOST2:PORT2", "yarn", "k8s://HOST:PORT", "k8s://https://HOST:PORT")
_MASTER = re.compile(r"local"
                     r"|local\[([1-9][0-9]*|\*)(\s*,\s*[0-9]+)?\]"
                     r"|local-cluster\[\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*\]"
                     r"|spark://[^\s/,]+:[0-9]+(,[^\s/,]+:[0-9]+)*"
                     r"|yarn"
                     r"|k8s://\S+")


def check_master(master: str) -> None:
    """Refuses a master URL of no form Spark takes (MASTER_FORMS), naming the forms."""
    if not _MASTER.fullmatch(master):
        raise UsageError(f"--master {master!r} is not a Spark master URL: give one of {', '.join(MASTER_FORMS)} "
                         "(N threads, F retries of a failed task)")


def _java_hint() -> str:
    """What to say of a Spark that did not start: that it needs Java, where there is none (a
    JAVA_HOME without bin/java, which spark-class runs before any java on PATH, included)."""
    import shutil

    needs = "Spark 4 needs a Java 17 runtime (java on PATH or JAVA_HOME), e.g. Debian's openjdk-17-jre-headless"
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        if not os.access(os.path.join(java_home, "bin", "java"), os.X_OK):
            return f"; JAVA_HOME is {java_home}, which holds no bin/java: {needs}; set JAVA_HOME to its folder"
        return "; Spark's output above says why"
    if shutil.which("java"):
        return "; Spark's output above says why"
    return f"; {needs}"


def session(master: str | None = None, app_name: str = "irw"):
    """A SparkSession for irw's command line: `master` (local[*] when None and no spark-submit set
    one), Spark's web UI off, Spark's log quiet (irw reports errors itself)."""
    import logging
    import warnings

    if master:
        check_master(master)
    _pyspark()
    # pyspark 4.3 warns, when it first meets pandas, that it does not support pandas 3 yet
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    from pyspark.sql import SparkSession

    # pyspark logs every failed statement's context as JSON on stderr: irw says what failed itself
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logging.getLogger(name).disabled = True
    builder = SparkSession.builder.appName(app_name).config("spark.ui.enabled", "false") \
        .config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    elif "PYSPARK_GATEWAY_PORT" not in os.environ:  # not under spark-submit, which sets the master
        builder = builder.master("local[*]")
    try:
        spark = builder.getOrCreate()
    except Exception as exc:
        raise SparkError(f"cannot start Spark ({master or 'local[*]'}): {_first_line(exc)}{_java_hint()}") from None
    spark.sparkContext.setLogLevel("OFF")
    return spark
