"""Long work says how far it is: a walk waited 52 s for `irw eval` of a new measure over 10,000
runs, and minutes for a first leaderboard, with no word. The library reports steps to the callable
a caller set (warehouse/progress.py); the irw command draws them as bars on a terminal's stderr, and
prints nothing of them elsewhere."""
from __future__ import annotations

import warehouse
from warehouse import progress
from warehouse.evaluation import evaluator, stats

from conftest import Cli


def test_an_evaluation_of_several_batches_and_a_comparison_of_many_pairs_report_their_steps(conformance, tmp_path,
                                                                                            monkeypatch):
    data = conformance / "dl19-passage"
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_qrels(data / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs(sorted((data / "runs").iterdir()))
        monkeypatch.setattr(evaluator, "ROWS_PER_BATCH", 5_000)  # about one DL19 run a batch
        monkeypatch.setattr(stats, "PROGRESS_FROM", 10)
        heard: list[tuple[str, int, int]] = []
        with progress.reported_to(lambda label, done, total: heard.append((label, done, total))):
            wh.evaluate(None, "dl19", ["AP", "nDCG@10"])
            wh.compare(None, "dl19", ["AP", "nDCG@10"])  # 15 pairs x 2 measures
        evaluated = [(done, total) for label, done, total in heard if label == "runs evaluated"]
        assert len(evaluated) > 1 and evaluated[-1] == (6, 6)
        assert [done for done, _ in evaluated] == sorted(done for done, _ in evaluated)
        tested = [(done, total) for label, done, total in heard if label == "comparisons tested"]
        assert tested and tested[-1] == (30, 30)
        heard.clear()
        wh.evaluate(None, "dl19", ["P@10"], recompute=True)  # no callback set: nothing heard, nothing fails
        assert heard == []


def test_the_command_prints_no_bar_where_no_one_watches(conformance, tmp_path):
    data = conformance / "dl19-passage"
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs").exit_code == 0
    said = irw("eval", "-m", "AP")
    assert said.exit_code == 0 and "evaluated" not in said.stderr and "\x1b" not in said.stderr
