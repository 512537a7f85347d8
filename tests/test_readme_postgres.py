"""The README's "A shared warehouse" commands, run as printed: one bash session in a folder holding
the DL19 files (as the walkthrough's) and a link to the checkout's scripts/, starting a throwaway
PostgreSQL 15 of its own with scripts/postgres.sh. The eval table must be trec_eval's numbers (and
the walkthrough's), the copy must land in a DuckDB file, and the sql's top three must be the
leaderboard's."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import section
from conftest import dl19_expected as expected, under_ci

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]
MARK = "@@irw-readme-step@@"

pytestmark = pytest.mark.postgres


# docs/engines.md
COMMANDS = [line for line in section("A shared warehouse").split("```")[1].splitlines() if line.strip()]


def _has_postgres() -> bool:
    return any(Path(p).is_dir() for p in ("/usr/lib/postgresql/15/bin",)) or \
        subprocess.run(["bash", "-c", "command -v pg_ctl"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def session(tmp_path_factory, conformance):
    if not _has_postgres():
        if under_ci():
            pytest.fail("PostgreSQL 15 is not installed: make test installs it (scripts/postgres.sh)")
        pytest.skip("PostgreSQL 15 is not installed (apt-get install postgresql)")
    work = tmp_path_factory.mktemp("dl19-team")
    source = conformance / "dl19-passage"
    (work / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (work / "runs").symlink_to(source / "runs", target_is_directory=True)
    (work / "scripts").symlink_to(ROOT / "scripts", target_is_directory=True)
    # each command as printed, one bash session (the export carries on); a marker line between
    # them on both streams says which command printed what
    script = "set -e\n" + "".join(f"echo {MARK}{i} ; echo {MARK}{i} >&2\n{command}\n"
                                  for i, command in enumerate(COMMANDS))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "LC_ALL": "C"}
    env.pop("IRW_DB", None)
    try:
        result = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                                timeout=600)
    finally:  # a failed step must not leave the server running
        subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), "stop", "/tmp/irw-pg"], capture_output=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return work, _split(result.stdout), _split(result.stderr)


def _split(text: str) -> dict[int, list[str]]:
    steps: dict[int, list[str]] = {}
    current = -1
    for line in text.splitlines():
        if line.startswith(MARK):
            current = int(line[len(MARK):])
            steps[current] = []
        elif current >= 0:
            steps[current].append(line)
    return steps


def step(command_start: str) -> int:
    (index,) = [i for i, c in enumerate(COMMANDS) if c.startswith(command_start)]
    return index


def test_the_section_starts_a_server_uses_it_and_stops_it():
    assert COMMANDS[0].startswith("export IRW_DB=$(bash scripts/postgres.sh start")
    assert COMMANDS[-1].startswith("bash scripts/postgres.sh stop")
    assert {c.split()[1] for c in COMMANDS if c.startswith("irw ")} >= {"ingest", "eval", "copy", "sql"}


def test_eval_on_the_server_is_trec_eval(session, conformance):
    _, out, _ = session
    lines = [l for l in out[step("irw eval")] if l.strip() and not l.startswith("#") and not set(l) <= {"-", " "}]
    header, *rows = [re.split(r"\s{2,}", l.strip()) for l in lines]
    assert [r[0] for r in rows] == RUNS
    trec = {"AP(rel=2)": ("map", 2), "R(rel=2)@1000": ("recall_1000", 2), "nDCG@10": ("ndcg_cut_10", 1),
            "RR": ("recip_rank", 1)}
    for row in rows:
        cells = dict(zip(header, row))
        for measure, (name, level) in trec.items():
            assert cells[measure] == expected(conformance, row[0], level)[(name, "all")], (row[0], measure)
    # "prints the walkthrough's table to the last digit", as the page says: the same command's table
    # (the page once gave the measures in another order, so the columns came out in another order)
    from test_walkthrough import STEPS

    (shown,) = [printed for command, printed in STEPS if command == COMMANDS[step("irw eval")]]
    assert [l for l in out[step("irw eval")] if l.strip()] == [l for l in shown if not l.startswith("# ")]


def test_copy_lands_every_run_in_a_duckdb_file(session):
    work, _, err = session
    assert [l for l in err[step("irw copy")] if l.startswith("run ")] == [f"run {r}: copied" for r in RUNS]
    import warehouse

    with warehouse.open(work / "team.duckdb", read_only=True) as wh:
        assert sorted(wh.run_names()) == RUNS
        assert wh.db.fetchone("select count(distinct run_id) from scores")[0] == 6


def test_sql_reads_the_server_s_summary(session, conformance):
    _, out, _ = session
    lines = [l for l in out[step("irw sql")] if l.strip() and not set(l) <= {"-", " "}]
    header, *rows = [re.split(r"\s{2,}", l.strip()) for l in lines]
    ndcg = {run: float(expected(conformance, run)[("ndcg_cut_10", "all")]) for run in RUNS}
    top = sorted(RUNS, key=lambda r: -ndcg[r])[:3]
    assert [r[0] for r in rows] == top
    assert [round(float(r[1]), 4) for r in rows] == [ndcg[r] for r in top]
