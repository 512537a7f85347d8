"""benchmarks/results.md is what `make bench` printed at the commit it names: a commit of this
history, from a clean work tree (benchmarks/run.py refuses to write the file otherwise)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_results_name_a_commit_of_this_history_made_from_a_clean_tree():
    """Every run in the file: the full run's, and each `--only` run's block appended after it."""
    text = (ROOT / "benchmarks" / "results.md").read_text(encoding="utf-8")
    named = re.findall(r"irw commit (\S+)( \(work tree has uncommitted changes\))?", text)
    assert named, "results.md names no commit"
    assert not any(dirty for _, dirty in named), "results.md has numbers from a work tree with uncommitted changes"
    if subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout (an sdist): the commit cannot be looked up")
    for commit, _ in named:
        ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=ROOT,
                                  capture_output=True, text=True)
        assert ancestor.returncode == 0, f"results.md names {commit}, which is not in this history"
