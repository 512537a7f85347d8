"""A warehouse on a real PostgreSQL 15 server (issue 14): the same commands, the same numbers.

Every test here gets a fresh database of its own on the server `make test` starts
(scripts/postgres.sh; conftest's postgres_url). What is checked: the schema and its migrations
(applied once, even by two clients at once), ingest (the same rows as DuckDB's, bit for bit;
file errors as DuckDB gives them, with nothing stored), `irw copy` both ways, `irw sql` (read-only
in a READ ONLY transaction, and under a read-only role), many writers at once, passwords never
printed, and the numbers: DL19's six runs against trec_eval's own outputs and against the same
evaluation on DuckDB.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import warehouse
from conftest import CONFORMANCE, Cli, dl19_expected
from warehouse.engines.duckdb import migrations
from warehouse.store import transfer

pytestmark = pytest.mark.postgres

DL19 = CONFORMANCE / "dl19-passage"
RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
PASSWORD = "s3cret-Pass"


def with_password(url: str) -> str:
    """url with PASSWORD added to its login (the test server trusts local connections, so any
    password works: what is checked is that irw never shows it)."""
    scheme, rest = url.split("://", 1)
    login, host = rest.split("@", 1)
    return f"{scheme}://{login.split(':')[0]}:{PASSWORD}@{host}"


def irw_process(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)


def rows_of(db, table: str, columns: str) -> list[tuple]:
    return db.fetchall(f"select {columns} from {table} order by {columns}")


@pytest.fixture
def dl19(conformance) -> Path:
    return conformance / "dl19-passage"


def ingest_dl19(url: str, dl19: Path, runs=RUNS) -> None:
    with warehouse.open(url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        if len(runs) == 1:
            wh.ingest_run(dl19 / "runs" / f"run.dl19.{runs[0]}.txt", runs[0])
        else:  # a batch names DL19's runs from their files (all share the tag `rank`), as for a user's folder
            wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in runs])


# -- schema ------------------------------------------------------------------------------------------

def test_a_fresh_database_gets_every_migration_once(postgres_url):
    with warehouse.open(postgres_url) as wh:
        applied = [(v, name) for v, name, _ in wh.migrations().rows]
    assert applied == migrations()
    with warehouse.open(postgres_url) as wh:  # opening again applies nothing
        assert [(v, name) for v, name, _ in wh.migrations().rows] == migrations()
        collations = dict(wh.db.fetchall(
            "select column_name, collation_name from information_schema.columns "
            "where table_name = 'run_rows' and data_type = 'text'"))
    # docid ties are broken in byte order, as trec_eval and DuckDB do, whatever the database's locale
    assert collations == {"query_id": "C", "doc_id": "C"}


def test_two_clients_opening_a_fresh_database_together_migrate_it_once(postgres_url):
    def open_it(_):
        with warehouse.open(postgres_url) as wh:
            return wh.db.schema_version()

    with ThreadPoolExecutor(4) as pool:
        versions = list(pool.map(open_it, range(4)))
    assert versions == [migrations()[-1][0]] * 4
    with warehouse.open(postgres_url) as wh:
        assert wh.db.fetchall("select version, count(*) from irw_schema group by version order by version") == \
            [(v, 1) for v, _ in migrations()]


def test_a_database_of_another_application_is_refused(postgres_url):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute("create table customers (id integer)")
    with pytest.raises(warehouse.NotAWarehouse, match="holds tables \\(customers\\) and no irw_schema"):
        warehouse.open(postgres_url)


# -- ingest --------------------------------------------------------------------------------------------

def test_ingest_stores_the_rows_duckdb_stores_bit_for_bit(postgres_url, dl19, tmp_path):
    ingest_dl19(postgres_url, dl19)
    ingest_dl19(str(tmp_path / "irw.duckdb"), dl19)
    with warehouse.open(postgres_url) as server, warehouse.open(tmp_path / "irw.duckdb", read_only=True) as local:
        for table, columns in (("qrels", "query_id, doc_id, grade"),
                               ("run_queries", "run_id, query_id, num_ret"),
                               ("judged_run_rows", "qrels_set_id, run_id, query_id, doc_id, trec_rank"),
                               ("runs", "run_id, name, system, tag, sha256, row_count, query_count")):
            assert rows_of(server.db, table, columns) == rows_of(local.db, table, columns), table
        # every score, compared as the bits of the double (repr round-trips)
        server_rows = rows_of(server.db, "run_rows", "run_id, query_id, doc_id, rank_given, score, trec_rank")
        local_rows = rows_of(local.db, "run_rows", "run_id, query_id, doc_id, rank_given, score, trec_rank")
        assert len(server_rows) == 64_500
        assert [tuple(map(repr, r)) for r in server_rows] == [tuple(map(repr, r)) for r in local_rows]


@pytest.mark.parametrize("chunk", [100_000, 2], ids=["one chunk", "chunks of 2"])
def test_judged_rows_linked_where_the_run_is_staged_are_duckdb_s(postgres_url, tmp_path, monkeypatch, chunk):
    # The server's judgments are fetched in chunks of transfer.LINK_QRELS_CHUNK (2: several).
    monkeypatch.setattr(transfer, "LINK_QRELS_CHUNK", chunk)
    # A run sent to the server gets its judged rows joined in the local staging database against
    # the server's judgments of its queries (transfer._link_in_source), not over its rows on the
    # server: the same rows as DuckDB's link, for every stored qrels set, with ids CSV must quote,
    # a query no set judges, and a qrels set ingested after the run (linked on the server).
    qrels_a = tmp_path / "a.txt"
    qrels_a.write_text('q1 0 d,1 1\nq1 0 d"2 0\nq2 0 d3 2\nq2 0 absent 1\n')
    qrels_b = tmp_path / "b.txt"
    qrels_b.write_text('q2 0 d3 1\nq2 0 d4 0\nq9 0 d1 1\n')
    qrels_c = tmp_path / "c.txt"
    qrels_c.write_text('q1 0 d,1 0\nq3 0 d5 1\n')
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {10 - i} sys\n" for i, (q, d) in enumerate(
        [("q1", "d,1"), ("q1", 'd"2'), ("q1", "d3"), ("q2", "d3"), ("q2", "d4"), ("q2", "d1"), ("q3", "d5"),
         ("q4", "d1")])))
    columns = "qrels_set_id, run_id, query_id, doc_id, trec_rank"
    tables = []
    for db in (postgres_url, str(tmp_path / "irw.duckdb")):
        with warehouse.open(db) as wh:
            wh.ingest_qrels(qrels_a, "a")
            wh.ingest_qrels(qrels_b, "b")
            wh.ingest_run(run, "first")
            wh.ingest_qrels(qrels_c, "c")
            wh.ingest_run(run, "second")
            tables.append(rows_of(wh.db, "judged_run_rows", columns))
            assert not wh.db.has_table("link_queries")
    assert tables[0] == tables[1]
    assert len(tables[0]) == 14   # first: a 3, b 2, then c 2; second: 7
    assert (1, 1, "q1", "d,1", 1) in tables[0] and (1, 2, "q1", 'd"2', 2) in tables[0]


def test_a_bad_file_is_the_same_error_and_stores_nothing(postgres_url, dl19, tmp_path):
    ingest_dl19(postgres_url, dl19, runs=("BM25",))
    bad = tmp_path / "bad.txt"
    lines = (dl19 / "runs" / "run.dl19.BM25_RM3.txt").read_text().splitlines()
    fields = lines[41].split()
    fields[4] = "notanumber"  # the score
    lines[41] = " ".join(fields)
    bad.write_text("\n".join(lines) + "\n")
    server = Cli(postgres_url)(*["ingest", "run", str(bad), "--name", "bad"])
    local = Cli(tmp_path / "irw.duckdb")(*["ingest", "run", str(bad), "--name", "bad"])
    assert server.exit_code == local.exit_code != 0
    assert server.stderr == local.stderr
    assert f"{bad}:42:" in server.stderr
    with warehouse.open(postgres_url) as wh:
        assert wh.run_names() == ["BM25"]


def test_four_writers_ingesting_different_runs_at_once_all_succeed(postgres_url, dl19):
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda run: irw_process(
            "ingest", "run", dl19 / "runs" / f"run.dl19.{run}.txt", "--name", run, "--db", postgres_url), RUNS[:4]))
    assert [r.returncode for r in results] == [0, 0, 0, 0], [r.stderr for r in results]
    with warehouse.open(postgres_url) as wh:
        assert sorted(wh.run_names()) == sorted(RUNS[:4])
        assert wh.db.fetchone("select count(*) from judged_run_rows")[0] == sum(
            wh.db.fetchone("select count(*) from judged_run_rows where run_id = ?", [rid])[0]
            for rid in [r[0] for r in wh.db.fetchall("select run_id from runs")])


def test_two_writers_ingesting_one_name_get_one_success_and_one_clear_conflict(postgres_url, dl19):
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
    files = [dl19 / "runs" / "run.dl19.BM25.txt", dl19 / "runs" / "run.dl19.REP_LLAMA.txt"]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda f: irw_process("ingest", "run", f, "--name", "shared", "--db",
                                                      with_password(postgres_url)), files))
    codes = sorted(r.returncode for r in results)
    assert codes[0] == 0 and codes[1] != 0, [r.stderr for r in results]
    failed = next(r for r in results if r.returncode != 0)
    assert "shared" in failed.stderr and ("already exists" in failed.stderr or "meanwhile" in failed.stderr)
    assert PASSWORD not in failed.stderr
    with warehouse.open(postgres_url) as wh:
        assert wh.run_names() == ["shared"]
        rows, = wh.db.fetchone("select row_count from runs")
        assert rows in (4300, 43000)
        assert wh.db.fetchone("select count(*) from run_rows")[0] == rows  # one run's rows, not both


# -- irw copy --------------------------------------------------------------------------------------------

def test_copy_to_duckdb_and_back_keeps_every_row(postgres_url, dl19, tmp_path):
    ingest_dl19(postgres_url, dl19, runs=("BM25", "REP_LLAMA"))
    local = tmp_path / "copy.duckdb"
    first = Cli(local)("copy", "--from", with_password(postgres_url), "--to", str(local), db=False)
    assert first.exit_code == 0, first.stderr
    assert "run REP_LLAMA: copied" in first.stderr and PASSWORD not in first.stderr + first.stdout
    again = Cli(local)("copy", "--from", postgres_url, "--to", str(local), db=False)
    assert "run REP_LLAMA: unchanged" in again.stderr
    with warehouse.open(postgres_url) as server, warehouse.open(local, read_only=True) as copied:
        for table, columns in (("run_rows", "query_id, doc_id, rank_given, score, trec_rank"),
                               ("qrels", "query_id, doc_id, grade"),
                               ("judged_run_rows", "query_id, doc_id, trec_rank")):
            assert [tuple(map(repr, r)) for r in rows_of(server.db, table, columns)] == \
                [tuple(map(repr, r)) for r in rows_of(copied.db, table, columns)], table
    # a clash: the target holds BM25 with other bytes
    other = tmp_path / "other.duckdb"
    with warehouse.open(other) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25_RM3.txt", "BM25")
    clash = Cli(other)("copy", "--from", str(other), "--to", postgres_url, db=False)
    assert clash.exit_code != 0 and "run BM25 with other content; pass --replace" in clash.stderr
    replaced = Cli(other)("copy", "--from", str(other), "--to", postgres_url, "--replace", db=False)
    assert replaced.exit_code == 0, replaced.stderr
    assert "run BM25: replaced" in replaced.stderr


def test_copying_many_runs_links_each_by_its_index(postgres_url, tmp_path):
    """Each copied run's judged rows are linked by reading that run's rows (run_rows_by_run), never
    every stored run's. psycopg prepares a statement on its fifth call, and the server's generic plan
    of `(cast($run_id as integer) is null or run_id = $run_id)` read all of run_rows for every later
    run: `irw copy` of 1,000 runs took 216 s, each run slower than the one before (40 s since)."""
    import time

    import many_runs_data

    local = many_runs_data.build(tmp_path / "sweep.duckdb", range(100))
    done = Cli(local)("copy", "--from", str(local), "--to", postgres_url, db=False)
    assert done.exit_code == 0, done.stderr
    assert done.stderr.count(": copied") == 101  # the qrels set and the 100 runs
    with warehouse.open(postgres_url) as wh:
        time.sleep(1.5)  # the server's statistics of a finished transaction are published within a second
        read = wh.db.fetchone("select coalesce(sum(seq_tup_read), 0) from pg_catalog.pg_stat_user_tables "
                              "where relname = 'run_rows' and schemaname = pg_catalog.current_schema()")[0]
        assert read == 0, f"{read:,} run rows read by whole-table scans"
        assert wh.db.fetchone("select count(*) from judged_run_rows")[0] > 0


def test_rows_travel_with_an_empty_text_and_a_null_apart(postgres_url, tmp_path):
    # transfer.py sends rows as CSV, where NULL is nothing and an empty text "" (DuckDB's reader
    # takes "" for NULL unless told otherwise); no column irw fills today can hold an empty text,
    # so this holds the two apart at the level of export and load, both ways
    from warehouse.store import transfer
    from warehouse.engines.duckdb import MEMORY, Database

    local = Database(MEMORY)
    try:
        with warehouse.open(postgres_url) as server:
            for source, target in ((local, server.db), (server.db, local)):
                path = str(tmp_path / "rows.csv")
                transfer.export(source, "select '' as a, cast(null as varchar) as b, 'x' as c", {}, path)
                target.execute("create temp table if not exists travelled (a varchar, b varchar, c varchar)")
                target.execute("delete from travelled")
                transfer.load(target, "travelled", ("a", "b", "c"), path)
                assert target.fetchall("select a, b, c from travelled") == [("", None, "x")]
    finally:
        local.close()


# -- irw sql ------------------------------------------------------------------------------------------------

def test_irw_sql_reads_and_refuses_to_write(postgres_url, dl19):
    ingest_dl19(postgres_url, dl19, runs=("BM25",))
    irw = Cli(postgres_url)
    ok = irw("sql", "select name, row_count from runs")
    assert ok.exit_code == 0 and "BM25" in ok.stdout and "4300" in ok.stdout
    for statement, why in (("delete from runs", "DELETE statements are refused"),
                           ("with x as (delete from runs returning *) select * from x", "holds a DELETE"),
                           ("select pg_read_file('/etc/passwd')", "pg_read_file() acts outside the query"),
                           ("select nextval('run_id_seq')", "nextval() acts outside the query"),
                           ("copy runs to program 'id'", "COPY statements are refused"),
                           ("select * from runs for update", "row lock"),
                           ("select 1; select 2", "expected one SQL statement, found 2")):
        refused = irw("sql", statement)
        assert refused.exit_code != 0 and why in refused.stderr, (statement, refused.stderr)
    with warehouse.open(postgres_url) as wh:
        assert wh.run_names() == ["BM25"]
        # the READ ONLY transaction holds even where the checks are bypassed
        with pytest.raises(warehouse.ReadOnlyError, match="read-only transaction"):
            _unchecked(wh.db, "update runs set tag = 'x'")
        assert wh.db.fetchone("select tag from runs")[0] == "rank"


def _unchecked(db, statement):
    """run_on_postgres without its statement checks: what PostgreSQL alone enforces."""
    from warehouse.store import adhoc

    original = adhoc._postgres_refusal
    adhoc._postgres_refusal = lambda query, volatile=None: (None, "")
    try:
        return adhoc.run_on_postgres(db, statement, None)
    finally:
        adhoc._postgres_refusal = original


def test_a_read_only_role_reads_the_warehouse_and_nothing_more(postgres_url, postgres_readonly_url, dl19):
    ingest_dl19(postgres_url, dl19, runs=("BM25",))
    reader = Cli(postgres_readonly_url)
    listed = reader("runs")
    assert listed.exit_code == 0 and "BM25" in listed.stdout
    assert reader("sql", "select count(*) from run_rows").exit_code == 0
    refused = reader("ingest", "run", str(dl19 / "runs" / "run.dl19.BM25_RM3.txt"))
    assert refused.exit_code != 0
    assert "secret" not in refused.stderr + refused.stdout  # the reader URL's password
    with warehouse.open(postgres_url) as wh:
        assert wh.run_names() == ["BM25"]


def test_a_query_s_own_text_is_never_masked_so_no_guess_of_the_password_is_told(postgres_url, dl19):
    """A walk's `irw sql "select * from json_runs"` through a URL whose password was `on` said
    `relation "js***_runs" does not exist`: masking the password in a statement's error told whoever
    typed a guess (in irw serve's console too) that it held the password. A statement's error is
    the server's words over the statement as typed, unmasked; a failed connection's stays masked."""
    url = with_password(postgres_url)
    ingest_dl19(url, dl19, runs=("BM25",))
    guess = f"x_{PASSWORD}_x"
    said = irw_process("sql", f'select * from "{guess}"', "--db", url)
    assert said.returncode == 1 and f'relation "{guess}" does not exist' in said.stderr, said.stderr
    assert "***" not in said.stderr.replace(":***@", "")
    # irw's own advice is never masked: with the password `e` it read postgr***sql://USER:PASSWORD@...
    scheme, rest = postgres_url.rsplit("/", 1)[0].split("://", 1)
    login, host = rest.split("@", 1)
    refused = irw_process("runs", "--db", f"{scheme}://{login.split(':')[0]}:e@{host}/no_such_database")
    assert refused.returncode == 1 and "(postgresql://USER:PASSWORD@HOST:PORT/DBNAME)" in refused.stderr, refused.stderr


def test_the_password_is_never_printed(postgres_url, dl19):
    url = with_password(postgres_url)
    ingest_dl19(url, dl19, runs=("BM25",))
    outputs = []
    for args in (["runs"], ["qrels"], ["sql", "select * from nosuch"], ["rm", "run", "nosuch"],
                 ["ingest", "run", str(dl19 / "runs" / "run.dl19.BM25.txt"), "--name", "BM25"],
                 ["migrate"]):
        result = irw_process(*args, "--db", url)
        outputs.append(result.stdout + result.stderr)
    with warehouse.open(url) as wh:
        outputs.append(wh.path + repr(wh.runs().rows))
    assert all(PASSWORD not in text for text in outputs), [t for t in outputs if PASSWORD in t]
    assert "postgresql://" in outputs[3] or "no run named" in outputs[3]


# -- the numbers ---------------------------------------------------------------------------------------------

def _trec_values(evaluation, run: str) -> dict[tuple[str, str], str]:
    """(trec_eval name, query or 'all') -> the value as trec_eval prints it, for one run."""
    from warehouse.formats.formatting import trec_line

    by_name = {m.name: m for m in evaluation.measures}
    values = {}
    for r, query, name, value in evaluation.per_query.rows:
        m = by_name[name]
        if r == run and m.family.per_query:
            values[(m.trec_name, query)] = trec_line(m.trec_name, query, value, m.is_count).split("\t")[2].strip()
    for r, name, value, _micro, _queries in evaluation.summary.rows:
        m = by_name[name]
        if r == run and m.family.summary:
            values[(m.trec_name, "all")] = trec_line(m.trec_name, "all", value, m.is_count).split("\t")[2].strip()
    return values


def _same_value(a, b) -> bool:
    """Equal, NaN equal to NaN (judged precision where nothing is judged)."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("level, compat", [(1, 9), (2, 9), (1, 10), (2, 10)])
def test_dl19_all_trec_on_postgres_is_trec_eval_and_duckdb(postgres_url, dl19, conformance, tmp_path, level, compat):
    """Every all_trec measure but the text ones (runid, relstring), per query and summary, for the
    six DL19 runs: equal to trec_eval's own output at its 4 decimals, and to DuckDB's values (the
    same SQL files on both engines)."""
    from warehouse.commands.trec_eval import requested_measures

    ingest_dl19(postgres_url, dl19)
    ingest_dl19(str(tmp_path / "irw.duckdb"), dl19)
    measures = [m for m in requested_measures(["all_trec"], compat) if m.family.trec_name not in ("runid", "relstring")]
    with warehouse.open(postgres_url) as server, warehouse.open(tmp_path / "irw.duckdb") as local:
        on_server = server.evaluate(RUNS, "dl19", measures, per_query=True, level=level, compat=compat)
        on_duckdb = local.evaluate(RUNS, "dl19", measures, per_query=True, level=level, compat=compat)
    assert len(on_server.per_query.rows) > 6 * 43 * 50
    # The same SQL on both engines, the same bits: the running DCG sums add in rank order on both
    # (DuckDB's window sum added them in another order, and nDCG, nDCG@k, ndcg_rel and Rndcg
    # differed by up to 1.4e-15; sql/eval/07_dcg.sql)
    server_values = {tuple(row[:3]): row[3] for row in on_server.per_query.rows}
    duckdb_values = {tuple(row[:3]): row[3] for row in on_duckdb.per_query.rows}
    assert server_values.keys() == duckdb_values.keys()
    differing = sorted({k[2] for k in server_values if not _same_value(server_values[k], duckdb_values[k])})
    assert differing == []
    assert len(on_server.summary.rows) == len(on_duckdb.summary.rows)
    assert all(len(a) == len(b) and all(map(_same_value, a, b))
               for a, b in zip(on_server.summary.rows, on_duckdb.summary.rows))
    for run in RUNS:
        expected = {key: value for key, value in dl19_expected(conformance, run, level, compat).items()
                    if key[0] not in ("runid",) and not key[0].startswith("relstring")}
        got = _trec_values(on_server, run)
        assert {k: got.get(k) for k in expected} == expected, run


def test_two_clients_evaluating_the_same_runs_at_once_store_each_score_once(postgres_url, dl19):
    ingest_dl19(postgres_url, dl19)
    measures = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Bpref", "infAP", "Rprec"]
    args = [a for m in measures for a in ("-m", m)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: irw_process("eval", *args, "--format", "csv", "--db", postgres_url),
                                range(2)))
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    assert results[0].stdout == results[1].stdout  # the same numbers, whichever stored them
    with warehouse.open(postgres_url) as wh:
        assert wh.db.fetchone("select count(*) from evaluations")[0] == 1
        stored = wh.db.fetchone("select count(*) from scores")[0]
        distinct = wh.db.fetchone("select count(*) from (select distinct evaluation_id, run_id, measure, query_id "
                                  "from scores) as keys")[0]
        assert stored == distinct == 6 * 43 * len(measures)
        assert wh.db.fetchone("select count(*) from evaluated")[0] == 6 * len(measures)


def test_frames_remove_and_recompute_on_the_server(postgres_url, dl19):
    import pandas as pd

    ingest_dl19(postgres_url, dl19, runs=("BM25",))
    lines = [line.split() for line in (dl19 / "runs" / "run.dl19.BM25_RM3.txt").read_text().splitlines()]
    frame = pd.DataFrame({"qid": [l[0] for l in lines], "docno": [l[2] for l in lines],
                          "score": [float(l[4]) for l in lines], "rank": [int(l[3]) for l in lines]})
    with warehouse.open(postgres_url) as wh:
        wh.ingest_run(frame, "rm3 from a frame")
        first = wh.evaluate(["BM25", "rm3 from a frame"], "dl19", ["AP", "nDCG@10"])
        again = wh.evaluate(["BM25", "rm3 from a frame"], "dl19", ["AP", "nDCG@10"], recompute=True)
        assert first.summary.rows == again.summary.rows
        assert wh.db.fetchone("select count(*) from scores")[0] == 2 * 43 * 2
        wh.remove_run("rm3 from a frame")
        assert wh.run_names() == ["BM25"]
        for table in ("scores", "evaluated", "judged_run_rows", "run_queries", "run_rows"):
            assert wh.db.fetchone(f"select count(distinct run_id) from {table}")[0] == 1, table
        wh.remove_qrels("dl19")
        assert wh.db.fetchone("select count(*) from scores")[0] == 0
        assert wh.db.fetchone("select count(*) from judged_run_rows")[0] == 0


def test_a_read_only_role_reads_stored_scores_and_compares(postgres_url, postgres_readonly_url, dl19):
    ingest_dl19(postgres_url, dl19, runs=("BM25", "REP_LLAMA"))
    writer, reader = Cli(postgres_url), Cli(postgres_readonly_url)
    stored = writer("eval", "-m", "AP", "-m", "nDCG@10", "--format", "csv")
    assert stored.exit_code == 0, stored.stderr
    read = reader("eval", "-m", "AP", "-m", "nDCG@10", "--format", "csv")
    assert read.exit_code == 0, read.stderr
    assert read.stdout == stored.stdout
    compared = reader("compare", "-m", "AP", "--baseline", "BM25")
    assert compared.exit_code == 0, compared.stderr
    assert "REP_LLAMA" in compared.stdout
    board = writer("report", "leaderboard", "--baseline", "BM25", "--format", "csv")  # stores its scores
    assert board.exit_code == 0, board.stderr
    read_board = reader("report", "leaderboard", "--baseline", "BM25", "--format", "csv")
    assert read_board.exit_code == 0, read_board.stderr
    assert read_board.stdout == board.stdout
    missing = reader("eval", "-m", "infAP")  # never computed: the reader may not store it
    assert missing.exit_code != 0 and "infAP" in missing.stderr and "never computed" in missing.stderr


@pytest.mark.parametrize("report", [["leaderboard", "--baseline", "BM25"], ["history"], ["run", "REP_LLAMA"],
                                    ["compare", "BM25", "REP_LLAMA"]])
def test_every_report_on_the_server_shows_duckdb_s_table_and_writes_its_page(report, postgres_url, dl19, tmp_path):
    ingest_dl19(postgres_url, dl19)
    local = tmp_path / "irw.duckdb"
    assert Cli(local)("copy", "--from", postgres_url, "--to", str(local), db=False).exit_code == 0
    on_server = Cli(postgres_url)("report", *report, "--format", "csv")
    on_duckdb = Cli(local)("report", *report, "--format", "csv")
    assert on_server.exit_code == 0, on_server.stderr
    assert on_duckdb.exit_code == 0, on_duckdb.stderr
    assert len(on_server.stdout.splitlines()) > 1
    assert on_server.stdout == on_duckdb.stdout
    page = tmp_path / "page.html"
    written = Cli(with_password(postgres_url))("report", *report, "-o", str(page))
    assert written.exit_code == 0, written.stderr
    text = page.read_text()
    assert len(text) > 1000 and "REP_LLAMA" in text
    assert PASSWORD not in text + written.stderr + written.stdout


@pytest.mark.parametrize("delay", [0.3, 0.6, 0.9, 1.2])
def test_a_killed_ingest_leaves_a_whole_run_or_nothing(delay, postgres_url, dl19):
    import signal
    import time

    ingest_dl19(postgres_url, dl19, runs=("BM25",))
    process = subprocess.Popen([sys.executable, "-m", "warehouse", "ingest", "run",
                                str(dl19 / "runs" / "run.dl19.REP_LLAMA.txt"), "--name", "REP_LLAMA",
                                "--db", postgres_url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with warehouse.open(postgres_url) as wh:
        names = wh.run_names()
        rows = dict(wh.db.fetchall("select r.name, count(*) from run_rows as x join runs as r using (run_id) "
                                   "group by r.name"))
        judged = dict(wh.db.fetchall("select r.name, count(*) from judged_run_rows as x join runs as r "
                                     "using (run_id) group by r.name"))
    assert names in (["BM25"], ["BM25", "REP_LLAMA"])
    assert rows["BM25"] == 4300
    if "REP_LLAMA" in names:  # committed before the kill: whole
        assert rows["REP_LLAMA"] == 43000 and judged["REP_LLAMA"] > 0
    else:  # nothing of it
        assert set(rows) == set(judged) == {"BM25"}
    again = Cli(postgres_url)("ingest", "run", str(dl19 / "runs" / "run.dl19.REP_LLAMA.txt"), "--name", "REP_LLAMA")
    assert again.exit_code == 0, again.stderr
