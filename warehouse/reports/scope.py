"""The scores a report reads: which evaluation holds each measure, the runs' metadata, the
precision-recall curve and the tie-order ranges every page kind draws on.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from warehouse.ingestion import files
from warehouse.store import catalog
from warehouse.reports import charts
from warehouse.errors import ReadOnlyError, UsageError
from warehouse.evaluation import evaluator
from warehouse.evaluation.evaluator import Settings, load_wanted
from warehouse.evaluation.measures import (COVERAGE_MEASURE, DEFAULT_MEASURES, PR_RECALLS, Measure, at_level, parse_all,
                                           pr_measures, stored_name, tie_variant)
from warehouse.formats.table import Table
from warehouse.reports.display import fmt_value, missing

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse

NEUTRAL_FAMILIES = {"num_q", "num_ret", "num_rel"}        # no "best": more is not better
LOWER_IS_BETTER = {"unj", "rbp_resid"}


@dataclass
class Scope:
    """One report's evaluation: qrels set, settings, measures, and where their stored scores are."""

    wh: Warehouse
    qrels: str
    qrels_id: int
    settings: Settings
    measures: list[Measure]              # shown, primary first
    wanted: dict[str, dict[str, Any]]    # measure name -> {evaluation_id, stored, measure, position}
    summary: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)  # (run, measure) -> (value, queries)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)  # what every page of a report reads alike

    @property
    def primary(self) -> Measure:
        return self.measures[0]

    def wanted_for(self, measures: Iterable[Measure]) -> list[dict[str, Any]]:
        return [self.wanted[m.name] for m in measures]

    def sql(self, name: str, params: dict[str, Any]) -> Table:
        return Table.from_result(self.wh.db.run_file(f"reports/{name}.sql", params))

    def qrels_summary(self) -> dict[str, Any]:
        """The qrels set's facts every report states (sql/reports/qrels_summary.sql), read once."""
        if "qrels_summary" not in self.cache:
            self.cache["qrels_summary"] = self.sql("qrels_summary", {"qrels_set_id": self.qrels_id,
                                                                     "level": self.settings.level}).to_dicts()[0]
        return self.cache["qrels_summary"]


def _parse_measures(specs: Sequence[str] | None, level: int) -> list[Measure]:
    """The measures a report shows, each once at the evaluation's level (at_level: AP(rel=1) at
    level 1 is AP)."""
    measures = at_level([m for m in parse_all(list(specs or DEFAULT_MEASURES)) if m.family.sql is not None], level)
    if not measures:
        raise UsageError("name at least one measure with a per-query score (-m), e.g. -m AP -m nDCG@10")
    return measures


def load_scope(wh: Warehouse, qrels: str, specs: Sequence[str] | None, runs: Sequence[str], settings: Settings,
               extra: Sequence[str] = (), summary: bool = True) -> Scope:
    """The report's measures (specs, then extra), their scores computed where missing, and with
    summary each run's summary value of each (irw eval's); without it the report reads them itself."""
    measures = _parse_measures(specs, settings.level)
    extra_measures = [m for m in parse_all(list(extra)) if m.name not in {x.name for x in measures}]
    everything = measures + extra_measures
    values = {}
    qrels_id = catalog.qrels_set_id(wh.db, qrels)
    if runs and summary:
        # computes only the (run, measure) scores not stored yet; the summary is irw eval's
        evaluation = wh.evaluate(list(runs), qrels, everything, settings=settings)
        values = {(run, measure): (value, queries) for run, measure, value, _micro, queries in evaluation.summary.rows}
    elif runs:
        ensure_scores(wh, qrels, qrels_id, runs, everything, settings)
    return Scope(wh, qrels, qrels_id, settings, measures, wanted_entries(wh, qrels_id, settings, everything), values)


def ensure_scores(wh: Warehouse, qrels: str, qrels_id: int, runs: Sequence[str], measures: Sequence[Measure],
                  settings: Settings, ids: dict[str, int] | None = None) -> None:
    """Computes the scores of runs x measures not stored yet (Warehouse.evaluate), asking it only
    about the runs that lack one (sql/reports/missing_scores.sql), EVALUATE_BATCH runs per call:
    over a thousand stored runs, a report then reads nothing it does not show. A run whose scores
    cover no query is asked about again, so evaluate says why, as it would have with every run.
    ids: the runs' ids when the caller has them (name -> run_id), else looked up."""
    entries = wanted_entries(wh, qrels_id, settings, measures)
    ids = ids if ids is not None else catalog.run_ids(wh.db, runs)
    if any(w["evaluation_id"] == -1 for w in entries.values()):
        # in the order they were stored, as below: a batch of runs stored together is a narrow
        # range of run ids, so DuckDB reads only their row groups of run_rows and judged_run_rows.
        # In name order each batch of a cold leaderboard spanned every run's rows: 1,000 runs read
        # 10 x 5M rows, 10,000 runs 100 x 50M
        missing_runs, missing = sorted(runs, key=ids.__getitem__), list(measures)
    else:
        wh.db.load_rows("report_wanted", WANTED_COLUMNS, [
            (w["evaluation_id"], w["stored"], w["measure"], w["position"]) for w in entries.values()])
        rows = wh.db.run_file("reports/missing_scores.sql", {"run_ids": list(ids.values())}).fetchall()
        names = {run_id: name for name, run_id in ids.items()}
        missing_runs = list(dict.fromkeys(names[run_id] for run_id, _m in rows))
        lacking = {measure for _r, measure in rows}
        missing = [m for m in measures if m.name in lacking]
    # a hundred runs at a time: Warehouse.evaluate computes a call's runs together, and DuckDB's
    # working tables for a thousand runs took 2.6 GB (100 at a time: under 0.6 GB, and no slower)
    for start in range(0, len(missing_runs), EVALUATE_BATCH):
        wh.evaluate(missing_runs[start:start + EVALUATE_BATCH], qrels, missing, settings=settings)
        wh.db.release_memory()  # the blocks of this batch's rows: the next batch reads others


def wanted_entries(wh: Warehouse, qrels_id: int, settings: Settings,
                   measures: Sequence[Measure]) -> dict[str, dict[str, Any]]:
    """Where each measure's stored scores are: measure name -> {evaluation_id (-1: none yet),
    stored (the name they are stored under), measure, position (in the order given)}."""
    # a measure with its own relevance level (AP(rel=2)) reads the evaluation made at that level
    keys = {m.name: replace(settings, level=m.level if m.level is not None else settings.level).key
            for m in measures}
    evaluation_ids = dict(wh.db.run_file("reports/evaluation_id.sql", {
        "qrels_set_id": qrels_id, "settings_keys": sorted(set(keys.values()))}).fetchall())
    return {m.name: {"evaluation_id": evaluation_ids.get(keys[m.name], -1), "stored": stored_name(m),
                     "measure": m.name, "position": position} for position, m in enumerate(measures)}


def tie_forms(measure: Measure, settings: Settings) -> list[Measure]:
    """The primary measure's range over tie orders, which the leaderboard and run pages add on
    their own; left out (tie_forms_left_out says so) where the settings leave it undefined."""
    return evaluator.tie_forms([measure], settings)


def tie_forms_left_out(measure: Measure, settings: Settings) -> str:
    """The note a page shows where tie_forms left the measure's range over tie orders out for the
    settings ('' where nothing was left out)."""
    if tie_forms(measure, settings) or tie_variant(measure, "min") is None:
        return ""
    return (f"The range of {measure.name} over the orders of tied documents is not shown: with -M and -J together "
            "it is undefined (which documents -M keeps before -J drops the unjudged ones depends on the tie order).")


def testable(m: Measure) -> bool:
    """Paired tests compare means: measures summarized otherwise (sums, geometric means) are not tested."""
    return m.is_mean


def higher_is_better(m: Measure) -> bool | None:
    if m.family.trec_name in NEUTRAL_FAMILIES:
        return None
    return m.family.trec_name not in LOWER_IS_BETTER


def best_shown(values: Sequence[float | None], m: Measure) -> set[str]:
    """The displayed values (4 decimals) that are best in a column of m's values, bold on a page;
    none for neutral measures."""
    direction = higher_is_better(m)
    if direction is None:
        return set()
    numbers = [v for v in values if not missing(v)]
    if not numbers:
        return set()
    return {fmt_value(max(numbers) if direction else min(numbers))}


def require_runs(wh: Warehouse, names: Sequence[str], qrels: str | None = None) -> None:
    """A name the warehouse does not hold is a NotFoundError, before any evaluation starts."""
    catalog.run_ids(wh.db, names, qrels)


def run_ids_in_order(wh: Warehouse, names: Sequence[str]) -> list[int]:
    ids = catalog.run_ids(wh.db, names)
    return [ids[n] for n in names]


RUN_ORDER_COLUMNS = [("run_id", "integer"), ("run_position", "integer")]
EVALUATE_BATCH = 100  # runs per Warehouse.evaluate call when a report computes missing scores
# report_wanted: where each measure a report query reads is stored (Scope.wanted's entries)
WANTED_COLUMNS = [("evaluation_id", "integer"), ("stored", "varchar"), ("measure", "varchar"),
                  ("position", "integer")]


def load_run_order(wh: Warehouse, run_ids: Sequence[int]) -> None:
    """report_runs: the runs a report query reads, in the order it lists them."""
    wh.db.load_rows("report_runs", RUN_ORDER_COLUMNS, [(run_id, i) for i, run_id in enumerate(run_ids)])


def run_metadata(scope: Scope, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    load_run_order(scope.wh, run_ids_in_order(scope.wh, names))
    rows = scope.sql("run_metadata", {}).to_dicts()
    for row in rows:
        row["source_name"] = source_shown(row["source_path"])
        row["parameters"] = sorted((row["parameters"] or {}).items())
    return {row["run"]: row for row in rows}


def source_shown(source_path: str | None) -> str | None:
    """What a page shows of the file a run was read from: the file and its folder (covid/BM25.txt: a
    team keeps a BM25.txt in each collection's folder), and the folder above when it is a night
    (2026-01-20/BM25/trec_results_covid.txt: every night's file is BM25/trec_results_covid.txt).
    The folders further up are the machine's, not the page reader's."""
    if not source_path:
        return None
    source = Path(source_path)
    shown = [source.parent.name, source.name] if source.parent.name else [source.name]
    if source.parent.name and files.night_of(source.parent.parent.name) is not None:
        shown.insert(0, source.parent.parent.name)
    return "/".join(shown)


def pr_curves(scope: Scope, names: Sequence[str]) -> dict[str, list[tuple[float, float]]]:
    """The 11-point interpolated precision-recall curve of each run, {run: [(recall, precision)]}:
    irw eval's summary of the IPrec@x measures (sql/eval/summary.sql), in recall order, so the
    curve is trec_eval's. One query for any number of runs."""
    levels = [m for m in parse_all(pr_measures()) if m.name in scope.wanted]
    if not levels or not names:
        return {}
    recall = {m.name: float(m.param) for m in levels}
    wanted = [{**scope.wanted[m.name], "position": position} for position, m in enumerate(levels)]
    load_wanted(scope.wh.db, wanted, run_ids_in_order(scope.wh, names))
    table = Table.from_result(scope.wh.db.run_file("eval/summary.sql"))
    by_run: dict[str, list[tuple[float, float]]] = {}
    for run, measure, precision, _micro, _queries in table.rows:
        by_run.setdefault(run, []).append((recall[measure], precision))
    return by_run


def pr_curve_chart(scope: Scope, names: Sequence[str], title: str,
                   curves: dict[str, list[tuple[float, float]]] | None = None) -> charts.LineChart | None:
    """The precision-recall curves of these runs in one chart (curves: pr_curves, read already)."""
    by_run = pr_curves(scope, names) if curves is None else curves
    series = [(name, by_run[name]) for name in names if name in by_run]
    if not series:
        return None
    return charts.line_chart(series, title=title, x_label="recall", y_label="interpolated precision",
                             point_title="{name}: precision {y} at recall {x}")


