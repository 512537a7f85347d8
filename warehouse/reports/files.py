"""Where a report's files go and how they are written: run page names, links, whole-or-nothing writes."""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from ..output import write_atomically

_SAFE_PAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
# names Windows refuses as files whatever their extension (con.html is the console)
_RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def run_page_name(run: str) -> str:
    """A file name for a run's page: the name itself when it is a safe file name, else a cleaned
    name and 8 hex digits of its SHA-256 (unique, and safe on any file system). A safe name has
    only letters, digits, '.', '_' and '-', starts with a letter or digit, and is never a path."""
    if _SAFE_PAGE_NAME.fullmatch(run) and not run.endswith(".") and run.split(".")[0].lower() not in _RESERVED_NAMES:
        return f"{run}.html"
    return _hashed_page_name(run)


def _hashed_page_name(run: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", run).strip("._-")[:60] or "run"
    return f"{clean}-{hashlib.sha256(run.encode('utf-8')).hexdigest()[:8]}.html"


def run_page_names(runs: Iterable[str]) -> dict[str, str]:
    """Each run's page file name (run_page_name), unique even where the file system ignores case:
    runs whose names differ only in case (BM25, bm25) get the hashed form."""
    names = {run: run_page_name(run) for run in runs}
    folded: dict[str, int] = {}
    for page in names.values():
        folded[page.casefold()] = folded.get(page.casefold(), 0) + 1
    return {run: page if folded[page.casefold()] == 1 else _hashed_page_name(run) for run, page in names.items()}


def run_pages_dir(report: Path) -> Path:
    """Where a leaderboard's run pages go: a folder beside it named after it (dl19.html ->
    dl19_runs/), so the run pages of two leaderboards in one folder never overwrite each other."""
    return report.with_name(f"{report.stem or report.name}_runs")


def href(*parts: str) -> str:
    """A relative link from path parts (file and folder names), each percent-encoded."""
    return "/".join(quote(part, safe="") for part in parts)


def write_page(path: Path, html: str) -> Path:
    """Writes a page whole or not at all: to a temporary file in the target folder, then renamed
    over the target, so a full disk or an error never leaves a truncated page (and a reader never
    sees one). A folder that cannot be made or written to is an OutputError."""
    write_atomically(path, html.encode("utf-8"))
    return path
