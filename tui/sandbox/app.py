"""The sandbox's ASGI app: routes from ``resources/``, the error envelope for Starlette's own errors, lifespan.

The handlers live one module per resource under ``tui.sandbox.resources``.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import UTC
from email.utils import format_datetime
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from tui.clock import Clock
from tui.sandbox.db import set_meta
from tui.sandbox.errors import ServiceError, method_not_allowed, not_found
from tui.sandbox.faults import SandboxMiddleware
from tui.sandbox.options import SandboxOptions
from tui.sandbox.resources.admin import admin_routes
from tui.sandbox.resources.backfills import backfill_routes
from tui.sandbox.resources.exports import EXPORT_PREFIXES, export_routes
from tui.sandbox.resources.projects import project_routes
from tui.sandbox.resources.runs import run_routes
from tui.sandbox.resources.surveys import survey_routes
from tui.sandbox.state import SandboxState
from tui.sandbox.timeutil import iso

__all__ = ["SandboxState", "build_routes", "create_app"]


def build_routes() -> list[BaseRoute]:
    """Every route; the order matters only where Starlette would match two (none overlap)."""
    return [*project_routes(), *survey_routes(), *export_routes(), *backfill_routes(EXPORT_PREFIXES),
            *run_routes(EXPORT_PREFIXES), *admin_routes()]


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (one route per method, so Starlette's own Allow is partial)."""
    path = request.url.path
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return sorted(methods)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error = method_not_allowed(request.method)
        error.headers["Allow"] = ", ".join(_allowed_methods(request))
        return error.response()
    if exc.status_code == 404:
        return not_found().response()
    return ServiceError(exc.status_code, "invalid_request", "error", str(exc.detail)).response()


async def _server_error(request: Request, exc: Exception) -> Response:
    return ServiceError(500, "server_error", "error", "A server error occurred.").response()


class _SandboxStarlette(Starlette):
    """Starlette with the fault/recording middleware *outside* the error middleware.

    Faults must see uvicorn's own ``send`` to be able to hang up on a client.
    """

    def build_middleware_stack(self) -> Any:
        inner = super().build_middleware_stack()
        state: SandboxState = self.state.sandbox
        stamped = ServerDateHeader(inner, state.clock)  # inside: faults need uvicorn's own send to hang up
        return SandboxMiddleware(stamped, state.faults, state.requests, state.keys.key_id_for_header,
                                 date=stamped.date_value)


class ServerDateHeader:
    """Stamp every answer's ``Date`` with the sandbox's own clock (frozen, scaled or moved), as a server's
    clock stamps its answers; uvicorn's wall-clock header is turned off in the runner."""

    def __init__(self, app: Any, clock: Clock) -> None:
        self.app = app
        self.clock = clock

    def date_value(self) -> bytes:
        return format_datetime(self.clock.now().astimezone(UTC), usegmt=True).encode("latin-1")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def stamped(message: Any) -> None:
            if message["type"] == "http.response.start":
                date = self.date_value()
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                message = {**message, "headers": [*headers, (b"date", date)]}
            await send(message)

        await self.app(scope, receive, stamped)


def create_app(options: SandboxOptions, clock: Clock) -> Starlette:
    """Build the ASGI app (opens/seeds the database; the simulator thread runs with the app's lifespan)."""
    state = SandboxState(options, clock)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if options.simulate:
            state.simulator.start()
        try:
            yield
        finally:
            state.simulator.stop()
            if options.simulate:
                state.simulator.tick()
            with state.db.transaction() as c:
                set_meta(c, "sim_now", iso(state.clock.now()))

    app = _SandboxStarlette(
        routes=build_routes(),
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        lifespan=lifespan,
    )
    app.state.sandbox = state
    return app
