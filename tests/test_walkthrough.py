"""The README's seven commands and five lines of Python, and the DL19 walkthrough and "Your own data"
lines of docs/quickstart.md, run as a user runs them: each command typed into bash exactly as
printed, in a folder holding `qrels.dl19-passage.txt` and `runs/`, with `irw` on the PATH. What they
print must be what the page shows, and the numbers must be trec_eval's own for the same files
(../shared/conformance/dl19-passage). The model for every example of the docs."""
from __future__ import annotations

import csv
import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from conftest import dl19_expected as expected
from docs_pages import page, section  # section: also what the other walkthrough tests import from here

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]


def blocks(text: str) -> list[str]:
    return text.split("```")[1::2]


def commands(block: str) -> list[tuple[str, list[str]]]:
    """(command, printed lines) for each `$ ` line of a block; indented lines continue a command."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines()[1:]:
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found and line.startswith("    ") and not found[-1][1]:
            found[-1] = (found[-1][0] + "\n" + line, [])
        elif found:
            found[-1][1].append(line)
    return [(command, [line for line in printed if line.strip()]) for command, printed in found]


WALKTHROUGH = section("Walkthrough: TREC DL 2019 passage")
STEPS = [step for block in blocks(WALKTHROUGH) for step in commands(block)]


def bash(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "IRW_DB": "", "LC_ALL": "C"}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def table_rows(lines: list[str]) -> list[list[str]]:
    """The cells of a printed text table (header first), split on runs of two or more spaces."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines if not line.startswith("#")]
    return [row for row in rows if not set(row[0]) <= {"-"}]


@pytest.fixture(scope="module")
def user_folder(tmp_path_factory, conformance) -> Path:
    """The user's folder: the DL19 qrels and runs/ (links to the conformance files, never copies)."""
    work = tmp_path_factory.mktemp("dl19-user")
    source = conformance / "dl19-passage"
    (work / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (work / "runs").symlink_to(source / "runs", target_is_directory=True)
    return work


@pytest.fixture(scope="module")
def walked(user_folder) -> list[tuple[str, list[str], subprocess.CompletedProcess]]:
    """Every walkthrough command, in order, in one folder (each builds on the ones before)."""
    return [(command, printed, bash(command, user_folder)) for command, printed in STEPS]


def test_the_walkthrough_covers_what_users_do_first():
    verbs = [command.split()[1] for command, _ in STEPS]
    assert verbs[:2] == ["ingest", "ingest"] and "runs/" in STEPS[1][0]  # six runs, one command
    assert {"eval", "compare", "report", "sql"} <= set(verbs)
    assert "(rel=2)" in next(c for c, _ in STEPS if c.startswith("irw eval"))


def test_every_walkthrough_command_prints_what_the_readme_shows(walked):
    assert len(walked) == len(STEPS) >= 7
    _prints_what_the_page_shows(walked)


def _prints_what_the_page_shows(walked) -> None:
    for command, printed, result in walked:
        assert result.returncode == 0, (command, result.stderr)
        shown = [line for line in printed if not line.startswith("# ")]
        assert result.stdout.splitlines() == shown, command
        notes_are_shown(command, printed, result.stderr)


def notes_are_shown(command: str, printed: list[str], stderr: str) -> None:
    """The `# ` notes a page shows under a command are its notes on stderr, all of them: each whole, or
    shortened by "..." to the start of the line (the README's compare block once left three of its
    five out unsaid). A page may show none."""
    messages = stderr.splitlines()
    notes = [line for line in printed if line.startswith("# ")]
    for note in notes:
        assert any(m.startswith(note[:note.index("...")]) for m in messages) if "..." in note \
            else note in messages, (command, note)
    assert not notes or len(notes) == sum(m.startswith("# ") for m in messages), (command, messages)


def _output(walked, starts: str) -> list[list[str]]:
    (result,) = [r for c, _, r in walked if c.startswith(starts)]
    return table_rows(result.stdout.splitlines())


def test_walkthrough_numbers_are_trec_eval_s(walked, conformance):
    header, *rows = _output(walked, "irw eval")
    assert [row[0] for row in rows] == RUNS
    trec = {"AP(rel=2)": ("map", 2), "R(rel=2)@1000": ("recall_1000", 2), "nDCG@10": ("ndcg_cut_10", 1),
            "RR": ("recip_rank", 1)}
    for row in rows:
        cells = dict(zip(header, row))
        assert cells["queries"] == expected(conformance, row[0])[("num_q", "all")]
        for measure, (name, level) in trec.items():
            assert cells[measure] == expected(conformance, row[0], level)[(name, "all")], (row[0], measure)

    header, *rows = _output(walked, "irw compare")
    for row in rows:
        cells = dict(zip(header, row))
        assert cells["run_mean"] == expected(conformance, cells["run"])[("ndcg_cut_10", "all")]
        assert cells["baseline_mean"] == expected(conformance, "BM25")[("ndcg_cut_10", "all")]


def _per_query(conformance, run: str, name: str = "ndcg_cut_10") -> dict[str, float]:
    return {q: float(v) for (n, q), v in expected(conformance, run).items() if n == name and q != "all"}


def test_the_side_by_side_report_is_trec_eval_s_per_query_values(walked, conformance, user_folder):
    """`irw report run REP_LLAMA --baseline BM25 -m nDCG@10`: each query's two values and their
    difference, trec_eval's per-query ndcg_cut_10 (the page shows the first lines; all 43 here)."""
    (command,) = [c for c, _, _ in walked if c.startswith("irw report run")]
    whole = bash(command.split(" | ")[0], user_folder)
    assert whole.returncode == 0, whole.stderr
    header, *rows = table_rows(whole.stdout.splitlines())
    assert header == ["query", "nDCG@10", "BM25 nDCG@10", "delta_nDCG@10"]
    base, rep = _per_query(conformance, "BM25"), _per_query(conformance, "REP_LLAMA")
    assert sorted(row[0] for row in rows) == sorted(rep) and len(rows) == 43
    for query, value, baseline, delta in rows:
        assert (float(value), float(baseline)) == (rep[query], base[query]), query
        assert abs(float(delta) - (rep[query] - base[query])) <= 1.5e-4, query  # three roundings to 4 places


def test_walkthrough_sql_answers_match_trec_eval_s_per_query_values(walked, conformance):
    sql = [(c, r) for c, _, r in walked if c.startswith("irw sql")]
    assert len(sql) == 3
    base, rep = _per_query(conformance, "BM25"), _per_query(conformance, "REP_LLAMA")
    assert len(base) == len(rep) == 43
    header, row = table_rows(sql[0][1].stdout.splitlines())
    assert dict(zip(header, map(int, row))) == {
        "wins": sum(rep[q] > base[q] for q in base), "ties": sum(rep[q] == base[q] for q in base),
        "losses": sum(rep[q] < base[q] for q in base)}

    every = [_per_query(conformance, run) for run in RUNS]
    failed = sorted(q for q in base if max(run[q] for run in every) < 0.5)
    header, *rows = table_rows(sql[1][1].stdout.splitlines())
    assert [row[0] for row in rows] == failed and failed
    assert [row[1] for row in rows] == [f"{max(run[q] for run in every):.4f}" for q in failed]

    header, *rows = table_rows(sql[2][1].stdout.splitlines())
    assert sorted(row[0] for row in rows) == sorted(r for r in RUNS if r != "BM25")
    for row in rows:
        other = _per_query(conformance, row[0])
        queries = sorted(base)
        t = scipy_stats.ttest_rel([other[q] for q in queries], [base[q] for q in queries]).statistic
        assert math.isclose(float(row[3]), t, abs_tol=0.01), (row[0], row[3], t)  # trec_eval prints 4 decimals


def test_the_t_statistic_sql_puts_a_run_equal_to_the_baseline_last_without_nan(walked, user_folder, tmp_path):
    """A run whose nDCG@10 equals BM25's on every query has t = 0/0: DuckDB sorted its NaN above
    every number, first in the list (a walk)."""
    import shutil

    shutil.copyfile(user_folder / "irw.duckdb", tmp_path / "irw.duckdb")
    lines = (user_folder / "runs" / "run.dl19.BM25.txt").read_text().splitlines(True)
    (tmp_path / "twin.txt").write_text("".join(line for line in lines if int(line.split()[3]) <= 99))  # rank 100 gone
    for command in ("irw ingest run twin.txt --name BM25_TWIN", "irw eval BM25_TWIN -m nDCG@10"):
        assert bash(command, tmp_path).returncode == 0, command
    (command,) = [c for c, _, _ in walked if c.startswith("irw sql") and ") as t\n" in c]
    result = bash(command, tmp_path)
    assert result.returncode == 0, result.stderr
    header, *rows = table_rows(result.stdout.splitlines())
    assert header[-1] == "t" and rows[-1][0] == "BM25_TWIN" and len(rows) == len(RUNS), rows
    assert rows[-1][2] == "0.0000" and "nan" not in result.stdout.lower(), result.stdout


def test_the_walkthrough_leaderboard_is_written(walked, user_folder):
    (result,) = [r for c, _, r in walked if c.startswith("irw report leaderboard")]
    page = (user_folder / "dl19.html").read_text(encoding="utf-8")
    for run in RUNS:
        assert run in page
    assert "AP(rel=2)" in page and "0.5298" in page  # REP_LLAMA's map at -l 2


def test_the_readme_own_data_lines_run_as_typed(tmp_path, conformance):
    """The four lines under "Your own data", typed into bash in a folder as the user has it."""
    block = page("quickstart").split("Your own data goes in the same way:", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("irw ")]
    assert len(lines) == 4
    source = conformance / "dl19-passage"
    (tmp_path / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (tmp_path / "runs").symlink_to(source / "runs", target_is_directory=True)
    for line in lines:
        result = bash(line, tmp_path)
        assert result.returncode == 0, (line, result.stderr)
    scores = list(csv.DictReader(io.StringIO((tmp_path / "scores.csv").read_text())))
    assert [row["run"] for row in scores] == RUNS
    for row in scores:
        oracle = expected(conformance, row["run"])
        for measure, name in {"AP": "map", "nDCG@10": "ndcg_cut_10", "R@1000": "recall_1000"}.items():
            assert f"{float(row[measure]):.4f}" == oracle[(name, "all")], (row["run"], measure)
    assert (tmp_path / "dl19.html").stat().st_size > 0


# -- the README's own seven commands and five lines of Python ------------------------------------------

README_STEPS = [step for block in blocks(section("Seven commands on real files")) for step in commands(block)]


@pytest.fixture(scope="module")
def readme_walked(tmp_path_factory, conformance) -> tuple[Path, list]:
    """The README's commands, in order, in a fresh DL19 folder of their own."""
    work = tmp_path_factory.mktemp("dl19-readme")
    source = conformance / "dl19-passage"
    (work / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (work / "runs").symlink_to(source / "runs", target_is_directory=True)
    return work, [(command, printed, bash(command, work)) for command, printed in README_STEPS]


def test_the_readme_commands_print_what_it_shows(readme_walked):
    folder, walked = readme_walked
    verbs = [command.split()[1] for command, _, _ in walked]
    assert verbs == ["ingest", "ingest", "eval", "compare", "sql", "report", "trec-eval"]
    _prints_what_the_page_shows(walked)
    page = (folder / "dl19.html").read_text(encoding="utf-8")
    assert all(run in page for run in RUNS) and "0.5298" in page  # REP_LLAMA's map at -l 2


def test_the_readme_numbers_are_trec_eval_s(readme_walked, conformance):
    _, walked = readme_walked
    header, *rows = _output(walked, "irw eval")
    assert [row[0] for row in rows] == RUNS
    trec = {"AP(rel=2)": ("map", 2), "nDCG@10": ("ndcg_cut_10", 1), "RR": ("recip_rank", 1)}
    for row in rows:
        cells = dict(zip(header, row))
        assert cells["queries"] == expected(conformance, row[0])[("num_q", "all")]
        for measure, (name, level) in trec.items():
            assert cells[measure] == expected(conformance, row[0], level)[(name, "all")], (row[0], measure)

    header, row = _output(walked, "irw compare")
    cells = dict(zip(header, row))
    base, rep = _per_query(conformance, "BM25"), _per_query(conformance, "REP_LLAMA")
    assert cells["run_mean"] == expected(conformance, "REP_LLAMA")[("ndcg_cut_10", "all")]
    assert cells["baseline_mean"] == expected(conformance, "BM25")[("ndcg_cut_10", "all")]
    assert [int(cells[k]) for k in ("wins", "ties", "losses")] == [
        sum(rep[q] > base[q] for q in base), sum(rep[q] == base[q] for q in base), sum(rep[q] < base[q] for q in base)]

    every = [_per_query(conformance, run) for run in RUNS]
    failed = sorted(q for q in base if max(run[q] for run in every) < 0.5)
    header, *rows = _output(walked, "irw sql")
    assert [row[0] for row in rows] == failed and [row[1] for row in rows] == [
        f"{max(run[q] for run in every):.4f}" for q in failed]

    (result,) = [r for c, _, r in walked if c.startswith("irw trec-eval")]
    oracle = expected(conformance, "REP_LLAMA")
    for line in result.stdout.splitlines():
        name, query, value = (field.strip() for field in line.split("\t"))
        assert oracle[(name, query)] == value, line


def test_the_readme_python_prints_what_it_shows(readme_walked, conformance):
    folder, _ = readme_walked  # the warehouse the README's commands filled
    text = section("Five lines of Python")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    printed = text.split("prints\n\n```\n", 1)[1].split("```", 1)[0]
    # as a user runs it: a Python process of its own (nothing this process loaded reaches it)
    result = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == printed
    for line in printed.splitlines():
        run, ndcg, ap = line.split()
        assert ndcg == expected(conformance, run)[("ndcg_cut_10", "all")]
        assert ap == expected(conformance, run, 2)[("map", "all")]
