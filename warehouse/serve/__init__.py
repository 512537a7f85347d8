"""`irw serve`: the reports as a live, read-only web application over a warehouse.

- app.py: the routes (pages from the reports' templates, and each page's data as JSON);
- access.py: how a request reaches the warehouse (opened per request, never held; scores a page
  lacks computed once where the connection may write; the SQL console's timeout).

Starlette and uvicorn: a small, well-kept ASGI framework and server, with no ORM or template
engine of their own (the pages are the reports' Jinja2 templates).
"""
from __future__ import annotations

import errno
import socket

from warehouse.errors import ServeError
from warehouse.serve.access import QueryTimeout, ScoresMissing, WarehouseAccess, WarehouseBusy
from warehouse.serve.app import create_app

LOOPBACK = ("127.0.0.1", "localhost", "::1")

__all__ = ["LOOPBACK", "QueryTimeout", "ScoresMissing", "WarehouseAccess", "WarehouseBusy", "create_app",
           "listening_socket", "serve"]


def listening_socket(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A socket bound to host:port for serve(), bound before anything says it serves there: a port
    another server holds is a ServeError naming it (uvicorn, left to bind, logged its own error
    line after `irw serve` had said "serving ..." and exited with status 3)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port left in TIME_WAIT is free
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} is in use on {host} (another irw serve, or another server): pass another "
                             f"with --port, e.g. --port {_free_port_near(host, port)}") from None
        raise ServeError(f"cannot listen on {host} port {port}: {exc.strerror or exc}; --host takes an address of "
                         "this machine (the default, 127.0.0.1, answers this machine only)") from None
    return sock


def _free_port_near(host: str, port: int) -> int:
    """The first port after `port` (then before it) free on host now, else one the system picks: a
    walk running three servers was told `--port 8618` where 8618 was the second's."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    near = [p for p in range(port + 1, port + 21) if p <= 65535] + [p for p in range(port - 1, port - 21, -1) if p >= 1024]
    for candidate in [*near, 0]:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, candidate))
            except OSError:
                continue
            return probe.getsockname()[1]
    return port + 1 if port < 65535 else port - 1  # nothing free was found: the plain next one


def serve(target: str, *, host: str = "127.0.0.1", port: int = 8000, sql_timeout: float = 10.0,
          busy_wait: float = 3.0, log_level: str = "warning", sock: socket.socket | None = None) -> None:
    """Serves the warehouse at target until interrupted, on sock (listening_socket(host, port), bound
    here when not given). On a loopback host only requests naming it (127.0.0.1, localhost, [::1])
    are answered, so a web page elsewhere cannot reach the server through a DNS name of its own."""
    import uvicorn

    hosts = None if host not in LOOPBACK else ["127.0.0.1", "localhost", "[::1]", "::1"]
    app = create_app(target, busy_wait=busy_wait, sql_timeout=sql_timeout, allowed_hosts=hosts)
    sock = sock if sock is not None else listening_socket(host, port)
    with sock:
        uvicorn.Server(uvicorn.Config(app, log_level=log_level, server_header=False)).run(sockets=[sock])
