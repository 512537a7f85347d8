"""`irw ingest run FILE --name N --replace` with new bytes replaces the run's rows and scores, and
keeps what the user said about the run (its system, description and parameters) unless the new
call gives them; its date follows the new file unless --date is given (docs/input-formats.md, "Run
names and dates"). Before, the replaced run took its name as system and lost its description and
parameters, without a word, and so left its system's history.

Real data: DL19 passage runs from ../shared/conformance (skipped where absent), on DuckDB and
PostgreSQL.
"""
from __future__ import annotations

import os
import datetime as dt

import pytest

import warehouse

from conftest import Cli

ENGINES = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=ENGINES)
def db(request, tmp_path):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else tmp_path / "irw.duckdb"


def stored(db) -> list[tuple]:
    with warehouse.open(db, read_only=True) as wh:
        return [(name, system, description, dict(parameters or {}), str(date), source, rows)
                for name, system, description, parameters, date, source, rows in wh.sql(
                    "select name, system, description, parameters, file_created_at, date_source, row_count "
                    "from runs order by name").rows]


def mtime(path) -> str:
    """The file's time as stored (a message says it to the second: its first 19 characters)."""
    return str(dt.datetime.fromtimestamp(os.stat(path).st_mtime, tz=dt.timezone.utc).replace(tzinfo=None))


def test_replacing_a_runs_bytes_keeps_its_system_description_and_parameters(conformance, db):
    runs = conformance / "dl19-passage" / "runs"
    first, second = runs / "run.dl19.BM25.txt", runs / "run.dl19.OPEN_AI_ADA2.txt"
    irw = Cli(db)
    assert irw("ingest", "run", first, "--name", "v2", "--system", "mysys", "--description", "first try",
               "--param", "k1=0.9", "--date", "2019-05-01").exit_code == 0
    replaced = irw("ingest", "run", second, "--name", "v2", "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    assert replaced.stderr.splitlines() == [
        f"{second}: run v2 replaced: it keeps its system mysys, its description 'first try' and its parameters "
        "k1=0.9 (--system, --description and --param give others); its date is now "
        f"{mtime(second)[:19]} (from file mtime), was 2019-05-01 00:00:00 (from --date) (--date gives another)",
        f"replaced run v2: 4300 lines, 43 queries from {second}"]
    # the date follows the new file: --date dated the old one
    assert stored(db) == [("v2", "mysys", "first try", {"k1": "0.9"}, mtime(second), "file mtime", 4300)]
    listed = irw("runs", "--system", "mysys")
    assert listed.exit_code == 0 and "v2" in listed.stdout.split()  # still in its system's history
    # a run stored with nothing said of it: replaced as before, nothing more said
    third, fourth = runs / "run.dl19.BM25_RM3.txt", runs / "run.dl19.D_BERT_KD_TASB.txt"
    assert irw("ingest", "run", third, "--name", "plain").exit_code == 0
    plain = irw("ingest", "run", fourth, "--name", "plain", "--replace")
    assert plain.stderr.splitlines() == [f"replaced run plain: 4300 lines, 43 queries from {fourth}"]
    assert stored(db)[0] == ("plain", "plain", None, {}, mtime(fourth), "file mtime", 4300)


def test_replacing_a_runs_bytes_takes_the_system_description_parameters_and_date_given(conformance, db):
    runs = conformance / "dl19-passage" / "runs"
    first, second = runs / "run.dl19.BM25.txt", runs / "run.dl19.OPEN_AI_ADA2.txt"
    irw = Cli(db)
    assert irw("ingest", "run", first, "--name", "v2", "--system", "mysys", "--description", "first try",
               "--param", "k1=0.9", "--date", "2019-05-01").exit_code == 0
    replaced = irw("ingest", "run", second, "--name", "v2", "--replace", "--system", "ada", "--description",
                   "dense", "--param", "dim=1536", "--date", "2023-02-03")
    assert replaced.exit_code == 0, replaced.stderr
    assert replaced.stderr.splitlines() == [
        f"{second}: run v2 replaced: its system is now ada, was mysys; its description is now 'dense', was "
        "'first try'; its parameters are now dim=1536, was k1=0.9; its date is now "
        "2023-02-03 00:00:00 (from --date), was 2019-05-01 00:00:00 (from --date)",
        f"replaced run v2: 4300 lines, 43 queries from {second}"]
    assert stored(db) == [("v2", "ada", "dense", {"dim": "1536"}, "2023-02-03 00:00:00", "--date", 4300)]
    # only the description given: the rest is kept, and said so
    again = irw("ingest", "run", first, "--name", "v2", "--replace", "--description", "back to BM25")
    assert again.exit_code == 0, again.stderr
    assert again.stderr.splitlines()[0] == (
        f"{first}: run v2 replaced: it keeps its system ada and its parameters dim=1536 (--system and "
        "--param give others); its description is now 'back to BM25', was 'dense'; its date is now "
        f"{mtime(first)[:19]} (from file mtime), was 2023-02-03 00:00:00 (from --date) (--date gives another)")
    assert stored(db) == [("v2", "ada", "back to BM25", {"dim": "1536"}, mtime(first), "file mtime", 4300)]

