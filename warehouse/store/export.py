"""`irw export DIR`: a warehouse's tables as Parquet, for Spark or any other engine.

    DIR/_irw_export.json              what was exported: versions, the warehouse, rows per table
    DIR/runs.parquet                  one file per table ...
    DIR/run_rows/run=<name>/*.parquet ... except the rows of runs and qrels sets: one folder each
    DIR/qrels/qrels_set=<name>/*.parquet
    DIR/qrels_subtopics/qrels_set=<name>/*.parquet
    DIR/preference_judgments/qrels_set=<name>/*.parquet (and preference_pairs)

The tables are the database's own (its catalog: a table or column a migration adds comes along),
those irw's schema defines: a table someone else added to the database is left out and said so,
and irw_schema's migration log is the manifest's schema_version. Identifiers formatted into SQL
come only from that catalog.

Partition folders are Hive-style, so Spark, DuckDB, pandas and polars read the name back as a
column (`run`, `qrels_set`), and `warehouse.engines.spark.evaluate(spark, "DIR/qrels/qrels_set=dl19",
"DIR/run_rows", measures)` evaluates an export as it is. A name is written into its folder's name
as Spark writes one: the characters Spark escapes (`/`, `=`, `%`, `:`, `?`, quotes, control
characters ...) as %XX, everything else (spaces, unicode) as it is; Spark and DuckDB both decode
that back to the same bytes. A name is not a number, so readers should not guess a type from it:
Spark's partitionColumnTypeInference is off in irw's session, and DuckDB needs
hive_types = {'run': 'varchar'} (else a run named 007 reads back as 7). A name whose folder name
would be longer than the file system allows is refused, as is an empty one (both readers read an
empty partition value as null).

Nothing is half-written: the export is made in a hidden sibling folder (.DIR.irw-export-*) and
renamed to DIR when complete. An existing DIR is refused unless it is empty, or it holds an earlier
export and replace=True. Replacing removes only what the earlier export wrote (its manifest's
`files`, and the manifest): any other file in DIR, or the open warehouse inside it, makes replace
refuse, naming the file. An earlier export is swapped with the new one in one atomic rename
(Linux's RENAME_EXCHANGE), so a kill at any moment leaves DIR the old export or the new one; where
the file system cannot swap, the old export is moved aside first, and a kill between the two
renames is undone by the next export to DIR. The next export to DIR also removes what a killed
one left beside it (warehouse/leftovers.py: only folders whose process is gone).

DuckDB writes every file, with one COPY per table or partition (the rows of one run or qrels set,
by its id: DuckDB's PARTITION_BY held 2.7 GB for 25M run rows, this 0.55 GB). A DuckDB warehouse is
read on its own connection, in one transaction. A PostgreSQL one is read in one REPEATABLE READ
transaction (one state of every table), each table or partition sent with COPY TO STDOUT as CSV
(doubles as their shortest exact text) and read by the local DuckDB staging database with the
types a DuckDB warehouse's columns have: both engines give the same Parquet files, value for value.
An empty table (scores before any evaluation, qrels_sets with no qrels set) is a Parquet file of 0
rows with the table's columns and types, on either engine. A run without rows (evaluated on Spark,
its rows not stored) has no run_rows folder.
"""
from __future__ import annotations

import datetime as dt
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from warehouse import leftovers
from warehouse.errors import ConflictError, DatabaseError, NotFoundError, OutputError
from warehouse.resources import composed_sql

MANIFEST = "_irw_export.json"
FORMAT_VERSION = 1
# tables of the schema that are not data: the migration log (its version goes in the manifest), and
# the login of `irw sql`'s reader on PostgreSQL (a password)
# score_summaries is a cache of sums of stored scores a served page keeps (schema 16), keyed by
# when those scores were computed: rebuilt from the exported scores, never a fact of its own.
INTERNAL_TABLES = {"irw_schema", "irw_reader_login", "score_summaries"}
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
    "preference_judgments": Partitioning("qrels_set", "qrels_sets", "qrels_set_id", "name"),
    "preference_pairs": Partitioning("qrels_set", "qrels_sets", "qrels_set_id", "name"),
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
    """Writes every table of the warehouse `db` (warehouse/engines/duckdb.py's Database or warehouse/engines/postgres.py's
    PostgresDatabase) as Parquet under `directory` (see the module docstring). A warehouse with no
    qrels set and no run is a NotFoundError: there is nothing to export."""
    from warehouse.version import __version__

    target = shown = Path(directory)
    if target.is_symlink() and target.is_dir():  # a link to a folder: the folder is replaced, the link kept
        target = Path(os.path.realpath(target))
    _clean_leftovers(target)
    earlier = _check_target(target, replace, db)
    tables, skipped = _tables(db)
    with _snapshot(db):
        counts = {name: db.run_file(f"catalog/{count}.sql").fetchone()[0]
                  for name, count in (("runs", "run_count"), ("qrels_sets", "qrels_set_count"))}
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
                # every file of the export but this manifest: what replacing it removes
                "files": _files_of(work),
            }
            (work / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            _put_in_place(work, target, earlier)
        except BaseException as exc:
            leftovers.remove_held_folder(work)
            if isinstance(exc, OSError):  # a folder or the manifest on a full disk
                raise OutputError(f"cannot write the export beside {target}: {exc.strerror or exc}; it was not put "
                                  "in place") from None
            raise
    return ExportResult(shown, written, skipped, manifest)


# -- the target folder ---------------------------------------------------------------------------

def _check_target(target: Path, replace: bool, db) -> set[str] | None:
    """Refuses a target that is not new, empty, or (with replace) an earlier export holding nothing
    else; returns the earlier export's files (relative paths, its manifest included) or None."""
    from warehouse.formats.files import part_of_warehouse

    for file in db.files[:1]:  # a folder in place of the WAL failed every later open of the warehouse
        where = part_of_warehouse(target, file)
        if where:
            raise OutputError(f"cannot export to {target}: {where} being exported ({file}); name a new folder")
    if not target.exists():
        if target.is_symlink():
            raise OutputError(f"cannot export to {target}: it is a link to nothing; name a folder")
        return None
    if not target.is_dir():
        raise OutputError(f"cannot export to {target}: it is a file, not a folder; name a new folder")
    if os.path.ismount(target):
        # the export is renamed into place whole, and a mount point cannot be renamed over (EBUSY)
        raise OutputError(f"cannot export to {target}: it is a mount point, which the finished export cannot be "
                          f"renamed onto; name a new folder inside it ({target / 'export'})")
    if not any(target.iterdir()):
        return None
    listed = _exported_files(target)
    if listed is None:
        raise ConflictError(f"{target} exists and holds files that are not an irw export; name a new folder "
                            "(irw replaces only an earlier export, and only with --replace)")
    if not replace:
        raise ConflictError(f"{target} holds an earlier export; pass --replace to replace it, or name a new folder")
    inside = _warehouse_inside(db, target)
    if inside is not None:
        raise ConflictError(f"cannot replace the export in {target}: it holds the warehouse being exported "
                            f"({inside}); move the warehouse out of {target}, or name a new folder")
    folders = {name.rstrip("/") for name in listed if name.endswith("/")}
    folders |= {str(Path(name).parent.as_posix()) for name in listed}
    folders = {p for name in folders for p in _ancestors(name)}
    for root, dirs, files in os.walk(target):
        here = Path(root).relative_to(target)
        for name in sorted(dirs):
            relative = (here / name).as_posix()
            if relative not in folders or os.path.islink(os.path.join(root, name)):
                _refuse_other_file(target, relative)
        for name in sorted(files):
            relative = (here / name).as_posix()
            if relative not in listed or not os.path.isfile(os.path.join(root, name)) \
                    or os.path.islink(os.path.join(root, name)):
                _refuse_other_file(target, relative)
    return listed


def _ancestors(relative: str) -> list[str]:
    parts = relative.split("/") if relative not in ("", ".") else []
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _refuse_other_file(target: Path, relative: str) -> None:
    raise ConflictError(f"cannot replace the export in {target}: it holds {relative}, which the earlier export "
                        f"did not write (--replace removes only an export's own files); move it out of {target}, "
                        "or name a new folder")


def _exported_files(folder: Path) -> set[str] | None:
    """The files an earlier export in folder wrote, its manifest included (relative POSIX paths),
    from its manifest: its `files`, or for a manifest written before irw listed them, each table's
    file and each partition's data_0.parquet. None when folder holds no irw export's manifest."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != "irw export":
        return None
    found = {MANIFEST}
    try:
        for table in manifest["tables"].values():
            if table.get("partitioned_by"):
                found.add(f"{table['path']}/")  # its folder, even with no partition in it
                found.update(f"{path}/data_0.parquet" for path in table["partitions"].values())
            else:
                found.add(str(table["path"]))
        if "files" in manifest:
            found = {name for name in found if name.endswith("/")} | {MANIFEST}
            found.update(str(name) for name in manifest["files"])
    except (AttributeError, KeyError, TypeError):
        return None
    return found


def _files_of(folder: Path) -> list[str]:
    """Every file under folder (relative POSIX paths, sorted), as the manifest lists them."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _warehouse_inside(db, target: Path) -> str | None:
    """The warehouse's file (or its WAL) when it lies inside target, else None."""
    if not db.files:
        return None
    folder = target.resolve()
    for candidate in map(Path, db.files):
        try:
            resolved = candidate.resolve()
        except OSError:
            continue
        if resolved == folder or folder in resolved.parents:
            return str(candidate)
    return None


def _new_sibling(target: Path, what: str) -> Path:
    """A new hidden folder beside target (on its file system, so renames are atomic), made as any
    folder is (mkdtemp's would be private to this user), held by this process (warehouse/leftovers.py)."""
    try:
        return leftovers.make_held_folder(target.absolute().parent, f".{target.name}.{what}-")
    except OSError as exc:
        raise OutputError(f"cannot export to {target}: cannot create a folder beside it "
                          f"({exc.strerror or exc})") from None


def _put_in_place(work: Path, target: Path, earlier: set[str] | None) -> None:
    """Renames the finished export to target. An earlier export there is swapped with it in one
    rename where the file system can (then removed from the work folder's name), else moved aside
    first; either way only the earlier export's own files are removed."""
    if earlier is not None and target.exists() and any(target.iterdir()):
        if _exchange(work, target):
            _remove_listed(work, earlier)
            return
        old = _new_sibling(target, "irw-old")
        try:
            os.rename(target, old / "export")
            os.rename(work, target)
        except OSError as exc:
            if not target.exists() and (old / "export").exists():
                os.rename(old / "export", target)
            raise OutputError(f"cannot put the export in place at {target}: {exc.strerror or exc}") from None
        _remove_listed(old / "export", earlier)
        _remove_empty(old)
        leftovers.release(old)
        leftovers.release(work)  # now target, in place
        return
    try:
        os.rename(work, target)  # onto nothing, or an empty folder
    except OSError as exc:
        raise OutputError(f"cannot put the export in place at {target}: {exc.strerror or exc}") from None
    leftovers.release(work)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two folders in one atomic rename (Linux renameat2 RENAME_EXCHANGE); False where the
    system or file system cannot."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    return False


def _remove_listed(folder: Path, listed: set[str]) -> None:
    """Removes the listed files under folder, then its folders left empty (folder too); anything
    else stays where it is."""
    for name in listed:
        path = folder / name
        if folder.resolve() not in path.resolve().parents:
            continue  # a manifest's path outside the folder (../x) names nothing of the export
        try:
            if path.is_file() and not path.is_symlink():
                path.unlink()
        except OSError:
            pass
    _remove_empty(folder)
    leftovers.release(folder)


def _remove_empty(folder: Path) -> None:
    """Removes folder and its subfolders where they hold nothing."""
    for root, dirs, files in os.walk(folder, topdown=False):
        try:
            os.rmdir(root)
        except OSError:
            pass


def _export_shaped(folder: Path) -> None:
    """Removes from a folder a killed export left what an export writes (its manifest, table files,
    partition folders' data files and the staged .N.parquet files), then the folders left empty."""
    for path in [folder / MANIFEST, *folder.glob("*.parquet")]:
        path.unlink(missing_ok=True)
    for table in PARTITIONED:
        for path in [*(folder / table).glob(".*.parquet"), *(folder / table).glob("*=*/data_0.parquet")]:
            path.unlink(missing_ok=True)
    _remove_empty(folder)


def _clean_leftovers(target: Path) -> None:
    """What an export to target killed before its end left beside it: a work folder
    (.DIR.irw-export-*) is removed; an earlier export moved aside (.DIR.irw-old-*/export) goes back
    to DIR when DIR is missing, else is removed. Only folders whose process is gone
    (warehouse/leftovers.py), and in them only what an export writes."""
    parent = target.absolute().parent
    if not parent.is_dir():
        return
    leftovers.clean(parent, f".{target.name}.irw-export-", _export_shaped)

    def restore_or_remove(old: Path) -> None:
        moved = old / "export"
        if moved.is_dir() and not os.path.lexists(target):
            os.rename(moved, target)
        elif moved.is_dir():
            _export_shaped(moved)
        _remove_empty(old)

    leftovers.clean(parent, f".{target.name}.irw-old-", restore_or_remove)


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
    if db.staging is not db:  # a local DuckDB database of its own, holding irw's tables and nothing else
        return _catalog(db.staging)
    from warehouse.engines.duckdb import MEMORY, Database

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
    for row_id, name in db.run_sql(composed_sql(
            "export/partition_names.sql", id=_quoted(partitioning.id), name=_quoted(partitioning.name),
            owner=_quoted(partitioning.owner))).fetchall():
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
                          f"a folder name: " + "; ".join(problems[:5]) + f". Rename it (irw rename {command} NAME "
                          "NEW_NAME: its scores and history stay with it) and export again")
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
    with db.snapshot():
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
    if db.writes_parquet:
        def copy(table, columns, partition, path):
            select, params = _select(table, columns, partition)
            with _writing(table, path):
                return db.run_sql(composed_sql("export/write_parquet.sql", rows=select, path=_literal(str(path))),
                                  params).fetchone()[0]

        yield copy
        return
    with leftovers.temporary_folder("irw-export-") as folder:  # a killed export's is removed by the next
        csv = os.path.join(folder, "rows.csv")

        def copy(table, columns, partition, path):
            select, params = _select(table, columns, partition)
            try:
                db.copy_out(select, params, csv)
            except OSError as exc:
                raise OutputError(f"cannot write the rows of {table} to a temporary file ({csv}): "
                                  f"{exc.strerror or exc}; the export was not put in place") from None
            try:
                # no rows: a file of 0 rows with the table's columns all the same, as a DuckDB warehouse's
                # COPY writes (some DuckDB versions cannot read an empty CSV file's dialect)
                rows = _typed_csv(csv, columns) if os.path.getsize(csv) else _no_rows(columns)
                with _writing(table, path):
                    return db.staging.run_sql(composed_sql("export/write_parquet.sql", rows=rows,
                                                           path=_literal(str(path)))).fetchone()[0]
            finally:
                os.unlink(csv)

        yield copy


@contextmanager
def _writing(table: str, path: Path) -> Iterator[None]:
    """DuckDB's failures to write an export file (a full disk) said as such: left to DuckDB's
    handler they would read as a full disk under the warehouse."""
    from warehouse.engines.duckdb import DuckDBError

    try:
        yield
    except DuckDBError as exc:
        text = str(exc)
        if str(path) in text or "No space left on device" in text:
            reason = "no space left on device" if "No space left on device" in text else text.splitlines()[0]
            raise OutputError(f"cannot write {table} of the export: {reason}; the export was not put in place") \
                from None
        raise


def _select(table: str, columns: list[tuple[str, str]], partition: tuple[str, int] | None) -> tuple[str, dict]:
    """The query of a table's rows (all, or those whose id column holds one id) and its parameters."""
    names = ", ".join(_quoted(c) for c, _ in columns)
    if partition is None:
        return composed_sql("export/table_rows.sql", columns=names, table=_quoted(table)), {}
    column, row_id = partition
    return (composed_sql("export/partition_rows.sql", columns=names, table=_quoted(table), column=_quoted(column)),
            {"partition": row_id})


def _typed_csv(path: str, columns: list[tuple[str, str]]) -> str:
    """A DuckDB query reading a headerless CSV file of PostgreSQL's COPY with the warehouse's
    DuckDB types: a map (PostgreSQL's JSONB) is read as its JSON text and converted; an empty
    string stays one (quoted "" in PostgreSQL's CSV), as null stays null (unquoted nothing)."""
    read_types = ", ".join(f"{_literal(c)}: {_literal('VARCHAR' if _is_nested(t) else t)}" for c, t in columns)
    select = ", ".join(composed_sql("export/nested_column.sql", column=_quoted(c), type=t) if _is_nested(t)
                       else _quoted(c) for c, t in columns)
    return composed_sql("export/typed_csv.sql", columns=select, path=_literal(path), types="{" + read_types + "}")


def _no_rows(columns: list[tuple[str, str]]) -> str:
    """A DuckDB query of no row with the warehouse's columns and DuckDB types: an empty table's file."""
    select = ", ".join(f"cast(null as {t}) as {_quoted(c)}" for c, t in columns)
    return composed_sql("export/no_rows.sql", columns=select)


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
    total = db.run_sql(composed_sql("export/row_count.sql", table=_quoted(table))).fetchone()[0]
    if rows != total:
        raise DatabaseError(f"{table} holds {total - rows} rows whose {partitioning.id} is not in {partitioning.owner}: "
                            "they belong to no folder, so the export was not written")
    return TableExport(table, rows, partitioning.key, dict(sorted(partitions.items())))
