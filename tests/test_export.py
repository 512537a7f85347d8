"""`irw export DIR` (issue 15): a warehouse's tables as Parquet, read back by DuckDB and Spark.

- DL19 (qrels, the six runs, stored scores and a stored significance test): every table of the
  warehouse's catalog comes back from its Parquet files row for row, each double with its bits,
  with the warehouse's column types; run rows one folder per run, qrels one per set, the partition
  column holding the name;
- run names that matter in paths (/, =, %, spaces, unicode, 007, newlines ...) come back byte for
  byte from DuckDB and Spark; names no folder can hold are refused before anything is written;
- an existing folder is refused with what to do, --replace replaces only an earlier export, and
  nothing half-written or hidden is left beside it; an empty warehouse is an error;
- a PostgreSQL warehouse (marker postgres) exports the same files, value for value, through a
  reader's role whose password the manifest masks;
- the README's export and Spark evaluation of the exported folders (marker spark) run as printed
  and print trec_eval's numbers.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

import warehouse
from warehouse.core import copy
from warehouse.errors import DatabaseError, NotFoundError, OutputError
from warehouse.store.export import INTERNAL_TABLES, MANIFEST, PARTITIONED, export_warehouse, partition_folder

from docs_pages import section
from conftest import Cli, dl19_expected, qrels_text, run_text, RUN_ROWS, write_file
from test_full_disk import small_disk  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[1]
DL19_RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
ODD_RUN = "odd run = 50% / ü"  # a seventh run, BM25's file under a name that matters in paths
HOSTILE_NAMES = ("a b", "x=y/z", "50%", "%2F", "ü ñ 日本", "007", "1.50", "NULL", "__HIVE_DEFAULT_PARTITION__",
                 "new\nline", "tab\there", "...", ".hidden", "q?#:*", "it's \"quoted\"", "back\\slash", " lead", "trail ",
                 "a+b", "{[^]}", "emoji 🎉", "".join(chr(c) for c in range(0x21, 0x7f)))


# -- reading an export back ------------------------------------------------------------------------

def _bits(value):
    """A value as it can be compared bit for bit: a double as its exact hex (-0.0 is not 0.0)."""
    if isinstance(value, float):
        return ("double", value.hex())
    if isinstance(value, dict):
        return ("map", tuple(value.items()))
    return value


def _rows(con, query: str, normalise=_bits) -> list[tuple]:
    return sorted((tuple(normalise(v) for v in row) for row in con.execute(query).fetchall()), key=repr)


def _exported(folder: Path, table: str) -> str:
    """A DuckDB relation over an exported table (partitioned ones with their name column as text)."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    entry = manifest["tables"][table]
    path = str(folder / entry["path"]).replace("'", "''")
    if "partitioned_by" in entry:
        return (f"read_parquet('{path}/*/*.parquet', hive_partitioning = true, "
                f"hive_types = {{'{entry['partitioned_by']}': 'varchar'}})")
    return f"read_parquet('{path}')"


def _stored_tables(con) -> list[str]:
    return [r[0] for r in con.execute(
        "select table_name from information_schema.tables where table_schema = 'main' "
        "and table_type = 'BASE TABLE' order by 1").fetchall() if r[0] not in INTERNAL_TABLES]


# -- a DL19 warehouse ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dl19(conformance, tmp_path_factory) -> Path:
    """A warehouse file with DL19's qrels, its six runs and ODD_RUN (with parameters), AP(rel=2)
    and nDCG@10 stored for every run, and a stored randomization test."""
    folder = conformance / "dl19-passage"
    path = tmp_path_factory.mktemp("export-dl19") / "irw.duckdb"
    with warehouse.open(path) as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([folder / "runs"])
        wh.ingest_run(folder / "runs" / "run.dl19.BM25.txt", name=ODD_RUN, parameters={"zeta": "1", "a": "k=v"})
        wh.evaluate(wh.run_names(), "dl19", ["AP(rel=2)", "nDCG@10"])
        wh.compare(["BM25", "REP_LLAMA"], "dl19", ["nDCG@10"], baseline="BM25", permutations=1000)
        # a measure written in SQL (user_measures, schema 13), with its scores
        wh.add_measure(Path(__file__).resolve().parents[1] / "examples" / "measures" / "precision_at_k.sql")
        wh.evaluate(["BM25"], "dl19", ["prec"])
    return path


@pytest.fixture(scope="module")
def dl19_export(dl19, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("export-out") / "dl19-parquet"
    with warehouse.open(dl19, read_only=True) as wh:
        result = wh.export(target)
    assert result.tables["run_rows"].rows == 5 * 4300 + 43000 + 4300  # five DL19 runs, REP_LLAMA, ODD_RUN
    return target


def test_every_table_comes_back_row_for_row_with_its_bits_and_types(dl19, dl19_export):
    manifest = json.loads((dl19_export / MANIFEST).read_text(encoding="utf-8"))
    con = duckdb.connect(str(dl19), read_only=True)
    try:
        tables = _stored_tables(con)
        assert {"runs", "run_rows", "qrels", "scores", "evaluated", "significance_results"} <= set(tables)
        assert sorted(manifest["tables"]) == tables and manifest["skipped"] == {}
        assert manifest["schema_version"] == con.execute("select max(version) from irw_schema").fetchone()[0]
        assert manifest["irw_version"] == warehouse.__version__ and manifest["warehouse"] == str(dl19)
        for table in tables:
            stored = _rows(con, f'select * from "{table}"')
            assert manifest["tables"][table]["rows"] == len(stored), table
            key = PARTITIONED[table].key if table in PARTITIONED else None
            if key and not stored:  # no partition, no file: an empty folder
                assert list((dl19_export / table).iterdir()) == [] and table in (
                    "qrels_subtopics", "preference_judgments", "preference_pairs")
                continue
            columns = [r[:2] for r in con.execute(f'describe "{table}"').fetchall()]
            exported = [r[:2] for r in con.execute(f"describe select * from {_exported(dl19_export, table)}").fetchall()]
            assert exported == columns + ([(key, "VARCHAR")] if key else []), table
            plain = ", ".join(f'"{c}"' for c, _ in columns)
            assert _rows(con, f"select {plain} from {_exported(dl19_export, table)}") == stored, table
            assert stored, f"{table} is empty: the test would compare nothing"
        # the partition column is the name of each row's run / qrels set
        assert not con.execute(f"select * from {_exported(dl19_export, 'run_rows')} as e join runs using (run_id) "
                               "where e.run <> runs.name").fetchall()
        assert sorted(manifest["tables"]["run_rows"]["partitions"]) == sorted([*DL19_RUNS, ODD_RUN])
        assert manifest["tables"]["qrels"]["partitions"] == {"dl19": "qrels/qrels_set=dl19"}
        assert con.execute(f"select parameters from {_exported(dl19_export, 'runs')} where name = ?",
                           [ODD_RUN]).fetchone()[0] == {"zeta": "1", "a": "k=v"}
        assert con.execute(f"select count(*) from {_exported(dl19_export, 'significance_results')} "
                           "where p_value is not null").fetchone()[0] == 1
    finally:
        con.close()
    for name, folder in manifest["tables"]["run_rows"]["partitions"].items():
        assert (dl19_export / folder).is_dir() and folder == "run_rows/" + partition_folder("run", name)
    assert (dl19_export / "run_rows" / "run=odd run %3D 50%25 %2F ü").is_dir()
    # nothing of the work is left beside the export
    assert sorted(p.name for p in dl19_export.parent.iterdir()) == ["dl19-parquet"]


# -- names ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile_export(tmp_path_factory) -> Path:
    """A warehouse whose runs (RUN_ROWS each) are named HOSTILE_NAMES, exported."""
    work = tmp_path_factory.mktemp("export-names")
    run = write_file(work, "run.txt", run_text(RUN_ROWS))
    with warehouse.open(work / "irw.duckdb") as wh:
        wh.ingest_qrels(write_file(work, "base.qrels", qrels_text()), "qrels / 100%")
        for name in HOSTILE_NAMES:
            wh.ingest_run(run, name=name)
        export_warehouse(wh.db, work / "out")
    return work / "out"


def test_names_that_matter_in_paths_come_back_byte_for_byte_in_duckdb(hostile_export):
    con = duckdb.connect()
    rows = con.execute(f"select run, count(*) from {_exported(hostile_export, 'run_rows')} group by run").fetchall()
    assert sorted(rows) == sorted((name, len(RUN_ROWS)) for name in HOSTILE_NAMES)
    assert con.execute(f"select distinct qrels_set from {_exported(hostile_export, 'qrels')}").fetchall() == \
        [("qrels / 100%",)]
    folders = {p.name for p in (hostile_export / "run_rows").iterdir()}
    assert folders == {partition_folder("run", name) for name in HOSTILE_NAMES}
    assert "run=%5F_HIVE_DEFAULT_PARTITION__" in folders and "run=ü ñ 日本" in folders and "run=x%3Dy%2Fz" in folders


def test_a_name_no_folder_can_hold_is_refused_before_anything_is_written(wh, tmp_path):
    run = write_file(tmp_path, "run.txt", run_text(RUN_ROWS))
    wh.ingest_qrels(write_file(tmp_path, "base.qrels", qrels_text()), "base")
    wh.ingest_run(run, name="short")
    wh.ingest_run(run, name="/" * 100)  # 300 bytes as %2F%2F...: longer than a file name may be
    with pytest.raises(OutputError, match=r"1 run name cannot be a folder name: /{60}\.\.\.: its folder name .* is "
                                          r"304 bytes, longer than the 255 the file system allows"):
        export_warehouse(wh.db, tmp_path / "out")
    assert not [p for p in tmp_path.iterdir() if p.name == "out" or p.name.startswith(".")]
    # the way out it names: a rename (it said to ingest the file again and remove the run, which
    # a run evaluated on Spark, without rows, cannot do)
    with pytest.raises(OutputError, match=r"Rename it \(irw rename run NAME NEW_NAME: its scores and history stay"):
        export_warehouse(wh.db, tmp_path / "out")
    wh.rename_run("/" * 100, "slashes")
    assert export_warehouse(wh.db, tmp_path / "renamed").tables["runs"].rows == 2
    wh.rename_run("slashes", "/" * 100)
    wh.db.execute("update runs set name = '' where name = ?", ["/" * 100])
    with pytest.raises(OutputError, match="runs id 2 has an empty name, which Spark and DuckDB read back as null"):
        export_warehouse(wh.db, tmp_path / "out")


def test_a_run_without_rows_has_no_folder_and_rows_of_no_run_are_refused(wh, tmp_path):
    run = write_file(tmp_path, "run.txt", run_text(RUN_ROWS))
    wh.ingest_qrels(write_file(tmp_path, "base.qrels", qrels_text()), "base")
    wh.ingest_run(run, name="kept")
    wh.ingest_run(run, name="rows elsewhere")
    # as a run evaluated on Spark whose rows were not stored (irw eval --engine spark --into)
    wh.db.execute("delete from run_rows where run_id = (select run_id from runs where name = ?)", ["rows elsewhere"])
    result = export_warehouse(wh.db, tmp_path / "out")
    assert result.tables["run_rows"].partitions == {"kept": "run_rows/run=kept"}
    assert result.tables["run_rows"].rows == len(RUN_ROWS) and result.tables["runs"].rows == 2
    assert [p.name for p in (tmp_path / "out" / "run_rows").iterdir()] == ["run=kept"]
    wh.db.execute("insert into run_rows select 99, query_id, doc_id, rank_given, score, trec_rank from run_rows")
    with pytest.raises(DatabaseError, match="run_rows holds 4 rows whose run_id is not in runs: they belong to no "
                                            "folder, so the export was not written"):
        export_warehouse(wh.db, tmp_path / "again")
    assert not [p for p in tmp_path.iterdir() if p.name == "again" or p.name.startswith(".")]


def test_a_table_that_is_not_irw_s_is_refused_before_anything_is_written(seeded_db, tmp_path):
    # issue 24: a warehouse holding what irw's migrations did not make is refused at open
    con = duckdb.connect(str(seeded_db))
    con.execute("create table my_notes (note varchar)")
    con.close()
    result = Cli(seeded_db)("export", tmp_path / "out")
    assert result.exit_code == 1
    assert "irw's migrations did not make (table my_notes" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


# -- the target folder -----------------------------------------------------------------------------

def test_an_existing_folder_is_refused_and_replace_replaces_only_an_export(seeded_db, tmp_path):
    irw = Cli(seeded_db)
    target = tmp_path / "out"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    result = irw("export", target)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"Error: {target} exists and holds files that are not an irw export; name a new "
                             "folder (irw replaces only an earlier export, and only with --replace)\n")
    assert irw("export", target, "--replace").exit_code == 1
    assert [p.name for p in target.iterdir()] == ["notes.txt"]

    (target / "notes.txt").unlink()  # an empty folder is written into
    first = irw("export", target)
    assert first.exit_code == 0, first.stderr
    assert "run_rows" in first.stderr and f"to {target}" in first.stderr.splitlines()[-1]
    again = irw("export", target)
    assert again.exit_code == 1
    assert again.stderr == f"Error: {target} holds an earlier export; pass --replace to replace it, or name a new folder\n"
    before = json.loads((target / MANIFEST).read_text())["exported_at"]
    (target / "stale.parquet").write_bytes(b"left from before")  # not the export's: --replace refuses
    refused = irw("export", target, "--replace")
    assert refused.exit_code == 1
    assert refused.stderr == (f"Error: cannot replace the export in {target}: it holds stale.parquet, which the "
                              "earlier export did not write (--replace removes only an export's own files); move "
                              f"it out of {target}, or name a new folder\n")
    assert (target / "stale.parquet").read_bytes() == b"left from before"
    (target / "stale.parquet").unlink()
    replaced = irw("export", target, "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    assert json.loads((target / MANIFEST).read_text())["exported_at"] >= before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["irw.duckdb", "out"]  # no work folder left

    a_file = tmp_path / "file.parquet"
    a_file.write_bytes(b"x")
    result = irw("export", a_file)
    assert result.exit_code == 1 and "it is a file, not a folder" in result.stderr


def test_an_empty_warehouse_is_an_error_and_writes_nothing(wh, tmp_path):
    with pytest.raises(NotFoundError, match="holds no qrels set and no run: nothing to export; ingest some with"):
        export_warehouse(wh.db, tmp_path / "out")
    assert not [p for p in tmp_path.iterdir() if p.name == "out" or p.name.startswith(".")]


def _export_state(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_replace_removes_only_what_the_earlier_export_wrote(seeded_db, tmp_path):
    """Issue 24: --replace deleted every file of a folder holding _irw_export.json: a README beside
    an export, a thesis beside a hand-made manifest, the warehouse itself kept in the folder."""
    irw = Cli(seeded_db)
    target = tmp_path / "out"
    assert irw("export", target).exit_code == 0
    manifest = json.loads((target / MANIFEST).read_text())
    assert manifest["files"] == sorted(p.relative_to(target).as_posix() for p in target.rglob("*")
                                       if p.is_file() and p.name != MANIFEST)
    export = _export_state(target)
    (target / "README.md").write_text("my notes")
    (target / "run_rows" / "mine").mkdir()
    for extra in ("README.md", "run_rows/mine"):
        result = irw("export", target, "--replace")
        assert result.exit_code == 1 and f"it holds {extra}, which the earlier export did not write" in result.stderr
        assert (target / extra).exists()
        (target / extra).unlink() if (target / extra).is_file() else (target / extra).rmdir()
    assert _export_state(target) == export

    # a hand-made manifest beside a thesis
    hand = tmp_path / "hand"
    hand.mkdir()
    (hand / MANIFEST).write_text(json.dumps({"format": "irw export", "tables": {}}))
    (hand / "thesis.tex").write_text("\\documentclass{article}")
    result = irw("export", hand, "--replace")
    assert result.exit_code == 1 and "it holds thesis.tex" in result.stderr
    assert sorted(p.name for p in hand.iterdir()) == [MANIFEST, "thesis.tex"]

    # the warehouse inside the folder, even under a name the manifest lists
    for name in ("irw.duckdb", "runs.parquet"):
        inside = target / name
        inside.write_bytes(seeded_db.read_bytes())
        result = Cli(inside)("export", target, "--replace")
        assert result.exit_code == 1, result.stderr
        assert result.stderr.startswith(f"Error: cannot replace the export in {target}: it holds the warehouse "
                                        f"being exported ({inside})")
        assert inside.read_bytes() == seeded_db.read_bytes()
        inside.unlink()

    # a manifest an earlier irw wrote (no files list): its tables' files are the export's
    del manifest["files"]
    (target / MANIFEST).write_text(json.dumps(manifest))
    assert irw("export", target, "--replace").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand", "irw.duckdb", "out"]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_what_a_killed_export_left_is_cleaned_by_the_next(seeded_db, tmp_path):
    """Issue 24: an export killed between its two renames left DIR missing, the old export in
    .DIR.irw-old-*; work folders of killed exports stayed. The next export to DIR puts the old
    export back and removes the rest; a live export's folder is left alone."""
    irw = Cli(seeded_db)
    target = tmp_path / "out"
    assert irw("export", target).exit_code == 0
    export = _export_state(target)
    # what a kill between the renames left (an irw before this fix named it .out.irw-old-<8 hex>)
    old = tmp_path / ".out.irw-old-1a2b3c4d"
    old.mkdir()
    os.rename(target, old / "export")
    os.utime(old, (time.time() - 7200, time.time() - 7200))  # no pid in its name: left an hour ago
    work = tmp_path / f".out.irw-export-{_dead_pid()}-0badf00d"
    work.mkdir()
    (work / "runs.parquet").write_bytes(b"half")
    (work / "run_rows").mkdir()
    (work / "run_rows" / ".1.parquet").write_bytes(b"half")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".out.irw-export-{sleeper.pid}-feedf00d"
        live.mkdir()
        (live / "runs.parquet").write_bytes(b"being written")
        result = irw("export", target)
        assert result.exit_code == 1  # the old export is back in place: replacing it takes --replace
        assert "holds an earlier export; pass --replace" in result.stderr
        assert _export_state(target) == export
        assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "irw.duckdb", "out"]
        assert (live / "runs.parquet").read_bytes() == b"being written"
    finally:
        sleeper.kill()
        sleeper.wait()
    assert irw("export", target, "--replace").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["irw.duckdb", "out"]


def test_a_killed_replace_leaves_the_old_export_or_the_new(seeded_db, tmp_path):
    """SIGKILL at moments across `irw export --replace`: DIR is always a whole export (the old one
    or the new), and the next export leaves nothing beside it."""
    import signal
    import time

    target = tmp_path / "out"
    assert Cli(seeded_db)("export", target).exit_code == 0
    command = [sys.executable, "-m", "warehouse", "export", str(target), "--replace", "--db", str(seeded_db)]
    for delay in (0.4, 0.7, 0.9, 1.1, 1.3, 1.6):
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        manifest = json.loads((target / MANIFEST).read_text())
        assert sorted(manifest["files"]) == sorted(p.relative_to(target).as_posix() for p in target.rglob("*")
                                                   if p.is_file() and p.name != MANIFEST), delay
    assert Cli(seeded_db)("export", target, "--replace").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["irw.duckdb", "out"]


def test_a_missing_warehouse_is_not_created(tmp_path):
    result = Cli(tmp_path / "none.duckdb")("export", tmp_path / "out")
    assert result.exit_code == 1 and "no warehouse at" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_full_disk_is_said_and_leaves_nothing(dl19, small_disk):
    disk = small_disk("256k")  # DL19's export takes about 1.5 MB
    result = Cli(dl19)("export", disk / "out")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot write ") and \
        result.stderr.endswith(" of the export: no space left on device; the export was not put in place\n")
    assert list(disk.iterdir()) == []



def test_a_mount_point_is_refused_before_anything_is_written(dl19, small_disk):
    """A walk exported into an empty mounted volume: `cannot put the export in place at m: Device or
    resource busy` after the whole export was written, as the finished export is renamed onto DIR."""
    disk = small_disk("4m")
    result = Cli(dl19)("export", disk)
    assert result.exit_code == 1 and result.stderr == (
        f"Error: cannot export to {disk}: it is a mount point, which the finished export cannot be renamed onto; "
        f"name a new folder inside it ({disk / 'export'})\n")
    assert list(disk.iterdir()) == [] and not list(disk.parent.glob(".*irw-export*"))
    assert Cli(dl19)("export", disk / "export").exit_code == 0


def test_an_export_s_qrels_folder_names_the_set_it_holds_on_spark(tmp_path):
    """A walk evaluated an export on Spark with qrels/qrels_set=dl21 and was told of qrels
    `qrels_set=dl21`, where run folders were read as their runs' names."""
    from warehouse.engines.spark import qrels_set_name

    assert qrels_set_name(tmp_path / "qrels" / partition_folder("qrels_set", "dl21")) == "dl21"
    odd = 'dl21 "b" 50%/x.v2'
    assert qrels_set_name(str(tmp_path / "qrels" / partition_folder("qrels_set", odd)) + "/") == odd
    assert qrels_set_name(tmp_path / "qrels.dl21-passage.txt") == "qrels.dl21-passage"

# -- PostgreSQL ------------------------------------------------------------------------------------

def _sorted_maps(value):
    # a map's order is its engine's (PostgreSQL's JSONB orders keys by length, then bytes)
    return ("map", tuple(sorted(value.items()))) if isinstance(value, dict) else _bits(value)


def test_a_postgresql_warehouse_exports_the_same_files(dl19, dl19_export, postgres_url, postgres_readonly_url,
                                                       tmp_path):
    copy(dl19, postgres_url)
    with warehouse.open(postgres_url) as pg:  # test results are not copied: computed again, the same
        pg.compare(["BM25", "REP_LLAMA"], "dl19", ["nDCG@10"], baseline="BM25", permutations=1000)
    target = tmp_path / "from-postgres"
    result = Cli(tmp_path / "unused.duckdb")("export", target, "--db", postgres_readonly_url, db=False)
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    secret = postgres_readonly_url.split(":")[2].split("@")[0]
    assert manifest["engine"] == "postgres" and manifest["warehouse"] == postgres_readonly_url.replace(secret, "***")
    assert not any(secret in p.read_text(errors="replace") for p in target.rglob("*") if p.is_file())
    duck = json.loads((dl19_export / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["schema_version"] == duck["schema_version"]
    assert {t: e["rows"] for t, e in manifest["tables"].items()} == {t: e["rows"] for t, e in duck["tables"].items()}
    con = duckdb.connect()
    for table in duck["tables"]:
        if not duck["tables"][table]["rows"] and "partitioned_by" in duck["tables"][table]:
            assert list((target / table).iterdir()) == []
            continue
        mine, theirs = _exported(target, table), _exported(dl19_export, table)
        assert con.execute(f"describe select * from {mine}").fetchall() == \
            con.execute(f"describe select * from {theirs}").fetchall(), table
        columns = [r[0] for r in con.execute(f"describe select * from {theirs}").fetchall()
                   if not (table == "significance_results" and r[0] == "computed_at")]  # when each engine tested
        select = ", ".join(f'"{c}"' for c in columns)
        assert _rows(con, f"select {select} from {mine}", _sorted_maps) == \
            _rows(con, f"select {select} from {theirs}", _sorted_maps), table


# -- Spark -----------------------------------------------------------------------------------------

@pytest.mark.spark
def test_spark_reads_the_names_back_from_the_folders(spark, hostile_export):
    from warehouse.engines.spark import SparkDatabase, _remote_holds_parquet, load_runs

    db = SparkDatabase(spark)
    try:
        assert sorted(load_runs(db, str(hostile_export / "run_rows"))) == sorted(HOSTILE_NAMES)
        assert db.table("run_rows").count() == len(HOSTILE_NAMES) * len(RUN_ROWS)
    finally:
        db.close()
    # the other tables, as Spark types them: a map, timestamps as written (no time zone), doubles
    runs = spark.read.parquet(str(hostile_export / "runs.parquet"))
    types = dict(runs.dtypes)
    assert (types["parameters"], types["ingested_at"], types["row_count"]) == ("map<string,string>", "timestamp_ntz",
                                                                              "bigint")
    con = duckdb.connect()
    stored = con.execute(f"select name, ingested_at from {_exported(hostile_export, 'runs')}").fetchall()
    assert sorted((r.name, r.ingested_at) for r in runs.collect()) == sorted(stored)
    assert spark.read.parquet(str(hostile_export / "run_queries.parquet")).count() == con.execute(f"select count(*) from {_exported(hostile_export, 'run_queries')}").fetchone()[0]
    # a folder named by URL (hdfs://, s3a:// ...) is looked into through Spark's file system
    assert _remote_holds_parquet(spark, f"file://{hostile_export / 'run_rows'}")
    assert _remote_holds_parquet(spark, f"file://{hostile_export / 'qrels' / 'qrels_set=qrels %2F 100%25'}")
    assert not _remote_holds_parquet(spark, f"file://{hostile_export.parent}")  # run files and the export folder
    assert not _remote_holds_parquet(spark, f"file://{hostile_export / 'qrels_subtopics'}")  # empty
    assert not _remote_holds_parquet(spark, f"file://{hostile_export / 'absent'}")


def _on_spark_section() -> str:
    return section("On Spark")  # docs/engines.md


def readme_export_blocks() -> tuple[str, str]:
    """The README's `irw export` command block and the Python block after it (On Spark)."""
    section = _on_spark_section().split("\n### Exported warehouses\n", 1)[1]
    shell = section.split("```\n", 1)[1].split("```", 1)[0]
    python = section.split("```python\n", 1)[1].split("```", 1)[0]
    return shell, python


@pytest.mark.spark
def test_the_readme_export_and_its_spark_evaluation_run_as_printed(spark, conformance, tmp_path, monkeypatch):
    shell, python = readme_export_blocks()
    assert [line.split()[:2] for line in shell.splitlines() if line.strip()] == [["irw", "export"]]
    source = conformance / "dl19-passage"
    (tmp_path / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (tmp_path / "runs").symlink_to(source / "runs", target_is_directory=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("IRW_DB", None)
    # the walkthrough's warehouse, then the block as printed
    script = "set -e\nirw ingest qrels qrels.dl19-passage.txt --name dl19\nirw ingest run runs/\n" + shell
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    monkeypatch.chdir(tmp_path)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(python, "README.md (On Spark, exported warehouses)", "exec"), {})
    printed = [line for line in output.getvalue().splitlines() if line.strip()]
    shown = _on_spark_section().splitlines()
    trec = {"AP(rel=2)": ("map", 2), "nDCG@10": ("ndcg_cut_10", 1)}
    seen = set()
    for line in printed:
        assert line in shown, line  # what the example prints is what the README shows
        run, measure, value = line.split()
        assert value == dl19_expected(conformance, run, trec[measure][1])[(trec[measure][0], "all")], line
        seen.add((run, measure))
    assert seen == {(run, measure) for run in DL19_RUNS for measure in trec}


@pytest.mark.spark
def test_spark_evaluates_one_collection_of_an_export_by_a_pattern(spark, conformance, tmp_path):
    """A warehouse of two collections (the publisher's per-system folders), exported: Spark reads
    one collection's run folders by a pattern, with their run names (once read as TREC text, each
    Parquet file a thousand 'problems'), and gives trec_eval's numbers."""
    import warehouse.engines.spark

    multi = conformance / "multi-collection"
    with warehouse.open(tmp_path / "two.duckdb") as wh:
        wh.ingest_qrels(multi / "qrels" / "qrels.dl21-passage.txt", "dl21")
        wh.ingest_runs([multi / "runs" / system / f"trec_results_{collection}.txt"
                        for system in ("BM25", "SPLADE_P_P_ENSEMBLE_DISTIL") for collection in ("covid", "dl21")])
        wh.export(tmp_path / "export")
    result = warehouse.engines.spark.evaluate(spark, str(tmp_path / "export" / "qrels" / "qrels_set=dl21"),
                                              str(tmp_path / "export" / "run_rows" / "run=*.dl21"), ["AP"])
    try:
        means = {run: f"{value:.4f}" for run, _measure, value, _micro, _queries in result.summary.rows}
    finally:
        result.close()
    expected = {f"{system}.dl21": next(line.split()[2] for line in (multi / "expected" / f"dl21.{system}.all_trec.q.v9.txt")
                                       .read_text().splitlines() if line.split()[:2] == ["map", "all"])
                for system in ("BM25", "SPLADE_P_P_ENSEMBLE_DISTIL")}
    assert means == expected


def test_the_cluster_block_is_the_tested_example_on_hdfs():
    """The spark-submit block of docs/engines.md ("Exported warehouses") cannot run here (no HDFS, no
    cluster): its driver is held to be the example the test above runs, but for the cluster's
    session and the hdfs:// paths of the folder `hdfs dfs -put` puts there."""
    _, python = readme_export_blocks()
    cluster = _on_spark_section().split("\n### Exported warehouses\n", 1)[1].split("hdfs dfs -put", 1)[1]
    put, heredoc = cluster.split("\n", 1)
    assert put.split() == ["dl19-parquet", "/trec/dl19-parquet"]
    driver = heredoc.split("<<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0]
    local = (python.replace('.master("local[2]")', "")
             .replace('"dl19-parquet/', '"hdfs:///trec/dl19-parquet/'))
    assert " ".join(driver.split()) == " ".join(local.split())


def test_replace_where_the_file_system_cannot_swap(seeded_db, tmp_path, monkeypatch):
    """Where renameat2's RENAME_EXCHANGE is refused (another system, some file systems), the old
    export is moved aside, the new one renamed in, and only the old one's files removed."""
    import warehouse.store.export as export

    target = tmp_path / "out"
    with warehouse.open(seeded_db, read_only=True) as wh:
        export_warehouse(wh.db, target)
        monkeypatch.setattr(export, "_exchange", lambda a, b: False)
        before = json.loads((target / MANIFEST).read_text())["exported_at"]
        export_warehouse(wh.db, target, replace=True)
    assert json.loads((target / MANIFEST).read_text())["exported_at"] >= before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["irw.duckdb", "out"]
