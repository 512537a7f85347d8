"""A new warehouse file starts as a copy of the empty warehouse irw migrated once and keeps in the
user's cache (warehouse/engines/duckdb.py, empty_warehouse): the same objects as a file migrated in
place, its own migration times, nothing left beside it, and no copy where the cache folder is not
the user's alone or the copy cannot be made."""
from __future__ import annotations

import os

import duckdb

import warehouse
from warehouse.engines import duckdb as engine
from warehouse.engines.duckdb import _OBJECTS_SQL, foreign_objects, migrations


def _objects(path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return sorted(con.execute(_OBJECTS_SQL).fetchall())
    finally:
        con.close()


def _applied(path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("select version, name, applied_at from irw_schema order by version").fetchall()
    finally:
        con.close()


def _migrated_in_place(path) -> None:
    engine._MigratedHere(str(path)).close()


def test_a_new_warehouse_is_a_copy_of_the_kept_empty_one_with_its_own_migration_times(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = tmp_path / "first.duckdb"
    with warehouse.open(first):
        pass
    (kept,) = (tmp_path / "cache" / "irw" / "warehouses").glob("empty-*.duckdb")
    made = kept.stat().st_mtime_ns
    second = tmp_path / "second.duckdb"
    with warehouse.open(second) as wh:
        assert foreign_objects(wh.db.con) == []
    assert kept.stat().st_mtime_ns == made  # made once, then copied
    in_place = tmp_path / "in_place.duckdb"
    _migrated_in_place(in_place)
    assert _objects(second) == _objects(in_place) == _objects(kept)
    assert second.stat().st_mode == in_place.stat().st_mode  # the umask's, as DuckDB makes a file
    applied, template = _applied(second), _applied(kept)
    assert [(v, n) for v, n, _ in applied] == [(v, n) for v, n, _ in template] == migrations()
    assert min(at for _, _, at in applied) > max(at for _, _, at in template)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "first.duckdb", "in_place.duckdb", "second.duckdb"]


def test_a_kept_empty_warehouse_others_may_write_is_not_copied(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with warehouse.open(tmp_path / "first.duckdb"):
        pass
    folder = tmp_path / "cache" / "irw" / "warehouses"
    (kept,) = folder.glob("empty-*.duckdb")
    con = duckdb.connect(str(kept))
    con.execute("create view planted as select 1 as x")
    con.close()
    folder.chmod(0o777)
    try:
        with warehouse.open(tmp_path / "new.duckdb") as wh:
            assert foreign_objects(wh.db.con) == []
    finally:
        folder.chmod(0o700)
    assert "planted" in str(_objects(kept)) and "planted" not in str(_objects(tmp_path / "new.duckdb"))


def test_where_the_copy_cannot_be_linked_into_place_the_migrations_run_in_the_new_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def no_links(source, target):
        raise OSError(1, "Operation not permitted")  # a file system without hard links

    monkeypatch.setattr(os, "link", no_links)
    runs = tmp_path / "runs"
    with warehouse.open(runs / "irw.duckdb") as wh:
        assert foreign_objects(wh.db.con) == []
        assert [(v, n) for v, n, _ in wh.sql("select * from irw_schema order by version").rows] == migrations()
    assert sorted(p.name for p in runs.iterdir()) == ["irw.duckdb"]  # no copy left beside it
    in_place = tmp_path / "in_place.duckdb"
    _migrated_in_place(in_place)
    assert _objects(runs / "irw.duckdb") == _objects(in_place)


def test_without_a_cache_folder_the_migrations_run_in_the_new_file(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "a file"
    not_a_folder.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        assert foreign_objects(wh.db.con) == []
        assert len(wh.sql("select * from irw_schema").rows) == len(migrations())
