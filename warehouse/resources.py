"""Finds the shipped `sql/` and `templates/` folders, in a wheel and in a checkout alike, and
irw's folder in the user's cache.

In a wheel, hatchling's force-include places them inside the package (warehouse/sql);
in a checkout (and an editable install) they sit beside the package at the top level.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_PACKAGE_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"irw is installed without its {name}/ folder (looked beside {_PACKAGE_DIR})")


def user_cache_dir() -> Path | None:
    """irw's folder in the user's cache ($XDG_CACHE_HOME/irw, else ~/.cache/irw), which keeps what
    irw derives from its own files between commands (the migrations' objects, statements for
    PostgreSQL, compiled templates, an empty warehouse); None without a home folder. Not made here:
    each cache makes its part, and does without it when it cannot."""
    try:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "irw"
    except RuntimeError:  # no home folder
        return None


def only_ours(folder: Path) -> bool:
    """folder is a folder (not a link) of this user that no one else may write: what irw keeps in
    it (compiled templates, an empty warehouse) is used as irw's own."""
    import stat

    info = folder.lstat()
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not stat.S_IMODE(info.st_mode) & (stat.S_IWGRP | stat.S_IWOTH))


def private_cache_folder(name: str) -> Path | None:
    """The folder `name` of user_cache_dir(), made if missing, when only this user may write it
    (only_ours); None where there is none to use (no home folder, no uid, someone else's or others
    may write it, or it cannot be made)."""
    root = user_cache_dir()
    if root is None or not hasattr(os, "getuid"):
        return None
    folder = root / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder if only_ours(folder) else None
    except OSError:
        return None


def read_cached(relative: str, parse: Callable[[Any], T]) -> T | None:
    """parse(the JSON kept at `relative` in user_cache_dir()), or None when there is none to use:
    no home folder, not kept yet, not ours to read, or not what parse takes."""
    import json

    root = user_cache_dir()
    if root is None:
        return None
    try:
        return parse(json.loads((root / relative).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def keep_cached(relative: str, value: Any) -> None:
    """value as JSON at `relative` in user_cache_dir(), whole or not at all (written to a file of
    this process's own, then renamed into place, so another process never reads half of it); where
    it cannot be written, nothing is kept and it is derived again next time."""
    import json

    root = user_cache_dir()
    if root is None:
        return
    path = root / relative
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(json.dumps(value), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        pass


def sql_dir() -> Path:
    return resource_dir("sql")


def templates_dir() -> Path:
    return resource_dir("templates")


# A FROM or JOIN item that names a file under sql/ as a quoted identifier, on a line that is not a
# comment: `from "eval/summary_rule.sql" as summarized`. The file's SELECT takes its place.
_COMPOSED = re.compile(r'(\b(?:from|join)\s+)"([a-z0-9_]+/[a-z0-9_]+\.sql)"', re.IGNORECASE)


@lru_cache(maxsize=None)
def read_sql(relative_path: str) -> str:
    """The text of one file under sql/, e.g. read_sql('ingest/stage_qrels_columns.sql'), with the files it
    composes in place: a FROM (or JOIN) item written as a quoted file name, `from
    "eval/summary_rule.sql" as summarized`, becomes that file's SELECT (without its header
    comment) as a subquery, `from (select ...) as summarized`. This is how a rule is written once
    in SQL and read by several queries; the file stays valid SQL as written (the name reads as a
    table's), and every engine runs the composed text."""
    return _composed(relative_path, ())


def _composed(relative_path: str, outer: tuple[str, ...]) -> str:
    if relative_path in outer:
        raise ValueError(f"sql/{relative_path} composes itself: {' -> '.join((*outer, relative_path))}")
    text = (sql_dir() / relative_path).read_text(encoding="utf-8")
    if '"' not in text:
        return text

    def part(match: re.Match) -> str:
        lines = _composed(match.group(2), (*outer, relative_path)).splitlines()
        while lines and (not lines[0].strip() or lines[0].lstrip().startswith("--")):
            lines.pop(0)  # the header says what the file is; the composing file's says why it is here
        body = "\n".join(lines).rstrip().rstrip(";").rstrip()
        return f"{match.group(1)}(\n{body}\n)"

    return "".join(line if line.lstrip().startswith("--") else _COMPOSED.sub(part, line)
                   for line in text.splitlines(keepends=True))


@lru_cache(maxsize=256)
def composed_sql(piece: str, **parts: str) -> str:
    """SQL built at run time from pieces under sql/: the text of file `piece` with each part's text
    standing where the piece says /* name */ (a piece's header calls that place [name]), e.g. composed_sql('ingest/problem_count.sql',
    problems=<a problems query>). Parts are SQL of irw's own, never user input."""
    text = read_sql(piece)
    for name, part in parts.items():
        marker = f"/* {name} */"
        if marker not in text:
            raise ValueError(f"{piece} has no {marker}")
        text = text.replace(marker, part)
    return text
