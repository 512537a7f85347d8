"""How a report shows values: numbers through warehouse.formats.formatting, dates, counts, sort keys."""
from __future__ import annotations

import datetime as dt
import math
from typing import Any

from warehouse.formats.cells import said_date
from warehouse.formats.formatting import format_number
from warehouse.evaluation.stats import PairedResult

DASH = "\u2014"


def missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_value(value: float | None) -> str:
    if isinstance(value, int) and not isinstance(value, bool):  # a count (NumRet ...): no decimals
        return str(value)
    return DASH if missing(value) else format_number(value)


def fmt_delta(value: float | None) -> str:
    if missing(value):
        return DASH
    text = format_number(value)
    if text == format_number(0.0):
        return text  # no sign: neither "+0.0000" nor "-0.0000"
    return text if value < 0 else "+" + text


def fmt_p(value: float | None) -> str:
    if missing(value):
        return DASH
    if value < 0.0001 and format_number(value) == format_number(0.0):
        return "<" + format_number(0.0001)
    return format_number(value)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


def wins_ties_losses(result: PairedResult) -> str:
    return (f"{plural(result.wins, 'win')}, {plural(result.ties, 'tie')}, {plural(result.losses, 'loss', 'losses')}")


def fmt_count(value: int | None) -> str:
    return DASH if value is None else f"{value:,}"


def fmt_date(value: dt.datetime | None) -> str:
    # isoformat, not strftime: the year 1 is 0001, as irw runs says it (formats/cells.said_date)
    return DASH if value is None else value.date().isoformat()


def fmt_datetime(value: dt.datetime | None) -> str:
    return DASH if value is None else said_date(value)


def sort_value(value: Any) -> str:
    """The data-value a sortable cell carries: full precision numbers, ISO dates, '' for none."""
    if missing(value):
        return ""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="seconds")
    if isinstance(value, bool):
        return "1" if value else "0"
    # 12 significant digits: enough to order any two values a page shows, and short in the HTML
    return f"{value:.12g}" if isinstance(value, float) else str(value)
