"""Evaluating many runs in batches (warehouse/evaluation/evaluator.py, ROWS_PER_BATCH): the evaluation's temp
tables hold every row of the runs computed together, so runs are computed a batch of about a
million rows at a time, each batch committed with its record. The numbers cannot depend on it:
the six DL19 runs computed one run per batch give, bit for bit, what they give computed together,
stored in DuckDB and in PostgreSQL and files to numbers; a call cut short keeps whole batches,
and the next call computes only what is missing, to the same numbers."""
from __future__ import annotations

import pytest

import warehouse
from warehouse.evaluation import evaluator as evaluate

from conftest import dl19_expected

DL19_RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
MEASURES = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Rprec", "Bpref"]


@pytest.fixture
def prepared(monkeypatch) -> list[list[int]]:
    """The run ids of every batch the evaluation prepares, in order."""
    batches = []
    real = evaluate.Evaluator._prepare

    def spy(self, qrels_id, s, run_ids, **options):
        batches.append(list(run_ids))
        return real(self, qrels_id, s, run_ids, **options)

    monkeypatch.setattr(evaluate.Evaluator, "_prepare", spy)
    return batches


def _ingest_dl19(wh, conformance) -> None:
    folder = conformance / "dl19-passage"
    wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
    wh.ingest_runs([folder / "runs"])


def _evaluated(wh) -> tuple[list, list]:
    evaluation = wh.evaluate(list(DL19_RUNS), "dl19", MEASURES, per_query=True)
    return evaluation.summary.rows, evaluation.per_query.rows


def test_one_run_per_batch_gives_what_the_runs_give_together(conformance, tmp_path, monkeypatch, prepared):
    with warehouse.open(tmp_path / "together.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        together = _evaluated(wh)
    assert len(prepared) == 1 and len(prepared[0]) == 6
    prepared.clear()
    monkeypatch.setattr(evaluate, "ROWS_PER_BATCH", 1)  # every run is a batch of its own
    with warehouse.open(tmp_path / "apart.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        apart = _evaluated(wh)
        recorded = wh.sql("select count(*), count(distinct run_id) from evaluated").rows
    assert len(prepared) == 6 and sorted(run for batch in prepared for run in batch) == list(range(1, 7))
    assert apart == together  # every bit of every value
    assert recorded == [(6 * len(MEASURES), 6)]
    summary = {(run, measure): value for run, measure, value, *_ in apart[0]}
    for run in DL19_RUNS:
        assert f"{summary[(run, 'AP')]:.4f}" == dl19_expected(conformance, run)[("map", "all")]
        assert f"{summary[(run, 'nDCG@10')]:.4f}" == dl19_expected(conformance, run)[("ndcg_cut_10", "all")]


def test_batches_hold_up_to_the_rows_given_and_a_larger_run_alone(conformance, tmp_path, monkeypatch, prepared):
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        sizes = dict(wh.sql("select run_id, row_count from runs").rows)
        # five runs of 4,300 lines (100 a query) and RepLLaMA's 43,000 (run 5)
        assert sizes == {1: 4300, 2: 4300, 3: 4300, 4: 4300, 5: 43000, 6: 4300}
        monkeypatch.setattr(evaluate, "ROWS_PER_BATCH", 10_000)
        wh.evaluate(list(DL19_RUNS), "dl19", ["AP"])
    assert prepared == [[1, 2], [3, 4], [5], [6]]


def test_files_to_numbers_in_batches_give_the_same_numbers(conformance, monkeypatch, prepared):
    folder = conformance / "dl19-passage"
    runs = {run: folder / "runs" / f"run.dl19.{run}.txt" for run in DL19_RUNS}
    together = warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", runs, MEASURES, per_query=True)
    monkeypatch.setattr(evaluate, "ROWS_PER_BATCH", 1)
    apart = warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", runs, MEASURES, per_query=True)
    assert [len(batch) for batch in prepared] == [6, 1, 1, 1, 1, 1, 1]
    assert (apart.summary.rows, apart.per_query.rows) == (together.summary.rows, together.per_query.rows)


def test_a_call_cut_short_keeps_whole_batches_and_the_next_computes_the_rest(conformance, tmp_path, monkeypatch,
                                                                            prepared):
    monkeypatch.setattr(evaluate, "ROWS_PER_BATCH", 1)
    real = evaluate.Evaluator._compute

    def fails_on_the_fourth(self, evaluation_id, qrels_id, s, measures, run_ids):
        if len(prepared) == 4:
            raise KeyboardInterrupt  # as Ctrl-C would, mid-batch
        return real(self, evaluation_id, qrels_id, s, measures, run_ids)

    with warehouse.open(tmp_path / "w.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        monkeypatch.setattr(evaluate.Evaluator, "_compute", fails_on_the_fourth)
        with pytest.raises(KeyboardInterrupt):
            wh.evaluate(list(DL19_RUNS), "dl19", MEASURES)
        monkeypatch.setattr(evaluate.Evaluator, "_compute", real)
        kept = wh.sql("select r.name, count(*) from evaluated as e join runs as r using (run_id) "
                      "group by r.name order by r.name").rows
        assert kept == [(run, len(MEASURES)) for run in sorted(DL19_RUNS)[:3]]
        assert wh.sql("select count(distinct run_id) from scores").rows == [(3,)]
        prepared.clear()
        resumed = _evaluated(wh)
        assert sorted(run for batch in prepared for run in batch) == [4, 5, 6]  # only what was missing
    with warehouse.open(tmp_path / "fresh.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        assert resumed == _evaluated(wh)


def test_postgresql_in_batches_gives_duckdbs_numbers(conformance, tmp_path, postgres_url, monkeypatch, prepared):
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        _ingest_dl19(wh, conformance)
        local = _evaluated(wh)
    monkeypatch.setattr(evaluate, "ROWS_PER_BATCH", 1)
    prepared.clear()
    with warehouse.open(postgres_url) as wh:
        _ingest_dl19(wh, conformance)
        server = _evaluated(wh)
        recorded = wh.sql("select count(*) from evaluated").rows
    assert len(prepared) == 6
    assert server == local
    assert recorded == [(6 * len(MEASURES),)]
