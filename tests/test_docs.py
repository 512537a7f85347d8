"""The documentation holds together: the site (mkdocs.yml, docs/) builds in strict mode, so a broken
link, anchor or page fails; its generated pages are current (scripts/docs.py); the README's links
land on a page and a heading; and every example block of README.md and docs/ is run by a test
(EXAMPLES says which; a new block no test reads fails here until one does)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import DOCS, ROOT, pages

# (page, heading the blocks are under) -> (the test file that runs them, the text by which that test
# finds them on the page, how many ``` blocks the section holds)
EXAMPLES = {
    ("README.md", "Set up"): ("test_readme.py", '"\\n## Set up\\n"', 1),
    ("README.md", "Seven commands on real files"): ("test_walkthrough.py", '"Seven commands on real files"', 1),
    ("README.md", "Five lines of Python"): ("test_walkthrough.py", '"Five lines of Python"', 2),
    # `make demo` from a clean clone: tests/test_demo.py (opt-in for developers, always on under .ci/run)
    ("docs/quickstart.md", "Installing"): ("test_demo.py", '["make", "demo"]', 1),
    ("docs/quickstart.md", "The demo warehouse"): ("test_readme.py", "## The demo warehouse", 1),
    ("docs/quickstart.md", "Your own data"): ("test_walkthrough.py", '"Your own data goes in the same way:"', 1),
    ("docs/quickstart.md", "Walkthrough: TREC DL 2019 passage"):
        ("test_walkthrough.py", '"Walkthrough: TREC DL 2019 passage"', 2),
    ("docs/quickstart.md", "A warehouse of several collections"):
        ("test_multi_collection_walkthrough.py", '"A warehouse of several collections"', 1),
    ("docs/cli.md", "Choosing runs"): ("test_collections.py", "<!-- choosing-runs:start -->", 1),
    ("docs/input-formats.md", "Run names and dates"): ("test_run_naming.py", '"Run names and dates"', 1),
    ("docs/python.md", "Python API"): ("test_readme_notebook.py", '("Python API", 1)', 2),
    ("docs/python.md", "In a notebook"): ("test_readme_notebook.py", '("In a notebook", 2)', 2),
    ("docs/python.md", "Evaluating on Spark"): ("test_spark_walk.py", '"Evaluating on Spark"', 2),
    ("docs/measures.md", "Measures you write in SQL"): ("test_user_measures.py", '"Measures you write in SQL"', 2),
    ("docs/reports.md", "Serving the reports: irw serve"):
        ("test_serve.py", '"Serving the reports: irw serve"', 1),
    ("docs/engines.md", "A shared warehouse"): ("test_readme_postgres.py", '"A shared warehouse"', 1),
    # the Python example and what it prints (test_spark.py), the drop-in's line (test_spark.py), the
    # --into command and its table (test_spark_into.py), the spark-submit lines (test_spark.py)
    ("docs/engines.md", "On Spark"): ("test_spark.py", '"On Spark"', 6),
    # the export, the Python that evaluates it and its output; the cluster's block, held equal to
    # that Python (test_the_cluster_block_is_the_tested_example_on_hdfs)
    ("docs/engines.md", "Exported warehouses"): ("test_export.py", '"\\n### Exported warehouses\\n"', 4),
}
GENERATED = {"docs/cli-reference.md"}  # every block is `--help`, written by scripts/docs.py


def example_blocks() -> dict[tuple[str, str], int]:
    """(page, innermost heading) -> the number of ``` blocks under it, for every page."""
    found: dict[tuple[str, str], int] = {}
    for name, text in pages().items():
        heading, fenced = "", False
        for line in text.splitlines():
            if line.startswith("```"):
                if not fenced:
                    found[(name, heading)] = found.get((name, heading), 0) + 1
                fenced = not fenced
            elif not fenced and (match := re.match(r"#{1,6} (.*)", line)):
                heading = match.group(1)
    return found


def test_every_example_block_is_run_by_a_test():
    found = {key: n for key, n in example_blocks().items() if key[0] not in GENERATED}
    untested = sorted(set(found) - set(EXAMPLES))
    assert not untested, f"example blocks no test runs (add the test, then list it in EXAMPLES): {untested}"
    assert {key: n for key, n in found.items()} == {key: n for key, (_, _, n) in EXAMPLES.items()}
    for (page, heading), (test, needle, _) in EXAMPLES.items():
        assert needle in (ROOT / "tests" / test).read_text(encoding="utf-8"), (page, heading, test)


def test_the_generated_pages_are_current():
    """docs/cli-reference.md is every command's --help, and the measure table the registry's."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs.py"), "--check"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_the_site_builds_in_strict_mode(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is in the test extra: make test installs it")
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for page in DOCS.glob("*.md"):  # every page is in the navigation and built
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert built.is_file(), page.name


def _slug(heading: str) -> str:
    from markdown.extensions.toc import slugify

    return slugify(heading, "-")


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md"])
def test_the_links_outside_the_site_land(name):
    """README.md and CONTRIBUTING.md are read on their own (not built by mkdocs): each relative link
    names a file of the checkout and, with #anchor, a heading of it."""
    pytest.importorskip("markdown", reason="mkdocs (the test extra) brings Python-Markdown")
    text = (ROOT / name).read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = ROOT / (path or name)
        assert target.is_file(), (name, link)
        if anchor:
            headings = re.findall(r"^#{1,6} (.*)$", target.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, (name, link)
