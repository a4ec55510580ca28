"""The exporter's HTTP server: ``/metrics`` from ``prometheus_client``, for the names this server is reached by only.

``/metrics`` has no authentication, and a web page in the operator's own browser can reach a loopback port: one
served from a hostile DNS name that resolves to 127.0.0.1 (DNS rebinding) would be same-origin with this server
and could read every watched export's name. So a request whose ``Host`` is not one of this server's names is
refused (403), with web mode's check (:func:`tui.cli.web.host_allowed`): loopback names and the listen address,
and the names given with ``--allow-host`` (a scraper that reaches it by a DNS name). Every path but ``/metrics``
is 404. Requests are not logged.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry, make_wsgi_app

from tui.cli.web import allowed_netlocs, host_allowed

METRICS_PATH = "/metrics"

StartResponse = Callable[..., Any]
App = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged."""


def _plain(start_response: StartResponse, status: str, text: str) -> Iterator[bytes]:
    body = text.encode()
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                            ("Cache-Control", "no-store")])
    yield body


def guarded(app: App, netlocs: frozenset[str]) -> App:
    """``app`` on ``/metrics`` for a known ``Host``; 403 for another Host, 404 for another path."""

    def guarded_app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if not host_allowed(environ.get("HTTP_HOST"), netlocs):
            return _plain(start_response, "403 Forbidden", "403 Forbidden: unknown Host\n")
        if environ.get("PATH_INFO") != METRICS_PATH:
            return _plain(start_response, "404 Not Found", f"404 Not Found: only {METRICS_PATH} is served\n")
        return app(environ, start_response)

    return guarded_app


def start_metrics_server(host: str, port: int, registry: CollectorRegistry,
                         allow_hosts: Iterable[str] = ()) -> tuple[WSGIServer, threading.Thread]:
    """Listen on ``host:port`` (port 0: a free one) and serve ``registry`` in a daemon thread; OSError when the
    address cannot be bound."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]

    class Server(_Server):
        address_family = family

    httpd = Server((str(address[0]), port), _QuietHandler)
    # The names are known once the port is: port 0 takes a free one.
    httpd.set_app(guarded(make_wsgi_app(registry), allowed_netlocs(host, httpd.server_port, allow_hosts)))
    thread = threading.Thread(target=httpd.serve_forever, name="metrics-http", daemon=True)
    thread.start()
    return httpd, thread
