"""`irw eval --engine spark --into WAREHOUSE` (issue 15): runs evaluated on Spark, their per-query
scores stored in a warehouse that the reports then read.

One Spark evaluation of the six DL19 runs (all tagged `rank`), made by the README's command as
printed (in process, on the tests' one local[2] session), feeds every test here:
- what it prints is the README's table and trec_eval's numbers; the runs are named as `irw ingest
  run runs/` names them (BM25 ... from the file names, their tag being shared);
- every stored per-query score equals the score a local DuckDB warehouse computes from the same
  files (bit for bit, but nDCG's last bit: Spark adds a query's DCG terms in an order of its own);
- a measure never computed on Spark is refused with what to do, not computed from missing rows;
  the leaderboard, its run pages (saying why no ranks are shown) and irw compare work;
- `irw ingest run runs/` then stores the rows and keeps the scores, after which any measure is
  computed locally with trec_eval's numbers;
- the same evaluation stored into PostgreSQL (marker postgres) gives the same tables.
"""
from __future__ import annotations

import shlex
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse.commands.irw import app

from docs_pages import section
from conftest import dl19_expected

ROOT = Path(__file__).resolve().parents[1]
FAR_ZONE = "Pacific/Kiritimati"  # UTC+14
STARTED: list[datetime] = []  # UTC, before and after the fixture's evaluation
RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
TREC_NAMES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}

pytestmark = pytest.mark.spark


def readme_block(after: str) -> str:
    """The first ``` block of the README's "On Spark" section after the text `after`."""
    return section("On Spark").split(after, 1)[1].split("```", 2)[1].strip("\n")  # docs/engines.md


def irw(argv: list[str], cwd: Path, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, argv, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def readme_command(block: str) -> list[str]:
    (line,) = [line for line in block.splitlines() if line.startswith("irw ")]
    return shlex.split(line)[1:]


@pytest.fixture(scope="module")
def stored(spark, conformance, tmp_path_factory):
    """A folder of the DL19 files where the README's `--into` command ran, and what it printed."""
    work = tmp_path_factory.mktemp("dl19-spark")
    source = conformance / "dl19-passage"
    (work / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (work / "runs").symlink_to(source / "runs", target_is_directory=True)
    monkeypatch = pytest.MonkeyPatch()
    # in a zone far from UTC (test_timestamps_utc.py: irw stores UTC): Python converts Spark's
    # timestamps to local time as collect() returns them
    monkeypatch.setenv("TZ", FAR_ZONE)
    time.tzset()
    try:
        command = readme_command(readme_block("`--into` stores their scores in a warehouse"))
        STARTED.append(datetime.now(timezone.utc).replace(tzinfo=None))
        code, out, err = irw(command, work, monkeypatch)
        STARTED.append(datetime.now(timezone.utc).replace(tzinfo=None))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert code == 0, err
    return work, out, err


def test_what_spark_stored_is_dated_in_utc(stored):
    work, _, _ = stored
    before, after = STARTED[0] - timedelta(minutes=2), STARTED[-1] + timedelta(minutes=2)
    with warehouse.open(work / "dl19.duckdb", read_only=True) as wh:
        for table, column in (("evaluations", "created_at"), ("runs", "ingested_at"), ("qrels_sets", "created_at")):
            (at,) = wh.sql(f"select max({column}) from {table}").rows[0]
            assert before <= at <= after, f"{table}.{column} is {at}: not UTC ({before} to {after})"


def test_it_prints_the_readme_table_and_trec_eval_numbers(stored, conformance):
    work, out, err = stored
    printed = out.strip("\n")
    assert printed == readme_block("and prints what the warehouse now holds").strip("\n")
    rows = [line.split() for line in printed.splitlines()[2:]]
    assert [r[0] for r in rows] == list(RUNS)  # named by ingest's rule: the tag `rank` is shared
    for run, queries, ap, ndcg in rows:
        expected = dl19_expected(conformance, run)
        assert (queries, ap, ndcg) == (expected[("num_q", "all")], expected[("map", "all")],
                                       expected[("ndcg_cut_10", "all")])
    assert "run BM25: copied" in err and "qrels qrels.dl19-passage: copied" in err


def test_a_python_user_evaluates_on_spark_as_the_command_does(stored, spark, tmp_path):
    """warehouse.evaluate_on_spark is what `irw eval --engine spark` calls (it was the CLI's own code):
    with into, what the command printed and said; without, the same numbers, the runs named by their files."""
    from warehouse.formats.formatting import render

    work, out, err = stored
    qrels, runs = str(work / "qrels.dl19-passage.txt"), [str(work / "runs")]
    kept = warehouse.evaluate_on_spark(qrels, runs, ["AP", "nDCG@10"], into=tmp_path / "py.duckdb", master="local[2]")
    assert kept.qrels == "qrels.dl19-passage" and kept.stored is not None
    assert render(kept.evaluation.wide(), "table") == out
    assert [line for line in err.splitlines() if not line.startswith("#")] == kept.lines()
    alone = warehouse.evaluate_on_spark(qrels, runs, ["AP", "nDCG@10"], master="local[2]")
    assert alone.stored is None and alone.lines() == [] and alone.qrels == qrels
    numbers = sorted(row[1:] for row in alone.evaluation.wide().rows)
    assert len(numbers) == len(RUNS) and numbers == sorted(row[1:] for row in kept.evaluation.wide().rows)


def _scores(db_path: Path, measures: tuple[str, ...]) -> dict:
    with warehouse.open(db_path, read_only=True) as wh:
        rows = wh.db.fetchall(
            "select r.name, s.query_id, s.measure, s.value from scores as s join runs as r using (run_id) "
            "where s.measure in (select unnest(?))", [list(measures)])
    return {(run, query, measure): value for run, query, measure, value in rows}


def test_every_stored_score_equals_a_local_evaluation(stored, conformance, tmp_path):
    work, _, _ = stored
    local = tmp_path / "local.duckdb"
    with warehouse.open(local) as wh:
        wh.ingest_qrels(work / "qrels.dl19-passage.txt")
        wh.ingest_runs([work / "runs"])
        wh.evaluate(list(RUNS), "qrels.dl19-passage", ["AP", "nDCG@10", "Judged@10", "IPrec@0.5"])
    measures = ("AP", "nDCG@10", "Judged@10", "IPrec@0.5")
    spark_scores = _scores(work / "dl19.duckdb", measures)
    assert len(spark_scores) == 6 * 43 * 4
    local_scores = _scores(local, measures)
    assert spark_scores.keys() == local_scores.keys()
    # Spark sums a query's DCG terms in its own order: nDCG may differ in the last bit (1e-16)
    assert all(spark_scores[k] == pytest.approx(local_scores[k], rel=1e-12, abs=1e-15) for k in local_scores)
    assert all(spark_scores[k] == local_scores[k] for k in local_scores if k[2] != "nDCG@10")
    with warehouse.open(work / "dl19.duckdb", read_only=True) as wh:
        runs = wh.db.fetchall("select name, tag, row_count, query_count, rows_stored, sha256 from runs order by name")
        local_runs = warehouse.open(local, read_only=True).db.fetchall(
            "select name, tag, row_count, query_count, true, sha256 from runs order by name")
        assert [r[:4] + (r[5],) for r in runs] == [r[:4] + (r[5],) for r in local_runs]  # the files' sha256
        assert {r[4] for r in runs} == {False}
        assert wh.db.fetchone("select count(*) from run_rows")[0] == 0


def test_a_measure_not_computed_on_spark_is_refused_with_what_to_do(stored, conformance, monkeypatch, tmp_path):
    work, _, _ = stored
    db = tmp_path / "copy.duckdb"
    db.write_bytes((work / "dl19.duckdb").read_bytes())
    code, out, err = irw(["eval", "--db", str(db), "-m", "RR", "BM25"], work, monkeypatch)
    assert code == 1 and out == ""
    assert err.startswith("Error: RR with these settings") and "evaluated on Spark" in err
    assert "irw ingest run FILE" in err
    # what it holds is named, and those names are read back
    assert "It holds AP, " in err and ", nDCG@10 with these settings: name those (-m)" in err
    # every run: said once, naming them (it was said six times, once per run)
    code, out, err = irw(["eval", "--db", str(db), "-m", "RR"], work, monkeypatch)
    assert code == 1 and out == "" and err.count("evaluated on Spark") == 1, err
    assert "of runs BM25, BM25_RM3, D_BERT_KD_TASB, OPEN_AI_ADA2, REP_LLAMA and SPLADE_P_P_ENSEMBLE_DISTIL: " in err
    assert "They hold AP, " in err and "or store their rows with irw ingest run FILE (their scores are kept)" in err
    code, out, err = irw(["eval", "--db", str(db), "-m", "AP", "-m", "nDCG@10", "-f", "tsv", "BM25"], work, monkeypatch)
    assert code == 0, err
    header, row = out.splitlines()
    assert header == "run\tqueries\tAP\tnDCG@10"
    assert [f"{float(v):.4f}" for v in row.split("\t")[2:]] == ["0.2993", "0.5058"]  # trec_eval's map, ndcg_cut_10
    with warehouse.open(db, read_only=True) as wh:
        assert wh.db.fetchone("select count(*) from scores where measure = 'RR'")[0] == 0
        stored_scores = wh.db.fetchone("select count(*) from scores")[0]
    # --recompute of scores it holds: refused for the rows, not said "not stored" (a Spark walk)
    code, out, err = irw(["eval", "--db", str(db), "-m", "AP", "--recompute", "BM25"], work, monkeypatch)
    assert (code, out) == (1, "")
    assert err.startswith("Error: --recompute: AP of run BM25 cannot be computed again here: the run was evaluated "
                          "on Spark") and "not stored" not in err, err
    assert "It holds AP, " in err and "which irw eval without --recompute reads" in err
    with warehouse.open(db, read_only=True) as wh:
        assert wh.db.fetchone("select count(*) from scores")[0] == stored_scores
    # qrels of another collection: said so, as for a run whose rows are stored, not "evaluate it on Spark again"
    covid = conformance / "multi-collection" / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt"
    code, _, err = irw(["ingest", "qrels", "--db", str(db), "--name", "covid", str(covid)], work, monkeypatch)
    assert code == 0, err
    code, out, err = irw(["eval", "--db", str(db), "--qrels", "covid", "-m", "AP", "BM25"], work, monkeypatch)
    assert (code, out) == (1, "")
    assert err == ("Error: run BM25 has no query judged in qrels covid (43 of its queries are not in the qrels): no "
                   "measure has a value; check that run and qrels are of the same collection (its first query ids: "
                   "1037798, 104861, 1063750; the qrels': 1, 10, 11)\n")


def test_reports_read_what_spark_computed(stored, conformance, monkeypatch, tmp_path):
    work, _, _ = stored
    db = tmp_path / "reports.duckdb"
    db.write_bytes((work / "dl19.duckdb").read_bytes())
    # the README's commands (its "Reports" point), on a copy of the warehouse the README's --into made
    page = tmp_path / "dl19.html"
    code, _, err = irw(["report", "leaderboard", "--db", str(db), "-m", "AP", "-m", "nDCG@10", "-o", str(page)], work,
                       monkeypatch)
    assert code == 0, err
    html = page.read_text()
    assert all(run in html for run in RUNS) and "0.2993" in html and "0.5347" in html
    run_page = (tmp_path / "dl19_runs" / "BM25.html").read_text()  # compared with the best run, REP_LLAMA
    assert "The rows of BM25 and REP_LLAMA are not in this warehouse" in run_page
    # without -m, the reports' own measures (AP, nDCG@10, P@10): computed on Spark for them
    code, _, err = irw(["report", "run", "--db", str(db), "-o", str(tmp_path / "BM25.html"), "BM25"], work,
                       monkeypatch)
    assert code == 0, err
    run_page = (tmp_path / "BM25.html").read_text()
    expected = dl19_expected(conformance, "BM25")
    assert all(expected[(name, "all")] in run_page for name in ("map", "ndcg_cut_10", "P_10"))
    code, out, err = irw(["compare", "--db", str(db), "-m", "AP"], work, monkeypatch)
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[2:]]
    assert len(rows) == 15  # every pair of the six runs
    header = out.splitlines()[0].split()
    means = {}
    for row in rows:
        fields = dict(zip(header, row))
        means[fields["run"]], means[fields["baseline"]] = fields["run_mean"], fields["baseline_mean"]
    assert (means["REP_LLAMA"], means["BM25"]) == ("0.5347", "0.2993")


def test_ingesting_the_files_later_stores_their_rows_and_keeps_the_scores(stored, conformance, monkeypatch,
                                                                         tmp_path):
    work, _, _ = stored
    db = tmp_path / "later.duckdb"
    db.write_bytes((work / "dl19.duckdb").read_bytes())
    before = _scores(db, ("AP", "nDCG@10"))
    code, _, err = irw(["ingest", "run", "runs/", "--db", str(db)], work, monkeypatch)
    assert code == 0, err
    assert err.count("its rows are stored now, its scores kept") == 6
    assert _scores(db, ("AP", "nDCG@10")) == before
    code, out, err = irw(["eval", "--db", str(db), "-m", "RR", "-f", "tsv"], work, monkeypatch)  # not computed on Spark
    assert code == 0, err
    for line in out.splitlines()[1:]:
        run, _, rr = line.split("\t")
        assert f"{float(rr):.4f}" == dl19_expected(conformance, run)[("recip_rank", "all")]
    code, _, err = irw(["ingest", "run", "runs/", "--db", str(db)], work, monkeypatch)
    assert code == 0 and err.count("nothing to do") == 6  # now it holds them


def test_stored_into_postgresql_the_tables_are_the_same(stored, spark, conformance, postgres_url, monkeypatch):
    import warehouse.engines.spark
    from warehouse.engines import spark_store

    monkeypatch.setattr(spark_store, "ROWS_PER_BATCH", 100)  # each run's rows reach the driver on their own

    work, _, _ = stored
    measures = ["AP", "nDCG@10"]
    result = warehouse.engines.spark.evaluate(spark, str(work / "qrels.dl19-passage.txt"),
                                      [str(work / "runs" / "run.dl19.BM25.txt"),
                                       str(work / "runs" / "run.dl19.REP_LLAMA.txt")], measures)
    try:
        with warehouse.open(postgres_url) as wh:
            outcome = spark_store.store(result, wh.db, str(work / "qrels.dl19-passage.txt"))
            assert outcome.runs == {"BM25": "BM25", "REP_LLAMA": "REP_LLAMA"}  # ingest's names, on Spark too
            server = wh.db.fetchall(
                "select r.name, s.query_id, s.measure, s.value from scores as s join runs as r using (run_id) "
                "order by 1, 2, 3")
            assert len(server) == 2 * 43 * 2
            assert wh.db.fetchall("select name, rows_stored from runs order by name") == [
                ("BM25", False), ("REP_LLAMA", False)]
            # the file ingested later: its rows go to the server under the stored run, scores kept
            (result_bm25,) = wh.ingest_runs([work / "runs" / "run.dl19.BM25.txt"], name="BM25")
            assert result_bm25.status == "rows stored"
            assert wh.db.fetchall("select name, rows_stored from runs order by name") == [
                ("BM25", True), ("REP_LLAMA", False)]
            p10 = wh.evaluate(["BM25"], "qrels.dl19-passage", ["P@10"]).value("BM25", "P@10")
            assert f"{p10:.4f}" == dl19_expected(conformance, "BM25")[("P_10", "all")]
    finally:
        result.close()
    local = {k: v for k, v in _scores(work / "dl19.duckdb", tuple(measures)).items() if k[0] in ("BM25", "REP_LLAMA")}
    assert {(run, query, measure): value for run, query, measure, value in server if measure in measures} == local


def test_a_changed_file_in_another_folder_is_named_as_ingest_names_it(stored, spark, conformance, tmp_path):
    """A walk: a folder mod/ of a changed run.dl19.BM25.txt (its first 100 lines cut) and an
    unchanged run.dl19.BM25_RM3.txt, stored with --into where Spark had stored BM25 from runs/: Spark
    named the changed file BM25.mod of system BM25, where `irw ingest run mod/` names it mod.BM25 of
    system mod (the stored BM25 answers the same queries, so the folder names the system), and a
    --replace then said its system was now BM25.mod."""
    import shutil

    work, _, _ = stored
    source = conformance / "dl19-passage" / "runs"
    mod = tmp_path / "mod"
    mod.mkdir()
    lines = (source / "run.dl19.BM25.txt").read_text().splitlines(keepends=True)
    (mod / "run.dl19.BM25.txt").write_text("".join(lines[100:]))
    shutil.copyfile(source / "run.dl19.BM25_RM3.txt", mod / "run.dl19.BM25_RM3.txt")
    on_spark, ingested = tmp_path / "spark.duckdb", tmp_path / "ingested.duckdb"
    shutil.copyfile(work / "dl19.duckdb", on_spark)
    shutil.copyfile(work / "dl19.duckdb", ingested)
    qrels = str(work / "qrels.dl19-passage.txt")
    kept = warehouse.evaluate_on_spark(qrels, [str(mod)], ["AP"], into=on_spark, master="local[2]")
    said = [line for line in kept.lines() if line.startswith(str(mod))]
    with warehouse.open(ingested) as wh:
        by_ingest = wh.ingest_runs([mod])
    assert said == [line for result in by_ingest for line in result.messages if line.startswith(str(mod))], said
    assert said and "named mod.BM25, system mod, from its folder and file name" in said[0]

    def runs(path: Path) -> list[tuple]:
        with warehouse.open(path, read_only=True) as wh:
            return wh.sql("select name, system from runs order by name").rows

    assert runs(on_spark) == runs(ingested) and ("mod.BM25", "mod") in runs(on_spark)
    with warehouse.open(on_spark) as wh:  # what was said of a run stays through a --replace, as ingest keeps it
        wh.edit_run("BM25_RM3", description="RM3 expansion", parameters={"k1": "0.9"})
    again = warehouse.evaluate_on_spark(qrels, [str(mod)], ["AP"], into=on_spark, replace=True, master="local[2]")
    assert not any("system is now" in line or "description is now" in line or "parameters are now" in line
                   for line in again.lines()), again.lines()
    assert runs(on_spark) == runs(ingested)
    with warehouse.open(on_spark, read_only=True) as wh:
        described = wh.runs(["BM25_RM3"]).to_dicts()[0]
    assert (described["description"], described["parameters"]) == ("RM3 expansion", {"k1": "0.9"})


def test_a_system_folder_of_several_collections_is_evaluated_on_its_judged_run(spark, conformance, tmp_path):
    """A walk evaluated a publisher's folder per system (runs/BM25/: covid, dl21, dl22, news) on Spark
    against DL 2021's qrels, as docs/engines.md names such runs (BM25.dl21): refused after 81 s, one
    error per covid, dl22 and news run. Those are left out and named, as `irw eval --qrels X` leaves
    out the stored runs X judges none of; the judged one is evaluated and stored, trec_eval's number."""
    data = conformance / "multi-collection"
    qrels = str(data / "qrels" / "qrels.dl21-passage.txt")
    into = tmp_path / "w.duckdb"
    result = warehouse.evaluate_on_spark(qrels, [str(data / "runs" / "BM25")], ["AP"], into=into, master="local[2]")
    assert result.left_out == ("BM25.covid", "BM25.dl22", "BM25.news")
    assert result.lines()[0] == ("# 3 runs left out: no query judged in qrels qrels.dl21-passage (BM25.covid, "
                                 "BM25.dl22, BM25.news)")
    map_ = next(line.split()[2] for line in (data / "expected" / "dl21.BM25.all_trec.q.v9.txt").read_text().splitlines()
                if line.split()[:2] == ["map", "all"])
    assert f"{result.evaluation.value('BM25.dl21', 'AP'):.4f}" == map_
    with warehouse.open(into, read_only=True) as wh:
        assert wh.sql("select name, system from runs").rows == [("BM25.dl21", "BM25")]
