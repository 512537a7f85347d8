"""A shared PostgreSQL warehouse and the roles that only read it (issue 24), checked at the server,
bypassing irw's own checks on purpose: a reader cannot hold a lock irw's writers wait on. Real
server, raw psycopg sessions, irw in subprocesses with timeouts."""
from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from conftest import RUN_ROWS, Cli, qrels_text, run_text, write_file

pytestmark = pytest.mark.postgres

# Every advisory key an irw before issue 24 took: migrations, and (class, qrels set) of stored scores.
OLD_MIGRATION_KEY = 0x697277
OLD_SCORES_CLASS = 0x697273


def _irw(url: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *args, "--db", url], capture_output=True, text=True,
                          timeout=timeout)


def _seeded(url, tmp_path):
    irw = Cli(url)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    return irw


def test_a_reader_holding_every_advisory_key_irw_used_blocks_no_writer(postgres_url, postgres_readonly_url, tmp_path):
    # Before the warehouse exists: any role that may connect holds the old migration key.
    squatter = psycopg.connect(postgres_readonly_url, autocommit=True)
    try:
        squatter.execute("select pg_advisory_lock(%s)", [OLD_MIGRATION_KEY])
        qrels = write_file(tmp_path, "q.txt", qrels_text())
        made = _irw(postgres_url, "ingest", "qrels", str(qrels), "--name", "q")
        assert made.returncode == 0, made.stderr
        ids = [r[0] for r in squatter.execute("select qrels_set_id from qrels_sets").fetchall()]
        assert ids  # the reader reads the warehouse
        for qrels_set_id in {*ids, *range(1, 20)}:
            squatter.execute("select pg_advisory_lock(%s, %s)", [OLD_SCORES_CLASS, qrels_set_id])
        squatter.execute("select pg_advisory_lock_shared(%s)", [OLD_MIGRATION_KEY])
        ingest = subprocess.Popen([sys.executable, "-m", "warehouse", "ingest", "run",
                                   str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r",
                                   "--db", postgres_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, stderr = ingest.communicate(timeout=120)
        assert ingest.returncode == 0, stderr
        evaluated = _irw(postgres_url, "eval", "-m", "AP", "-m", "P@5", "--qrels", "q")
        assert evaluated.returncode == 0 and "r" in evaluated.stdout, evaluated.stderr
        assert squatter.execute("select count(*) from pg_locks where locktype = 'advisory' and granted"
                                ).fetchone()[0] >= 2  # still held, all along
    finally:
        squatter.close()
    stored = psycopg.connect(postgres_url, autocommit=True)
    try:
        assert stored.execute("select count(*) from scores").fetchone()[0] > 0
    finally:
        stored.close()


def test_a_reader_cannot_take_the_locks_writers_serialise_on(postgres_url, postgres_readonly_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    with psycopg.connect(postgres_readonly_url) as reader:
        for statement in ("select 1 from qrels_sets for no key update", "select 1 from qrels_sets for key share",
                          "lock table irw_schema in exclusive mode", "lock table irw_schema in row share mode",
                          "lock table qrels_sets in share mode"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                reader.execute(statement)
            reader.rollback()
        # what it may hold: ACCESS SHARE (reading), which the writers' locks do not wait on
        reader.execute("lock table irw_schema in access share mode")
        reader.execute("select * from qrels_sets").fetchall()
        evaluated = _irw(postgres_url, "eval", "-m", "AP", "--qrels", "q", timeout=120)
        assert evaluated.returncode == 0, evaluated.stderr
        reader.rollback()
