"""`irw export DIR`: a warehouse's tables as Parquet, for Spark or any other engine.

    DIR/_irw_export.json              what was exported: versions, the warehouse, rows per table
    DIR/runs.parquet                  one file per table ...
    DIR/run_rows/run=<name>/*.parquet ... except the rows of runs and qrels sets: one folder each
    DIR/qrels/qrels_set=<name>/*.parquet
    DIR/qrels_subtopics/qrels_set=<name>/*.parquet

The tables are the database's own (its catalog: a table or column a migration adds comes along),
those irw's schema defines: a table someone else added to the database is left out and said so,
and irw_schema's migration log is the manifest's schema_version. Identifiers formatted into SQL
come only from that catalog.

Partition folders are Hive-style, so Spark, DuckDB, pandas and polars read the name back as a
column (`run`, `qrels_set`), and `warehouse.spark.evaluate(spark, "DIR/qrels/qrels_set=dl19",
"DIR/run_rows", measures)` evaluates an export as it is. A name is written into its folder's name
as Spark writes one: the characters Spark escapes (`/`, `=`, `%`, `:`, `?`, quotes, control
characters ...) as %XX, everything else (spaces, unicode) as it is; Spark and DuckDB both decode
that back to the same bytes. A name is not a number, so readers should not guess a type from it:
Spark's partitionColumnTypeInference is off in irw's session, and DuckDB needs
hive_types = {'run': 'varchar'} (else a run named 007 reads back as 7). A name whose folder name
would be longer than the file system allows is refused, as is an empty one (both readers read an
empty partition value as null).

Nothing is half-written: the export is made in a hidden sibling folder and renamed to DIR when
complete. An existing DIR is refused unless it is empty, or it holds an earlier export and
replace=True.

DuckDB writes every file, with one COPY per table or partition (the rows of one run or qrels set,
by its id: DuckDB's PARTITION_BY held 2.7 GB for 25M run rows, this 0.55 GB). A DuckDB warehouse is
read on its own connection, in one transaction. A PostgreSQL one is read in one REPEATABLE READ
transaction (one state of every table), each table or partition sent with COPY TO STDOUT as CSV
(doubles as their shortest exact text) and read by the local DuckDB staging database with the
types a DuckDB warehouse's columns have: both engines give the same Parquet files, value for value.
A run without rows (evaluated on Spark, its rows not stored) has no run_rows folder.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from .errors import ConflictError, DatabaseError, NotFoundError, OutputError

MANIFEST = "_irw_export.json"
FORMAT_VERSION = 1
# tables of the schema that are not data: the migration log (its version goes in the manifest)
INTERNAL_TABLES = {"irw_schema"}
# characters Spark escapes in a partition value (ExternalCatalogUtils.escapePathName), and NUL:
# written as %XX, which Spark and DuckDB both decode
_ESCAPED = frozenset([chr(c) for c in range(0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
# the value both readers take for null
_NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True)
class Partitioning:
    """A table written as one folder per row of another: `key`=<that row's name>/."""

    key: str      # the partition column readers get back
    owner: str    # the table naming each partition
    id: str       # the id column both tables share
    name: str     # the owner's column that names a partition


# table -> how its rows are split into folders
PARTITIONED = {
    "run_rows": Partitioning("run", "runs", "run_id", "name"),
    "qrels": Partitioning("qrels_set", "qrels_sets", "qrels_set_id", "name"),
    "qrels_subtopics": Partitioning("qrels_set", "qrels_sets", "qrels_set_id", "name"),
}


@dataclass
class TableExport:
    """One exported table: where it is under DIR, how many rows, and its partitions (name -> folder)."""

    path: str
    rows: int
    partitioned_by: str | None = None
    partitions: dict[str, str] = field(default_factory=dict)

    def manifest(self) -> dict:
        entry = {"path": self.path, "rows": self.rows}
        if self.partitioned_by:
            entry["partitioned_by"] = self.partitioned_by
            entry["partitions"] = self.partitions
        return entry


@dataclass
class ExportResult:
    """What export_warehouse wrote."""

    directory: Path
    tables: dict[str, TableExport]
    skipped: dict[str, str]  # table -> why it was not exported
    manifest: dict

    def lines(self) -> list[str]:
        width = max(len(name) for name in self.tables)
        out = []
        for name, table in self.tables.items():
            where = table.path + ("/" if table.partitioned_by else "")
            folders = (f" ({len(table.partitions)} {table.partitioned_by} folder"
                       f"{'' if len(table.partitions) == 1 else 's'})" if table.partitioned_by else "")
            rows = f"{table.rows:>12,} {'row' if table.rows == 1 else 'rows':<4}"
            out.append(f"{name:<{width}}  {rows}  {where}{folders}")
        out += [f"{name}: not exported ({why})" for name, why in self.skipped.items()]
        total = sum(t.rows for t in self.tables.values())
        out.append(f"wrote {len(self.tables)} tables, {total:,} rows, to {self.directory}")
        return out


def partition_folder(key: str, name: str) -> str:
    """The folder name of partition `name` (`key=escaped name`), as Spark writes one."""
    text = "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in name)
    if text == _NULL_PARTITION:
        text = "%5F" + text[1:]
    return f"{key}={text}"


def export_warehouse(db, directory: str | os.PathLike[str], *, replace: bool = False) -> ExportResult:
    """Writes every table of the warehouse `db` (warehouse/db.py's Database or warehouse/postgres.py's
    PostgresDatabase) as Parquet under `directory` (see the module docstring). A warehouse with no
    qrels set and no run is a NotFoundError: there is nothing to export."""
    from . import __version__

    target = Path(directory)
    _check_target(target, replace)
    tables, skipped = _tables(db)
    with _snapshot(db):
        counts = {name: db.fetchone(f'select count(*) from "{name}"')[0] for name in ("runs", "qrels_sets")}
        if not any(counts.values()):
            raise NotFoundError(f"the warehouse {db.path} holds no qrels set and no run: nothing to export; "
                                "ingest some with `irw ingest qrels` and `irw ingest run`")
        names = {table: _partition_names(db, PARTITIONED[table], target) for table in tables if table in PARTITIONED}
        try:
            target.absolute().parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot export to {target}: cannot create its folder ({exc.strerror or exc})") from None
        work = _new_sibling(target, "irw-export")
        try:
            written = {}
            with _writer(db) as copy:
                for table, columns in tables.items():
                    written[table] = _write(db, copy, work, table, columns, names.get(table))
            manifest = {
                "format": "irw export",
                "format_version": FORMAT_VERSION,
                "irw_version": __version__,
                "schema_version": db.schema_version(),
                "engine": db.dialect,
                "warehouse": db.path,  # a PostgreSQL URL with its password masked (PostgresDatabase.path)
                "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "reading": "a table partitioned by a name holds a folder per name (partitions: name -> folder); "
                           "read the name as text (DuckDB: hive_types = {'run': 'varchar'} or {'qrels_set': "
                           "'varchar'}; Spark: spark.sql.sources.partitionColumnTypeInference.enabled=false)",
                "tables": {name: table.manifest() for name, table in written.items()},
                "skipped": skipped,
            }
            (work / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            _put_in_place(work, target)
        except BaseException as exc:
            shutil.rmtree(work, ignore_errors=True)
            if isinstance(exc, OSError):  # a folder or the manifest on a full disk
                raise OutputError(f"cannot write the export beside {target}: {exc.strerror or exc}; it was not put "
                                  "in place") from None
            raise
    return ExportResult(target, written, skipped, manifest)


# -- the target folder ---------------------------------------------------------------------------

def _check_target(target: Path, replace: bool) -> None:
    if not target.exists():
        if target.is_symlink():
            raise OutputError(f"cannot export to {target}: it is a link to nothing; name a folder")
        return
    if not target.is_dir():
        raise OutputError(f"cannot export to {target}: it is a file, not a folder; name a new folder")
    if not any(target.iterdir()):
        return
    if not (target / MANIFEST).is_file():
        raise ConflictError(f"{target} exists and holds files that are not an irw export; name a new folder "
                            "(irw replaces only an earlier export, and only with --replace)")
    if not replace:
        raise ConflictError(f"{target} holds an earlier export; pass --replace to replace it, or name a new folder")


def _new_sibling(target: Path, what: str) -> Path:
    """A new hidden folder beside target (on its file system, so renames are atomic), made as any
    folder is (mkdtemp's would be private to this user)."""
    for _ in range(100):
        folder = target.absolute().parent / f".{target.name}.{what}-{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"cannot export to {target}: cannot create a folder beside it "
                              f"({exc.strerror or exc})") from None
    raise OutputError(f"cannot export to {target}: cannot create a folder beside it")


def _put_in_place(work: Path, target: Path) -> None:
    """Renames the finished export to target; an earlier export there is moved aside first and
    removed only once the new one is in place."""
    old = None
    try:
        if target.exists() and any(target.iterdir()):
            old = _new_sibling(target, "irw-old")
            os.rename(target, old / "export")
        os.rename(work, target)  # onto nothing, or an empty folder
    except OSError as exc:
        if old is not None and not target.exists():
            os.rename(old / "export", target)
        raise OutputError(f"cannot put the export in place at {target}: {exc.strerror or exc}") from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


# -- what is exported ----------------------------------------------------------------------------

def _catalog(db) -> dict[str, list[tuple[str, str]]]:
    """table -> its (column, type) pairs, from db's catalog."""
    tables: dict[str, list[tuple[str, str]]] = {}
    for table, column, data_type in db.run_file("catalog/stored_tables.sql").fetchall():
        tables.setdefault(table, []).append((column, data_type))
    return tables


def _tables(db) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str]]:
    """The tables to export, each with its columns as a DuckDB warehouse types them (irw's schema
    at this version, from a migrated local database's catalog), and the tables left out, with why."""
    schema = _irw_schema(db)
    found = _catalog(db)
    tables, skipped = {}, {}
    for table, columns in found.items():
        if table in INTERNAL_TABLES:
            continue
        if table not in schema:
            skipped[table] = "not one of irw's tables"
            continue
        names = [c for c, _ in columns]
        if sorted(names) != sorted(c for c, _ in schema[table]):
            raise DatabaseError(f"the warehouse {db.path} has table {table} with columns {', '.join(names)}, and this "
                                f"irw's schema has {', '.join(c for c, _ in schema[table])}")
        types = dict(schema[table])
        tables[table] = [(name, types[name]) for name in names]
    return tables, skipped


def _irw_schema(db) -> dict[str, list[tuple[str, str]]]:
    """The catalog of a new DuckDB warehouse (irw's tables at this version, nothing else): for a
    PostgreSQL warehouse its staging database is one, for a DuckDB one a new in-memory database."""
    if db.dialect != "duckdb":
        return _catalog(db.staging)
    from .db import MEMORY, Database

    fresh = Database(MEMORY)
    try:
        return _catalog(fresh)
    finally:
        fresh.close()


def _partition_names(db, partitioning: Partitioning, target: Path) -> dict[int, tuple[str, str]]:
    """id -> (name, folder name) of every row of the owner table; names that cannot be a folder
    name both Spark and DuckDB read back are refused, before anything is written."""
    limit = _name_max(target)
    found, problems = {}, []
    for row_id, name in db.fetchall(f'select "{partitioning.id}", "{partitioning.name}" from "{partitioning.owner}" '
                                    f'order by "{partitioning.id}"'):
        folder = partition_folder(partitioning.key, name)
        if name == "":
            problems.append(f"{partitioning.owner} id {row_id} has an empty name, which Spark and DuckDB read back "
                            "as null")
        elif len(folder.encode("utf-8")) > limit:
            problems.append(f"{name[:60]}...: its folder name ({partitioning.key}=<the name, /, =, % and the like as "
                            f"%XX>) is {len(folder.encode('utf-8'))} bytes, longer than the {limit} the file system allows")
        found[row_id] = (name, folder)
    if problems:
        kind, command = ("run", "run") if partitioning.owner == "runs" else ("qrels set", "qrels")
        raise OutputError(f"cannot export: {len(problems)} {kind} name{'s' if len(problems) > 1 else ''} cannot be "
                          f"a folder name: " + "; ".join(problems[:5]) + f". Ingest its file again under another "
                          f"name (irw ingest {command} FILE --name NAME), remove this one (irw rm {command} NAME) "
                          "and export again")
    return found


def _name_max(target: Path) -> int:
    folder = target.absolute()
    while not folder.exists():
        folder = folder.parent
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


@contextmanager
def _snapshot(db) -> Iterator[None]:
    """One consistent state of every table for the whole export."""
    if db.dialect == "postgres":
        with db.snapshot():
            yield
    else:
        with db.transaction():
            yield


# -- writing -------------------------------------------------------------------------------------

def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@contextmanager
def _writer(db) -> Iterator:
    """copy(table, columns, partition) -> rows: writes the table's rows (those of one partition id,
    or all) as one Parquet file at path, its columns typed as a DuckDB warehouse types them."""
    if db.dialect == "duckdb":
        def copy(table, columns, partition, path):
            select, params = _select(table, columns, partition)
            with _writing(table, path):
                return db.execute(f"copy ({select}) to {_literal(str(path))} (format parquet)", params).fetchone()[0]

        yield copy
        return
    with tempfile.TemporaryDirectory(prefix="irw-export-") as folder:
        csv = os.path.join(folder, "rows.csv")

        def copy(table, columns, partition, path):
            select, params = _select(table, columns, partition)
            try:
                db.copy_out(select, params, csv)
            except OSError as exc:
                raise OutputError(f"cannot write the rows of {table} to a temporary file ({csv}): "
                                  f"{exc.strerror or exc}; the export was not put in place") from None
            try:
                if not os.path.getsize(csv):  # no rows (DuckDB cannot read an empty CSV file's dialect)
                    return 0
                with _writing(table, path):
                    return db.staging.execute(f"copy ({_typed_csv(csv, columns)}) to {_literal(str(path))} "
                                              "(format parquet)").fetchone()[0]
            finally:
                os.unlink(csv)

        yield copy


@contextmanager
def _writing(table: str, path: Path) -> Iterator[None]:
    """DuckDB's failures to write an export file (a full disk) said as such: left to DuckDB's
    handler they would read as a full disk under the warehouse."""
    import duckdb

    try:
        yield
    except duckdb.Error as exc:
        text = str(exc)
        if str(path) in text or "No space left on device" in text:
            reason = "no space left on device" if "No space left on device" in text else text.splitlines()[0]
            raise OutputError(f"cannot write {table} of the export: {reason}; the export was not put in place") \
                from None
        raise


def _select(table: str, columns: list[tuple[str, str]], partition: tuple[str, int] | None) -> tuple[str, dict]:
    """The query of a table's rows (all, or those whose id column holds one id) and its parameters."""
    text = f"select {', '.join(_quoted(c) for c, _ in columns)} from {_quoted(table)}"
    if partition is None:
        return text, {}
    column, row_id = partition
    return f"{text} where {_quoted(column)} = $partition", {"partition": row_id}


def _typed_csv(path: str, columns: list[tuple[str, str]]) -> str:
    """A DuckDB query reading a headerless CSV file of PostgreSQL's COPY with the warehouse's
    DuckDB types: a map (PostgreSQL's JSONB) is read as its JSON text and converted; an empty
    string stays one (quoted "" in PostgreSQL's CSV), as null stays null (unquoted nothing)."""
    read_types = ", ".join(f"{_literal(c)}: {_literal('VARCHAR' if _is_nested(t) else t)}" for c, t in columns)
    select = ", ".join(f"cast(cast({_quoted(c)} as json) as {t}) as {_quoted(c)}" if _is_nested(t) else _quoted(c)
                       for c, t in columns)
    return (f"select {select} from read_csv({_literal(path)}, columns = {{{read_types}}}, header = false, "
            "delim = ',', quote = '\"', escape = '\"', auto_detect = false, allow_quoted_nulls = false)")


def _is_nested(data_type: str) -> bool:
    return data_type.upper().startswith(("MAP(", "STRUCT(")) or data_type.endswith("[]")


def _write(db, copy, work: Path, table: str, columns, names: dict[int, tuple[str, str]] | None) -> TableExport:
    """Writes a table under work: one file, or a folder holding one folder per partition with rows
    (a partition is written under a plain name, then moved into the folder its name escapes to, so
    DuckDB never meets the name in a path)."""
    if names is None:
        path = work / f"{table}.parquet"
        return TableExport(path.name, copy(table, columns, None, path))
    partitioning = PARTITIONED[table]
    folder = work / table
    folder.mkdir()
    partitions, rows = {}, 0
    for row_id, (name, folder_name) in names.items():
        staged = folder / f".{int(row_id)}.parquet"
        written = copy(table, columns, (partitioning.id, row_id), staged)
        if not written:  # no rows (a run evaluated on Spark whose rows were not stored): no folder
            staged.unlink(missing_ok=True)
            continue
        (folder / folder_name).mkdir()
        os.rename(staged, folder / folder_name / "data_0.parquet")
        partitions[name] = f"{table}/{folder_name}"
        rows += written
    total = db.fetchone(f"select count(*) from {_quoted(table)}")[0]
    if rows != total:
        raise DatabaseError(f"{table} holds {total - rows} rows whose {partitioning.id} is not in {partitioning.owner}: "
                            "they belong to no folder, so the export was not written")
    return TableExport(table, rows, partitioning.key, dict(sorted(partitions.items())))
