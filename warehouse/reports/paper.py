"""Tables for papers: runs x measures, best value per measure in bold, superscript letters naming
the runs each run is significantly better than (after the report's correction), and a caption that
states the test, the correction, alpha and the query count. LaTeX (booktabs) and GitHub Markdown.

The shape is ranx's compare table; the letters follow the corrected p-values of the comparison the
table comes from, so a letter means what `irw compare` calls significant."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from string import ascii_lowercase

from warehouse.formats.escaping import shown
from warehouse.formats.formatting import format_number
from warehouse.evaluation.measures import not_means
from warehouse.evaluation.stats import CORRECTIONS, TESTS, TESTS_SHORT, optimistic_marks


@dataclass(frozen=True)
class PaperCell:
    value: float | None
    best: bool
    better_than: tuple[str, ...]   # letters of the runs this run is significantly better than


@dataclass(frozen=True)
class PaperTable:
    runs: list[str]
    letters: list[str]
    measures: list[str]
    cells: list[list[PaperCell]]   # [run][measure]
    caption: str


def letter(i: int) -> str:
    """a ... z, then aa, ab ...: one label per run."""
    return ascii_lowercase[i] if i < 26 else letter(i // 26 - 1) + ascii_lowercase[i % 26]


def letters_separator(letters: list[str]) -> str:
    """How a cell's letters are joined: run together while every label is one letter (a table of 26
    runs at most), else by commas, as `aab` could be a, a, b or aa, b."""
    return "" if all(len(label) == 1 for label in letters) else ","


def from_comparison(comparison, higher_is_better) -> PaperTable:
    """The paper table of a reports.Comparison: every run it names, in the order it was given."""
    runs = list(dict.fromkeys(r for pair in comparison.pairs for r in pair[::-1]))
    if comparison.baseline is not None:
        runs = [comparison.baseline] + [r for r in runs if r != comparison.baseline]
    means: dict[tuple[str, str], float] = {}
    run_queries: dict[str, int] | None = None
    if comparison.own_means:
        # a pair over fewer queries than its runs have: each run's mean over its own queries, as a
        # leaderboard's, whatever the pairs it is in (the caption says both counts)
        means = {key: value for key, (value, _queries) in comparison.own_means.items() if value is not None}
        run_queries = {}
        for (run, _measure), (_value, queries) in comparison.own_means.items():
            run_queries[run] = max(run_queries.get(run, 0), queries)
    for row in comparison.rows:
        if row.result is not None and row.result.n > 0 and run_queries is None:
            means.setdefault((row.run, row.measure.name), row.result.mean_a)
            means.setdefault((row.baseline, row.measure.name), row.result.mean_b)
    # a measure that is not a mean over queries is not tested, so the comparison holds no value of it:
    # its column would be all "--"; the caption names it instead
    tested = [m for m in comparison.measures if m.is_mean]
    untested = [m.name for m in comparison.measures if not m.is_mean]
    one = len(untested) == 1
    left_out = (f" {', '.join(untested)} {'is not a mean' if one else 'are not means'} over queries, so not "
                f"compared (an evaluation gives {'its' if one else 'their'} values)." if untested else "")
    return build(runs, tested, means, comparison.rows, comparison.baseline, comparison.qrels,
                 comparison.stats, comparison.tested, higher_is_better, run_queries, left_out=left_out)


def from_leaderboard(board, higher_is_better) -> PaperTable:
    """The paper table of a reports.Leaderboard: its runs in its order, its values (trec_eval's
    summary of each run), letters from its tests against the baseline."""
    means = {(row.run, m.name): cell.value for row in board.rows for m, cell in zip(board.measures, row.cells)
             if cell.value is not None}
    # each mean is over its run's own queries, not the queries it shares with the baseline: the
    # caption counts those (a run of 21 queries beside one of 43 made every mean "over 21 queries")
    run_queries = {row.run: row.queries for row in board.rows if row.queries}
    return build([row.run for row in board.rows], board.measures, means, board.pair_rows, board.baseline,
                 board.scope.qrels, board.stats, board.tested, higher_is_better, run_queries)


def _span(counts: set[int]) -> str:
    return f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}-{max(counts)}"


def _queries_of(counts: set[int]) -> str:
    """`43 queries`, `21-43 queries`, `1 query`."""
    return f"{_span(counts)} {'query' if counts == {1} else 'queries'}"


def _query_text(queries: set[int], run_queries: dict[str, int] | None) -> str:
    """What the caption says the means are over. queries: the tests' query counts (each pair's
    shared queries); run_queries: each run's own count, where its mean is over its own queries
    (a leaderboard's), else the means are the tests' (a comparison's)."""
    own = set((run_queries or {}).values())
    if own and (len(own) > 1 or not queries <= own):
        tests = f"each test over the {_queries_of(queries)} both runs have" if queries else ""
        if len(own) == 1:
            return f"each run's own {_queries_of(own)}" + (f" ({tests})" if tests else "")
        return f"each run's own queries ({_queries_of(own)}" + (f"; {tests})" if tests else ")")
    if not queries and own:
        return _queries_of(own)
    return (_queries_of(queries) if len(queries) == 1 else
            f"{_queries_of(queries)} (each pair over the queries both runs have)" if queries else "no queries")


def build(runs: list[str], measures, means: dict[tuple[str, str], float], pair_rows, baseline: str | None,
          qrels: str, stats, tested: int, higher_is_better, run_queries: dict[str, int] | None = None,
          left_out: str = "") -> PaperTable:
    """Runs x measures from the means and the tested pairs (reports.PairRow: run against baseline,
    direction after correction). run_queries: each run's query count where its means are over its
    own queries (a leaderboard's), for the caption."""
    letters = [letter(i) for i in range(len(runs))]
    label = dict(zip(runs, letters))
    wins: dict[tuple[str, str], set[str]] = {}
    queries = set()
    for row in pair_rows:
        name = row.measure.name
        if row.result is not None and row.result.n > 0:
            queries.add(row.result.n)
        if row.direction == "better":
            wins.setdefault((row.run, name), set()).add(label[row.baseline])
        elif row.direction == "worse":
            wins.setdefault((row.baseline, name), set()).add(label[row.run])
    names = [m.name for m in measures]
    cells = []
    for run in runs:
        row_cells = []
        for m in measures:
            value = means.get((run, m.name))
            shown = [format_number(means[(r, m.name)]) for r in runs if means.get((r, m.name)) is not None]
            best = None
            if shown and higher_is_better(m) is not None:
                best = (max if higher_is_better(m) else min)(shown, key=float)
            row_cells.append(PaperCell(value, value is not None and format_number(value) == best,
                                       tuple(sorted(wins.get((run, m.name), ()), key=lambda s: (len(s), s)))))
        cells.append(row_cells)
    query_text = _query_text(queries, run_queries)
    against = f"every run against {baseline}" if baseline else "every pair of runs"
    correction = CORRECTIONS[stats.correction]
    comparisons = f"{tested} comparison{'' if tested == 1 else 's'}"
    if tested:
        tests = (f"A superscript letter marks a run significantly better than the run of that letter: "
                 f"{TESTS[stats.test]}, two-sided, {against}, "
                 + (f"{correction} correction over {comparisons}, " if stats.correction != "none"
                    else "no correction for multiple testing, ")
                 + f"alpha {stats.alpha:g}.")
    else:  # a caption describing a correction over 0 comparisons described a test never made
        tests = ("No pair was tested for significance" + (": one run." if len(runs) < 2 else
                 "." if not any(m.is_mean for m in measures) else  # left_out says why
                 ": no pair of runs shares two queries or more to test over."))
    optimistic = optimistic_marks(pair_rows, stats)
    if optimistic:
        counts = {row.result.n for row in optimistic}
        tests += (f" {len(optimistic)} of the marks {'rests' if len(optimistic) == 1 else 'rest'} on "
                  f"{_queries_of(counts)}, too few for any exact test to reach alpha {stats.alpha:g}: the "
                  f"{TESTS_SHORT[stats.test]} is optimistic there.")
    caption = (f"Mean {', '.join(names)} over {query_text} of qrels {qrels}{not_means(measures)}. {tests} "
               f"The best value of each measure is in bold.{left_out}")
    return PaperTable(runs, letters, names, cells, caption)


# -- LaTeX -------------------------------------------------------------------------------------
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}"}


# TeX's ligatures: -- and --- print as dashes, ` as an opening quote; a name keeps its characters
# (' stays: it is the caption's apostrophe, and a name's prints as one)
_LATEX_LIGATURES = {"`": r"\textasciigrave{}"}


def latex_escape(text: str) -> str:
    """LaTeX's special characters escaped, after control and bidi characters are written as
    visible escapes (warehouse/formats/escaping.py): a U+202E cannot reverse the table or stop
    pdflatex; and the ligatures that would change a name's characters broken (a -{}- b, not an
    en dash). Quotes stay: OT1, LaTeX's default encoding, has no straight double quote. A name is
    written composed (NFC): pdflatex's UTF-8 input takes é, not e and a combining U+0301 (an
    escaping walk's `Cafe\u0301` stopped pdflatex: "Unicode character not set up for use")."""
    import unicodedata

    text = shown(unicodedata.normalize("NFC", str(text)))
    return "".join(_LATEX_SPECIAL.get(ch) or _LATEX_LIGATURES.get(ch)
                   or ("-{}" if ch == "-" and text[i + 1:i + 2] == "-" else ch) for i, ch in enumerate(text))


def _cell(cell: PaperCell, missing: str, bold: str, superscript: str, separator: str = "") -> str:
    """One value as a paper shows it: `missing` when there is none, else 4 decimals, in `bold`
    when best, with the letters in `superscript` ({} marks where the text goes), joined by
    separator (letters_separator)."""
    if cell.value is None or math.isnan(cell.value):
        return missing
    text = format_number(cell.value)
    if cell.best:
        text = bold.format(text)
    if cell.better_than:
        text += superscript.format(separator.join(cell.better_than))
    return text


def _latex_cell(cell: PaperCell, separator: str = "") -> str:
    return _cell(cell, "--", r"\textbf{{{}}}", r"$^{{{}}}$", separator)


def to_latex(table: PaperTable, label: str = "tab:irw") -> str:
    """A booktabs table (needs \\usepackage{booktabs})."""
    separator = letters_separator(table.letters)
    lines = [r"\begin{table}[t]", r"\centering",
             rf"\caption{{{latex_escape(table.caption)}}}", rf"\label{{{latex_escape(label)}}}",
             rf"\begin{{tabular}}{{ll{'r' * len(table.measures)}}}", r"\toprule",
             " & ".join(["", "Run", *(latex_escape(m) for m in table.measures)]) + r" \\", r"\midrule"]
    for run, mark, cells in zip(table.runs, table.letters, table.cells):
        lines.append(" & ".join([mark, latex_escape(run), *(_latex_cell(c, separator) for c in cells)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# -- Markdown ----------------------------------------------------------------------------------
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|<>$])")  # $: GitHub reads $...$ as math


def markdown_escape(text: str) -> str:
    """Markdown's special characters escaped, after control and bidi characters are written as
    visible escapes (warehouse/formats/escaping.py): a newline cannot break the table."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", shown(str(text)))


def _markdown_cell(cell: PaperCell, separator: str = "") -> str:
    return _cell(cell, "–", "**{}**", "<sup>{}</sup>", separator)


def to_markdown(table: PaperTable) -> str:
    """A GitHub-flavoured Markdown table, its caption below it."""
    separator = letters_separator(table.letters)
    lines = ["| | Run | " + " | ".join(markdown_escape(m) for m in table.measures) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in table.measures) + " |"]
    for run, mark, cells in zip(table.runs, table.letters, table.cells):
        lines.append(f"| {mark} | {markdown_escape(run)} | "
                     + " | ".join(_markdown_cell(c, separator) for c in cells) + " |")
    return "\n".join(lines) + "\n\n" + markdown_escape(table.caption) + "\n"


def render(table: PaperTable, fmt: str) -> str:
    return to_latex(table) if fmt == "latex" else to_markdown(table)

