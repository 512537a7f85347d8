"""Comparisons and HTML reports: leaderboard, run page, compare page, history, systems.

Every number comes from stored per-query scores: runs are evaluated through Warehouse.evaluate
(which computes only the (run, measure) pairs not stored yet), then the report queries in
sql/reports/ read `scores` and run metadata. Python pairs the per-query values, runs the tests of
warehouse.evaluation.stats, corrects them as one family per report, computes chart geometry
(warehouse.reports.charts) and hands plain data to the Jinja templates, which only format and lay out.

The output is one self-contained HTML file per page: inline CSS, a few lines of inline JS that
sort tables, inline SVG charts, no network access (a Content-Security-Policy forbids it). The
same warehouse contents and options give the same bytes: queries order explicitly, seeds are
fixed, and no generation time is printed.

One module per page kind, over shared parts:
- page_leaderboard, page_run, page_compare, page_history, page_systems: what each page shows;
- scope: the scores a report reads (evaluations, run metadata, precision-recall, tie ranges);
- pairs: paired tests corrected as one family, and compare();
- footer: the settings behind the numbers; display: how values are shown; render: Jinja;
- files: page names, links and whole-or-nothing writes; paper_tables: LaTeX / Markdown tables.
"""
from warehouse.reports.display import fmt_delta, fmt_p, fmt_value, plural
from warehouse.reports.files import run_page_name, run_page_names, run_pages_dir, write_atomically
from warehouse.reports.page_compare import ComparePage, compare_page, render_compare_page
from warehouse.reports.page_history import HistoryPage, history, render_history, write_history
from warehouse.reports.page_leaderboard import (Leaderboard, LeaderboardPage, LeaderboardRow, NoRunMatches,
                                                PageChoice, leaderboard, leaderboard_page, render_leaderboard,
                                                write_leaderboard)
from warehouse.reports.page_run import RunPage, render_run_page, run_page
from warehouse.reports.page_systems import SystemsPage, render_systems, systems, write_systems
from warehouse.reports.pairs import Comparison, PairRow, compare
from warehouse.reports.scope import COVERAGE_MEASURE, DEFAULT_MEASURES, Scope

__all__ = ["COVERAGE_MEASURE", "DEFAULT_MEASURES", "ComparePage", "Comparison", "HistoryPage", "Leaderboard",
           "LeaderboardPage", "LeaderboardRow", "NoRunMatches", "PageChoice", "PairRow", "RunPage", "Scope", "SystemsPage", "compare", "compare_page", "fmt_delta", "fmt_p",
           "fmt_value", "history", "leaderboard", "leaderboard_page", "plural", "render_compare_page", "render_history",
           "render_leaderboard", "render_run_page", "run_page", "run_page_name", "run_page_names",
           "run_pages_dir", "render_systems", "systems", "write_atomically", "write_history", "write_leaderboard",
           "write_systems"]
