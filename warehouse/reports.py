"""Comparisons and HTML reports: leaderboard, run page, compare page, history.

Every number comes from stored per-query scores: runs are evaluated through Warehouse.evaluate
(which computes only the (run, measure) pairs not stored yet), then the report queries in
sql/reports/ read `scores` and run metadata. Python pairs the per-query values, runs the tests of
warehouse.stats, corrects them as one family per report, computes chart geometry
(warehouse.charts) and hands plain data to the Jinja templates, which only format and lay out.

The output is one self-contained HTML file per page: inline CSS, a few lines of inline JS that
sort tables, inline SVG charts, no network access (a Content-Security-Policy forbids it). The
same warehouse contents and options give the same bytes: queries order explicitly, seeds are
fixed, and no generation time is printed.
"""
from __future__ import annotations

import datetime as dt
import errno
import hashlib
import math
import os
import re
import secrets
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import quote

from . import catalog, charts
from .core import Warehouse
from .errors import NotFoundError, OutputError, ReadOnlyError, UsageError
from .evaluate import NO_DEPTH, Settings, stored_name
from .formatting import format_number
from .measures import Measure, parse_all, tie_variant
from .resources import templates_dir
from .stats import CORRECTIONS, Family, PairedResult, StatsSettings
from .table import Table, Tabular

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10")
COVERAGE_MEASURE = "Judged@10"
PR_RECALLS = tuple(i / 10 for i in range(11))
NEUTRAL_FAMILIES = {"num_q", "num_ret", "num_rel"}        # no "best": more is not better
LOWER_IS_BETTER = {"unj", "rbp_resid"}
DASH = "\u2014"
EPOCH = dt.datetime(1970, 1, 1)  # the chart position of a run without a date


# -- formatting (numbers through warehouse.formatting) -----------------------------------------
def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_value(value: float | None) -> str:
    return DASH if _missing(value) else format_number(value)


def fmt_delta(value: float | None) -> str:
    if _missing(value):
        return DASH
    text = format_number(value)
    if text.lstrip("-").strip("0.") == "":
        return format_number(0.0)  # no "-0.0000"
    return text if value < 0 else "+" + text


def fmt_p(value: float | None) -> str:
    if _missing(value):
        return DASH
    if value < 0.0001 and format_number(value) == format_number(0.0):
        return "<" + format_number(0.0001)
    return format_number(value)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


def wins_ties_losses(result: PairedResult) -> str:
    return (f"{plural(result.wins, 'win')}, {plural(result.ties, 'tie')}, {plural(result.losses, 'loss', 'losses')}")


def fmt_count(value: int | None) -> str:
    return DASH if value is None else f"{value:,}"


def fmt_date(value: dt.datetime | None) -> str:
    return DASH if value is None else value.strftime("%Y-%m-%d")


def fmt_datetime(value: dt.datetime | None) -> str:
    return DASH if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def sort_value(value: Any) -> str:
    """The data-value a sortable cell carries: full precision numbers, ISO dates, '' for none."""
    if _missing(value):
        return ""
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    if isinstance(value, bool):
        return "1" if value else "0"
    # 12 significant digits: DuckDB's parallel sums may differ in the last bits between runs,
    # and a data attribute must not make the bytes of a report differ
    return f"{value:.12g}" if isinstance(value, float) else str(value)


_SAFE_PAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
# names Windows refuses as files whatever their extension (con.html is the console)
_RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def run_page_name(run: str) -> str:
    """A file name for a run's page: the name itself when it is a safe file name, else a cleaned
    name and 8 hex digits of its SHA-256 (unique, and safe on any file system). A safe name has
    only letters, digits, '.', '_' and '-', starts with a letter or digit, and is never a path."""
    if _SAFE_PAGE_NAME.fullmatch(run) and not run.endswith(".") and run.split(".")[0].lower() not in _RESERVED_NAMES:
        return f"{run}.html"
    return _hashed_page_name(run)


def _hashed_page_name(run: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", run).strip("._-")[:60] or "run"
    return f"{clean}-{hashlib.sha256(run.encode('utf-8')).hexdigest()[:8]}.html"


def run_page_names(runs: Iterable[str]) -> dict[str, str]:
    """Each run's page file name (run_page_name), unique even where the file system ignores case:
    runs whose names differ only in case (BM25, bm25) get the hashed form."""
    names = {run: run_page_name(run) for run in runs}
    folded: dict[str, int] = {}
    for page in names.values():
        folded[page.casefold()] = folded.get(page.casefold(), 0) + 1
    return {run: page if folded[page.casefold()] == 1 else _hashed_page_name(run) for run, page in names.items()}


def run_pages_dir(report: Path) -> Path:
    """Where a leaderboard's run pages go: a folder beside it named after it (dl19.html ->
    dl19_runs/), so the run pages of two leaderboards in one folder never overwrite each other."""
    return report.with_name(f"{report.stem or report.name}_runs")


def href(*parts: str) -> str:
    """A relative link from path parts (file and folder names), each percent-encoded."""
    return "/".join(quote(part, safe="") for part in parts)


# -- the scores a report reads -----------------------------------------------------------------
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

    @property
    def primary(self) -> Measure:
        return self.measures[0]

    def wanted_for(self, measures: Iterable[Measure]) -> list[dict[str, Any]]:
        return [self.wanted[m.name] for m in measures]

    def sql(self, name: str, params: dict[str, Any]) -> Table:
        return Table.from_result(self.wh.db.run_file(f"reports/{name}.sql", params))


def _parse_measures(specs: Sequence[str] | None) -> list[Measure]:
    measures = [m for m in parse_all(list(specs or DEFAULT_MEASURES)) if m.family.sql is not None]
    if not measures:
        raise UsageError("name at least one measure with a per-query score (-m), e.g. -m AP -m nDCG@10")
    return measures


def _scope(wh: Warehouse, qrels: str, specs: Sequence[str] | None, runs: Sequence[str], settings: Settings,
           extra: Sequence[str] = ()) -> Scope:
    measures = _parse_measures(specs)
    extra_measures = [m for m in parse_all(list(extra)) if m.name not in {x.name for x in measures}]
    everything = measures + extra_measures
    summary = {}
    if runs:
        # computes only the (run, measure) scores not stored yet; the summary is irw eval's
        evaluation = wh.evaluate(list(runs), qrels, everything, settings=settings)
        summary = {(run, measure): (value, queries) for run, measure, value, _micro, queries in evaluation.summary.rows}
    qrels_id = catalog.qrels_set_id(wh.db, qrels)
    wanted = {}
    for position, m in enumerate(everything):
        level = m.level if m.level is not None else settings.level
        row = wh.db.run_file("reports/evaluation_id.sql",
                             {"qrels_set_id": qrels_id, "settings_key": replace(settings, level=level).key}).fetchone()
        wanted[m.name] = {"evaluation_id": row[0] if row else -1, "stored": stored_name(m),
                          "measure": m.name, "position": position}
    return Scope(wh, qrels, qrels_id, settings, measures, wanted, summary)


def _testable(m: Measure) -> bool:
    """Paired tests compare means: measures summarized otherwise (sums, geometric means) are not tested."""
    return m.aggregate == "mean"


def _higher_is_better(m: Measure) -> bool | None:
    if m.family.trec_name in NEUTRAL_FAMILIES:
        return None
    return m.family.trec_name not in LOWER_IS_BETTER


# -- paired comparisons ------------------------------------------------------------------------
@dataclass
class PairRow:
    """One run against one baseline on one measure, with the per-query values behind the test."""

    pair: int
    run: str
    baseline: str
    measure: Measure
    queries: list[str]            # paired: both runs were evaluated on them
    run_values: list[float]
    baseline_values: list[float]
    run_only: int                 # queries only the run was evaluated on
    baseline_only: int
    result: PairedResult | None = None
    p_adjusted: float = math.nan
    significant: bool = False

    @property
    def tested(self) -> bool:
        return self.result is not None and not math.isnan(self.result.p_value)

    @property
    def direction(self) -> str:
        """'better', 'worse' or '' (not significant), from the run's side, after correction."""
        if not self.significant or self.result is None:
            return ""
        better = self.result.diff > 0
        if _higher_is_better(self.measure) is False:
            better = not better
        return "better" if better else "worse"

    @property
    def same_queries(self) -> bool:
        return self.run_only == 0 and self.baseline_only == 0


def _pair_rows(scope: Scope, pairs: Sequence[tuple[str, str]], measures: Sequence[Measure]) -> list[PairRow]:
    ids = catalog.run_ids(scope.wh.db, dict.fromkeys(r for pair in pairs for r in pair))
    table = scope.sql("paired_scores", {
        "pairs": [{"pair": i, "run_id": ids[r], "baseline_id": ids[b]} for i, (r, b) in enumerate(pairs)],
        "wanted": scope.wanted_for(measures)})
    by_key: dict[tuple[int, str], PairRow] = {}
    for i, (run, baseline) in enumerate(pairs):
        for m in measures:
            by_key[(i, m.name)] = PairRow(i, run, baseline, m, [], [], [], 0, 0)
    for pair, _position, measure, query, run_value, baseline_value in table.rows:
        row = by_key[(pair, measure)]
        if run_value is None:
            row.baseline_only += 1
        elif baseline_value is None:
            row.run_only += 1
        else:
            row.queries.append(query)
            row.run_values.append(run_value)
            row.baseline_values.append(baseline_value)
    return [by_key[(i, m.name)] for m in measures for i in range(len(pairs))]


def _test(rows: Sequence[PairRow], stats: StatsSettings) -> Family:
    """Tests every testable row and corrects them as one family; returns the family."""
    family = Family(stats)
    index_of = {}
    for row in rows:
        if _testable(row.measure):
            index_of[id(row)] = family.add(row.run_values, row.baseline_values)
        else:
            row.result = None
    family.finish()
    for row in rows:
        if id(row) in index_of:
            k = index_of[id(row)]
            row.result = family.results[k]
            row.p_adjusted = family.adjusted[k]
            row.significant = family.significant(k)
    return family


@dataclass
class Comparison(Tabular):
    """The result of compare(): every measure x pair, tested and corrected together. As a table
    (to_pandas(), to_polars(), to_arrow(), Jupyter) one row per measure x pair; as a paper table
    to_latex() / to_markdown()."""

    qrels: str
    settings: Settings
    stats: StatsSettings
    measures: list[Measure]
    pairs: list[tuple[str, str]]
    baseline: str | None
    rows: list[PairRow]
    tested: int

    def table(self) -> Table:
        columns = ["measure", "run", "baseline", "queries", "run_mean", "baseline_mean", "diff", "ci_low",
                   "ci_high", "p", "p_adjusted", "significant", "wins", "ties", "losses"]
        out = []
        for row in self.rows:
            r = row.result if row.result is not None and row.result.n > 0 else None
            if r is None:
                values = [None] * 8
            else:
                values = [r.mean_a, r.mean_b, r.diff, r.ci_low, r.ci_high, r.p_value, row.p_adjusted,
                          row.significant]
                values = [None if _missing(v) else v for v in values]
            out.append((row.measure.name, row.run, row.baseline, len(row.queries), *values,
                        *(3 * [None] if r is None else [r.wins, r.ties, r.losses])))
        return Table(columns, out)

    def paper_table(self):
        """The runs x measures table for a paper (warehouse/paper.py): to_latex / to_markdown."""
        from . import paper

        return paper.from_comparison(self, _higher_is_better)

    def to_latex(self, label: str = "tab:irw") -> str:
        """The paper table as LaTeX (booktabs): best in bold, significance letters, a caption."""
        from . import paper

        return paper.to_latex(self.paper_table(), label)

    def to_markdown(self) -> str:
        """The paper table as GitHub Markdown."""
        from . import paper

        return paper.to_markdown(self.paper_table())

    def notes(self) -> list[str]:
        """What a reader needs beside the numbers: settings, test, correction, query sets."""
        lines = [f"qrels {self.qrels}; {self.settings.describe()}",
                 f"test: {self.stats.describe_test()}; alpha {self.stats.alpha:g}",
                 f"confidence interval: {self.stats.describe_ci()}",
                 f"correction: {CORRECTIONS[self.stats.correction]} over {plural(self.tested, 'comparison')} "
                 f"({'every run against ' + self.baseline if self.baseline else 'all pairs'} x "
                 f"{plural(len(self.measures), 'measure')})",
                 "queries: each pair is tested over the queries both runs were evaluated on; "
                 "means are over those queries"]
        seen = set()
        for row in self.rows:
            if (row.run, row.baseline) in seen or row.same_queries:
                continue
            seen.add((row.run, row.baseline))
            lines.append(f"{row.run} vs {row.baseline}: {plural(len(row.queries), 'shared query', 'shared queries')} "
                         f"({row.run_only} only in {row.run}, {row.baseline_only} only in {row.baseline})")
        untested = sorted({row.measure.name for row in self.rows if row.result is None})
        if untested:
            lines.append(f"not tested (not a mean over queries): {', '.join(untested)}")
        return lines


def compare(wh: Warehouse, runs: Sequence[str], qrels: str, measures: Sequence[str] | None = None, *,
            baseline: str | None = None, settings: Settings | None = None,
            stats: StatsSettings | None = None) -> Comparison:
    """Paired tests of runs against a baseline (or of all pairs, each run against those named before
    it), on every measure, corrected for multiple testing across all of them."""
    names = _compared_runs(runs, baseline)
    _run_ids(wh, names)
    scope = _scope(wh, qrels, measures, names, settings or Settings())
    return _compare(scope, names, baseline, stats or StatsSettings())


def _compared_runs(runs: Sequence[str], baseline: str | None) -> list[str]:
    names = list(dict.fromkeys(([baseline] if baseline is not None else []) + list(runs)))
    if len(names) < 2:
        raise UsageError("compare needs at least two runs (or one run and --baseline)")
    return names


def _compare(scope: Scope, names: Sequence[str], baseline: str | None, stats: StatsSettings) -> Comparison:
    if baseline is not None:
        pairs = [(run, baseline) for run in names if run != baseline]
    else:
        pairs = [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    rows = _pair_rows(scope, pairs, scope.measures)
    family = _test(rows, stats)
    return Comparison(scope.qrels, scope.settings, stats, scope.measures, pairs, baseline, rows, family.tested)


# -- report settings (the footer) --------------------------------------------------------------
def settings_items(scope: Scope, stats: StatsSettings | None, family: str | None) -> list[tuple[str, str]]:
    """Every setting behind a report's numbers, as (label, text) rows."""
    s = scope.settings
    q = scope.sql("qrels_summary", {"qrels_set_id": scope.qrels_id, "level": s.level}).to_dicts()[0]
    norel = q["queries_without_relevant"]
    qrels_text = (f"{q['name']}: {q['queries']:,} queries, {q['judgments']:,} judgments, {q['relevant']:,} "
                  f"relevant (grade >= {s.level})")
    if norel:
        qrels_text += f"; {norel:,} {'query has' if norel == 1 else 'queries have'} no relevant document"
    if q["description"]:
        qrels_text += f" ({q['description']})"
    query_set = ("every qrels query; a query a run lacks scores 0 (trec_eval -c)" if s.complete else
                 "the queries in both the run and the qrels (trec_eval's default); queries only in a run are "
                 "ignored")
    if s.norel == "exclude":
        query_set += "; queries without a relevant document are left out"
    else:
        query_set += "; queries without a relevant document count (0 on measures that need one)"
    cutoffs = sorted({int(m.param) for m in scope.measures if m.family.kind == "cutoffs"})
    items = [
        ("Qrels", qrels_text),
        ("Query set", query_set),
        ("Relevance level", f"relevant means grade >= {s.level} (trec_eval -l {s.level}); nDCG uses grades as gains"),
        ("Cutoffs", f"evaluation depth: {'all retrieved documents' if s.depth is None else f'the top {s.depth:,} (trec_eval -M)'}"
                    f"; measure cutoffs: {', '.join(str(k) for k in cutoffs) if cutoffs else 'none'}"),
        ("Judged only", "yes: unjudged documents are removed before ranking (trec_eval -J)" if s.judged_only
         else "no (unjudged documents count as non-relevant)"),
        ("Tie rule", ("score as a 32-bit float descending, then docid descending in byte order" if s.compat == 9
                      else "score as a double descending, then docid descending in byte order")),
        ("trec_eval compatibility", ("9.0.8: float32 scores; interpolated precision at floor(x R + 0.9) relevant"
                                     if s.compat == 9 else "10.0: double scores; interpolated precision at "
                                     "round(x R) relevant")),
        ("Measures", ", ".join(m.name for m in scope.measures) + f" (primary: {scope.primary.name}); "
                     f"values are means over queries, shown to 4 decimals"),
    ]
    if stats is not None:
        items += [
            ("Test", stats.describe_test() + "; paired over the queries both runs were evaluated on"),
            ("Alpha", format_number(stats.alpha, 2)),
            ("Correction", f"{CORRECTIONS[stats.correction]}{', ' + family if family else ''}; "
                           "a mark means the corrected p is below alpha"),
            ("Confidence interval", stats.describe_ci() + " (not corrected)"),
            ("Permutations", f"{stats.permutations:,}" + (" (randomization sign flips)" if stats.test == "randomization"
                                                         else " (bootstrap resamples)" if stats.test == "bootstrap"
                                                         else " (used only by the randomization and bootstrap tests)")),
            ("Seed", str(stats.seed)),
            ("Win / tie / loss", "per query, from the run's side; a tie is a difference below 1e-12 of the "
                                 "largest difference"),
        ]
    items.append(("Run date", "the date given at ingest (irw ingest run --date), else the run's ir_metadata date, "
                              "else its file's modification time; a run's page says which"))
    return items


# -- rendering ---------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(loader=FileSystemLoader(str(templates_dir())), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(num=fmt_value, delta=fmt_delta, pvalue=fmt_p, count=fmt_count, date=fmt_date,
                       datetime=fmt_datetime, sortval=sort_value, runpage=run_page_name,
                       urlquote=lambda text: quote(str(text), safe=""))
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def _write(path: Path, html: str) -> Path:
    """Writes a page whole or not at all: to a temporary file in the target folder, then renamed
    over the target, so a full disk or an error never leaves a truncated page (and a reader never
    sees one). A folder that cannot be made or written to is an OutputError."""
    write_atomically(path, html.encode("utf-8"))
    return path


def write_atomically(path: Path, data: bytes) -> None:
    """data into path whole or not at all (temporary file in the same folder, fsync, rename)."""
    path = Path(path)
    _make_folder(path.parent)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; name a file with -o")
    temporary = path.with_name(f".{path.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # os.open, not tempfile: the page gets the usual permissions (0666 less the umask), not 0600
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        try:
            temporary.unlink()
        except OSError:
            pass
        hint = "free some space or choose another -o path" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "choose another -o path"
        raise OutputError(f"cannot write {path}: {_os_reason(exc)}; the file is as it was ({hint})") from None


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), folder)
        raise OutputError(f"cannot write into {folder}: {blocker} is a file, not a folder; "
                          "choose another -o path") from None
    except OSError as exc:
        raise OutputError(f"cannot make the folder {folder}: {_os_reason(exc)}; choose another -o path") from None


def _os_reason(exc: OSError) -> str:
    reasons = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
               errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
               errno.EROFS: "the file system is read-only", errno.ENOTDIR: "a part of the path is not a folder",
               errno.EISDIR: "it is a folder", errno.ENAMETOOLONG: "the name is too long",
               errno.ENOENT: "its folder does not exist or cannot hold files"}
    return reasons.get(exc.errno, exc.strerror or type(exc).__name__)


# -- shared pieces -----------------------------------------------------------------------------
def _run_names(wh: Warehouse) -> list[str]:
    return [r[0] for r in wh.db.fetchall("select name from runs order by name")]


def _run_ids(wh: Warehouse, names: Sequence[str]) -> list[int]:
    ids = catalog.run_ids(wh.db, names)
    return [ids[n] for n in names]


def _metadata(scope: Scope, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    rows = scope.sql("run_metadata", {"run_ids": _run_ids(scope.wh, names)}).to_dicts()
    for row in rows:
        row["source_name"] = Path(row["source_path"]).name if row["source_path"] else None
        row["parameters"] = sorted((row["parameters"] or {}).items())
    return {row["run"]: row for row in rows}


def _pr_chart(scope: Scope, names: Sequence[str], title: str) -> charts.LineChart | None:
    recalls = [m for m in parse_all([f"IPrec@{x:.1f}" for x in PR_RECALLS])]
    levels = [{"evaluation_id": scope.wanted[m.name]["evaluation_id"], "stored": scope.wanted[m.name]["stored"],
               "recall": float(m.param)} for m in recalls if m.name in scope.wanted]
    if not levels:
        return None
    ids = _run_ids(scope.wh, names)
    table = scope.sql("pr_curve", {"levels": levels, "run_ids": ids})
    by_run: dict[int, list[tuple[float, float]]] = {}
    for run_id, recall, precision, _queries in table.rows:
        by_run.setdefault(run_id, []).append((recall, precision))
    series = [(name, by_run[run_id]) for name, run_id in zip(names, ids) if run_id in by_run]
    if not series:
        return None
    return charts.line_chart(series, title=title, x_label="recall", y_label="interpolated precision",
                             point_title="{name}: precision {y} at recall {x}")


def _pr_extra() -> list[str]:
    return [f"IPrec@{x:.1f}" for x in PR_RECALLS]


@dataclass
class Cell:
    value: float | None
    best: bool = False
    mark: str = ""          # 'better' / 'worse' (significant against the baseline, corrected)
    title: str = ""


def _mark_title(row: PairRow) -> str:
    if row.result is None:
        return ""
    verdict = {"better": "significantly better than", "worse": "significantly worse than"}.get(
        row.direction, "not significantly different from")
    return (f"{row.measure.name}: {verdict} {row.baseline}; difference {fmt_delta(row.result.diff)}, "
            f"p {fmt_p(row.result.p_value)}, corrected p {fmt_p(row.p_adjusted)}, {len(row.queries)} queries")


def _best(values: Sequence[float | None], m: Measure) -> set[str]:
    """The displayed values (4 decimals) that are best in a column; none for neutral measures."""
    direction = _higher_is_better(m)
    shown = [fmt_value(v) for v in values if not _missing(v)]
    if direction is None or not shown:
        return set()
    numbers = [v for v in values if not _missing(v)]
    best = max(numbers) if direction else min(numbers)
    return {fmt_value(best)}


# -- leaderboard -------------------------------------------------------------------------------
@dataclass
class LeaderboardRow:
    rank: int | None
    run: str
    system: str
    description: str | None
    date: dt.datetime | None
    cells: list[Cell]
    is_baseline: bool
    delta: float | None
    p_adjusted: float | None
    paired_queries: int | None
    partial_pairing: bool
    queries: int
    judged_queries: int
    coverage: float | None      # Judged@10
    link: str | None
    tie_range: tuple[float, float] | None = None  # the primary measure's lowest and highest over tie orders
    rank_may_change: bool = False  # another order of tied documents could move this run past another


@dataclass
class Leaderboard(Tabular):
    scope: Scope
    stats: StatsSettings
    baseline: str | None
    baseline_chosen: bool       # True when the baseline defaulted to the top run
    rows: list[LeaderboardRow]
    pair_rows: list[PairRow]
    tested: int
    settings: list[tuple[str, str]]
    family: str

    @property
    def measures(self) -> list[Measure]:
        return self.scope.measures

    @property
    def show_system(self) -> bool:
        """The System column says something only when some run's system is not its own name."""
        return any(row.system != row.run for row in self.rows)

    def paper_table(self):
        """The runs x measures table for a paper (warehouse/paper.py), letters from the tests
        against the baseline."""
        from . import paper

        return paper.from_leaderboard(self, _higher_is_better)

    def to_latex(self, label: str = "tab:irw") -> str:
        from . import paper

        return paper.to_latex(self.paper_table(), label)

    def to_markdown(self) -> str:
        from . import paper

        return paper.to_markdown(self.paper_table())

    def table(self) -> Table:
        """The leaderboard as data (irw report leaderboard --format json|csv|...)."""
        primary = self.scope.primary.name
        columns = ["rank", "run", "system", "run_date", *[m.name for m in self.measures], f"delta_{primary}",
                   f"p_adjusted_{primary}", "significant", "queries", "judged_queries", COVERAGE_MEASURE]
        rows = []
        for row in self.rows:
            marks = {m.name: cell.mark for m, cell in zip(self.measures, row.cells) if cell.mark}
            rows.append((row.rank, row.run, row.system, row.date, *[c.value for c in row.cells], row.delta,
                         row.p_adjusted, ", ".join(f"{k} {v}" for k, v in marks.items()) or None, row.queries,
                         row.judged_queries, row.coverage))
        return Table(columns, rows)


def leaderboard(wh: Warehouse, qrels: str, measures: Sequence[str] | None = None, *, baseline: str | None = None,
                settings: Settings | None = None, stats: StatsSettings | None = None,
                run_pages: bool = False) -> Leaderboard:
    """Every stored run on one qrels set, ranked by the primary (first) measure, tested against the
    baseline (default: the top run) on every measure, corrected together."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    names = _run_names(wh)
    if not names:
        raise UsageError("the warehouse holds no runs; ingest some with `irw ingest run`")
    if baseline is not None and baseline not in names:
        raise NotFoundError(f"no run named {baseline!r}; `irw runs` lists the stored runs")
    extra = [COVERAGE_MEASURE] + (_pr_extra() if run_pages else [])
    scope = _scope(wh, qrels, measures, names, settings, extra)
    shown = scope.measures
    coverage = parse_all([COVERAGE_MEASURE])[0]
    table = scope.sql("leaderboard", {"wanted": scope.wanted_for(shown + ([coverage] if coverage.name not in
                                                                           {m.name for m in shown} else [])),
                                      "qrels_set_id": scope.qrels_id})
    runs: dict[str, dict[str, Any]] = {}
    for row in table.to_dicts():
        entry = runs.setdefault(row["run"], {**row, "values": {}, "queries_by": {}})
        entry["values"][row["measure"]] = row["value"]
        entry["queries_by"][row["measure"]] = row["queries"]
    ranked = [name for name, entry in runs.items() if entry["rank"] is not None]
    chosen = baseline is None
    if baseline is None and ranked:
        baseline = ranked[0]
    elif baseline is not None and baseline not in ranked:
        raise UsageError(f"baseline {baseline} was not evaluated on any query of {qrels}; choose another --baseline")
    pairs = [(name, baseline) for name in ranked if name != baseline] if baseline else []
    pair_rows = _pair_rows(scope, pairs, shown) if pairs else []
    family = _test(pair_rows, stats)
    by_pair = {(row.run, row.measure.name): row for row in pair_rows}
    best = {m.name: _best([e["values"].get(m.name) for e in runs.values()], m) for m in shown}
    rows = []
    pages = run_page_names(runs) if run_pages else {}
    for name, entry in runs.items():
        cells = []
        for m in shown:
            value = entry["values"].get(m.name)
            pair = by_pair.get((name, m.name))
            cells.append(Cell(value, fmt_value(value) in best[m.name], pair.direction if pair else "",
                              _mark_title(pair) if pair else ""))
        primary = by_pair.get((name, scope.primary.name))
        rows.append(LeaderboardRow(
            rank=entry["rank"], run=name, system=entry["system"], description=entry["description"],
            date=entry["run_date"], cells=cells, is_baseline=name == baseline,
            delta=(primary.result.diff if primary and primary.result and primary.result.n
                   else 0.0 if name == baseline else None),
            p_adjusted=primary.p_adjusted if primary and primary.tested else None,
            paired_queries=len(primary.queries) if primary else None,
            partial_pairing=bool(primary and not primary.same_queries),
            queries=entry["queries_by"].get(scope.primary.name, 0), judged_queries=entry["judged_queries"],
            coverage=entry["values"].get(coverage.name), link=pages.get(name)))
    _mark_tie_ranks(rows, _tie_ranges(wh, qrels, scope.primary, ranked, settings))
    family_text = (f"over {plural(family.tested, 'comparison')}: {plural(len(pairs), 'run')} against {baseline} x "
                   f"{plural(sum(1 for m in shown if _testable(m)), 'measure')}" if baseline else "no comparisons")
    return Leaderboard(scope, stats, baseline, chosen, rows, pair_rows, family.tested,
                       settings_items(scope, stats, family_text), family_text)


def _tie_ranges(wh: Warehouse, qrels: str, measure: Measure, runs: Sequence[str], settings: Settings,
                per_query: bool = False) -> dict[Any, tuple[float, float]]:
    """The lowest and highest value of a measure over the orders of each run's tied documents
    (sql/measures/ties.sql): {run: (low, high)} of the mean, or {(run, query): ...} per query.
    Empty when the measure has no tie-aware form, or a read-only warehouse never computed it."""
    low, high = tie_variant(measure, "min"), tie_variant(measure, "max")
    if low is None or not runs:
        return {}
    try:
        evaluation = wh.evaluate(list(runs), qrels, [low, high], settings=settings, per_query=per_query)
    except ReadOnlyError:
        return {}
    values: dict[Any, dict[str, float]] = {}
    if per_query:
        for run, query, name, value in evaluation.per_query.rows:
            values.setdefault((run, query), {})[name] = value
    else:
        for run, name, value, *_ in evaluation.summary.rows:
            values.setdefault(run, {})[name] = value
    return {key: (v[low.name], v[high.name]) for key, v in values.items() if low.name in v and high.name in v}


def _mark_tie_ranks(rows: Sequence[LeaderboardRow], ranges: dict[str, tuple[float, float]]) -> None:
    """A run's rank could change under another tie order when its range of the primary mean
    overlaps another run's: each run's tie orders are its own, so any pair of values in the two
    ranges can occur together."""
    for row in rows:
        row.tie_range = ranges.get(row.run)
    for row in rows:
        if row.tie_range is None:
            continue
        low, high = row.tie_range
        row.rank_may_change = any(other is not row and other.tie_range is not None
                                  and low < other.tie_range[1] and other.tie_range[0] < high for other in rows)


def render_leaderboard(board: Leaderboard, run_pages_href: str | None = None) -> str:
    """The leaderboard page; run_pages_href: the folder of its run pages, relative to it (links)."""
    return render("leaderboard.html", board=board, title=f"Leaderboard: {board.scope.qrels}",
                  runs_dir=run_pages_href, settings=board.settings)


def write_leaderboard(wh: Warehouse, qrels: str, path: Path, measures: Sequence[str] | None = None, *,
                      baseline: str | None = None, settings: Settings | None = None,
                      stats: StatsSettings | None = None, run_pages: bool = True,
                      progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Writes the leaderboard to path and, with run_pages, each run's page to the folder named
    after it (run_pages_dir: dl19.html -> dl19_runs/). Returns the files written, the leaderboard
    first; it is written last, so it never links to a page not written yet.
    progress(done, total) follows the run pages."""
    path = Path(path)
    board = leaderboard(wh, qrels, measures, baseline=baseline, settings=settings, stats=stats,
                        run_pages=run_pages)
    folder = run_pages_dir(path)
    pages = []
    if run_pages:
        back = href("..", path.name)
        for done, row in enumerate(board.rows, start=1):
            page = run_page(wh, row.run, qrels, measures, baseline=board.baseline, settings=board.scope.settings,
                            stats=board.stats, from_leaderboard=board)
            pages.append(_write(folder / row.link, render_run_page(page, leaderboard_href=back)))
            if progress is not None:
                progress(done, len(board.rows))
    return [_write(path, render_leaderboard(board, href(folder.name) if run_pages else None)), *pages]


# -- run page ----------------------------------------------------------------------------------
@dataclass
class QueryRow:
    query: str
    values: list[float | None]
    baseline_value: float | None
    delta: float | None
    tie_range: tuple[float, float] | None = None  # the primary measure's lowest and highest over tie orders


@dataclass
class RankRow:
    doc: str
    grade: int
    rank: int | None
    baseline_rank: int | None


@dataclass
class RunPage(Tabular):
    scope: Scope
    stats: StatsSettings
    run: str
    meta: dict[str, Any]
    baseline: str | None
    baseline_meta: dict[str, Any] | None
    summary: list[tuple[Measure, float | None, PairRow | None]]
    queries: list[QueryRow]
    difference_chart: charts.BarChart | None
    pr_chart: charts.LineChart | None
    query: str | None
    query_reason: str
    relevant: list[RankRow]
    retrieved: int
    baseline_retrieved: int | None
    strip: charts.RankStrip | None
    settings: list[tuple[str, str]]
    family: str
    leaderboard_family: bool
    tie_spread: bool = False    # some query's primary value depends on the order of tied documents

    def table(self) -> Table:
        """Per-query values as data (irw report run --format json|csv|...)."""
        return _run_page_table(self)


def _run_page_table(page: "RunPage") -> Table:
    primary = page.scope.primary.name
    columns = ["query", *[m.name for m in page.scope.measures]]
    if page.baseline:
        columns += [f"{page.baseline} {primary}", f"delta_{primary}"]
    rows = [(q.query, *q.values, *([q.baseline_value, q.delta] if page.baseline else [])) for q in page.queries]
    return Table(columns, rows)


def run_page(wh: Warehouse, run: str, qrels: str, measures: Sequence[str] | None = None, *,
             baseline: str | None = None, query: str | None = None, settings: Settings | None = None,
             stats: StatsSettings | None = None, from_leaderboard: Leaderboard | None = None) -> RunPage:
    """One run: metadata, summary against the baseline, per-query values and differences, the
    11-point precision-recall curve, and where the relevant documents of one query were ranked."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    if baseline == run:
        comparing = None
    else:
        comparing = baseline
    names = [run] + ([comparing] if comparing else [])
    _run_ids(wh, names)
    scope = _scope(wh, qrels, measures, names, settings, [COVERAGE_MEASURE] + _pr_extra())
    shown = scope.measures
    meta = _metadata(scope, names)
    table = scope.sql("paired_scores", {"pairs": [{"pair": 0, "run_id": meta[run]["run_id"],
                                                   "baseline_id": meta[comparing or run]["run_id"]}],
                                        "wanted": scope.wanted_for(shown)})
    per_query: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for _pair, _position, measure, q, run_value, baseline_value in table.rows:
        per_query.setdefault(q, {})[measure] = (run_value, baseline_value)
    # the comparisons: the leaderboard's (same corrected p-values) or this page's own family
    if from_leaderboard is not None and comparing:
        pair_rows = [r for r in from_leaderboard.pair_rows if r.run == run]
        family_text = f"{from_leaderboard.family} (the leaderboard's family)"
        tested = from_leaderboard.tested
    elif comparing:
        pair_rows = _pair_rows(scope, [(run, comparing)], shown)
        tested = _test(pair_rows, stats).tested
        family_text = f"over {plural(tested, 'comparison')}: {run} against {comparing} x {plural(tested, 'measure')}"
    else:
        pair_rows, family_text = [], "no comparisons"
    by_measure = {r.measure.name: r for r in pair_rows}
    summary = [(m, scope.summary.get((run, m.name), (None, 0))[0], by_measure.get(m.name)) for m in shown]
    primary = scope.primary.name
    query_rows = []
    for q in sorted(per_query):
        values = per_query[q]
        run_primary, base_primary = values.get(primary, (None, None))
        if run_primary is None:
            continue  # a query only the baseline was evaluated on
        delta = run_primary - base_primary if comparing and base_primary is not None else None
        query_rows.append(QueryRow(q, [values.get(m.name, (None, None))[0] for m in shown],
                                   base_primary if comparing else None, delta))
    spreads = _tie_ranges(wh, qrels, scope.primary, [run], settings, per_query=True)
    for row in query_rows:
        row.tie_range = spreads.get((run, row.query))
    difference_chart = None
    if comparing:
        diffs = [(r.query, r.delta) for r in query_rows if r.delta is not None]
        if diffs:
            primary_pair = by_measure.get(primary)
            wtl = (f"{wins_ties_losses(primary_pair.result)} over {plural(len(primary_pair.queries), 'query', 'queries')}"
                   if primary_pair and primary_pair.result else "")
            difference_chart = charts.difference_bars(
                diffs, title=f"{primary}: {run} minus {comparing}, per query", y_label=f"\u0394 {primary}",
                x_label=f"queries, sorted by difference ({len(diffs)})", summary=wtl)
    pr_chart = _pr_chart(scope, names, f"11-point interpolated precision-recall: {', '.join(names)}")
    relevance = {r[0]: r[2] for r in scope.sql("query_relevance", {"qrels_set_id": scope.qrels_id,
                                                                   "level": settings.level}).rows}
    chosen, reason = _choose_query(query, query_rows, relevance, comparing, primary)
    relevant, retrieved, baseline_retrieved, strip = [], 0, None, None
    if chosen is not None:
        relevant, retrieved, baseline_retrieved, strip = _relevant_ranks(scope, meta, run, comparing, chosen)
    return RunPage(scope, stats, run, meta[run], comparing, meta.get(comparing) if comparing else None, summary,
                   query_rows, difference_chart, pr_chart, chosen, reason, relevant, retrieved, baseline_retrieved,
                   strip, settings_items(scope, stats if comparing else None, family_text), family_text,
                   from_leaderboard is not None,
                   any(r.tie_range is not None and r.tie_range[1] - r.tie_range[0] > 1e-12 for r in query_rows))


def _choose_query(query: str | None, rows: Sequence[QueryRow], relevance: dict[str, int], baseline: str | None,
                  primary: str) -> tuple[str | None, str]:
    if query is not None:
        if query not in relevance:
            raise NotFoundError(f"query {query!r} is not in the qrels set")
        return query, "chosen with --query"
    candidates = [r for r in rows if relevance.get(r.query, 0) > 0]
    if not candidates:
        return None, ""
    if baseline:
        with_delta = [r for r in candidates if r.delta is not None]
        if with_delta:
            pick = min(with_delta, key=lambda r: (r.delta, r.query))
            return pick.query, f"the query where this run loses most to {baseline} on {primary} (choose with --query)"
    pick = min(candidates, key=lambda r: (r.values[0] if r.values[0] is not None else math.inf, r.query))
    return pick.query, f"this run's lowest {primary} among queries with a relevant document (choose with --query)"


def _relevant_ranks(scope: Scope, meta: dict[str, dict[str, Any]], run: str, baseline: str | None, query: str):
    s = scope.settings
    names = [run] + ([baseline] if baseline else [])
    table = scope.sql("relevant_ranks", {
        "qrels_set_id": scope.qrels_id, "query_id": query, "run_ids": [meta[n]["run_id"] for n in names],
        "level": s.level, "depth": s.depth or NO_DEPTH, "compat": s.compat, "judged_only": s.judged_only})
    by_run: dict[int, list[tuple[str, int, int | None]]] = {}
    retrieved: dict[int, int] = {}
    for run_id, doc, grade, rank, count in table.rows:
        by_run.setdefault(run_id, []).append((doc, grade, rank))
        retrieved[run_id] = count
    run_docs = by_run.get(meta[run]["run_id"], [])
    base_docs = {doc: rank for doc, _g, rank in by_run.get(meta[baseline]["run_id"], [])} if baseline else {}
    rows = [RankRow(doc, grade, rank, base_docs.get(doc)) for doc, grade, rank in run_docs]
    strip_rows = [(name, by_run.get(meta[name]["run_id"], []), retrieved.get(meta[name]["run_id"], 0))
                  for name in names]
    strip = charts.rank_strip(strip_rows, title=f"ranks of the relevant documents of query {query}") if rows else None
    return (rows, retrieved.get(meta[run]["run_id"], 0),
            retrieved.get(meta[baseline]["run_id"], 0) if baseline else None, strip)


def render_run_page(page: RunPage, leaderboard_href: str | None = None) -> str:
    return render("run.html", page=page, title=f"Run {page.run}", leaderboard_href=leaderboard_href,
                  settings=page.settings)


def write_run_page(wh: Warehouse, run: str, qrels: str, path: Path, measures: Sequence[str] | None = None,
                   **options: Any) -> Path:
    return _write(path, render_run_page(run_page(wh, run, qrels, measures, **options)))


# -- compare page ------------------------------------------------------------------------------
@dataclass
class ComparePage(Tabular):
    comparison: Comparison
    scope: Scope
    meta: dict[str, dict[str, Any]]
    means: dict[str, dict[str, tuple[float | None, int]]]   # run -> measure -> (mean over own queries, queries)
    scatters: list[tuple[PairRow, charts.ScatterChart]]
    difference: charts.BarChart | None
    pr_chart: charts.LineChart | None
    settings: list[tuple[str, str]]
    family: str

    @property
    def runs(self) -> list[str]:
        return list(self.meta)

    @property
    def show_system(self) -> bool:
        """The System column says something only when some run's system is not its own name."""
        return any(meta["system"] != run for run, meta in self.meta.items())

    def table(self) -> Table:
        return self.comparison.table()


def compare_page(wh: Warehouse, runs: Sequence[str], qrels: str, measures: Sequence[str] | None = None, *,
                 baseline: str | None = None, settings: Settings | None = None,
                 stats: StatsSettings | None = None) -> ComparePage:
    settings = settings or Settings()
    stats = stats or StatsSettings()
    names = _compared_runs(runs, baseline)
    _run_ids(wh, names)
    scope = _scope(wh, qrels, measures, names, settings, _pr_extra())
    comparison = _compare(scope, names, baseline, stats)
    meta = _metadata(scope, names)
    means = {n: {m.name: scope.summary[(n, m.name)] for m in scope.measures if (n, m.name) in scope.summary}
             for n in names}
    primary = scope.primary.name
    scatters = []
    for row in comparison.rows:
        if row.measure.name != primary:
            continue
        r = row.result
        summary_text = (f"{r.wins} above the diagonal ({row.run} higher), {r.ties} on it, {r.losses} below, "
                        f"{plural(len(row.queries), 'query', 'queries')}" if r
                        else plural(len(row.queries), 'query', 'queries'))
        points = [(q, b, a) for q, a, b in zip(row.queries, row.run_values, row.baseline_values)]
        scatters.append((row, charts.scatter(points, title=f"{primary} per query: {row.run} against {row.baseline}",
                                             x_label=f"{row.baseline} {primary}", y_label=f"{row.run} {primary}",
                                             summary=summary_text)))
    difference = None
    if len(comparison.pairs) == 1:
        (row, _chart), = scatters
        r = row.result
        difference = charts.difference_bars(
            [(q, a - b) for q, a, b in zip(row.queries, row.run_values, row.baseline_values)],
            title=f"{primary}: {row.run} minus {row.baseline}, per query", y_label=f"\u0394 {primary}",
            x_label=f"queries, sorted by difference ({len(row.queries)})",
            summary=wins_ties_losses(r) if r else "")
    pr_chart = _pr_chart(scope, names, "11-point interpolated precision-recall")
    family_text = (f"over {plural(comparison.tested, 'comparison')}: "
                   f"{'every run against ' + baseline if baseline else 'all pairs of runs'} x "
                   f"{plural(sum(1 for m in scope.measures if _testable(m)), 'measure')}")
    return ComparePage(comparison, scope, meta, means, scatters, difference, pr_chart,
                       settings_items(scope, stats, family_text), family_text)


def render_compare_page(page: ComparePage) -> str:
    return render("compare.html", page=page, title=f"Compare: {', '.join(page.runs)}", settings=page.settings)


def write_compare_page(wh: Warehouse, runs: Sequence[str], qrels: str, path: Path,
                       measures: Sequence[str] | None = None, **options: Any) -> Path:
    return _write(path, render_compare_page(compare_page(wh, runs, qrels, measures, **options)))


# -- history -----------------------------------------------------------------------------------
@dataclass
class HistoryRun:
    run: str
    description: str | None
    date: dt.datetime | None
    value: float
    queries: int
    best_so_far: float
    is_best: bool
    previous: str | None
    pair: PairRow | None
    system: str = ""

    @property
    def flagged(self) -> bool:
        return self.pair is not None and self.pair.significant and self.pair.result.diff < 0

    @property
    def improved(self) -> bool:
        return self.pair is not None and self.pair.significant and self.pair.result.diff > 0


@dataclass
class SystemHistory:
    system: str
    runs: list[HistoryRun]
    chart: charts.HistoryChart | None     # drawn only for a system with two or more runs

    @property
    def flags(self) -> int:
        return sum(1 for r in self.runs if r.flagged)


@dataclass
class HistoryPage(Tabular):
    scope: Scope
    stats: StatsSettings
    systems: list[SystemHistory]
    tested: int
    settings: list[tuple[str, str]]
    family: str
    overview: charts.HistoryChart         # every run, and the best of the whole board so far

    @property
    def measure(self) -> Measure:
        return self.scope.primary

    @property
    def runs(self) -> int:
        return sum(len(s.runs) for s in self.systems)

    @property
    def with_history(self) -> list[SystemHistory]:
        """Systems with two or more runs: each gets its chart and table."""
        return [s for s in self.systems if len(s.runs) > 1]

    @property
    def single_runs(self) -> list[HistoryRun]:
        """The run of each system that has only one, in time order (then by name): one table."""
        return sorted((s.runs[0] for s in self.systems if len(s.runs) == 1),
                      key=lambda r: (r.date or EPOCH, r.run))

    @property
    def partial_pairing(self) -> bool:
        """Some run was tested against the run before it over fewer queries than either has."""
        return any(r.pair is not None and r.pair.result is not None and not r.pair.same_queries
                   for s in self.systems for r in s.runs)

    @property
    def one_moment(self) -> bool:
        """Every run has (nearly) the same date, as run files copied together do: no order in time."""
        dates = [(r.date or EPOCH) for s in self.systems for r in s.runs]
        return len(dates) > 1 and (max(dates) - min(dates)).total_seconds() < 1

    @property
    def single_show_system(self) -> bool:
        """That table's System column says something only when a system is not named as its run."""
        return any(r.system != r.run for r in self.single_runs)

    @property
    def flags(self) -> int:
        return sum(s.flags for s in self.systems)

    def table(self) -> Table:
        """Every system's runs in time order as data (irw report history --format json|csv|...)."""
        columns = ["system", "run", "run_date", self.measure.name, "best_so_far", "previous", "delta", "p_adjusted",
                   "verdict", "queries"]
        rows = []
        for system in self.systems:
            for r in system.runs:
                result = r.pair.result if r.pair else None
                verdict = ("worse" if r.flagged else "better" if r.improved else
                           "no significant change" if result else None)
                rows.append((system.system, r.run, r.date, r.value, r.best_so_far, r.previous,
                             result.diff if result else None, r.pair.p_adjusted if result else None, verdict,
                             r.queries))
        return Table(columns, rows)


def history(wh: Warehouse, qrels: str, measure: str = "AP", *, systems: Sequence[str] | None = None,
            settings: Settings | None = None, stats: StatsSettings | None = None) -> HistoryPage:
    """Each system's runs over time on one measure, the best so far, and every newer run tested
    against the run before it (one family, corrected together)."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    wanted_systems = sorted(set(systems or []))
    names = [name for name, system in wh.db.fetchall("select name, coalesce(system, name) from runs order by name")
             if not wanted_systems or system in wanted_systems]
    if not names:
        raise NotFoundError("no runs to show" + (f" for system {', '.join(wanted_systems)}" if wanted_systems else ""))
    scope = _scope(wh, qrels, [measure], names, settings)
    m = scope.primary
    w = scope.wanted[m.name]
    table = scope.sql("history", {"evaluation_id": w["evaluation_id"], "stored": w["stored"],
                                  "systems": wanted_systems})
    rows = table.to_dicts()
    id_to_name = {r["run_id"]: r["run"] for r in rows}
    pairs = [(r["run"], id_to_name[r["previous_run_id"]]) for r in rows if r["previous_run_id"] in id_to_name]
    pair_rows = _pair_rows(scope, pairs, [m]) if pairs else []
    family = _test(pair_rows, stats)
    by_run = {r.run: r for r in pair_rows}
    grouped: dict[str, list[HistoryRun]] = {}
    for r in rows:
        grouped.setdefault(r["system"], []).append(HistoryRun(
            r["run"], r["description"], r["run_date"], r["value"], r["queries"], r["best_so_far"],
            r["value"] == r["best_so_far"], id_to_name.get(r["previous_run_id"]), by_run.get(r["run"]), r["system"]))
    top = max([r["value"] for r in rows] + [0.0])
    dates = [r["run_date"] or EPOCH for r in rows]
    domain = (min(dates), max(dates)) if dates else None
    out, everything = [], []
    for system, runs in grouped.items():
        points = []
        for h in runs:
            text = f"{h.run} ({fmt_datetime(h.date)}): {m.name} {fmt_value(h.value)}"
            if h.pair is not None and h.pair.result is not None:
                verdict = ("significantly worse than" if h.flagged else "significantly better than" if h.improved
                           else "not significantly different from")
                text += (f"; {verdict} {h.previous} ({fmt_delta(h.pair.result.diff)}, corrected p "
                         f"{fmt_p(h.pair.p_adjusted)})")
            points.append((h.date or EPOCH, h.value, text, h.flagged))
            everything.append((h.date or EPOCH, h.run, h.value, text if system == h.run else f"{system}: {text}",
                               h.flagged))
        # one dot says nothing over time: a system with a single run is listed in a table instead
        chart = charts.history_chart(
            points, title=f"{system}: {m.name} of its runs over time", y_label=m.name, y_top=top,
            time_domain=domain) if len(runs) > 1 else None
        out.append(SystemHistory(system, runs, chart))
    # the overview: every run in time order (then by name), and the best of the board so far
    everything.sort(key=lambda p: (p[0], p[1]))
    overview = charts.history_chart(
        [(when, value, text, flagged) for when, _run, value, text, flagged in everything],
        title=f"Every run's {m.name} over time, and the best so far", y_label=m.name, y_top=top,
        time_domain=domain)
    family_text = f"over {plural(family.tested, 'comparison')}: each run against the run of its system before it"
    return HistoryPage(scope, stats, out, family.tested, settings_items(scope, stats, family_text), family_text,
                       overview)


def render_history(page: HistoryPage) -> str:
    return render("history.html", page=page, title=f"History: {page.measure.name} on {page.scope.qrels}",
                  settings=page.settings)


def write_history(wh: Warehouse, qrels: str, path: Path, measure: str = "AP", **options: Any) -> Path:
    return _write(path, render_history(history(wh, qrels, measure, **options)))
