"""`irw serve`: the reports as a live, read-only web application over a warehouse.

- app.py: the routes (pages from the reports' templates, and each page's data as JSON);
- access.py: how a request reaches the warehouse (opened per request, never held; scores a page
  lacks computed once where the connection may write; the SQL console's timeout).

Starlette and uvicorn: a small, well-kept ASGI framework and server, with no ORM or template
engine of their own (the pages are the reports' Jinja2 templates).
"""
from __future__ import annotations

from warehouse.serve.access import QueryTimeout, ScoresMissing, WarehouseAccess, WarehouseBusy
from warehouse.serve.app import create_app

LOOPBACK = ("127.0.0.1", "localhost", "::1")

__all__ = ["LOOPBACK", "QueryTimeout", "ScoresMissing", "WarehouseAccess", "WarehouseBusy", "create_app", "serve"]


def serve(target: str, *, host: str = "127.0.0.1", port: int = 8000, sql_timeout: float = 10.0,
          busy_wait: float = 3.0, log_level: str = "warning") -> None:
    """Serves the warehouse at target until interrupted. On a loopback host only requests naming it
    (127.0.0.1, localhost, [::1]) are answered, so a web page elsewhere cannot reach the server
    through a DNS name of its own."""
    import uvicorn

    hosts = None if host not in LOOPBACK else ["127.0.0.1", "localhost", "[::1]", "::1"]
    app = create_app(target, busy_wait=busy_wait, sql_timeout=sql_timeout, allowed_hosts=hosts)
    uvicorn.run(app, host=host, port=port, log_level=log_level, server_header=False)
