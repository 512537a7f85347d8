"""The README's notebook example, run as printed in the DL19 folder: data frames in (PyTerrier and
ir_datasets shapes), a pandas frame and a LaTeX table out; what it prints is what the README shows,
and the numbers are trec_eval's."""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

from conftest import dl19_expected

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("\n### In a notebook\n", 1)[1].split("\n## ", 1)[0]
CODE, PRINTED = SECTION.split("```python\n", 1)[1].split("```", 1)[0], SECTION.split("prints\n\n```\n", 1)[1].split("```")[0]


def test_the_notebook_example_prints_what_the_readme_shows(tmp_path, conformance):
    source = conformance / "dl19-passage"
    (tmp_path / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    (tmp_path / "runs").symlink_to(source / "runs", target_is_directory=True)
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        with contextlib.redirect_stdout(out):
            exec(compile(CODE, "README.md (In a notebook)", "exec"), {"__name__": "__readme__"})
    finally:
        os.chdir(cwd)
    assert out.getvalue().rstrip("\n") == PRINTED.rstrip("\n")
    expected = {(name, measure): dl19_expected(conformance, run, level)[(measure, "all")]
                for run, name in (("BM25", "bm25"), ("REP_LLAMA", "rep-llama"))
                for level, measure in ((1, "ndcg_cut_10"), (2, "map"))}
    rows = [line.split() for line in PRINTED.splitlines()[1:3]]
    for name, _, ndcg, ap in rows:
        assert (ndcg, ap) == (expected[(name, "ndcg_cut_10")], expected[(name, "map")])
