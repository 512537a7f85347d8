"""Opening a warehouse: whatever --db / IRW_DB / warehouse.open() names, the answer is the warehouse
or a clear `Error: ...` (exit 1), never a hang, a traceback, a new empty file or someone else's
database with irw's tables added to it."""
from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import warehouse
from warehouse.engines.duckdb import migrations
from warehouse.resources import read_sql

from conftest import QRELS_ROWS, RUN_ROWS, Cli, fingerprint_at, qrels_text, run_text, write_file

IRW = [sys.executable, "-m", "warehouse"]
# A guard against the old hang (a FIFO blocked the open forever), not a timing assert.
GUARD_SECONDS = 120


def irw_process(*args, cwd: Path, env: dict | None = None, prefix: tuple = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *IRW, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=GUARD_SECONDS, env={**os.environ, "IRW_DB": "", **(env or {})})


def assert_clear_error(result, *fragments: str, exit_code: int = 1) -> None:
    stderr = result.stderr
    code = result.returncode if hasattr(result, "returncode") else result.exit_code
    assert code == exit_code, stderr
    assert stderr.startswith("Error: "), stderr
    assert "Traceback" not in stderr and "Error: \n" not in stderr, stderr
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)


@pytest.fixture
def inputs(tmp_path) -> dict[str, Path]:
    folder = tmp_path / "inputs"
    folder.mkdir()
    return {"qrels": write_file(folder, "q.txt", qrels_text(QRELS_ROWS)),
            "run": write_file(folder, "r.txt", run_text(RUN_ROWS))}


# Every command that opens a warehouse, with what it needs to get that far.
def commands(inputs) -> dict[str, list[str]]:
    return {
        "runs": ["runs"],
        "qrels": ["qrels"],
        "sql": ["sql", "select 1"],
        "eval": ["eval", "--qrels", "base", "-m", "AP"],
        "compare": ["compare", "tagA", "--qrels", "base", "-m", "AP"],
        "report": ["report", "leaderboard", "--qrels", "base", "--format", "csv"],
        "rm": ["rm", "run", "tagA"],
        "migrate": ["migrate"],
        "ingest qrels": ["ingest", "qrels", str(inputs["qrels"]), "--name", "base"],
        "ingest run": ["ingest", "run", str(inputs["run"])],
    }


COMMAND_NAMES = ["runs", "qrels", "sql", "eval", "compare", "report", "rm", "migrate", "ingest qrels", "ingest run"]


# -- what is not a regular file ------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("command", ["runs", "sql", "ingest qrels"])
def test_a_fifo_is_refused_not_waited_on(command, tmp_path, inputs):
    fifo = tmp_path / "pipe.duckdb"
    os.mkfifo(fifo)
    result = irw_process(*commands(inputs)[command], "--db", fifo, cwd=tmp_path)
    assert_clear_error(result, f"cannot open warehouse {fifo}: it is a FIFO (named pipe), not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_the_api_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "pipe.duckdb"
    os.mkfifo(fifo)
    code = ("import sys, warehouse\ntry:\n    warehouse.open(sys.argv[1])\nexcept warehouse.NotAWarehouse as e:\n"
            "    print(type(e).__name__, e)\n")
    result = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True,
                            timeout=GUARD_SECONDS)
    assert result.stdout.startswith(f"NotAWarehouse cannot open warehouse {fifo}: it is a FIFO"), result.stderr


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_a_directory_is_refused(command, tmp_path, inputs):
    folder = tmp_path / "warehouse.duckdb"
    folder.mkdir()
    result = Cli(folder)(*commands(inputs)[command])
    assert_clear_error(result, f"cannot open warehouse {folder}: it is a directory; pass a file path")
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
@pytest.mark.parametrize("command", ["runs", "ingest qrels"])
def test_a_device_is_refused(command, tmp_path, inputs):
    result = Cli(Path("/dev/null"))(*commands(inputs)[command])
    assert_clear_error(result, "cannot open warehouse /dev/null: it is a character device, not a regular file")


# -- files that are not irw warehouses ---------------------------------------------------------------

@pytest.mark.parametrize("kind, expected", [
    ("text", "not a valid DuckDB database file (it does not start as DuckDB files do)"),
    ("empty", "not a valid DuckDB database file (it is empty)"),
    ("sqlite", "not a valid DuckDB database file (it starts like a SQLite database)"),
])
@pytest.mark.parametrize("command", ["runs", "sql", "eval", "ingest qrels"])
def test_a_file_that_is_not_duckdb_is_refused_and_left_alone(kind, expected, command, tmp_path, inputs):
    path = tmp_path / "notes.duckdb"
    if kind == "text":
        path.write_text("not a database\n")
    elif kind == "empty":
        path.write_bytes(b"")
    else:  # DuckDB would try to download its sqlite extension to read this
        with sqlite3.connect(path) as con:
            con.execute("create table runs (x)")
        con.close()
    before = path.read_bytes()
    result = Cli(path)(*commands(inputs)[command])
    assert_clear_error(result, f"cannot open warehouse {path}: {expected}")
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["directory", "text", "empty", "sqlite", "device"])
@pytest.mark.parametrize("read_only", [False, True])
def test_the_api_refuses_what_is_not_a_duckdb_file(kind, read_only, tmp_path):
    path = tmp_path / "x.duckdb"
    if kind == "directory":
        path.mkdir()
    elif kind == "text":
        path.write_text("not a database\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "sqlite":
        with sqlite3.connect(path) as con:
            con.execute("create table t (x)")
        con.close()
    else:
        path = Path("/dev/null")
    with pytest.raises(warehouse.NotAWarehouse, match=f"cannot open warehouse {path}: "):
        warehouse.open(path, read_only=read_only)


def _foreign_database(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path))
    con.execute("create table runs (id integer, note varchar)")
    con.execute("insert into runs values (1, 'mine')")
    con.execute("create view v as select * from runs")
    con.close()
    return _objects(path)


def _objects(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("select table_name, table_type from information_schema.tables order by 1").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_another_duckdb_database_is_refused_and_never_given_our_tables(command, tmp_path, inputs):
    path = tmp_path / "theirs.duckdb"
    before = _foreign_database(path)
    result = Cli(path)(*commands(inputs)[command])
    assert_clear_error(result, f"cannot open warehouse {path}: it is a DuckDB database but not an irw warehouse "
                               "(it holds runs, v and no irw_schema table)")
    assert _objects(path) == before


@pytest.mark.parametrize("read_only", [False, True])
def test_the_api_refuses_another_duckdb_database(read_only, tmp_path):
    path = tmp_path / "theirs.duckdb"
    before = _foreign_database(path)
    with pytest.raises(warehouse.NotAWarehouse, match="not an irw warehouse"):
        warehouse.open(path, read_only=read_only)
    assert _objects(path) == before


def test_an_empty_duckdb_database_becomes_a_warehouse(tmp_path, inputs):
    path = tmp_path / "new.duckdb"
    duckdb.connect(str(path)).close()
    result = Cli(path)(*commands(inputs)["ingest qrels"])
    assert result.exit_code == 0, result.stderr
    assert fingerprint_at(path)["qrels"][0] == len(QRELS_ROWS)


# -- URLs ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["x://", "s3://bucket/irw.duckdb", "md:irw", "mysql://irw:s3cret@localhost/irw"])
@pytest.mark.parametrize("via", ["--db", "IRW_DB"])
@pytest.mark.parametrize("command", ["runs", "sql", "ingest qrels"])
def test_a_url_irw_cannot_open_is_a_clear_error_never_a_file_name(url, via, command, tmp_path, inputs):
    args = commands(inputs)[command] + (["--db", url] if via == "--db" else [])
    result = irw_process(*args, cwd=tmp_path, env={"IRW_DB": url} if via == "IRW_DB" else None)
    assert_clear_error(result, "irw opens DuckDB files and PostgreSQL servers "
                               "(postgresql://user:password@host:5432/dbname); pass one")
    assert "s3cret" not in result.stderr  # the rest of a URL may hold a password
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs"]  # no mysql:/ folder, no file


@pytest.mark.parametrize("via", ["--db", "IRW_DB"])
@pytest.mark.parametrize("command", ["runs", "sql", "ingest qrels"])
def test_a_postgresql_server_that_cannot_be_reached_is_a_clear_error_without_the_password(via, command, tmp_path,
                                                                                          inputs):
    url = "postgresql://irw:s3cret@127.0.0.1:1/irw"  # port 1: nothing listens, the connection is refused
    args = commands(inputs)[command] + (["--db", url] if via == "--db" else [])
    result = irw_process(*args, cwd=tmp_path, env={"IRW_DB": url} if via == "IRW_DB" else None)
    assert_clear_error(result, "cannot open warehouse postgresql://irw:***@127.0.0.1:1/irw: ")
    assert "s3cret" not in result.stderr + result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs"]


@pytest.mark.parametrize("password", ["on", "e", "127"])
def test_a_password_that_is_a_common_word_is_masked_in_the_url_not_in_the_server_s_prose(password, tmp_path):
    """A walk's password `on` was masked wherever its letters stood: "c***necti*** refused; ... listening
    *** 127.0.0.1", which garbled the message and showed which word the password was."""
    said = Cli(tmp_path / "unused.duckdb")("runs", "--db", f"postgresql://irw:{password}@127.0.0.1:1/irw", db=False)
    assert said.exit_code == 1
    assert said.stderr == ('Error: cannot open warehouse postgresql://irw:***@127.0.0.1:1/irw: connection failed: '
                           'connection to server at "127.0.0.1", port 1 failed: Connection refused; is the server '
                           'running and listening on 127.0.0.1:1?\n'), said.stderr


def test_the_api_refuses_a_url_it_cannot_open(tmp_path):
    with pytest.raises(warehouse.WarehouseOpenError, match="irw opens DuckDB files and PostgreSQL servers"):
        warehouse.open("mysql://localhost/irw")
    with pytest.raises(warehouse.WarehouseOpenError, match=r"postgresql://irw:\*\*\*@127.0.0.1:1/irw") as caught:
        warehouse.open("postgresql://irw:s3cret@127.0.0.1:1/irw")
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("bad", [None, 42, ["irw.duckdb"]])
def test_the_api_refuses_what_is_not_a_path(bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if bad is None:  # None means the default, ./irw.duckdb or $IRW_DB
        monkeypatch.setenv("IRW_DB", "mysql://localhost/irw")
    with pytest.raises(warehouse.WarehouseOpenError):
        warehouse.Warehouse(bad)
    assert list(tmp_path.iterdir()) == []


# -- no new empty warehouse behind a failure ----------------------------------------------------------

@pytest.mark.parametrize("command", ["runs", "qrels", "sql", "eval", "compare", "report", "rm", "migrate"])
def test_commands_that_do_not_ingest_never_create_a_warehouse(command, tmp_path, inputs):
    typo = tmp_path / "typo.duckdb"
    result = Cli(typo)(*commands(inputs)[command])
    assert_clear_error(result, f"no warehouse at {typo}; create one with `irw ingest`")
    assert not typo.exists()


@pytest.mark.parametrize("case", ["missing file", "bad file", "bad option"])
def test_a_failed_ingest_into_a_new_file_leaves_nothing_behind(case, tmp_path):
    target = tmp_path / "new" / "deeper" / "irw.duckdb"
    bad = write_file(tmp_path, "bad.txt", "q1 0 d1 x\n")
    args = {"missing file": ["ingest", "qrels", str(tmp_path / "nope.txt"), "--name", "q"],
            "bad file": ["ingest", "qrels", str(bad), "--name", "q"],
            "bad option": ["ingest", "run", str(bad), "--param", "novalue"]}[case]
    result = Cli(target)(*args)
    assert result.exit_code in (1, 2) and result.stderr.startswith("Error: "), result.stderr
    assert not target.exists() and not Path(str(target) + ".wal").exists()
    assert not (tmp_path / "new").exists()  # nor the folders made for it


def test_a_failed_ingest_into_an_existing_warehouse_keeps_it(seeded_db, tmp_path):
    before = fingerprint_at(seeded_db)
    bad = write_file(tmp_path, "bad.txt", "q1 0 d1 x\n")
    result = Cli(seeded_db)("ingest", "qrels", str(bad), "--name", "q")
    assert result.exit_code == 1
    assert fingerprint_at(seeded_db) == before


def test_a_failed_ingest_through_the_api_removes_the_file_it_created(tmp_path):
    target = tmp_path / "irw.duckdb"
    with pytest.raises(warehouse.InputFileError):
        with warehouse.open(target) as wh:
            wh.ingest_qrels(write_file(tmp_path, "bad.txt", "q1 0 d1 x\n"), "q")
    assert not target.exists()


def test_a_successful_ingest_keeps_the_new_file(tmp_path, inputs):
    target = tmp_path / "irw.duckdb"
    result = Cli(target)(*commands(inputs)["ingest qrels"])
    assert result.exit_code == 0, result.stderr
    assert fingerprint_at(target)["qrels"][0] == len(QRELS_ROWS)


# -- integers out of range ---------------------------------------------------------------------------

@pytest.mark.parametrize("option", [["-l", "3000000000"], ["-l", "-3000000000"], ["-M", "99999999999999999999"],
                                    ["-M", "0"]])
@pytest.mark.parametrize("command", ["eval", "compare", "report"])
def test_integer_options_out_of_range_are_usage_errors(option, command, seeded_db, inputs):
    before = fingerprint_at(seeded_db)
    result = Cli(seeded_db)(*commands(inputs)[command], *option)
    assert_clear_error(result, "--level takes an integer from" if option[0] == "-l" else "--depth", exit_code=2)
    assert fingerprint_at(seeded_db) == before


@pytest.mark.parametrize("option", [{"level": 3_000_000_000}, {"level": "x"}, {"depth": 10**20}, {"depth": "5"}])
def test_the_api_refuses_settings_out_of_range(option, seeded_db):
    with warehouse.open(seeded_db) as wh:
        with pytest.raises(warehouse.UsageError):
            wh.evaluate("tagA", "base", ["AP"], **option)


# -- locks: what DuckDB says, not a guess -------------------------------------------------------------

def _holder(path: Path, read_only: bool) -> subprocess.Popen:
    code = ("import sys, warehouse; wh = warehouse.open(sys.argv[1], read_only=sys.argv[2] == '1'); "
            "print('open', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code, str(path), "1" if read_only else "0"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "open"
    return holder


def test_a_writer_in_the_way_is_named_as_writing(seeded_db, inputs, monkeypatch):
    monkeypatch.setenv("IRW_BUSY_WAIT", "0")  # at once: the wait is tested below
    holder = _holder(seeded_db, read_only=False)
    try:
        for command in ("runs", "sql", "ingest qrels"):
            result = Cli(seeded_db)(*commands(inputs)[command])
            assert_clear_error(result, f"cannot open warehouse {seeded_db}: another process (",
                               f"PID {holder.pid}) has it open for writing")
    finally:
        holder.communicate("")


def test_a_reader_in_the_way_is_named_as_reading(seeded_db, inputs, monkeypatch):
    monkeypatch.setenv("IRW_BUSY_WAIT", "0")
    holder = _holder(seeded_db, read_only=True)
    try:
        result = Cli(seeded_db)(*commands(inputs)["ingest qrels"])
        assert_clear_error(result, f"PID {holder.pid}) has it open for reading", "`irw runs`")
        assert "for writing" not in result.stderr
        assert Cli(seeded_db)("runs").exit_code == 0  # readers share the file
    finally:
        holder.communicate("")
    with pytest.raises(warehouse.WarehouseLocked):
        holder = _holder(seeded_db, read_only=False)
        try:
            warehouse.open(seeded_db, read_only=True)
        finally:
            holder.communicate("")


def test_a_command_waits_for_a_process_that_closes_the_file_soon(seeded_db, inputs):
    """(A team walk) with `irw serve` storing a page's scores, a nightly `irw ingest run` failed at once
    ("another process has it open for writing"): a command now waits for the file, says so once, and
    runs when the other process closes it."""
    import threading

    holder = _holder(seeded_db, read_only=False)
    release = threading.Timer(1.0, holder.communicate, args=("",))
    release.start()
    try:
        result = Cli(seeded_db)(*commands(inputs)["ingest qrels"])
    finally:
        release.join()
    assert result.exit_code == 0, result.stderr
    waits = [line for line in result.stderr.splitlines() if line.startswith("waiting for ")]
    assert len(waits) == 1 and waits[0].startswith("waiting for another process ("), result.stderr
    assert waits[0].endswith(f", PID {holder.pid}) to close the warehouse (up to 10 s; IRW_BUSY_WAIT sets how long)")


def _runs_while_held(db: Path) -> "Result":
    """`irw runs` while another process holds db open for writing."""
    holder = _holder(db, read_only=False)
    try:
        return Cli(db)("runs")
    finally:
        holder.communicate("")


def test_a_command_that_waited_in_vain_says_how_long_and_what_sets_it(seeded_db, inputs, monkeypatch):
    monkeypatch.setenv("IRW_BUSY_WAIT", "0.5")
    result = _runs_while_held(seeded_db)
    assert result.exit_code == 1
    first, error = result.stderr.splitlines()
    assert first.startswith("waiting for another process (") and "up to 0.5 s" in first
    assert error.startswith(f"Error: cannot open warehouse {seeded_db}: another process (")
    assert error.endswith("(waited 0.5 s; IRW_BUSY_WAIT sets how long)")


@pytest.mark.parametrize("value", ["soon", "-1", "nan"])
def test_a_wait_that_is_no_number_of_seconds_is_a_usage_error(seeded_db, monkeypatch, value):
    monkeypatch.setenv("IRW_BUSY_WAIT", value)
    result = _runs_while_held(seeded_db)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: IRW_BUSY_WAIT={value!r}: give the seconds a command waits for another process "
                             "to close the warehouse, 0 or more (0: no wait; unset: 10)\n")


def test_a_served_warehouse_in_the_way_is_named_as_irw_serve(seeded_db, tmp_path):
    """The process in the way is said as the irw command it runs: `irw serve` holds the file only
    while it builds a page, and the message says so rather than pointing at a notebook."""
    import socket

    from warehouse.engines.duckdb import _open_failure, irw_command

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "warehouse", "serve", "--db", str(seeded_db), "--port", str(port)],
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr.readline().startswith("serving ")
        assert irw_command(server.pid) == f"irw serve --db {seeded_db} --port {port}"
        # DuckDB's words when that process writes the file
        duckdb_says = (f'IO Error: Could not set lock on file "{seeded_db}": Conflicting lock is held in '
                       f"{sys.executable} (PID {server.pid}) by user root. See also https://duckdb.org/docs/")
        locked = _open_failure(str(seeded_db), Exception(duckdb_says), read_only=False)
        assert str(locked) == (f"cannot open warehouse {seeded_db}: another process (irw serve --db {seeded_db} "
                               f"--port {port}, PID {server.pid}) has it open for writing; DuckDB lets one process "
                               "write a file and no other open it meanwhile: wait until it finishes (`irw serve` "
                               "holds it only while it builds a page)")
        assert (locked.holder_pid, irw_command(os.getpid())) == (server.pid, None)  # pytest is no irw command
    finally:
        server.terminate()
        server.communicate()


# -- a warehouse made by an older irw ------------------------------------------------------------------

def _older_warehouse(path: Path) -> None:
    """A warehouse as the irw before the newest migration left it (every migration but the last)."""
    con = duckdb.connect(str(path))
    con.execute(read_sql("schema/000_schema_version.sql"))
    for version, relative_path in migrations()[:-1]:
        con.execute(read_sql(relative_path))
        con.execute("insert into irw_schema (version, name) values (?, ?)", [version, relative_path])
    con.close()


def test_an_older_warehouse_names_a_command_that_migrates_it(tmp_path):
    """...and the command runs as printed, its path quoted for the shell (a folder's name with a space)."""
    import shlex

    (tmp_path / "my warehouses").mkdir()
    path = tmp_path / "my warehouses" / "old.duckdb"
    _older_warehouse(path)
    newest = migrations()[-1][0]
    for command in (["runs"], ["qrels"], ["sql", "select 1"]):
        result = Cli(path)(*command)
        assert_clear_error(result, f"has schema version {newest - 1} and needs migrating to {newest}; "
                                   f"upgrade it with `irw migrate --db '{path}'`")
    with pytest.raises(warehouse.SchemaVersionError, match="upgrade it with `irw migrate"):
        warehouse.open(path, read_only=True)
    printed = re.search(r"`(irw migrate [^`]*)`", result.stderr).group(1)
    migrated = Cli(path)(*shlex.split(printed)[1:], "--format", "csv", db=False)
    assert migrated.exit_code == 0, migrated.stderr
    assert [line.split(",")[:2] for line in migrated.stdout.splitlines()[1:]] == [
        [str(v), name] for v, name in migrations()]
    assert Cli(path)("sql", "select 1").exit_code == 0


# -- a folder or file DuckDB cannot write ------------------------------------------------------------

def _without_permission_override() -> tuple:
    """A prefix that makes permissions bite: nothing for a normal user; for root (CI), setpriv
    dropping the capabilities that let root ignore them."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be made to fail")
    probe = subprocess.run([setpriv, "--bounding-set=-dac_override,-dac_read_search", "--", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.decode().strip()}")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search", "--")


@pytest.fixture
def locked_folder(tmp_path, _templates):
    """A folder nobody may write, holding a warehouse; and a read-only warehouse file beside it."""
    prefix = _without_permission_override()
    folder = tmp_path / "locked"
    folder.mkdir()
    shutil.copyfile(_templates["seeded"], folder / "irw.duckdb")
    shutil.copyfile(_templates["seeded"], tmp_path / "readonly.duckdb")
    (tmp_path / "readonly.duckdb").chmod(0o444)
    folder.chmod(0o555)
    yield folder, prefix
    folder.chmod(0o755)


@pytest.mark.parametrize("case", ["new file in the folder", "warehouse in the folder", "read-only file"])
def test_a_warehouse_duckdb_cannot_write_is_a_clear_error(case, locked_folder, tmp_path, inputs):
    folder, prefix = locked_folder
    target = {"new file in the folder": folder / "new.duckdb", "warehouse in the folder": folder / "irw.duckdb",
              "read-only file": tmp_path / "readonly.duckdb"}[case]
    before = fingerprint_at(target) if target.exists() else None
    result = irw_process(*commands(inputs)["ingest qrels"], "--name", "other", "--db", target, cwd=tmp_path,
                         prefix=prefix)
    assert_clear_error(result)
    assert "permission denied" in result.stderr.lower(), result.stderr
    if before is None:
        assert not target.exists()
    else:
        assert fingerprint_at(target) == before
    # Reading needs no write permission.
    if before is not None:
        listed = irw_process("runs", "--db", target, cwd=tmp_path, prefix=prefix)
        assert listed.returncode == 0, listed.stderr


@pytest.mark.parametrize("case, error", [("new file in the folder", "WarehouseOpenError"),
                                         ("warehouse in the folder", "DatabaseError"),
                                         ("read-only file", "WarehouseOpenError")])
def test_the_api_raises_an_irw_error_where_duckdb_cannot_write(case, error, locked_folder, tmp_path, inputs):
    folder, prefix = locked_folder
    target = {"new file in the folder": folder / "new.duckdb", "warehouse in the folder": folder / "irw.duckdb",
              "read-only file": tmp_path / "readonly.duckdb"}[case]
    code = ("import sys, warehouse\n"
            "try:\n"
            "    wh = warehouse.open(sys.argv[1])\n"
            "    wh.ingest_qrels(sys.argv[2], 'other')\n"
            "except warehouse.IrwError as e:\n"
            "    print(type(e).__name__, e)\n")
    result = subprocess.run([*prefix, sys.executable, "-c", code, str(target), str(inputs["qrels"])],
                            capture_output=True, text=True, timeout=GUARD_SECONDS)
    assert result.stdout.startswith(f"{error} "), result.stdout + result.stderr
    assert "permission denied" in result.stdout.lower()


# -- damaged blocks ----------------------------------------------------------------------------------

def _block_offsets(path: Path, tables: list[str]) -> list[int]:
    """Where in the file the data blocks of these tables start (DuckDB: 3 headers of 4 KiB, then
    blocks of 256 KiB, each starting with its 8-byte checksum)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        size = con.execute("select current_setting('default_block_size')").fetchone()[0]
        blocks = set()
        for table in tables:
            blocks |= {r[0] for r in con.execute(
                f"select distinct block_id from pragma_storage_info('{table}') where persistent and block_id >= 0"
            ).fetchall()}
    finally:
        con.close()
    return [3 * 4096 + block * int(size) for block in sorted(blocks)]


def _damage(path: Path, offsets: list[int]) -> None:
    with open(path, "r+b") as handle:
        for offset in offsets:
            handle.seek(offset + 64)
            handle.write(bytes(range(256)))


@pytest.fixture
def evaluated_copy(seeded_db, tmp_path):
    with warehouse.open(seeded_db) as wh:
        wh.evaluate("tagA", "base", ["AP", "P@5"])
    return seeded_db


@pytest.mark.parametrize("damaged", ["runs", "every table", "every block"])
@pytest.mark.parametrize("command", [["runs"], ["eval", "--qrels", "base", "-m", "AP", "-m", "nDCG@10"],
                                     ["sql", "select * from runs join run_rows using (run_id)"]],
                         ids=["runs", "eval", "sql"])
def test_damaged_blocks_give_an_error_not_a_traceback(damaged, command, evaluated_copy):
    path = evaluated_copy
    tables = ["runs"] if damaged == "runs" else ["runs", "run_rows", "qrels", "qrels_sets", "judged_run_rows",
                                                   "scores", "evaluated", "evaluations", "run_queries"]
    if damaged == "every block":
        end = path.stat().st_size
        offsets = list(range(3 * 4096, end - 512, 4096))
    else:
        offsets = _block_offsets(path, tables)
    assert offsets
    _damage(path, offsets)
    result = irw_process(*command, "--db", path, cwd=path.parent)
    assert_clear_error(result, f"the warehouse {path} is damaged: ")
    assert "Restore it from a backup" in result.stderr


def test_the_api_raises_warehouse_damaged(evaluated_copy):
    _damage(evaluated_copy, _block_offsets(evaluated_copy, ["runs"]))
    with pytest.raises(warehouse.WarehouseDamaged, match="is damaged"):
        with warehouse.open(evaluated_copy) as wh:
            wh.runs()


@pytest.mark.parametrize("command", ["runs", "ingest qrels"])
def test_a_file_name_that_is_not_utf8_is_a_clear_error(command, tmp_path, inputs):
    """DuckDB takes UTF-8 names only (it failed with std::bad_cast)."""
    args = [os.fsencode(a) for a in commands(inputs)[command]] + [b"--db", os.fsencode(tmp_path) + b"/bad\xff.duckdb"]
    result = subprocess.run([*IRW, *args], capture_output=True, timeout=GUARD_SECONDS)
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 1, stderr
    assert stderr.startswith("Error: cannot open warehouse ") and "bad\\xff.duckdb: the file name is not UTF-8" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs"]


@pytest.mark.parametrize("keep", [0.05, 0.2])
@pytest.mark.parametrize("command", [["runs"], ["eval", "--qrels", "base", "-m", "AP"],
                                     ["sql", "select * from runs join run_rows using (run_id)"]],
                         ids=["runs", "eval", "sql"])
def test_a_truncated_warehouse_is_named_damaged(keep, command, evaluated_copy):
    path = evaluated_copy
    with open(path, "r+b") as handle:
        handle.truncate(int(path.stat().st_size * keep))
    result = irw_process(*command, "--db", path, cwd=path.parent)
    assert_clear_error(result, f"the warehouse {path} is damaged: ", "Could not read enough bytes")


def test_an_open_that_reads_the_file_mid_write_is_tried_again_before_it_is_called_damaged(seeded_db, monkeypatch):
    """A walk's second ingest opened the file just as the first let go of it, read "Could not read
    enough bytes", and was told to restore a healthy warehouse from a backup: the open is tried again
    (a file that stays unreadable is said to be damaged, tests/test_warehouse_trust.py)."""
    from warehouse.engines import duckdb as engine

    real, calls = engine.duckdb.connect, []

    def connect(target, **options):
        calls.append(target)
        if len(calls) == 1:
            raise engine.duckdb.IOException(f'IO Error: Could not read enough bytes from file "{target}": attempted '
                                            "to read 262144 bytes from location 137637888")
        return real(target, **options)

    monkeypatch.setattr(engine.duckdb, "connect", connect)
    with warehouse.open(seeded_db) as wh:
        assert [row[0] for row in wh.runs().rows] == ["tagA"]
    assert len(calls) >= 2
