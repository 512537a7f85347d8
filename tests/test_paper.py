"""Paper tables (`irw compare --format latex|markdown`): golden files that escape hostile run names,
letters that agree with the comparison's own corrected decisions on DL19, and LaTeX that compiles
where a TeX installation is present."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import warehouse

from conftest import Cli, under_ci

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("IRW_UPDATE_GOLDEN") == "1"
# names with every character LaTeX or Markdown would read as markup
NAMES = {"a": "base_line & co", "b": "50% better #1", "c": "$cost_{x}~^|*<b>"}


@pytest.fixture
def hostile(tmp_path) -> Cli:
    """Three runs over 12 queries: c finds the relevant document first everywhere, a last, b between."""
    irw = Cli(tmp_path / "irw.duckdb")
    (tmp_path / "q.txt").write_text("".join(f"q{q} 0 d0 1\nq{q} 0 d1 0\nq{q} 0 d2 0\n" for q in range(12)))
    irw("ingest", "qrels", tmp_path / "q.txt", "--name", "toy")
    ranks = {"a": 2, "b": 1, "c": 0}  # where d0, the relevant document, lands in every query
    for key, rank in ranks.items():
        order = ["d1", "d2"]
        order.insert(rank, "d0")
        (tmp_path / f"{key}.txt").write_text("".join(f"q{q} Q0 {doc} {r + 1} {3 - r} {key}\n"
                                                     for q in range(12) for r, doc in enumerate(order)))
        result = irw("ingest", "run", tmp_path / f"{key}.txt", "--name", NAMES[key])
        assert result.exit_code == 0, result.stderr
    return irw


@pytest.mark.parametrize("fmt, golden", [("latex", "paper.tex"), ("markdown", "paper.md")])
def test_paper_tables_match_the_golden_files(hostile, fmt, golden):
    if UPDATE and under_ci():
        pytest.fail("IRW_UPDATE_GOLDEN=1 is refused under CI", pytrace=False)
    result = hostile("compare", *NAMES.values(), "-m", "RR", "-m", "P@1", "--format", fmt)
    assert result.exit_code == 0, result.stderr
    if UPDATE:
        (GOLDEN / golden).write_text(result.stdout, encoding="utf-8")
    assert result.stdout == (GOLDEN / golden).read_text(encoding="utf-8")


def test_markup_in_run_names_is_escaped(hostile):
    latex = hostile("compare", *NAMES.values(), "-m", "RR", "--format", "latex").stdout
    assert r"base\_line \& co" in latex and r"50\% better \#1" in latex
    assert r"\$cost\_\{x\}\textasciitilde{}\textasciicircum{}\textbar{}*\textless{}b\textgreater{}" in latex
    markdown = hostile("compare", *NAMES.values(), "-m", "RR", "--format", "markdown").stdout
    assert r"base\_line & co" in markdown
    assert r"\$cost\_{x}~^\|\*\<b\>" in markdown  # no math, no cell break, no emphasis, no HTML


def test_letters_follow_the_comparisons_corrected_decisions_on_dl19(tmp_path, conformance):
    irw = Cli(tmp_path / "irw.duckdb")
    folder = conformance / "dl19-passage"
    irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19")
    runs = ["BM25", "BM25_RM3", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]
    for run in runs:
        irw("ingest", "run", folder / "runs" / f"run.dl19.{run}.txt", "--name", run)
    args = [*runs, "-m", "nDCG@10", "-m", "AP(rel=2)"]
    decisions = json.loads(irw("compare", *args, "--format", "json").stdout)
    table = irw("compare", *args, "--format", "markdown").stdout
    lines = {line.split(" | ")[1]: line for line in table.splitlines() if line.startswith("| ") and " | " in line}
    letter = {run: chr(ord("a") + i) for i, run in enumerate(runs)}
    for name in ("nDCG@10", "AP(rel=2)"):
        column = ["nDCG@10", "AP(rel=2)"].index(name) + 2
        marks = {run: lines[run.replace("_", r"\_")].split(" | ")[column].strip(" |") for run in runs}
        expected = {run: set() for run in runs}
        for d in decisions:
            if d["measure"] == name and d["significant"]:
                winner, loser = (d["run"], d["baseline"]) if d["diff"] > 0 else (d["baseline"], d["run"])
                expected[winner].add(letter[loser])
        for run in runs:
            sup = marks[run].split("<sup>")[1].rstrip("</sup>") if "<sup>" in marks[run] else ""
            assert set(sup) == expected[run], (name, run, marks[run])
        assert any(expected.values())  # DL19 has real differences: an empty table proves nothing
        means = {d["run"]: d["run_mean"] for d in decisions if d["measure"] == name}
        means.update({d["baseline"]: d["baseline_mean"] for d in decisions if d["measure"] == name})
        best = max(means, key=means.get)
        assert marks[best].startswith(f"**{means[best]:.4f}**")


def test_the_latex_table_compiles(hostile, tmp_path):
    if shutil.which("pdflatex") is None:  # `make test` installs it where it can (make texlive)
        if under_ci():
            pytest.fail("pdflatex is missing under CI: `make texlive` should have installed it", pytrace=False)
        pytest.skip("no TeX installation (apt-get install texlive-latex-recommended)")
    # a name with a combining accent (NFD): pdflatex stopped at U+0301 (an escaping walk)
    assert hostile("ingest", "run", tmp_path / "a.txt", "--name", "Cafe\u0301").exit_code == 0
    latex = hostile("compare", *NAMES.values(), "Cafe\u0301", "-m", "RR", "-m", "P@1", "--format", "latex").stdout
    assert "Caf\u00e9" in latex and "\u0301" not in latex
    document = tmp_path / "paper.tex"
    document.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + latex
                        + "\\end{document}\n")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", document.name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 0


def test_the_leaderboard_paper_table_marks_what_the_leaderboard_marks(tmp_path, conformance):
    irw = Cli(tmp_path / "irw.duckdb")
    folder = conformance / "dl19-passage"
    irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19")
    irw("ingest", "run", folder / "runs")  # six runs, one command
    args = ["report", "leaderboard", "-m", "nDCG@10", "-m", "AP(rel=2)", "--baseline", "BM25"]  # --qrels: the only set
    board = json.loads(irw(*args, "--format", "json").stdout)
    latex = irw(*args, "--format", "latex")
    assert latex.exit_code == 0, latex.stderr
    rows = [line for line in latex.stdout.splitlines() if line[:2] in {f"{c} " for c in "abcdef"}]
    assert [row.split(" & ")[1].replace("\\_", "_") for row in rows] == [r["run"] for r in board]
    letter = {r["run"]: "abcdef"[i] for i, r in enumerate(board)}
    for row, entry in zip(rows, board):
        cells = row.rstrip(" \\").split(" & ")[2:]
        for name, cell in zip(["nDCG@10", "AP(rel=2)"], cells):
            better = f"{name} better" in (entry["significant"] or "")
            assert cell.endswith(f"$^{{{letter['BM25']}}}$") == better, (entry["run"], name, cell)
    assert "every run against BM25" in latex.stdout
    with warehouse.open(tmp_path / "irw.duckdb", read_only=True) as wh:
        from warehouse import reports

        frame = reports.leaderboard(wh, "dl19", ["nDCG@10"]).to_pandas()
        assert list(frame["run"]) == [r["run"] for r in sorted(board, key=lambda r: -r["nDCG@10"])]
    other = irw("report", "run", "BM25", "--format", "markdown")
    # a page's --format lists the formats a page takes (no paper table): Click names them
    assert other.exit_code == 2 and "'markdown' is not one of" in other.stderr and "'html'" in other.stderr


@pytest.mark.parametrize("fmt", ["latex", "markdown"])
def test_the_caption_counts_one_comparison_as_one(hostile, fmt):
    """Two runs and one measure make one comparison: the caption said "over 1 comparisons"."""
    result = hostile("compare", NAMES["a"], NAMES["b"], "-m", "RR", "--format", fmt)
    assert result.exit_code == 0, result.stderr
    assert "Holm-Bonferroni step-down correction over 1 comparison, alpha 0.05" in result.stdout
    three = hostile("compare", *NAMES.values(), "-m", "RR", "--format", fmt).stdout
    assert "correction over 3 comparisons, alpha" in three


def test_letters_past_z_are_told_apart_and_dashes_and_backticks_stay_as_named():
    """A board of more than 26 runs labels them aa, ab ...: `$^{aaab}$` could be a, a, a, b or aa,
    ab, so such a table joins a cell's letters with commas (a table of 26 runs or fewer keeps them
    run together). TeX printed a name's -- as an en dash and ` as an opening quote."""
    from warehouse.reports import paper

    def table(count: int, better_than: tuple[str, ...]) -> paper.PaperTable:
        runs = [f"run{i}" for i in range(count)]
        cells = [[paper.PaperCell(0.5, False, better_than if i == count - 1 else ())] for i in range(count)]
        return paper.PaperTable(runs, [paper.letter(i) for i in range(count)], ["AP"], cells, "caption")

    assert paper.letter(26) == "aa" and paper.letter(27) == "ab"
    assert "0.5000$^{a,aa}$" in paper.to_latex(table(28, ("a", "aa")))
    assert "0.5000<sup>a,aa</sup>" in paper.to_markdown(table(28, ("a", "aa")))
    assert "0.5000$^{ab}$" in paper.to_latex(table(3, ("a", "b")))
    assert paper.latex_escape("bm25 -- `rm3`") == r"bm25 -{}- \textasciigrave{}rm3\textasciigrave{}"
    assert paper.latex_escape("a---b") == r"a-{}-{}-b"
