"""Fault injection and request recording, as one ASGI middleware in front of the API.

Faults exist for resilience tests of the dashboard: latency, error statuses, 429 with
``Retry-After``, malformed JSON, truncated bodies, dropped connections and a well-formed answer of the server's
choosing (``body``: any status and JSON text, e.g. ``{"paused": "maybe"}`` on pause), at a rate and/or on a
path pattern and/or to some methods (``method``: ``PATCH`` or, in JSON, ``PATCH,DELETE``), optionally a limited
number of times. Admin paths (``/_sandbox/``) are never
faulted or recorded. The ``--faults`` flag spells a fault ``kind[:key=value,...]``, e.g.
``status:status=503,rate=0.2,path=/runs/`` or ``latency:seconds=2``.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

KINDS = ("latency", "status", "retry_after", "malformed", "truncated", "drop", "body")
ADMIN_PREFIX = "/_sandbox/"


@dataclass
class Fault:
    kind: str
    status: int = 503
    seconds: float = 2.0
    rate: float = 1.0
    path: str | None = None
    method: str | None = None  # only requests of these methods (``PATCH,DELETE``): writes refused, reads answered
    count: int | None = None
    body: str = "{}"  # the JSON text a ``body`` fault answers with
    id: int = 0
    hits: int = 0

    def matches(self, path: str, method: str = "GET") -> bool:
        return (self.path is None or re.search(self.path, path) is not None) and \
            (self.method is None or method.upper() in self.method.split(","))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_fault(data: dict[str, Any]) -> Fault:
    """Build a fault from its JSON form; raises ``ValueError`` with a readable message."""
    kind = data.get("kind")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    fault = Fault(kind=str(kind))
    if kind == "retry_after":
        fault.status, fault.seconds = 429, 1.0
    if kind == "body":
        fault.status = 200
        body = data.get("body", "{}")
        fault.body = body if isinstance(body, str) else json.dumps(body)
    if "status" in data:
        status = int(data["status"])
        if not 100 <= status <= 599:
            raise ValueError("status must be an HTTP status code")
        fault.status = status
    if "seconds" in data:
        fault.seconds = float(data["seconds"])
        if fault.seconds < 0:
            raise ValueError("seconds must be >= 0")
    if "rate" in data:
        fault.rate = float(data["rate"])
        if not 0 <= fault.rate <= 1:
            raise ValueError("rate must be between 0 and 1")
    if data.get("path") is not None:
        fault.path = str(data["path"])
        re.compile(fault.path)
    if data.get("method") is not None:
        fault.method = ",".join(m.strip() for m in str(data["method"]).upper().split(","))
    if data.get("count") is not None:
        fault.count = int(data["count"])
        if fault.count < 1:
            raise ValueError("count must be >= 1")
    return fault


def parse_fault_spec(spec: str) -> Fault:
    """Parse the command-line spelling ``kind[:key=value,...]``."""
    kind, _, rest = spec.partition(":")
    data: dict[str, Any] = {"kind": kind.strip()}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"expected key=value in fault spec {spec!r}")
        data[key.strip()] = value.strip()
    return parse_fault(data)


class FaultRegistry:
    """The active faults; thread-safe because admin calls and requests may interleave."""

    def __init__(self, seed: int) -> None:
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._next_id = 1
        self._rng = random.Random(seed)

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            fault.id = self._next_id
            self._next_id += 1
            self._faults.append(fault)
            return fault

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [f.to_dict() for f in self._faults]

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def pick(self, path: str, method: str = "GET") -> Fault | None:
        """The first matching fault that fires for this request (counts down limited faults)."""
        with self._lock:
            for fault in list(self._faults):
                if not fault.matches(path, method):
                    continue
                if fault.rate < 1 and self._rng.random() >= fault.rate:
                    continue
                fault.hits += 1
                if fault.count is not None and fault.hits >= fault.count:
                    self._faults.remove(fault)
                return fault
        return None


class RequestLog:
    """Requests received, for tests (method, path, query, parsed body, key id, the fault applied, the status
    answered, and whether the client hung up while a latency fault held the request)."""

    def __init__(self, limit: int = 20_000) -> None:
        self._lock = threading.Lock()
        self._items: deque[dict[str, Any]] = deque(maxlen=limit)

    def add(self, item: dict[str, Any]) -> None:
        with self._lock:
            self._items.append(item)

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(i) for i in self._items]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _error_body(status: int, retry_after: float | None = None) -> bytes:
    if status == 429:
        wait = int(retry_after or 1)
        body = {"type": "throttled_error", "code": "throttled",
                "detail": f"Request was throttled. Expected available in {wait} seconds.", "attr": None}
    elif status >= 500:
        body = {"type": "server_error", "code": "error", "detail": "A server error occurred.", "attr": None}
    else:
        body = {"type": "invalid_request", "code": "error", "detail": "Injected fault.", "attr": None}
    return json.dumps(body).encode()


async def _hangs_up_within(receive: Receive, seconds: float) -> bool:
    """True when the client disconnects within ``seconds``; the request's body was read already, so the next
    message is the disconnect."""
    try:
        async with asyncio.timeout(seconds):
            while (await receive())["type"] != "http.disconnect":
                pass
    except TimeoutError:
        return False
    return True


class SandboxMiddleware:
    """Records every API request, then applies at most one matching fault."""

    def __init__(
        self, app: ASGIApp, faults: FaultRegistry, log: RequestLog, key_id: Callable[[str | None], str | None],
        date: Callable[[], bytes] | None = None,
    ) -> None:
        self.app = app
        self.faults = faults
        self.log = log
        self.key_id = key_id
        # The Date header of the server's own clock: an answer of the server's choosing (``body``) carries it
        # as any answer of the server does, so a client's estimate of the server's clock sees it too.
        self.date = date

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(ADMIN_PREFIX):
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            parsed: Any = json.loads(body) if body else None
        except (ValueError, RecursionError):  # recorded as unparsed; the handler answers 400
            parsed = None
        query = scope.get("query_string", b"").decode("latin-1")
        fault = self.faults.pick(scope["path"], scope["method"])
        entry: dict[str, Any] = {
            "time": time.time(), "method": scope["method"], "path": scope["path"], "query": query,
            "query_params": {k: v for k, v in parse_qs(query, keep_blank_values=True).items()},
            "body": parsed, "key_id": self.key_id(headers.get("authorization")),
            "fault": fault.kind if fault else None, "status": None, "hung_up": False,
        }
        self.log.add(entry)

        async def send_noting_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]  # what the client got, for tests of fallbacks
            await send(message)

        if fault is None:
            await self.app(scope, replay, send_noting_status)
            return
        if fault.kind == "drop":
            await self._apply(fault, scope, replay, send)  # hanging up needs uvicorn's own send
            return
        if fault.kind == "latency":
            # A client that gives up during the wait has left: the request goes no further (nothing is applied
            # or answered), and the server holds no work for it (it stops at once, not after a graceful wait).
            if await _hangs_up_within(receive, fault.seconds):
                entry["hung_up"] = True
                return
            await self.app(scope, replay, send_noting_status)
            return
        await self._apply(fault, scope, replay, send_noting_status)

    async def _apply(self, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
        if fault.kind in ("status", "retry_after"):
            headers = [(b"content-type", b"application/json")]
            if fault.kind == "retry_after" or fault.status == 429:
                headers.append((b"retry-after", str(max(0, round(fault.seconds))).encode()))
            payload = _error_body(fault.status, fault.seconds)
            headers.append((b"content-length", str(len(payload)).encode()))
            await send({"type": "http.response.start", "status": fault.status, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
        elif fault.kind == "malformed":
            payload = b'{"results": [{"id": "oops", "status": '
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
            await send({"type": "http.response.body", "body": payload})
        elif fault.kind == "body":
            payload = fault.body.encode()
            stamped = [(b"date", self.date())] if self.date is not None else []
            await send({"type": "http.response.start", "status": fault.status, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), *stamped]})
            await send({"type": "http.response.body", "body": payload})
        elif fault.kind == "truncated":
            await self._truncated(scope, receive, send)
        else:
            await _drop(send)

    async def _truncated(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the real handler, announce the full length, send half, then cut the connection."""
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        payload = b"".join(chunks) or b'{"detail": "empty"}'
        assert start is not None
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": start["status"], "headers": headers})
        await send({"type": "http.response.body", "body": payload[: max(1, len(payload) // 2)], "more_body": True})
        await _drop(send)


async def _drop(send: Send) -> None:
    """Close the connection without (finishing) a response.

    uvicorn's ``send`` is a bound method of the request cycle, which holds the transport;
    aborting it is the only way an ASGI app can hang up on a client.
    """
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is not None:
        transport.abort()
        await asyncio.sleep(0.01)
        return
    raise ConnectionAbortedError("dropped by fault injection")
