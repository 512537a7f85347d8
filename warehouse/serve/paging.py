"""Paging, sorting and filtering of the served lists, from a request's query string.

`?page=` (from 1), `?per_page=` (1 to MAX_PER_PAGE, default PER_PAGE), `?sort=` (a column of the
list's registry, never user text formatted into SQL: the SQL takes the chosen kind and position as
bound values), `?order=asc|desc` (default: each column's natural order), `?filter=` (text a run's
name or system holds, case folded; bound as a value). A value outside these is a BadParameter
(status 400) that says what is allowed; a page whose first row is past MAX_OFFSET is a PageTooFar
(also a 400), which the server answers with the pages the list has (app.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from starlette.datastructures import QueryParams

from warehouse.errors import MeasureError, UsageError
from warehouse.evaluation.measures import Measure, parse
from warehouse.reports import PageChoice
from warehouse.reports.scope import COVERAGE_MEASURE, higher_is_better

PER_PAGE = 50
MAX_PER_PAGE = 500
MAX_FILTER = 200
MAX_OFFSET = 2**31 - 1  # the SQL's offset is an integer: a page past it is past any list's last


class BadParameter(UsageError):
    """A paging, sorting or filtering parameter outside what the list allows."""


class PageTooFar(BadParameter):
    """?page= a whole number whose first row is past MAX_OFFSET (given: the text as sent): no list
    has that many rows, and the SQL's offset could not hold it. The server says which pages the
    list has."""

    def __init__(self, given: str):
        super().__init__(f"?page={given[:40]!r} is past the last page")
        self.given = given


@dataclass(frozen=True)
class Column:
    """A sortable column of the leaderboard: its name in ?sort=, the SQL kind and measure position
    it sorts by (sql/reports/leaderboard_page.sql), and its natural order."""

    name: str
    kind: str
    position: int = 0
    descending: bool = False


def leaderboard_columns(measures: Sequence[Measure]) -> dict[str, Column]:
    """The leaderboard's sortable columns with these measures shown (the first ranks): rank, run,
    system, each measure, Judged@10, queries, date. A measure where more is better sorts high first."""
    columns = {"rank": Column("rank", "rank"), "run": Column("run", "run"), "system": Column("system", "system")}
    names = [m.name for m in measures]
    for position, m in enumerate(measures):
        columns[m.name] = Column(m.name, "measure", position, higher_is_better(m) is not False)
    if COVERAGE_MEASURE not in names:
        columns[COVERAGE_MEASURE] = Column(COVERAGE_MEASURE, "measure", len(names), True)
    columns["queries"] = Column("queries", "queries", 0, True)
    columns["date"] = Column("date", "date", 0, True)
    return columns


def _integer(params: QueryParams, name: str, default: int, low: int, high: int | None) -> int:
    values = params.getlist(name)
    if not values:
        return default
    bound = f"from {low} to {high}" if high is not None else f"from {low}"
    if len(values) > 1:
        raise BadParameter(f"?{name}= is given {len(values)} times; give it once, a whole number {bound}")
    text = values[0].strip()
    # ASCII digits only: str.isdigit takes other scripts' digits (and superscripts, which int() refuses);
    # their count first: int() of thousands of digits is refused too
    digits = text.lstrip("0") if text.isascii() and text.isdigit() else None
    if digits is not None and len(digits) > len(str(MAX_OFFSET)):
        if high is None:
            raise PageTooFar(values[0])
        digits = None  # past the bound
    number = int(digits or "0") if digits is not None else None
    if number is None or number < low or (high is not None and number > high):
        raise BadParameter(f"?{name}={values[0][:40]!r} is not allowed: give a whole number {bound}")
    return number


def _single(params: QueryParams, name: str) -> str | None:
    values = params.getlist(name)
    if len(values) > 1:
        raise BadParameter(f"?{name}= is given {len(values)} times; give it once")
    return values[0] if values else None


def page_choice(params: QueryParams, columns: dict[str, Column]) -> tuple[PageChoice, str]:
    """The page a request asks for, and the name of its sort column; BadParameter when a value is
    not allowed (the message lists what is)."""
    page = _integer(params, "page", 1, 1, None)
    per_page = _integer(params, "per_page", PER_PAGE, 1, MAX_PER_PAGE)
    if (page - 1) * per_page > MAX_OFFSET:
        raise PageTooFar(params["page"])
    given = _single(params, "sort") or "rank"
    sort = _column_named(given, columns)
    if sort is None:
        raise BadParameter(f"?sort={given[:60]!r} is not a column of this list; sort by one of: "
                           f"{', '.join(columns)}")
    column = columns[sort]
    order = _single(params, "order")
    if order not in (None, "", "asc", "desc"):
        raise BadParameter(f"?order={order[:40]!r} is not allowed: give asc or desc")
    descending = column.descending if not order else order == "desc"
    text = (_single(params, "filter") or "").strip()
    if len(text) > MAX_FILTER:
        raise BadParameter(f"?filter= is {len(text)} characters long; give at most {MAX_FILTER}")
    return PageChoice(column.kind, column.position, descending, text, page, per_page), sort


def _column_named(given: str, columns: dict[str, Column]) -> str | None:
    """The column ?sort= names: by its name, or a measure column by any spelling ?m= takes
    (`sort=P.10` and `sort=prec@5` for the columns P@10 and prec(k=5)), as one name."""
    if given in columns:
        return given
    try:
        named = [m.name for m in parse(given)]
    except MeasureError:
        return None
    return named[0] if len(named) == 1 and named[0] in columns else None


def paging_params(choice: PageChoice, sort: str, columns: dict[str, Column]) -> dict[str, Any]:
    """The query-string values that ask for this page again (defaults left out)."""
    column = columns[sort]
    return {"sort": None if sort == "rank" else sort,
            "order": None if choice.descending == column.descending else ("desc" if choice.descending else "asc"),
            "filter": choice.filter or None, "per_page": None if choice.per_page == PER_PAGE else choice.per_page,
            "page": None if choice.page == 1 else choice.page}
