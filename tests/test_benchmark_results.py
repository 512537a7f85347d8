"""benchmarks/results.md is what `make bench` printed at the commit it names: a commit of this
history, from a clean work tree (benchmarks/run.py refuses to write the file otherwise)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_results_name_a_commit_of_this_history_made_from_a_clean_tree():
    text = (ROOT / "benchmarks" / "results.md").read_text(encoding="utf-8")
    match = re.search(r"irw commit (\S+)( \(work tree has uncommitted changes\))?", text)
    assert match, "results.md names no commit"
    assert match.group(2) is None, "results.md was written from a work tree with uncommitted changes"
    if subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout (an sdist): the commit cannot be looked up")
    ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", match.group(1), "HEAD"], cwd=ROOT,
                              capture_output=True, text=True)
    assert ancestor.returncode == 0, f"results.md names {match.group(1)}, which is not in this history"
