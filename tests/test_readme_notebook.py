"""The README's Python examples (the Python API, and the notebook one: data frames in, a pandas
frame and a LaTeX table out), run as printed in the DL19 folder: what they print is what the
README shows, and the numbers are trec_eval's."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import section as docs_section
from conftest import dl19_expected

ROOT = Path(__file__).resolve().parents[1]


def example(heading: str, level: int) -> tuple[str, str]:
    """(code, what the page says it prints) of the first python example under a heading."""
    section = docs_section(heading, level)
    return section.split("```python\n", 1)[1].split("```", 1)[0], section.split("prints\n\n```\n", 1)[1].split("```")[0]


def run_in_dl19_folder(code: str, folder: Path, conformance: Path) -> str:
    """What the code prints, run as a user runs it: a Python process of its own in the DL19 folder
    (nothing another test loaded or set in this process reaches it)."""
    source = conformance / "dl19-passage"
    (folder / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (folder / "runs").symlink_to(source / "runs", target_is_directory=True)
    result = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize("heading, level", [("Python API", 1), ("In a notebook", 2)])  # docs/python.md
def test_the_python_examples_print_what_the_readme_shows(heading, level, tmp_path, conformance):
    code, printed = example(heading, level)
    assert run_in_dl19_folder(code, tmp_path, conformance).rstrip("\n") == printed.rstrip("\n")


def test_their_numbers_are_trec_eval_s(conformance):
    _, api = example("Python API", 1)
    bm25 = dl19_expected(conformance, "BM25")
    assert api.splitlines()[1].split()[0] == bm25[("map", "all")]
    for line in api.splitlines()[2:5]:
        _, query, measure, value = line.split()
        assert value == bm25[({"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}[measure], query)]
    _, notebook = example("In a notebook", 2)
    expected = {(name, measure): dl19_expected(conformance, run, level)[(measure, "all")]
                for run, name in (("BM25", "bm25"), ("REP_LLAMA", "rep-llama"))
                for level, measure in ((1, "ndcg_cut_10"), (2, "map"))}
    for name, _, ndcg, ap in (line.split() for line in notebook.splitlines()[1:3]):
        assert (ndcg, ap) == (expected[(name, "ndcg_cut_10")], expected[(name, "map")])
