"""Where a report's files go and how they are written: run page names, links, whole-or-nothing writes."""
from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
from pathlib import Path
from typing import Iterable
from urllib.parse import quote

from ..errors import OutputError

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


def write_atomically(path: Path, data: bytes) -> None:
    """data into path whole or not at all (temporary file in the same folder, fsync, rename)."""
    path = Path(path)
    _make_folder(path.parent)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; name a file with -o")
    temporary = path.with_name(f".{path.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # os.open, not tempfile: the page gets the usual permissions (0666 less the umask), not 0600
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        try:
            temporary.unlink()
        except OSError:
            pass
        hint = "free some space or choose another -o path" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "choose another -o path"
        raise OutputError(f"cannot write {path}: {_os_reason(exc)}; the file is as it was ({hint})") from None


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), folder)
        raise OutputError(f"cannot write into {folder}: {blocker} is a file, not a folder; "
                          "choose another -o path") from None
    except OSError as exc:
        raise OutputError(f"cannot make the folder {folder}: {_os_reason(exc)}; choose another -o path") from None


def _os_reason(exc: OSError) -> str:
    reasons = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
               errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
               errno.EROFS: "the file system is read-only", errno.ENOTDIR: "a part of the path is not a folder",
               errno.EISDIR: "it is a folder", errno.ENAMETOOLONG: "the name is too long",
               errno.ENOENT: "its folder does not exist or cannot hold files"}
    return reasons.get(exc.errno, exc.strerror or type(exc).__name__)
