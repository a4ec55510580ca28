"""What every handler shares: the request context, the auth/scope wrapper, paging helpers, routes.

Handlers are thin: authenticate, check the scope, resolve the project, validate, then one
transaction against the store. Errors always use the real envelope (see ``errors.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tui.sandbox.auth import ApiKey, require_project, require_scope
from tui.sandbox.errors import ServiceError, not_found, parse_error, validation_error
from tui.sandbox.state import SandboxState

SQL_INT_MAX = 2**63 - 1  # the largest value SQLite binds; larger ints raise OverflowError
Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass
class Ctx:
    request: Request
    state: SandboxState
    key: ApiKey

    @property
    def now(self) -> datetime:
        return self.state.clock.now()

    def param(self, name: str) -> str:
        return str(self.request.path_params[name])

    def project_id(self) -> int:
        raw = self.param("project_id")
        if raw == "@current":
            return 1
        # ASCII digits only ("²".isdigit() is true but int() refuses it) and within SQLite's integer range.
        if not re.fullmatch(r"[0-9]{1,18}", raw):
            raise not_found("Project not found.")
        pid = int(raw)
        require_project(self.key, pid)
        with self.state.db.read() as c:
            if c.execute("SELECT 1 FROM projects WHERE id = ?", (pid,)).fetchone() is None:
                raise not_found("Project not found.")
        return pid

    async def json(self) -> dict[str, Any]:
        raw = await self.request.body()
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
            # Lone surrogates ("\\ud800") parse but cannot be stored as UTF-8 text in SQLite.
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except (ValueError, UnicodeError) as exc:
            raise parse_error(str(exc)) from exc
        except RecursionError as exc:
            raise parse_error("nested too deeply") from exc
        if not isinstance(data, dict):
            raise validation_error(f"Invalid data. Expected a dictionary, but got {type(data).__name__}.", None)
        return data


Handler = Callable[["Ctx"], Awaitable[Response]]


def api(scope: str | None) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler with authentication, the scope check and error rendering."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            state: SandboxState = request.app.state.sandbox
            try:
                key = state.keys.authenticate(request.headers.get("authorization"),
                                              request.query_params.get("personal_api_key"))
                if scope:
                    require_scope(key, scope)
                return await fn(Ctx(request, state, key))
            except ServiceError as exc:
                return exc.response()

        endpoint.__name__ = fn.__name__
        return endpoint

    return wrap


def int_param(request: Request, name: str, default: int) -> int:
    """DRF's limit/offset paginator ignores unusable values and falls back to the default.

    There is no server maximum; values are only clamped to what SQLite can bind.
    """
    raw = request.query_params.get(name)
    try:
        value = int(raw) if raw is not None else default
    except ValueError:
        return default
    return min(value, SQL_INT_MAX) if value >= 0 else default


def limit_offset(request: Request, count: int, limit: int, offset: int) -> tuple[str | None, str | None]:
    url = request.url
    nxt = str(url.include_query_params(limit=limit, offset=offset + limit)) if offset + limit < count else None
    prev: str | None = None
    if offset > 0 and limit > 0:
        if offset - limit <= 0:
            prev = str(url.remove_query_params("offset").include_query_params(limit=limit))
        else:
            prev = str(url.include_query_params(limit=limit, offset=offset - limit))
    return nxt, prev


# Fields the real serializers render as DRF datetimes: ISO 8601 that leaves out zero microseconds.
DATETIME_FIELDS = frozenset({
    "created_at", "start_date", "end_date", "finished_at", "last_updated_at", "data_interval_start",
    "data_interval_end", "start_at", "end_at", "last_paused_at", "iteration_start_dates",
    "current_iteration_start_date", "response_sampling_start_date", "last_used_at",
})
_ZERO_MICROSECONDS = ".000000Z"


def _drf_datetimes(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _drf_datetimes(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_drf_datetimes(v, key) for v in value]
    if key in DATETIME_FIELDS and isinstance(value, str) and value.endswith(_ZERO_MICROSECONDS):
        return value[: -len(_ZERO_MICROSECONDS)] + "Z"
    return value


def ok(body: Any, status: int = 200) -> JSONResponse:
    """A JSON answer; stored timestamps keep fixed-width microseconds (they sort as text), the wire does not."""
    return JSONResponse(_drf_datetimes(body), status_code=status)


def routes(path: str, endpoint: Endpoint, methods: Iterable[str]) -> list[Route]:
    """The path with and without its trailing slash (the real router accepts both)."""
    return [Route(path + "/", endpoint, methods=list(methods)), Route(path, endpoint, methods=list(methods))]


def app_state(request: Request) -> SandboxState:
    state: SandboxState = request.app.state.sandbox
    return state
