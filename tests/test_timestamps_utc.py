"""Every timestamp irw stores is UTC, whatever zone the machine (TZ) or the PostgreSQL session
(PGTZ) is in: ingested_at and created_at beside the run's file date, which irw reads in UTC. A
team's history mixes runs ingested on machines in several zones; local times would reorder them.

irw runs in a subprocess here, under a zone 14 hours from UTC, as a user's shell starts it."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import warehouse

FAR_ZONE = "Pacific/Kiritimati"  # UTC+14: a local time there is never within minutes of UTC


def _irw(*args: str, cwd: Path) -> None:
    env = {**os.environ, "TZ": FAR_ZONE, "PGTZ": FAR_ZONE}
    done = subprocess.run([sys.executable, "-m", "warehouse", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def _stored_times(location: str) -> dict[str, datetime]:
    with warehouse.open(location, read_only=True) as wh:
        rows = wh.sql("select 'qrels_sets.created_at' as what, max(created_at) as at from qrels_sets "
                      "union all select 'runs.ingested_at', max(ingested_at) from runs "
                      "union all select 'evaluations.created_at', max(created_at) from evaluations").rows
    return {what: at for what, at in rows}


def _ingest_and_evaluate(location: str, tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2.0 sysA\nq1 Q0 d2 2 1.0 sysA\n")
    _irw("ingest", "qrels", "qrels.txt", "--db", location, cwd=tmp_path)
    _irw("ingest", "run", "run.txt", "--db", location, cwd=tmp_path)
    _irw("eval", "-m", "AP", "--db", location, cwd=tmp_path)


def _assert_utc(times: dict[str, datetime], before: datetime, after: datetime) -> None:
    slack = timedelta(minutes=2)
    for what, at in times.items():
        assert at is not None, f"{what} is empty"
        assert before - slack <= at <= after + slack, f"{what} is {at}, not UTC ({before:%H:%M} to {after:%H:%M})"


def _now_utc() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def test_duckdb_stores_utc_under_a_far_zone(tmp_path: Path) -> None:
    before = _now_utc()
    _ingest_and_evaluate(str(tmp_path / "irw.duckdb"), tmp_path)
    _assert_utc(_stored_times(str(tmp_path / "irw.duckdb")), before, _now_utc())


@pytest.mark.postgres
def test_postgres_stores_utc_under_a_far_session_zone(postgres_url: str, tmp_path: Path) -> None:
    before = _now_utc()
    _ingest_and_evaluate(postgres_url, tmp_path)
    _assert_utc(_stored_times(postgres_url), before, _now_utc())
