"""One engine interface (warehouse/engines/__init__.py): each engine class implements it, the engine of a
warehouse is chosen in one place, and no module outside the engine modules branches on an engine's name."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import fresh_postgres_database
from warehouse import engines
from warehouse.commands.irw import app
from warehouse.engines.duckdb import MEMORY, Database
from warehouse.errors import UsageError
from warehouse.engines.postgres import PostgresDatabase
from warehouse.engines.spark import SparkDatabase

PACKAGE = Path(__file__).resolve().parent.parent / "warehouse"
# where engines are implemented and chosen: the only modules that may name one to branch on it
# the engine folder: warehouse/engines/ (the interface, one module per engine, the dialects)
ENGINE_FOLDER = PACKAGE / "engines"


def _members(protocol) -> dict[str, object]:
    """The protocol's own members (annotations and defs), its bases' included."""
    found: dict[str, object] = {}
    for klass in reversed(protocol.__mro__):
        if klass in (object,) or klass.__name__ in ("Protocol", "Generic"):
            continue
        found.update({name: None for name in getattr(klass, "__annotations__", {})})
        found.update({name: value for name, value in vars(klass).items()
                      if not name.startswith("_") and (callable(value) or isinstance(value, property))})
    return found


def _instance_attributes(klass) -> set[str]:
    """Names the class's __init__ assigns to self."""
    source = inspect.getsource(klass.__init__)
    return set(re.findall(r"self\.([a-z_]+)\s*(?::[^=]+)?=", source))


@pytest.mark.parametrize("klass, protocol", [
    (Database, engines.WarehouseEngine),
    (PostgresDatabase, engines.WarehouseEngine),
    (SparkDatabase, engines.Engine),
], ids=["duckdb", "postgres", "spark"])
def test_each_engine_implements_the_interface(klass, protocol):
    missing, unlike = [], []
    for name, member in _members(protocol).items():
        if not (hasattr(klass, name) or name in _instance_attributes(klass)):
            missing.append(name)
            continue
        if callable(member) and not isinstance(member, property):
            mine = getattr(klass, name)
            wanted = [p for p in inspect.signature(member).parameters if p != "self"]
            have = [p for p in inspect.signature(mine).parameters if p != "self"]
            if have[:len(wanted)] != wanted:
                unlike.append(f"{name}{inspect.signature(mine)} (the interface: {name}{inspect.signature(member)})")
    assert not missing, f"{klass.__name__} lacks {', '.join(missing)} of {protocol.__name__}"
    assert not unlike, f"{klass.__name__}'s members differ from {protocol.__name__}'s: " + "; ".join(unlike)
    assert klass.dialect in engines.ENGINES


def test_a_duckdb_warehouse_is_a_warehouse_engine():
    db = Database(MEMORY)
    try:
        assert isinstance(db, engines.WarehouseEngine) and isinstance(db, engines.Engine)
        assert db.has_table("runs") and not db.has_table("no_such_table")
        assert db.identity == ("duckdb", db.identity[1]) and db.files == []
        import duckdb

        from warehouse.errors import IrwError

        assert isinstance(db.error_of(duckdb.IOException("No space left on device")), IrwError)
        assert db.error_of(ValueError("not DuckDB's")) is None
    finally:
        db.close()


# an engine's name compared or looked up, or the dialect read to branch on it
_BRANCH = re.compile(r"""dialect\s*(?:[!=]=|\bin\b|\bnot\s+in\b)"""
                     r"""|[!=]=\s*["'](?:duckdb|postgres|spark)["']"""
                     r"""|["'](?:duckdb|postgres|spark)["']\s*(?:[!=]=|\bin\b)"""
                     r"""|\bEngine\.(?:duckdb|postgres|spark)\b"""
                     r"""|isinstance\([^)]*(?:PostgresDatabase|SparkDatabase)"""
                     r"""|\bis_url\(""")  # a location's engine: engines.engine_of / engine_class / on_server


def test_no_module_outside_the_engine_modules_branches_on_an_engine():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent == ENGINE_FOLDER:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if _BRANCH.search(code):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not found, ("engine branches outside the engine modules (make it an engine method or a capability "
                       "of warehouse/engines/__init__.py):\n" + "\n".join(found))


def test_the_branch_pattern_finds_branches():
    for line in ('if db.dialect == "postgres":', "if target.dialect != 'duckdb' and x:", 'if args.engine == "spark":',
                 "if engine is Engine.spark:", "if isinstance(db, PostgresDatabase):", "create=is_url(db)"):
        assert _BRANCH.search(line), line
    for line in ('"engine": db.dialect,', "dialect = 'duckdb'", "sqlglot.parse(query, read=\"postgres\")"):
        assert not _BRANCH.search(line), line


@pytest.mark.parametrize("engine, location, chosen", [
    (None, "irw.duckdb", "duckdb"),
    (None, "postgresql://u@h/db", "postgres"),
    ("duckdb", "irw.duckdb", "duckdb"),
    ("postgres", "postgres://u@h/db", "postgres"),
    ("spark", "irw.duckdb", "spark"),
    ("spark", "postgresql://u@h/db", "spark"),
])
def test_the_engine_follows_the_warehouse(engine, location, chosen):
    assert engines.chosen(engine, location) == chosen


@pytest.mark.parametrize("engine, location, says", [
    ("duckdb", "postgresql://u:secret@h/db", "--engine duckdb but --db (or IRW_DB) is a PostgreSQL URL"),
    ("postgres", "irw.duckdb", "--engine postgres but --db (or IRW_DB) is a DuckDB file"),
])
def test_an_engine_the_warehouse_contradicts_is_refused(engine, location, says):
    with pytest.raises(UsageError, match=re.escape(says)) as refused:
        engines.chosen(engine, location)
    assert "leave out --engine" in str(refused.value) and "secret" not in str(refused.value)


def test_eval_engine_duckdb_on_a_postgresql_url_is_refused():
    """It evaluated on PostgreSQL, silently; now it says what to do, before connecting anywhere."""
    result = CliRunner().invoke(app, ["eval", "-m", "AP", "--engine", "duckdb", "--db",
                                      "postgresql://nobody:pw@127.0.0.1:1/none"])
    assert result.exit_code == 2, result.output
    assert "Error: --engine duckdb but --db (or IRW_DB) is a PostgreSQL URL, a postgres warehouse: leave out " \
           "--engine" in result.stderr


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def warehouse_db(request, tmp_path):
    """A new warehouse on each warehouse engine, opened where the engine is chosen (engines.open_database)."""
    if request.param == "duckdb":
        location = str(tmp_path / "seam.duckdb")
        db = engines.open_database(location)
        yield db, location
        db.close()
        return
    with fresh_postgres_database(request.getfixturevalue("postgres_server")) as location:
        db = engines.open_database(location)
        try:
            yield db, location
        finally:
            db.close()


def test_the_shared_members_behave_alike_on_every_warehouse_engine(warehouse_db, tmp_path):
    db, location = warehouse_db
    assert isinstance(db, engines.WarehouseEngine) and db.dialect == engines.engine_of(location)
    assert db.has_table("runs") and not db.has_table("no_such_table")
    (text, names), = db.statements("select $a::integer + 1 as b")
    assert names == frozenset({"a"})
    db.load_rows("seam_numbers", [("n", "integer"), ("t", "varchar")], [(1, "one"), (2, ""), (3, None)])
    assert db.has_table("seam_numbers")
    csv = str(tmp_path / "rows.csv")
    db.copy_out("select n, t from seam_numbers where n >= $least order by n", {"least": 2}, csv)
    db.execute("create temp table seam_copy (n integer, t varchar)")
    db.copy_in("seam_copy", ("n", "t"), csv)
    with db.snapshot():
        assert db.fetchall("select n, t from seam_copy order by n") == [(2, ""), (3, None)]
    again = engines.open_database(location)
    try:
        assert engines.same_warehouse(db, again)
    finally:
        again.close()


# The drivers are imported by the engine modules alone (issue 25): a module that needs an engine's
# errors or connections gets them from its engine module (engines/duckdb.py's DuckDBError, frame_connection ...).
# spark_store.py is no engine module here: it imports no driver.
DRIVERS = ("duckdb", "psycopg")
DRIVER_MODULES = ({path.relative_to(PACKAGE).as_posix() for path in ENGINE_FOLDER.glob("*.py")}
                  - {"engines/spark_store.py"})


def _driver_imports(path: Path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in DRIVERS)
    return found


def test_only_the_engine_modules_import_a_driver():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module in DRIVER_MODULES:
            continue
        found += [f"warehouse/{module} imports {driver}" for driver in sorted(_driver_imports(path))]
    assert not found, ("a driver imported outside the engine modules (get what it needs from the engine module: "
                       "db.DuckDBError, db.frame_connection, an engine method):\n" + "\n".join(found))


def test_the_driver_scan_finds_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import duckdb\nfrom psycopg import sql\ndef f():\n    import duckdb.typing\nfrom .db import x\n")
    assert _driver_imports(module) == {"duckdb", "psycopg"}
