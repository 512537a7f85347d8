"""The routes of `irw serve`: the reports' pages from their own templates, and each page's data as JSON.

Pages (HTML)                          Data (JSON: the page's table, as `irw report ... --format json`)
/                                     /api/qrels
/qrels/{qrels}                        /api/qrels/{qrels}/leaderboard
/qrels/{qrels}/runs/{run}             /api/qrels/{qrels}/runs/{run}
/qrels/{qrels}/compare?run=A&run=B    /api/qrels/{qrels}/compare?run=A&run=B
/qrels/{qrels}/history                /api/qrels/{qrels}/history
/systems?m=nDCG@10&qrels=A&qrels=B    /api/systems?m=...    (systems x qrels sets)
/sql?q=SELECT...                      /api/sql?q=SELECT...  (and /sql.csv?q=SELECT... as CSV)

Every page takes the reports' choices in its URL: m (measures, repeated: ?m=AP&m=nDCG@10; the
first ranks), run and system (the runs, as Warehouse.select_runs chooses them: names and
shell-style patterns, ?run=BM25*), baseline, and on a run page query. Names in URLs are
percent-encoded path segments and query values; none of them ever reaches the file system.
A page computes and stores the scores it lacks (access.py) only for a measure of trec_eval's usual
set or one already stored for some run on the qrels set (may_store): a GET never adds a measure.

The templates are the static reports'; templates/serve/ extends them with this server's links and
forms. The static leaderboard links each run to a file beside it; here the `urlquote` filter turns
a row's Link into this server's URL of that run's page (with the board's measures and baseline).
Blocking work (the warehouse, the SQL console) runs in Starlette's thread pool, so a slow request
never holds up the others.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Sequence
from urllib.parse import quote, unquote, urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from warehouse.formats import formatting
from warehouse.formats.escaping import shown
from warehouse import reports
from warehouse.errors import (DatabaseError, IrwError, MeasureError, NotFoundError, ReadOnlyError, SchemaVersionError,
                              ServerUnreachable, WarehouseNotFound, WarehouseOpenError)
from warehouse.reports.render import environment as report_environment
from warehouse.evaluation.evaluator import Settings
from warehouse.evaluation.measures import parse_all
from warehouse.reports.display import plural
from warehouse.reports.page_systems import chosen_columns
from warehouse.reports.scope import (COVERAGE_MEASURE, DEFAULT_MEASURES, WANTED_COLUMNS, _parse_measures,
                                     pr_measures, wanted_entries)
from warehouse.store import catalog
from warehouse.formats.table import Table
from warehouse.serve import paging
from warehouse.serve.access import (SQL_MAX_BYTES, SQL_MAX_ROWS, ConsoleBusy, QueryTimeout, ScoresMissing,
                                    WarehouseAccess, WarehouseBusy)

# What every page may load: itself (its inline style, script and charts), and forms sent back here.
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store"}


class Link(str):
    """A leaderboard row's link on this server: the run's name, and the URL of its page here
    relative to the leaderboard's runs folder (the serve environment's urlquote filter gives it)."""

    href: str

    def __new__(cls, run: str, href: str) -> "Link":
        link = super().__new__(cls, run)
        link.href = href
        return link


def _urlquote(text: Any) -> str:
    return text.href if isinstance(text, Link) else quote(str(text), safe="")


@lru_cache(maxsize=1)
def environment():
    """The reports' Jinja environment (same loader, filters, autoescape, and the escaping rule of
    warehouse/formats/escaping.py as its finalize) with this server's urlquote."""
    from jinja2 import Environment, StrictUndefined

    base = report_environment()
    env = Environment(loader=base.loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True, finalize=base.finalize,
                      bytecode_cache=base.bytecode_cache)
    env.filters.update(base.filters)
    env.filters["urlquote"] = _urlquote
    env.filters["cell"] = formatting.cell_text
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


# -- URLs -------------------------------------------------------------------------------------------

def query_string(params: dict[str, Any]) -> str:
    items = [(key, value) for key, values in params.items()
             for value in (values if isinstance(values, (list, tuple)) else [values]) if value not in (None, "")]
    return "?" + urlencode(items) if items else ""


def qrels_url(qrels: str, sub: str = "", api: bool = False, /, **params: Any) -> str:
    """The URL of qrels's page sub ('' the leaderboard, 'history', 'compare'...) with params in its
    query string (?page= among them: sub is positional only)."""
    path = ("/api/qrels/" if api else "/qrels/") + quote(qrels, safe="")
    if api and not sub:
        sub = "leaderboard"
    return path + ("/" + sub if sub else "") + query_string(params)


def run_url(qrels: str, run: str, api: bool = False, **params: Any) -> str:
    return qrels_url(qrels, "runs/" + quote(run, safe=""), api) + query_string(params)


# -- what a request chose ---------------------------------------------------------------------------

class RawPathRouting:
    """Routes on the path as sent (percent-encoded), so a name holding '/' (%2F) stays one path
    parameter; the handlers decode each parameter (param)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("raw_path"):
            scope = dict(scope, path=scope["raw_path"].decode("latin-1"))
        await self.app(scope, receive, send)


# The query parameters each page takes (its forms and links send no others); any other is refused,
# not ignored: ?level=2 showed level 1's numbers under a page that looked answered.
PAGE_PARAMETERS = {
    "leaderboard": ("m", "run", "system", "baseline", "filter", "sort", "order", "page", "per_page"),
    "run": ("m", "baseline", "query"),
    "compare": ("m", "run", "system", "baseline"),
    "history": ("m", "run", "system"),
    "systems": ("m", "qrels", "run", "system"),
}
# what a page takes instead of a trec_eval setting asked for by its option's name
_SETTING_HINTS = {name: "a relevance level is part of a measure's name: ?m=AP(rel=2)"
                  for name in ("l", "level", "rel", "relevance", "relevance_level")}


def refuse_unknown_parameters(params: QueryParams, page: str) -> None:
    taken = PAGE_PARAMETERS[page]
    unknown = [key for key in dict.fromkeys(params.keys()) if key not in taken]
    if not unknown:
        return
    key = unknown[0]
    hint = _SETTING_HINTS.get(key.lower())
    raise paging.BadParameter(f"?{shown(key[:40])}= is not a parameter of this page; it takes "
                              f"{', '.join(f'?{name}=' for name in taken)}" + (f"; {hint}" if hint else ""))


def param(request: Request, name: str) -> str:
    return unquote(request.path_params[name])


@dataclass
class Choices:
    measures: list[str] | None
    runs: list[str] | None
    systems: list[str] | None
    baseline: str | None
    query: str | None

    @classmethod
    def of(cls, request: Request, page: str) -> "Choices":
        """The choices of a request for a page (PAGE_PARAMETERS' key); BadParameter for a
        parameter the page does not take, which it would otherwise ignore, showing what was not asked."""
        params = request.query_params
        refuse_unknown_parameters(params, page)
        measures = [word for value in params.getlist("m") for word in value.split()]
        runs = [value for value in params.getlist("run") if value.strip()]
        systems = [value for value in params.getlist("system") if value.strip()]
        return cls(measures or None, runs or None, systems or None, params.get("baseline") or None,
                   params.get("query") or None)

    @property
    def shown_measures(self) -> list[str]:
        return self.measures or list(DEFAULT_MEASURES)

    def params(self, **changes: Any) -> dict[str, Any]:
        base = {"m": self.measures or [], "run": self.runs or [], "system": self.systems or [],
                "baseline": self.baseline}
        base.update(changes)
        return base


# -- the scores a request may store ----------------------------------------------------------------

@lru_cache(maxsize=1)
def stored_on_request() -> frozenset[str]:
    """The measures whose missing scores any request may compute and store: trec_eval's usual set
    (what `irw eval -m all_trec` stores, at the relevance level the pages use) and those the pages
    add on their own. Every other measure (P@12345, nDCG@7, AP(rel=3), a user measure), a new set
    of scores for every run, only where an `irw eval` stored it for some run of the qrels set
    already: else each GET of another ?m= would grow the warehouse, without bound."""
    return frozenset(m.name for m in parse_all(["all_trec", *DEFAULT_MEASURES, COVERAGE_MEASURE, *pr_measures()]))


def never_stored(wh, qrels: str, specs: Sequence[str]) -> list[str]:
    """The measures of specs a request may not store on qrels: neither stored_on_request nor stored
    already for a run qrels judges (sql/reports/missing_scores.sql: a measure no such run has)."""
    asked = list({m.name: m for m in parse_all(list(specs))
                  if m.family.sql is not None and m.name not in stored_on_request()}.values())
    if not asked:
        return []
    ids = catalog.run_ids(wh.db, wh.select_runs(qrels=qrels))
    entries = wanted_entries(wh, catalog.qrels_set_id(wh.db, qrels), Settings(), asked)
    wh.db.load_rows("report_wanted", WANTED_COLUMNS, [
        (w["evaluation_id"], w["stored"], w["measure"], w["position"]) for w in entries.values()])
    lacking = Counter(measure for _run, measure in wh.db.run_file(
        "reports/missing_scores.sql", {"run_ids": list(ids.values())}).fetchall())
    return [m.name for m in asked if lacking[m.name] >= len(ids)]


def never_stored_said(measures: Sequence[str], sets: Sequence[str]) -> str:
    """Why a page does not compute measures on the qrels sets named (never_stored)."""
    return (f"{', '.join(measures)} {'is' if len(measures) == 1 else 'are'} stored for no run on "
            f"{', '.join(sets)} with this page's settings (trec_eval's defaults), and this "
            "server computes and stores scores on a request only for trec_eval's usual measures (those of "
            "`irw eval -m all_trec`) and for measures an `irw eval` stored already for some run of the "
            "qrels set")


def may_store(qrels: str, specs: Sequence[str] | None) -> Callable[[Any], str] | None:
    """access.page's may_store for a page of qrels showing the measures specs (None: the pages'
    defaults, always stored on request): '' when none of them is never_stored, else which are,
    and why the page does not compute them."""
    if not specs:
        return None

    def check(wh) -> str:
        new = never_stored(wh, qrels, specs)
        return never_stored_said(new, [qrels]) if new else ""
    return check


# -- responses --------------------------------------------------------------------------------------

def _status(exc: IrwError) -> int:
    if isinstance(exc, (WarehouseBusy, ServerUnreachable, ConsoleBusy)):
        return 503
    if isinstance(exc, QueryTimeout):
        return 504
    if isinstance(exc, ScoresMissing):
        return 409
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ReadOnlyError):
        return 403
    # this server's --db, not the request: not found, not openable, damaged (a walk's truncated file
    # was a 400), a full disk, a schema to migrate
    if isinstance(exc, (WarehouseNotFound, WarehouseOpenError, DatabaseError, SchemaVersionError)):
        return 500
    return 400


def html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=HEADERS)


def json_response(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False) + "\n"
    return Response(body, status_code=status, media_type="application/json", headers=HEADERS)


def table_json(table: Table) -> Response:
    return Response(formatting.render(table, "json"), media_type="application/json", headers=HEADERS)


def _way_back(exc: IrwError, request: Request | None) -> tuple[str, str] | None:
    """The link an HTML error page offers when the mistake is the request's own ?m=: a measure
    irw does not know, or one that takes no such parameter, is the same page with its default
    measures (a typo in the address bar left the user a message naming `irw measures`, a command)."""
    if request is None or not isinstance(exc, MeasureError) or "m" not in request.query_params:
        return None
    path = request.scope.get("raw_path", b"").decode("latin-1") or quote(request.url.path)  # as the user sent it
    items = [(key, value) for key, value in request.query_params.multi_items() if key != "page"]
    typed, meant = getattr(exc, "meant", (None, None))  # a typo of one measure's name: that measure instead
    if typed is not None and any(key == "m" and value.strip() == typed for key, value in items):
        fixed = [(key, meant if key == "m" and value.strip() == typed else value) for key, value in items]
        return f"{path}?{urlencode(fixed)}", f"this page with {meant}"
    kept = [(key, value) for key, value in items if key != "m"]
    return path + ("?" + urlencode(kept) if kept else ""), "this page with its default measures"


def error_response(exc: IrwError, kind: str, request: Request | None = None) -> Response:
    status = _status(exc)
    command = getattr(exc, "command", None)
    how_to_run = getattr(exc, "how_to_run", "")
    if kind == "html":
        title = ("No connection to the database server" if isinstance(exc, ServerUnreachable) else
                 "This server cannot open the warehouse" if isinstance(exc, WarehouseOpenError) else
                 {503: "The warehouse is busy", 409: "Scores not computed yet", 404: "Not found",
                  504: "Query cut by the timeout"}.get(status, "Error"))
        # each line of the message its own paragraph: a line break inside a text is shown as \n
        # (the templates' escaping rule), so that no name can start a line of its own
        return html(render("serve/error.html", title=title, lines=exc.message_lines(), command=command,
                           how_to_run=how_to_run, back=getattr(exc, "back", None) or _way_back(exc, request)),
                    status)
    data = {"error": str(exc), "status": status}
    if command:
        data["command"] = command
    if how_to_run:
        data["how_to_run"] = how_to_run
    if kind == "csv":
        return Response(str(exc) + "\n", status_code=status, media_type="text/plain", headers=HEADERS)
    return json_response(data, status)


@dataclass
class PagedTable:
    """One page of a list as JSON: the page's rows (the table `irw report ... --format json` prints,
    cut to the page), and in headers the total the filter keeps (X-Total-Count), every run of the
    list (X-Board-Runs), the page, its size, the pages, and Link: first, prev, next, last."""

    table: Table
    total: int
    board_runs: int
    page: int
    per_page: int
    pages: int
    links: dict[str, str | None]

    def response(self) -> Response:
        rel = {"first": "first", "previous": "prev", "next": "next", "last": "last"}
        link = ", ".join(f'<{url}>; rel="{rel[name]}"' for name, url in self.links.items() if url)
        return Response(formatting.render(self.table, "json"), media_type="application/json", headers={
            **HEADERS, "X-Total-Count": str(self.total), "X-Board-Runs": str(self.board_runs),
            "X-Page": str(self.page), "X-Per-Page": str(self.per_page), "X-Pages": str(self.pages), "Link": link})


def _jsonable(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# The index lists this many runs per qrels set (the first by name); the set's leaderboard lists every
# run, a page at a time, with a filter, so the index stays one screenful over 10,000 runs.
INDEX_RUNS = 50
# The most runs a run page offers as its baseline in a list; above it the baseline is a name typed
# (a walk's run page of 10,000 runs weighed 1.4 MB, most of it the list, against 45 KB written by
# irw report run)
BASELINE_CHOICES = 200


# -- the application --------------------------------------------------------------------------------

def create_app(target: str, *, busy_wait: float = 3.0, sql_timeout: float = 10.0,
               allowed_hosts: Sequence[str] | None = None) -> Starlette:
    """The ASGI application serving the warehouse at target (a DuckDB file or a PostgreSQL URL).
    allowed_hosts: the Host headers answered (others get 400: a page on another site cannot reach
    this server through a name of its own); None answers any."""
    access = WarehouseAccess(target, busy_wait=busy_wait, sql_timeout=sql_timeout)

    async def answer(request: Request, kind: str, build: Callable[[Any], Any], needs: Callable[[], str],
                     stores: Callable[[Any], str] | None = None) -> Response:
        try:
            result = await run_in_threadpool(access.page, build, needs, stores)
        except IrwError as exc:
            return error_response(exc, kind, request)
        if kind == "html":
            return html(result)
        if isinstance(result, PagedTable):
            return result.response()
        if isinstance(result, Table):
            return table_json(result)
        return json_response(result)

    # -- index
    def index_data(wh) -> dict[str, Any]:
        runs = {row["name"]: row for row in wh.runs().to_dicts()}
        judged: set[str] = set()
        sets = []
        for qrels in wh.qrels_sets().to_dicts():
            try:
                # a run a teammate stored since `runs` was read (a statement of its own, on a server
                # warehouse no snapshot of the first) is left for the next load: it was a KeyError, a 500
                names = [name for name in wh.select_runs(qrels=qrels["name"]) if name in runs]
            except IrwError:
                names = []
            judged.update(names)
            listed = names[:INDEX_RUNS]  # the leaderboard lists the others, a page at a time
            sets.append({
                "qrels": qrels["name"], "description": qrels["description"], "queries": qrels["queries"],
                "judgments": qrels["judgments"], "created_at": _jsonable(qrels["created_at"]),
                "url": qrels_url(qrels["name"]), "api": qrels_url(qrels["name"], "", True),
                "history_url": qrels_url(qrels["name"], "history"), "runs_total": len(names),
                "runs": [{"run": n, "system": runs[n]["system"], "date": _jsonable(runs[n]["date"]),
                          "description": runs[n]["description"], "queries": runs[n]["queries"],
                          "url": run_url(qrels["name"], n), "api": run_url(qrels["name"], n, api=True),
                          "history_url": qrels_url(qrels["name"], "history", system=runs[n]["system"])}
                         for n in listed]})
        unjudged = [{"run": n, "system": r["system"], "date": _jsonable(r["date"])}
                    for n, r in runs.items() if n not in judged]
        judging = [s for s in sets if s["runs_total"]]
        return {"warehouse": access.shown, "qrels": sets, "runs_judged_by_no_qrels_set": unjudged[:INDEX_RUNS],
                "runs_judged_by_no_qrels_set_total": len(unjudged),
                # systems x qrels sets, where two sets or more judge runs
                "systems_url": "/systems" if len(judging) > 1 else None}

    async def index(request: Request) -> Response:
        def build(wh):
            data = index_data(wh)
            return render("serve/index.html", title="irw: qrels sets and runs", data=data)
        return await answer(request, "html", build, lambda: "")

    async def index_api(request: Request) -> Response:
        return await answer(request, "json", index_data, lambda: "")

    # -- leaderboard: one page of it, sorted and filtered in SQL (paging.py's parameters)
    def leaderboard_handler(kind: str):
        async def handler(request: Request) -> Response:
            qrels = param(request, "qrels")
            too_far = None
            try:
                c = Choices.of(request, "leaderboard")
                try:
                    measures = _parse_measures(c.measures, Settings().level)
                except MeasureError:  # perhaps a measure added since (irw measures add): learnt, then parsed again
                    await run_in_threadpool(access.learn_measures)
                    measures = _parse_measures(c.measures, Settings().level)
                columns = paging.leaderboard_columns(measures)
                try:
                    choice, sort = paging.page_choice(request.query_params, columns)
                except paging.PageTooFar as exc:  # the first page says how many the list has
                    too_far = exc.given
                    choice, sort = paging.page_choice(QueryParams(
                        [(k, v) for k, v in request.query_params.multi_items() if k != "page"]), columns)
            except IrwError as exc:
                return error_response(exc, kind, request)

            def build(wh):
                keep = paging.paging_params(choice, sort, columns)
                try:
                    found = reports.leaderboard_page(wh, qrels, c.measures, runs=c.runs, systems=c.systems,
                                                     baseline=c.baseline, choice=choice,
                                                     stores_missing=access.may_write is not False)
                except reports.NoRunMatches as exc:
                    exc.back = ((qrels_url(qrels, **c.params(), **{**keep, "filter": None, "page": None}),
                                 "the leaderboard without the filter") if choice.filter and choice.page == 1 else
                                (qrels_url(qrels, **c.params(), **{**keep, "page": None}), "its first page"))
                    raise
                board = found.board

                def page_url(number: int, api: bool = False) -> str:
                    return qrels_url(qrels, "", api, **c.params(), **{**keep, "page": None if number == 1 else number})

                if too_far is not None:
                    wrong = paging.BadParameter(
                        f"?page={too_far[:40]!r} is past the last page: {plural(found.total, 'run')} make "
                        f"{plural(found.pages, 'page')} of {choice.per_page}; "
                        f"give a whole number from 1 to {found.pages}")
                    wrong.back = (page_url(1), "its first page")
                    raise wrong

                pager = {"first": page_url(1), "last": page_url(found.pages),
                         "previous": page_url(choice.page - 1) if choice.page > 1 else None,
                         "next": page_url(choice.page + 1) if choice.page < found.pages else None}
                if kind != "html":
                    api = {name: (page_url(n, api=True) if n is not None else None) for name, n in (
                        ("first", 1), ("previous", choice.page - 1 if choice.page > 1 else None),
                        ("next", choice.page + 1 if choice.page < found.pages else None), ("last", found.pages))}
                    return PagedTable(board.table(), found.total, found.board_runs, choice.page, choice.per_page,
                                      found.pages, api)
                link_params = {"m": c.measures or [], "baseline": board.baseline}
                for row in board.rows:
                    row.link = Link(row.run, quote(row.run, safe="") + query_string(link_params))
                sorts = {}
                for name, column in columns.items():
                    active = name == sort
                    descending = (not choice.descending) if active else column.descending
                    sorts[name] = {"href": qrels_url(qrels, **c.params(), **{
                        **keep, "sort": None if name == "rank" and not descending else name,
                        "order": "desc" if descending else "asc", "page": None}),
                        "active": active, "aria": ("descending" if choice.descending else "ascending") if active
                        else None}
                hidden = [(key, value) for key, values in {**c.params(), **keep, "filter": None, "page": None}.items()
                          for value in (values if isinstance(values, (list, tuple)) else [values])
                          if value not in (None, "")]
                return render("serve/leaderboard.html", board=board, found=found, title=f"Leaderboard: {qrels}",
                              runs_dir=qrels_url(qrels) + "/runs", settings=board.settings, c=c, qrels=qrels,
                              here=qrels_url(qrels), pager=pager, sorts=sorts, sort=sort, hidden=hidden,
                              clear_filter=qrels_url(qrels, **c.params(), **{**keep, "filter": None, "page": None}),
                              json_url=qrels_url(qrels, "", True, **c.params(), **keep),
                              history_url=qrels_url(qrels, "history", m=c.shown_measures[:1], run=c.runs or [],
                                                    system=c.systems or []),
                              notes=board.selection.notes() if board.selection is not None else [])

            return await answer(request, kind, build,
                                lambda: access.eval_command(qrels, [*c.shown_measures, COVERAGE_MEASURE]),
                                may_store(qrels, c.measures))
        return handler

    # -- run page
    def run_handler(kind: str):
        async def handler(request: Request) -> Response:
            qrels, run = param(request, "qrels"), param(request, "run")
            try:
                c = Choices.of(request, "run")
            except IrwError as exc:
                return error_response(exc, kind, request)

            def build(wh):
                page = reports.run_page(wh, run, qrels, c.measures, baseline=c.baseline, query=c.query)
                if kind != "html":
                    return page.table()
                others = [n for n in wh.select_runs(qrels=qrels) if n != run]
                if len(others) > BASELINE_CHOICES:  # a name typed instead (the walk's 10,001 options: 1.4 MB)
                    others = None
                # the leaderboard links its baseline's row with the baseline itself (link_params)
                return render("serve/run.html", page=page, title=f"Run {run}", settings=page.settings, c=c,
                              is_board_baseline=c.baseline == run,
                              leaderboard_href=qrels_url(qrels, m=c.measures or [], baseline=c.baseline),
                              here=run_url(qrels, run), others=others,
                              json_url=run_url(qrels, run, api=True, m=c.measures or [], baseline=c.baseline,
                                               query=c.query),
                              history_url=qrels_url(qrels, "history", m=c.shown_measures[:1],
                                                    system=page.meta["system"]))

            return await answer(request, kind, build, lambda: access.eval_command(
                qrels, [*c.shown_measures, COVERAGE_MEASURE, *pr_measures()], [run] + ([c.baseline] if c.baseline else [])
            ), may_store(qrels, c.measures))
        return handler

    # -- compare
    def compare_handler(kind: str):
        async def handler(request: Request) -> Response:
            qrels = param(request, "qrels")
            try:
                c = Choices.of(request, "compare")
            except IrwError as exc:
                return error_response(exc, kind, request)

            def build(wh):
                page = reports.compare_page(wh, c.runs, qrels, c.measures, systems=c.systems,
                                            baseline=c.baseline)
                if kind != "html":
                    return page.table()
                return render("serve/compare.html", page=page, title=f"Compare: {', '.join(page.runs)}",
                              settings=page.settings, c=c, qrels=qrels, here=qrels_url(qrels, "compare"),
                              leaderboard_url=qrels_url(qrels, m=c.measures or []),
                              run_links=[(n, run_url(qrels, n, m=c.measures or [], baseline=c.baseline))
                                         for n in page.runs],
                              json_url=qrels_url(qrels, "compare", True, **c.params()))

            return await answer(request, kind, build, lambda: access.eval_command(
                qrels, [*c.shown_measures, *pr_measures()], c.runs or []), may_store(qrels, c.measures))
        return handler

    # -- history
    def history_handler(kind: str):
        async def handler(request: Request) -> Response:
            qrels = param(request, "qrels")
            try:
                c = Choices.of(request, "history")
            except IrwError as exc:
                return error_response(exc, kind, request)
            # several ?m= are refused as -m twice is (page_history.refuse_several), never their first
            measure = c.measures[0] if c.measures and len(c.measures) == 1 else "AP"

            def build(wh):
                page = reports.history(wh, qrels, c.measures or "AP", runs=c.runs, systems=c.systems)
                if kind != "html":
                    return page.table()
                return render("serve/history.html", page=page, title=f"History: {measure} on {qrels}",
                              settings=page.settings, c=c, qrels=qrels, measure=measure,
                              here=qrels_url(qrels, "history"), leaderboard_url=qrels_url(qrels, m=[measure]),
                              json_url=qrels_url(qrels, "history", True, m=[measure], run=c.runs or [],
                                                 system=c.systems or []))

            return await answer(request, kind, build, lambda: access.eval_command(qrels, [measure]),
                                may_store(qrels, [measure] if c.measures else None))
        return handler

    # -- systems x qrels sets
    def systems_handler(kind: str):
        async def handler(request: Request) -> Response:
            try:
                c = Choices.of(request, "systems")
            except IrwError as exc:
                return error_response(exc, kind, request)
            sets = [value for value in request.query_params.getlist("qrels") if value.strip()] or None
            # several ?m= are refused as -m twice is (page_history.refuse_several), never their first
            measure = c.measures[0] if c.measures and len(c.measures) == 1 else "AP"
            columns: list[str] = list(sets or [])  # the sets a missing score is on, once a pass knows them
            refused: list[str] = []  # the sets check refused to compute the measure on

            def build(wh):
                page = reports.systems(wh, c.measures or "AP", qrels=sets, runs=c.runs, systems=c.systems)
                if kind != "html":
                    return page.table()
                return render("serve/systems.html", page=page, title=f"Systems: {page.measure.name}",
                              settings=page.settings, c=c, sets=sets or [], measure=measure,
                              set_urls={q: qrels_url(q, m=[page.measure.name]) for q in page.qrels},
                              # each value opens its run's page on that set, with the table's measure
                              run_urls={(cell.qrels, cell.run): run_url(cell.qrels, cell.run, m=[page.measure.name])
                                        for _row, cell in page.cells()},
                              json_url="/api/systems" + query_string({"m": [measure], "qrels": sets or [],
                                                                       "run": c.runs or [],
                                                                       "system": c.systems or []}))

            def check(wh) -> str:
                columns[:] = chosen_columns(wh, sets, c.runs, c.systems)[2]
                if not c.measures:  # the page's default (AP) is always stored on request
                    return ""
                # the sets the measure is refused on, all named, and only they evaluated by the command
                # the page gives (a walk: it named one, and the command every set, one holding the scores)
                refused[:] = [q for q in columns if never_stored(wh, q, [measure])]
                return never_stored_said([measure], refused) if refused else ""

            return await answer(request, kind, build, lambda: " && ".join(
                access.eval_command(q, [measure]) for q in (refused or columns)), check)
        return handler

    # -- SQL console
    def sql_handler(kind: str):
        def console(query: str, **values) -> str:
            return render("serve/sql.html", title="SQL console", query=query, timeout=access.sql_timeout,
                          read_statements=access.read_statements, **values)

        async def handler(request: Request) -> Response:
            text = request.query_params.get("q", "")
            if not text.strip():
                if kind == "html":
                    return html(console("", table=None, error=None, csv_url=None, json_url=None))
                return error_response(IrwError("pass the statement as ?q=SELECT ..."), kind)
            try:
                table, more = await run_in_threadpool(access.sql, text)
            except IrwError as exc:
                if kind != "html":
                    return error_response(exc, kind)
                return html(console(text, table=None, error=exc.message_lines(), csv_url=None, json_url=None),
                            _status(exc))
            # the first SQL_MAX_ROWS rows: the headers say so (and the page), `irw sql` gives them all
            cut = {"X-Rows-Limit": str(SQL_MAX_ROWS), "X-Bytes-Limit": str(SQL_MAX_BYTES),
                   "X-Rows-Truncated": "true" if more else "false"}
            if kind == "csv":
                return Response(formatting.render(table, "csv"), media_type="text/csv; charset=utf-8",
                                headers={**HEADERS, **cut, "Content-Disposition": 'attachment; filename="query.csv"'})
            if kind == "json":
                return Response(formatting.render(table, "json"), media_type="application/json",
                                headers={**HEADERS, **cut})
            return html(console(text, table=table, error=None, more=more, max_rows=SQL_MAX_ROWS,
                                max_bytes=f"{SQL_MAX_BYTES / 1e6:,.0f} MB",
                                command=access.sql_command(text), how_to_run=access.how_to_run(),
                                csv_url="/sql.csv" + query_string({"q": text}),
                                json_url="/api/sql" + query_string({"q": text})))
        return handler

    routes = [
        Route("/", index),
        Route("/api/qrels", index_api),
        Route("/qrels/{qrels}", leaderboard_handler("html")),
        Route("/api/qrels/{qrels}/leaderboard", leaderboard_handler("json")),
        Route("/qrels/{qrels}/runs/{run:path}", run_handler("html")),
        Route("/api/qrels/{qrels}/runs/{run:path}", run_handler("json")),
        Route("/qrels/{qrels}/compare", compare_handler("html")),
        Route("/api/qrels/{qrels}/compare", compare_handler("json")),
        Route("/qrels/{qrels}/history", history_handler("html")),
        Route("/api/qrels/{qrels}/history", history_handler("json")),
        Route("/systems", systems_handler("html")),
        Route("/api/systems", systems_handler("json")),
        Route("/sql", sql_handler("html")),
        Route("/sql.csv", sql_handler("csv")),
        Route("/api/sql", sql_handler("json")),
    ]
    async def not_found(request: Request, exc: HTTPException) -> Response:
        message = f"nothing is served at {unquote(request.url.path)}; the index (/) lists what is"
        kind = "json" if request.url.path.startswith("/api/") else "html"
        return error_response(NotFoundError(message), kind)

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))] if allowed_hosts else []
    app = Starlette(routes=routes, middleware=[*middleware, Middleware(RawPathRouting)],
                    exception_handlers={404: not_found, 405: not_found})
    app.state.access = access
    return app
