"""Systems across collections: each system's latest run on each qrels set on one measure, and its
mean over the sets (the systems x collections table of papers and of BEIR)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from warehouse.errors import NotFoundError
from warehouse.evaluation.evaluator import Settings, measure_notes
from warehouse.evaluation.measures import Measure
from warehouse.formats.cells import listed_name, said_name
from warehouse.formats.escaping import shown as shown_text
from warehouse.formats.table import Table, Tabular
from warehouse.reports.display import fmt_value, plural
from warehouse.reports.files import write_page
from warehouse.reports.footer import qrels_text, settings_items
from warehouse.reports.page_history import refuse_several
from warehouse.reports.render import render
from warehouse.reports.scope import Scope, best_shown, load_scope
from warehouse.store import catalog

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse

# report_sets: the qrels sets of the table, each with where the measure's scores on it are stored
SET_COLUMNS = [("evaluation_id", "integer"), ("stored", "varchar"), ("qrels", "varchar"), ("position", "integer")]
# report_set_runs: the runs each qrels set of the table judges (sql/catalog/judging_rule.sql)
SET_RUN_COLUMNS = [("qrels", "varchar"), ("run_id", "integer")]


@dataclass(frozen=True)
class SystemCell:
    """A system's latest run on one qrels set, and its value there."""

    qrels: str
    run: str
    run_date: dt.datetime | None
    value: float | None
    queries: int
    system_runs: int       # the system's runs this set judges: the cell is the latest of them
    best: bool = False     # the best value of its set's column


@dataclass(frozen=True)
class SystemRow:
    rank: int | None       # by mean; None without a value on every set
    system: str
    mean: float | None
    cells: dict[str, SystemCell]   # qrels set -> cell; a set judging no run of the system has none


@dataclass
class SystemsPage(Tabular):
    measure: Measure
    qrels: list[str]                 # the columns, in order
    rows: list[SystemRow]            # ranked, then the systems without a mean by name
    scopes: dict[str, Scope]         # qrels set -> its evaluation's scope
    left_out: list[str]              # chosen runs no set of the table judges
    settings: list[tuple[str, str]]

    def __repr__(self) -> str:
        return (f"<Systems by {shown_text(self.measure.name)}: {plural(len(self.rows), 'system')} on "
                f"{plural(len(self.qrels), 'qrels set')} ({', '.join(map(listed_name, self.qrels))}); "
                f"{self.scopes[self.qrels[0]].settings.describe()}>")

    @property
    def several_runs(self) -> int:
        """Cells that chose the latest of several runs of their system."""
        return sum(1 for row in self.rows for cell in row.cells.values() if cell.system_runs > 1)

    @property
    def without_mean(self) -> list[SystemRow]:
        return [row for row in self.rows if row.rank is None]

    def cells(self) -> list[tuple[SystemRow, SystemCell]]:
        """Every cell, system by system in the table's order, each system's in column order."""
        return [(row, row.cells[qrels]) for row in self.rows for qrels in self.qrels if qrels in row.cells]

    def table(self) -> Table:
        """Systems x qrels sets as data (irw report systems --format json|csv|...): rank, system,
        the value on each set (column_of: a set named as a fixed column, rank, system or mean, is
        `NAME (qrels)`), mean."""
        columns = ["rank", "system", *map(column_of, self.qrels), "mean"]
        rows = [(row.rank, row.system, *[row.cells[q].value if q in row.cells else None for q in self.qrels],
                 row.mean) for row in self.rows]
        return Table(columns, rows)

    def runs_table(self) -> Table:
        """The run behind each value: system, qrels, run, run_date, value, queries, and how many of
        the system's runs the set judges (the value is the latest one's)."""
        return Table(["system", "qrels", "run", "run_date", self.measure.name, "queries", "system_runs"],
                     [(row.system, cell.qrels, cell.run, cell.run_date, cell.value, cell.queries, cell.system_runs)
                      for row, cell in self.cells()])

    def over_fewer_queries(self) -> list[tuple[SystemRow, SystemCell, int]]:
        """The cells whose value is a mean over fewer queries than their qrels set has (a system's
        latest run answering part of a set's queries), with the set's count: the table itself shows
        no query counts, so the same numbers sat side by side over 20 and 43 queries. The set's
        count, not the column's most: a walk's column of partial runs alone (16 of covid's 50) was
        said to be over "16 of 17"."""
        cells = self.cells()
        of_set = {qrels: int(self.scopes[qrels].qrels_summary()["queries"]) for qrels in {c.qrels for _, c in cells}}
        return [(row, cell, of_set[cell.qrels]) for row, cell in cells if cell.queries < of_set[cell.qrels]]

    def notes(self) -> list[str]:
        """What a command prints on stderr (after `# `) beside the table."""
        settings = self.scopes[self.qrels[0]].settings
        notes = [f"{self.measure.name} of each system's latest run on each qrels set; {settings.describe()}",
                 *measure_notes([self.measure], settings)]  # AP(rel=2): relevant means grade >= 2
        notes += [f"qrels {listed_name(name)} is the column '{column_of(name)}': the table's own "
                  f"{name.casefold()} column keeps its name" for name in self.qrels if column_of(name) != name]
        if self.several_runs:
            notes.append(f"{plural(self.several_runs, 'value')} of a system with several runs on one set: the latest "
                         "run's (by run date; the HTML page names each value's run)")
        if fewer := self.over_fewer_queries():
            said = [f"{listed_name(row.system)} on {listed_name(cell.qrels)}: run {listed_name(cell.run)}, "
                    f"{cell.queries:,} of {most:,}" for row, cell, most in fewer[:3]]
            notes.append(f"{plural(len(fewer), 'value')} over fewer queries than its qrels set has "
                         f"({'; '.join(said)}{'; ...' if len(fewer) > 3 else ''}): a mean over other queries, as "
                         "trec_eval averages a run over the queries it answers; -c counts each query a run misses as 0")
        if self.without_mean:
            count = len(self.without_mean)
            notes.append(f"{plural(count, 'system')} without a run judged by each of the {len(self.qrels)} qrels sets: "
                         f"no mean, unranked ({', '.join(listed_name(row.system) for row in self.without_mean[:5])}"
                         f"{', ...' if count > 5 else ''})")
        if self.left_out:
            count = len(self.left_out)
            notes.append(f"{count:,} {'run' if count == 1 else 'runs'} left out: no qrels set of the table judges "
                         f"{'it' if count == 1 else 'them'} "
                         f"({', '.join(map(listed_name, self.left_out[:5]))}{', ...' if count > 5 else ''})")
        return notes


FIXED_COLUMNS = ("rank", "system", "mean")


def column_of(qrels: str) -> str:
    """A qrels set's column in the table: its name, or `NAME (qrels)` where that is a fixed column's
    (a set named mean would put its values where a reader of the JSON takes the mean)."""
    return f"{qrels} (qrels)" if qrels.casefold() in FIXED_COLUMNS else qrels


def chosen_columns(wh: Warehouse, qrels: str | Sequence[str] | None = None, runs: str | Sequence[str] | None = None,
                   systems: str | Sequence[str] | None = None) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """What systems() tabulates: the runs chosen (Warehouse.select_runs), the runs each stored qrels
    set judges of them, and the table's columns: qrels in its order, each of which must judge a
    chosen run, or by default every set judging one, by name. NotFoundError where no column is left."""
    chosen = list(catalog.select_runs(wh.db, runs, systems=systems))
    judged = catalog.judged_runs_by_set(wh.db, chosen)
    wanted_sets = [qrels] if isinstance(qrels, str) else list(dict.fromkeys(qrels or []))
    for name in wanted_sets:
        catalog.qrels_set_id(wh.db, name)  # a set not stored: NotFoundError naming the stored ones
        if name not in judged:
            raise NotFoundError(f"qrels {said_name(name)} judges none of the {plural(len(chosen), 'run')} chosen: "
                                "check that runs and qrels are of the same collection (`irw runs` shows which "
                                "qrels sets judge each run)")
    columns = wanted_sets or sorted(judged)
    if not columns:
        raise NotFoundError(f"no stored qrels set judges a query of the {plural(len(chosen), 'run')} chosen: ingest "
                            "their collections' qrels with `irw ingest qrels FILE --name NAME`")
    return chosen, judged, columns


def systems(wh: Warehouse, measure: str | Sequence[str] = "AP", *, qrels: str | Sequence[str] | None = None,
            runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
            settings: Settings | None = None) -> SystemsPage:
    """Each system's latest run on each qrels set, on one measure, and the system's mean over the
    sets, ranked by it (a system without a run judged by every set has no mean and comes last).

    qrels: the sets, the columns in this order (default: every stored set that judges a
    chosen run, by name). runs and systems choose the runs as Warehouse.select_runs does (default:
    every stored run); a run no set judges is left out (SystemsPage.left_out). Scores not stored
    yet are computed and stored, as every report does."""
    settings = settings or Settings()
    given = [measure] if isinstance(measure, str) else list(measure)
    refuse_several(given, settings, "the systems table shows one measure")
    chosen, judged, columns = chosen_columns(wh, qrels, runs, systems)
    scopes = {name: load_scope(wh, name, given, judged[name], settings, summary=False) for name in columns}
    m = scopes[columns[0]].primary
    wh.db.load_rows("report_sets", SET_COLUMNS, [
        (scopes[name].wanted[m.name]["evaluation_id"], scopes[name].wanted[m.name]["stored"], name, position)
        for position, name in enumerate(columns)])
    in_table = sorted({run for name in columns for run in judged[name]})
    # each set's values are those of the runs it judges: a run evaluated outright with another
    # collection's qrels (its scores stored there, 0) is no value of that set (a walk: BM25.covid
    # evaluated with touche's qrels became BM25's touche value, 0.0000)
    ids = catalog.run_ids(wh.db, in_table)
    wh.db.load_rows("report_set_runs", SET_RUN_COLUMNS,
                    [(name, ids[run]) for name in columns for run in judged[name]])
    rows = Table.from_result(wh.db.run_file("reports/systems.sql")).to_dicts()
    # each column's best, bold as a leaderboard's: by the value shown (4 decimals)
    best = {name: best_shown([r["value"] for r in rows if r["qrels"] == name], m) for name in columns}
    by_system: dict[str, SystemRow] = {}
    for r in rows:
        row = by_system.setdefault(r["system"], SystemRow(r["rank"], r["system"], r["mean"], {}))
        row.cells[r["qrels"]] = SystemCell(r["qrels"], r["run"], r["run_date"], r["value"], r["queries"],
                                           r["system_runs"], fmt_value(r["value"]) in best[r["qrels"]])
    shown_runs = set(in_table)
    left_out = [run for run in chosen if run not in shown_runs]
    items = settings_items(scopes[columns[0]], None, None)
    items = [(label, "; ".join(qrels_text(scopes[name]) for name in columns) if label == "Qrels" else text)
             for label, text in items]
    items.insert(1, ("Systems", "a run's system (irw runs), or its name where it has none; each value is the "
                                "system's latest run the set judges (by run date, then ingest time); the mean is "
                                "over every set, for a system with a value on each"))
    return SystemsPage(m, columns, list(by_system.values()), scopes, left_out, items)


def render_systems(page: SystemsPage) -> str:
    return render("systems.html", page=page, title=f"Systems: {page.measure.name} on {', '.join(page.qrels)}",
                  settings=page.settings)


def write_systems(wh: Warehouse, path: Path, measure: str = "AP", **options: Any) -> Path:
    return write_page(path, render_systems(systems(wh, measure, **options)))
