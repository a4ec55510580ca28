"""Helpers of the client tests: a recording transport, a recording sleep, the sandbox's admin calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from tui import __version__
from tui.sandbox.runner import SandboxHandle

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
READ_ONLY_KEY = "phx_readonly_Zq81"


class Wire(httpx.AsyncBaseTransport):
    """A real HTTP transport that also keeps each request as sent, and counts requests in flight."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=False)  # plain loopback HTTP: no CA bundle to load
        self.sent: list[httpx.Request] = []
        self.in_flight = 0
        self.peak_in_flight = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            response = await self._inner.handle_async_request(request)
            await response.aread()  # the whole exchange counts as "in flight"
            return response
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass
class Sleeps:
    """Stands in for asyncio.sleep: records how long the client asked to wait."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class Sandbox:
    """The running sandbox plus the admin calls the tests use."""

    def __init__(self, handle: SandboxHandle) -> None:
        self.h = handle
        self.base_url = handle.base_url
        self.project_id = handle.project_id
        self.api_key = handle.api_key
        self._admin = httpx.Client(base_url=handle.base_url, timeout=10, verify=False)

    def requests(self) -> list[dict[str, Any]]:
        """API requests received (admin calls are not recorded)."""
        return self.h.requests()

    def fault(self, **spec: Any) -> None:
        response = self._admin.post("/_sandbox/faults/", json=spec)
        assert response.status_code == 201, response.text

    def clean(self) -> None:
        assert self._admin.delete("/_sandbox/faults/").status_code == 204
        assert self._admin.delete("/_sandbox/requests/").status_code == 204

    def close(self) -> None:
        self._admin.close()


def received(sandbox: Sandbox, wire: Wire, method: str, path: str, *, body: Any = None,
             query: dict[str, list[str]] | None = None, index: int = -1) -> dict[str, Any]:
    """Assert one request as the server received it (method, path, query, body, key) and as it went on the wire.

    Headers are read from the wire because the sandbox's request log does not keep them.
    """
    got = sandbox.requests()[index]
    assert (got["method"], got["path"]) == (method, path)
    assert got["body"] == body
    assert got["key_id"] == "demo"  # the bearer key reached the server and was accepted
    if query is not None:
        assert got["query_params"] == query
    sent = [r for r in wire.sent if r.method == method and r.url.path == path][-1]
    assert sent.headers["authorization"] == f"Bearer {sandbox.api_key}"
    assert sent.headers["user-agent"] == f"watchdeck/{__version__}"
    if body is None:
        assert "content-type" not in sent.headers and sent.content == b""
    else:
        assert sent.headers["content-type"] == "application/json"
    return got
