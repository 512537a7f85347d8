"""One value as the text irw prints it (4 decimals for floats, control characters escaped): the rule
the output formats (warehouse/formats/formatting.py) and a Table's HTML (warehouse/formats/table.py) both use."""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from warehouse.formats.escaping import reversible, shown

DECIMALS = 4
# what a name listed bare may hold: nothing a list, a sentence or a quote around it is made of
_BARE = re.compile(r"[^\s,;()'\"`?\\]+")


def format_number(value: float, decimals: int = DECIMALS) -> str:
    if math.isnan(value):
        return "nan"
    text = f"{value:.{decimals}f}"
    # a difference of -0.00001 is no difference at the decimals shown: never "-0.0000"
    return text[1:] if text[0] == "-" and not text.strip("-0.") else text


def _blob_text(value: bytes | bytearray | memoryview) -> str:
    """A BLOB as text: its UTF-8 reading, with \\xNN for bytes that are not UTF-8 (as DuckDB shows it)."""
    return bytes(value).decode("utf-8", errors="backslashreplace")


def _cell(value: Any, human: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_number(value) if human else repr(value)
    if isinstance(value, dt.datetime):
        return said_date(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _blob_text(value)
    if isinstance(value, dict):
        if human:
            return ", ".join(f"{k}={v}" for k, v in value.items())
        import json  # here: irw trec-eval never prints a dict

        return json.dumps(value, sort_keys=True)
    return str(value)


def said_date(value: Any) -> str:
    """A date and time as tables and messages show it: to the second, the year in four digits (a
    file's time was said with its microseconds, and strftime wrote the year 1 as `1-01-01`)."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")
    return str(value)


def cell_text(value: Any) -> str:
    """One value as the text table prints it (4 decimals for floats), control characters escaped."""
    return shown(_cell(value, human=True))


def said_name(name: str) -> str:
    """A name (of a run, system, qrels set) as a message says the one it was given: quoted, escaped
    as a table cell is (escaping.reversible: `irw runs` prints it the same), a quote in it written
    \\'. So it reads back as exactly one name: 'a\\\\tb' is the four characters typed, 'a\\tb' holds a
    tab, 'it\\'s' ends where the quotes do."""
    return "'" + reversible(str(name)).replace("'", "\\'") + "'"


def listed_name(name: str) -> str:
    """A name as a message lists it (did you mean X or Y; N stored runs: X, Y): as said_name says
    it, without the quotes when it needs none (no blank, comma, quote, parenthesis, backslash or
    escaped character), so a list of ordinary names stays as `irw runs` prints them."""
    name = str(name)
    return name if _BARE.fullmatch(name) and shown(name) == name else said_name(name)


def said_value(value: Any) -> str:
    """A stored setting (a description, a system, parameters) as a message says it: text quoted
    and escaped as names are (said_name), parameters as k=v, k=v, and none for no value; never
    Python's None or a dict's repr."""
    if value is None or (isinstance(value, dict) and not value):
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{shown(str(key))}={shown(str(item))}" for key, item in sorted(value.items()))
    return said_name(str(value))
