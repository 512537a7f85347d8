"""The settings footer: every setting behind a report's numbers, as (label, text) rows."""
from __future__ import annotations

from warehouse.formats.formatting import format_number
from warehouse.evaluation.stats import CORRECTIONS, StatsSettings
from warehouse.evaluation.measures import not_means
from warehouse.reports.scope import Scope


def qrels_text(scope: Scope) -> str:
    """The qrels set of a scope as the footer states it: its name, size and description."""
    q = scope.qrels_summary()
    norel = q["queries_without_relevant"]
    text = (f"{q['name']}: {q['queries']:,} queries, {q['judgments']:,} judgments, {q['relevant']:,} "
            f"relevant (grade >= {scope.settings.level})")
    if norel:
        text += f"; {norel:,} {'query has' if norel == 1 else 'queries have'} no relevant document"
    if q["description"]:
        text += f" ({q['description']})"
    return text


def settings_items(scope: Scope, stats: StatsSettings | None, family: str | None) -> list[tuple[str, str]]:
    """Every setting behind a report's numbers, as (label, text) rows."""
    s = scope.settings
    query_set = ("every qrels query; a query a run lacks scores 0 (trec_eval -c)" if s.complete else
                 "the queries in both the run and the qrels (trec_eval's default); queries only in a run are "
                 "ignored")
    if s.norel == "exclude":
        query_set += "; queries without a relevant document are left out"
    else:
        query_set += "; queries without a relevant document count (0 on measures that need one)"
    cutoffs = sorted({int(m.param) for m in scope.measures if m.family.kind == "cutoffs"})
    items = [
        ("Qrels", qrels_text(scope)),
        ("Query set", query_set),
        ("Relevance level", f"relevant means grade >= {s.level} (trec_eval -l {s.level}); nDCG uses grades as gains"
                            + "".join(f"; {m.name}: grade >= {m.level}" for m in scope.measures
                                      if m.level is not None and m.level != s.level)),
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
                     f"values are means over queries{not_means(scope.measures)}, shown to 4 decimals"),
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
                              "else the date its folder, or the folder above it, is named by (2026-02-02/), else its "
                              "file's modification time; a run's page says which"))
    return items
