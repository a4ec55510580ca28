"""``watchdeck --web``: the dashboard in a browser, for the operator who started it and nobody else.

textual-serve starts one app process per websocket (so N viewers are N
pollers against the API) and has no authentication of its own. Binding to
loopback is not enough: any page open in the operator's own browser can reach
127.0.0.1. So three checks stand in front of textual-serve's handlers, in one
aiohttp middleware (:class:`WebGuard`):

- **Host**: only the names this server is reached by. A hostile DNS name that
  resolves to 127.0.0.1 (DNS rebinding) would otherwise make the attacker's
  page same-origin with this one.
- **Origin**: a request that carries one (every websocket from a browser does)
  must come from the served origin, so a page from anywhere else cannot open
  the websocket even if it learnt the token.
- **Token**: 32 random bytes per start, printed in the URL at start as notebook
  servers do. The page is ``/?token=T``; anything else but the static assets
  (textual-serve's own script, fonts and styles) is 403 without it.

The token reaches the websocket in its path (``/ws/T``), rendered into the page
by :meth:`WebGuard.index`. Not in a query string: textual.js opens
``url + "?width=…&height=…"``, which would glue its own query onto ours. Not in
a cookie either: cookies ignore ports and SameSite counts every port of a host
as the same site, so any other web app on this machine's loopback could read
or replay it. A path goes to exactly this server, and is compared in constant
time.

Web mode is read-only unless ``--web-actions`` is given: a wall screen
watches, and a browser tab is easier to reach than the operator's terminal.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from aiohttp import web

DEFAULT_WEB_PORT = 8000
TOKEN_BYTES = 32
WEB_FLAGS_WITH_VALUE = ("--port", "--web-host")
WEB_FLAGS = ("--web", "--web-actions")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")


def strip_web_flags(argv: Sequence[str]) -> list[str]:
    """The command line of the app each visitor gets: the same flags, minus the web ones."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in WEB_FLAGS:
            continue
        if arg in WEB_FLAGS_WITH_VALUE:
            skip = True
            continue
        if arg.startswith(tuple(f"{flag}=" for flag in WEB_FLAGS_WITH_VALUE)):
            continue
        out.append(arg)
    return out


def app_command(argv: Sequence[str], *, actions: bool = False) -> str:
    """The shell command textual-serve runs per visit: read-only unless the operator asked for actions."""
    args = strip_web_flags(argv)
    if not actions and "--read-only" not in args:
        args.append("--read-only")
    return shlex.join([sys.executable, "-m", "tui", *args])


def is_loopback_host(host: str) -> bool:
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _netloc(host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # a bare IPv6 address
    return f"{host.lower()}:{port}"


def _own_names() -> set[str]:
    """This machine's names and addresses, for a server bound to every interface."""
    names = {socket.gethostname(), socket.getfqdn()}
    for name in list(names):
        try:
            names.update(str(info[4][0]) for info in socket.getaddrinfo(name, None))
        except OSError:
            continue
    return {n for n in names if n}


def allowed_netlocs(bind_host: str, port: int, also: Iterable[str] = ()) -> frozenset[str]:
    """Every ``host:port`` a browser may name in ``Host`` (and in ``Origin``) to reach this server.

    ``also``: more names the operator allows (on this port, or ``name:port`` as given).
    """
    hosts: set[str] = set()
    if bind_host in WILDCARD_HOSTS:
        hosts.update(LOOPBACK_NAMES)
        hosts.update(_own_names())
    elif is_loopback_host(bind_host):
        hosts.update(LOOPBACK_NAMES)
        hosts.add(bind_host)
    else:
        hosts.add(bind_host)
    netlocs = {_netloc(h, port) for h in hosts} | {_extra_netloc(name, port) for name in also}
    if port == 80:
        netlocs.update(n.rsplit(":", 1)[0] for n in list(netlocs))
    return frozenset(netlocs)


def _extra_netloc(name: str, port: int) -> str:
    """``name`` on ``port``, unless it names its own port (``name:9090``, ``[::1]:9090``)."""
    host, sep, tail = name.strip().rpartition(":")
    if sep and tail.isdigit() and (":" not in host or host.startswith("[")):
        return name.strip().lower()
    return _netloc(name.strip(), port)


def host_allowed(host: str | None, netlocs: frozenset[str]) -> bool:
    """Whether a request's ``Host`` is one this server is reached by: a page of a hostile DNS name that resolves
    to this machine (DNS rebinding) names its own host, and is refused."""
    return (host or "").lower() in netlocs


def display_url(bind_host: str, port: int, token: str) -> str:
    """The URL to open; for a server bound to every interface, the machine's own name."""
    host = bind_host
    if bind_host in WILDCARD_HOSTS:
        host = socket.getfqdn() or "127.0.0.1"
    return f"http://{_netloc(host, port)}/?token={token}"


def exposure_warning(bind_host: str, port: int, *, actions: bool) -> str | None:
    """What binding off loopback risks, in one line; None on loopback."""
    if is_loopback_host(bind_host):
        return None
    what = "watch the dashboard and, with --web-actions, pause, resume and backfill exports with your API key" \
        if actions else "watch the dashboard (every export and run your API key can see)"
    return (f"--web-host {bind_host} is not loopback: anyone on the network who can reach port {port} and "
            f"learns the URL's token can {what}; the traffic is plain http, so the token and the screen cross "
            "the network readable. Prefer an SSH tunnel (ssh -L) to a loopback server, or an HTTPS proxy that "
            "authenticates.")


Handler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


class WebGuard:
    """The Host, Origin and token checks of one server start, and the page that carries the token on."""

    def __init__(self, netlocs: Iterable[str], token: str, title: str = "watchdeck") -> None:
        self.netlocs = frozenset(n.lower() for n in netlocs)
        self.token = token
        self.title = title

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def refusal(self, request: web.Request) -> str | None:
        """Why this request is refused (for the 403 body), or None when it may go on."""
        if not host_allowed(request.host, self.netlocs):
            return "unknown Host"
        origin = request.headers.get("Origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme != "http" or parts.netloc.lower() not in self.netlocs:
                return "cross-origin request"
        path = request.path
        if path.startswith("/static/"):
            return None  # textual-serve's own script, styles and fonts: nothing of the operator's
        if path == "/ws" or path.startswith("/ws/"):
            if origin is None:
                return "websocket without an Origin"
            given = path.removeprefix("/ws/") if path.startswith("/ws/") else None
        else:
            given = request.query.get("token")
        return None if self._token_ok(given) else "missing or wrong token"

    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        from aiohttp import web

        reason = self.refusal(request)
        if reason is not None:
            return web.Response(status=403, text=f"403 Forbidden: {reason}\n",
                                headers={"Cache-Control": "no-store"})
        response = await handler(request)
        if response.prepared:
            return response  # a websocket, answered and done
        # The page's URL holds the token: never send it on as a Referer, never cache it, never frame it.
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", content_security_policy(request.host))
        return response

    async def index(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's page, with the websocket URL on this request's (checked) host and the token in its path."""
        import aiohttp_jinja2
        from aiohttp import web

        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        context: dict[str, Any] = {
            "font_size": font_size,
            "app_websocket_url": f"ws://{request.host}/ws/{self.token}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        page = aiohttp_jinja2.render_string("app_index.html", request, context)
        return web.Response(text=local_page(page), content_type="text/html")


_REMOTE_STYLESHEET = re.compile(r"<link\b[^>]*\bhref=\"https?://[^>]*>", re.IGNORECASE)
# The Roboto Mono that textual-serve ships in its static folder, in place of the copy its page asks Google for.
_LOCAL_FONT = """<style>
@font-face { font-family: "Roboto Mono"; src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf"); }
@font-face { font-family: "Roboto Mono"; font-style: italic;
             src: url("/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf"); }
</style>
</head>"""


def local_page(page: str) -> str:
    """textual-serve's page without its stylesheet from another host (a Google font): the font is served here."""
    return _REMOTE_STYLESHEET.sub("", page).replace("</head>", _LOCAL_FONT, 1)


def content_security_policy(host: str) -> str:
    """Everything from this server only (the page's own inline script and styles, its websocket); no frames."""
    return ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            f"font-src 'self'; img-src 'self' data:; connect-src 'self' ws://{host}; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")


def build_app(command: str, guard: WebGuard) -> web.Application:
    """textual-serve's handlers behind the guard.

    textual-serve's ``Server.serve`` builds its own application and logs with
    tracebacks that show local variables; the handlers are reused here, the
    application and its logging are ours. Its download route is left out:
    the dashboard delivers no files, and a route nobody uses is one less door.
    """
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server

    server = Server(command, title=guard.title)

    @web.middleware
    async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
        return await guard.middleware(request, handler)

    app = web.Application(middlewares=[guarded])
    aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(Path(server.templates_path)))
    app.add_routes([
        web.get("/", guard.index),
        web.get("/ws/{token}", server.handle_websocket),
        web.static("/static", Path(server.statics_path)),
    ])
    return app


class _OneLineHandler(logging.Handler):
    """The server's log on stderr, one line per record; a traceback goes to the crash log, not the screen."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = record.getMessage().splitlines()[0] if record.getMessage() else record.levelname
            where = ""
            if record.exc_info and record.exc_info[1] is not None:
                from tui.secrets.crashlog import record_exception

                path = record_exception(record.exc_info[1], context="web server")
                where = f" (details in {path})" if path else ""
            print(f"watchdeck: web: {line[:200]}{where}", file=sys.stderr)
        except Exception:
            self.handleError(record)


def _quiet_logging() -> None:
    handler = _OneLineHandler(level=logging.WARNING)
    for name in ("textual-serve", "aiohttp"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.propagate = False
    logging.getLogger("aiohttp.access").disabled = True  # access lines would carry the token


#: How to add web mode's extra, as its refusal and the README say it (``make demo`` installs without it).
WEB_EXTRA_HINT = "from a clone, .venv/bin/pip install -e '.[web]'; from a package, pip install 'watchdeck[web]'"


def serve(argv: Sequence[str], host: str = "127.0.0.1", port: int = DEFAULT_WEB_PORT, *,
          actions: bool = False) -> int:
    try:
        import textual_serve  # noqa: F401
        from aiohttp import web  # textual-serve's own server
    except ImportError:
        print(f"watchdeck: --web needs textual-serve: {WEB_EXTRA_HINT}", file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(TOKEN_BYTES)
    guard = WebGuard(allowed_netlocs(host, port), token)
    if (warning := exposure_warning(host, port, actions=actions)) is not None:
        print(f"watchdeck: warning: {warning}", file=sys.stderr)
    mode = "actions on (--web-actions)" if actions else "read-only; --web-actions turns the changing keys on"
    line = f"watchdeck: serving on {display_url(host, port, token)} (each visit runs its own dashboard; {mode})"

    def announce(_aiohttp_says: str) -> None:
        """Called by aiohttp once the socket listens: the URL is printed only when it can be opened."""
        print(line, file=sys.stderr, flush=True)

    _quiet_logging()
    try:
        web.run_app(build_app(app_command(argv, actions=actions), guard), host=host, port=port,
                    print=announce, access_log=None)
    except OSError as err:
        print(f"watchdeck: cannot listen on {_netloc(host, port)}: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0
