"""Where a report's files go and how they are written: run page names, links, whole-or-nothing
writes, and only the pages whose content changed.

A leaderboard of a thousand runs writes a thousand run pages; after one run is added, one of
them is new and the others would come out byte for byte as they are. Two things keep that cheap:

- a page is written only when its bytes differ from the file's (write_if_changed), so an
  unchanged page keeps its file and its modification time;
- a folder of run pages holds a manifest (PAGE_MANIFEST) of what each page was made from: a key
  over everything it reads (its run's and its baseline's metadata and stored scores, the qrels
  set, the settings, the page it links back to, and irw's code and templates) and the size and
  modification time the file had when written. A page whose key and file are as recorded is
  neither built nor read again. A file edited, removed or replaced since is built and written.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote

from warehouse.formats.files import write_atomically
from warehouse.resources import sql_dir, templates_dir

PAGE_MANIFEST = ".irw-pages.json"
_MANIFEST_FORMAT = 1

_SAFE_PAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
# names Windows refuses as files whatever their extension (con.html is the console)
_RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def run_page_name(run: str) -> str:
    """A file name for a run's page: the name itself when it is a safe file name, else a cleaned
    name and 8 hex digits of its SHA-256 (unique, and safe on any file system). A safe name has
    only letters, digits, '.', '_' and '-', starts with a letter or digit, is never a path, and is
    at most 81 characters (docs/reports.md says so)."""
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


def write_if_changed(path: Path, html: str) -> bool:
    """Writes a page (whole or not at all, write_page) unless the file holds these bytes already;
    True when it was written."""
    data = html.encode("utf-8")
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass  # missing or unreadable: written (and an unwritable one reported) below
    write_atomically(path, data)
    return True


@dataclass
class PagesWritten(Sequence):
    """The files of a report, its main page first: every one of them (as a sequence of paths), and
    which were written and which were left as they were (their content had not changed)."""

    paths: list[Path]
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)  # pages of runs no longer in the report
    notes: list[str] = field(default_factory=list)     # what the report says of its numbers (said first, as # lines)

    def __getitem__(self, index):
        return self.paths[index]

    def __len__(self) -> int:
        return len(self.paths)

    def messages(self) -> list[str]:
        """What was written, for a person: the main page, then the run pages in one line."""
        main, pages = self.paths[0], self.paths[1:]
        lines = [f"# {note}" for note in self.notes]
        lines.append(f"wrote {main}" if main in self.written else f"{main} unchanged")
        if pages:
            written = set(self.written)
            fresh = sum(1 for p in pages if p in written)
            kept = len(pages) - fresh
            line = f"wrote {fresh:,} run {'page' if fresh == 1 else 'pages'} to {pages[0].parent}"
            lines.append(line + (f"; {kept:,} unchanged" if kept else ""))
        if self.removed:
            pages = "page" if len(self.removed) == 1 else "pages"
            lines.append(f"removed {len(self.removed):,} run {pages} the board no longer links from "
                         f"{self.removed[0].parent}: "
                         + ", ".join(p.name for p in self.removed[:5])
                         + (f" and {len(self.removed) - 5:,} more" if len(self.removed) > 5 else ""))
        return lines


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 over irw's Python code, SQL and templates: part of every page key, so pages made by
    another version of irw are built again."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    files = [(f"warehouse/{p.relative_to(package).as_posix()}", p) for p in package.rglob("*.py")]
    for name, folder in (("sql", sql_dir()), ("templates", templates_dir())):
        files += [(f"{name}/{p.relative_to(folder).as_posix()}", p) for p in folder.rglob("*") if p.is_file()]
    for name, path in sorted(files):
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def page_key(inputs: Any) -> str:
    """A key over everything a page is made from (JSON of it; dates and other values as text)."""
    text = json.dumps([code_digest(), inputs], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PageManifest:
    """A folder's record of what each of its pages was made from (see the module docstring)."""

    def __init__(self, folder: Path):
        self.path = folder / PAGE_MANIFEST
        self.pages: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") == _MANIFEST_FORMAT and isinstance(data.get("pages"), dict):
                self.pages = data["pages"]
        except (OSError, ValueError, AttributeError):
            pass  # none yet, or unreadable: every page is built, and the manifest written anew
        self._saved = dict(self.pages)

    def current(self, name: str, key: str) -> bool:
        """Whether page `name` was made from inputs with this key and its file is as written then."""
        entry = self.pages.get(name)
        if not isinstance(entry, dict) or entry.get("inputs") != key:
            return False
        try:
            info = (self.path.parent / name).stat()
        except OSError:
            return False
        return entry.get("size") == info.st_size and entry.get("mtime_ns") == info.st_mtime_ns

    def record(self, name: str, key: str) -> None:
        info = (self.path.parent / name).stat()
        self.pages[name] = {"inputs": key, "size": info.st_size, "mtime_ns": info.st_mtime_ns}

    def save(self, names: Iterable[str]) -> list[str]:
        """Keeps the entries of these pages (the report's now) and writes the manifest if it changed.
        Returns the pages it held that the report no longer has (a run removed, renamed or left out
        since) whose files are as irw wrote them: the caller removes them once the report no longer
        links to them. A page changed since it was written is someone's: it is left, and forgotten."""
        keep = set(names)
        gone = [name for name, entry in sorted(self.pages.items())
                if name not in keep and isinstance(entry, dict) and self.current(name, entry.get("inputs"))]
        self.pages = {name: entry for name, entry in sorted(self.pages.items()) if name in keep}
        if self.pages != self._saved:
            # one line, so json's C encoder writes it (indent= takes the Python one: a tenth of the
            # speed, and the manifest of every page is written again whenever one page changes)
            write_atomically(self.path, json.dumps({"format": _MANIFEST_FORMAT, "pages": self.pages},
                                                   sort_keys=True).encode("utf-8"))
            self._saved = dict(self.pages)
        return gone
