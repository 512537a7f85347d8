"""`irw sql` on DuckDB stops (issue 24): a statement timeout (--timeout, default 300 s) and Ctrl-C
(SIGINT to a real process) end a query that would run for ever, the second within a second with
exit 130, the warehouse unchanged."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

import warehouse
from conftest import RUN_ROWS, qrels_text, run_text, write_file

FOREVER = "with recursive t(n) as (select 1 union all select n + 1 from t) select count(*) from t"


@pytest.fixture
def seeded(tmp_path, irw):
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    return irw


def test_the_timeout_stops_a_query(seeded):
    started = time.monotonic()
    result = seeded("sql", FOREVER, "--timeout", "1")
    assert result.exit_code == 1
    assert "timeout of 1 s" in result.stderr and "--timeout SECONDS" in result.stderr, result.stderr
    assert time.monotonic() - started < 10
    assert seeded("sql", "select count(*) as n from runs", "-f", "csv").stdout == "n\n1\n"


def test_the_timeout_is_a_number_of_seconds(seeded, db_path):
    assert seeded("sql", "select 1", "--timeout", "-1").exit_code == 2
    with warehouse.open(db_path, sandboxed=True) as wh:
        for wrong in ("soon", -1, float("inf"), True):
            with pytest.raises(warehouse.UsageError, match=r"timeout=.*: give seconds, 0 or more \(0: no limit; None: 300\)"):
                wh.sql("select 1", timeout=wrong)
        assert wh.sql("select 42 as x", timeout=0).rows == [(42,)]


def test_ctrl_c_stops_a_query_within_a_second(seeded, db_path):
    process = subprocess.Popen([sys.executable, "-m", "warehouse", "sql", FOREVER, "--db", str(db_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)  # python start-up, opening the warehouse, and the query running
        assert process.poll() is None
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=10)
        assert time.monotonic() - sent < 1.5
        assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with warehouse.open(db_path, read_only=True) as wh:
        assert wh.run_names() == ["r"]
