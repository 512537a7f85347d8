"""Finds the shipped `sql/` and `templates/` folders, in a wheel and in a checkout alike.

In a wheel, hatchling's force-include places them inside the package (warehouse/sql);
in a checkout (and an editable install) they sit beside the package at the top level.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"irw is installed without its {name}/ folder (looked beside {_PACKAGE_DIR})")


def sql_dir() -> Path:
    return resource_dir("sql")


def templates_dir() -> Path:
    return resource_dir("templates")


@lru_cache(maxsize=None)
def read_sql(relative_path: str) -> str:
    """The text of one file under sql/, e.g. read_sql('ingest/stage_lines.sql')."""
    return (sql_dir() / relative_path).read_text(encoding="utf-8")


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
