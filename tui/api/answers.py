"""What an answer, or the lack of one, comes to: the :class:`~tui.api.errors.ApiError` for a refused
request or a network failure, with one actionable sentence, and the outcome the exporter counts."""

from __future__ import annotations

import json
import math
import re
import socket
import ssl
from collections.abc import Mapping
from typing import Any

import httpx

from tui.api.errors import (
    ApiError,
    Forbidden,
    LogsUnavailable,
    MethodNotAllowed,
    NetworkError,
    NotFound,
    ProjectNotFound,
    RateLimited,
    ServerError,
    Unauthorized,
    ValidationFailed,
)
from tui.text.words import duration

_SCOPE_RE = re.compile(r"scope '([^']+)'")
_NO_PERSONAL_KEY = "does not support personal api key"
_NO_PROJECT_ACCESS = "does not have access to the requested project"
_PROJECT_IN_PATH = re.compile(r"/api/(?:projects|environments)/([^/]+)")
_PROJECT_IN_DETAIL = re.compile(r"ID (\d+)")


def _project_in(path: str, detail: str) -> str:
    """The project a "no access to the requested project" 403 is about: the path's, else the one the detail names."""
    match = _PROJECT_IN_PATH.search(path) or _PROJECT_IN_DETAIL.search(detail)
    return match.group(1) if match else "?"


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_from_response(response: httpx.Response, method: str, path: str, content: bytes | None = None) -> ApiError:
    """Turn a non-2xx response into the matching error, with one actionable sentence.

    ``content``: the body as the client read it (a streamed response holds none); else the response's own.
    """
    status = response.status_code
    raw = response.content if content is None else content
    body: Any = None
    try:
        body = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        body = None
    detail = code = attr = None
    if isinstance(body, Mapping):
        detail = body.get("detail") if isinstance(body.get("detail"), str) else body.get("error")
        detail = detail if isinstance(detail, str) else None
        code = body.get("code") if isinstance(body.get("code"), str) else None
        attr = body.get("attr") if isinstance(body.get("attr"), str) else None
    common: dict[str, Any] = dict(status=status, code=code, detail=detail, attr=attr, method=method, path=path,
                                  body=body)
    if status == 400:
        where = f" (field {attr})" if attr else ""
        said = (detail or "invalid input").rstrip()
        return ValidationFailed(f"The server refused the input{where}: {said}{'' if said.endswith('.') else '.'}",
                                **common)
    if status == 401:
        return Unauthorized(
            "The API key was refused (401): check WATCHDECK_API_KEY and that the key belongs to this host's region.",
            **common,
        )
    if status == 403:
        if detail and _NO_PERSONAL_KEY in detail.lower():
            if path.rstrip("/").endswith("/logs"):
                return LogsUnavailable("The server does not give these logs to personal API keys (403).", **common)
            return Forbidden(f"The server does not allow {method} {path} with a personal API key (403).", **common)
        if detail and _NO_PROJECT_ACCESS in detail.lower():
            return ProjectNotFound(_project_in(path, detail), **common)
        match = _SCOPE_RE.search(detail or "")
        if match:
            return Forbidden(f"The API key lacks the scope {match.group(1)} (403).", scope=match.group(1), **common)
        return Forbidden(f"Access denied (403): {detail or 'forbidden'}.", **common)
    if status == 404:
        return NotFound(f"Not found (404): {method} {path}.", **common)
    if status == 405:
        return MethodNotAllowed(f"The server does not offer {method} {path} (405).", **common)
    if status == 429:
        wait = _retry_after_seconds(response)
        when = "retry later" if wait is None else f"retry in {duration(wait)}" if math.isfinite(wait) else "never retry"
        return RateLimited(f"Rate limited (429): {when}.", retry_after=wait, **common)
    if status >= 500:
        return ServerError(f"The server failed (HTTP {status}): {detail or response.reason_phrase or 'error'}.",
                           retry_after=_retry_after_seconds(response), **common)
    return ApiError(f"Unexpected answer HTTP {status} to {method} {path}.", **common)


#: What a request came to: an answer (from the server, or another viewer's from the shared cache), an error
#: status by kind, or no answer at all.
OUTCOMES = ("ok", "cached", "client_error", "rate_limited", "server_error", "network_error")


def answer_outcome(response: httpx.Response) -> str:
    """One of :data:`OUTCOMES` for an answer (a redirect, never followed, counts as a client error)."""
    status = response.status_code
    if status == 429:
        return "rate_limited"
    if status >= 500:
        return "server_error"
    if status >= 300:
        return "client_error"
    caching = response.extensions.get("caching")
    return "cached" if caching and caching.get("from_cache") else "ok"


def _cause_chain(exc: BaseException) -> list[BaseException]:
    """The exception and what caused it: httpx says "All connection attempts failed" while the
    ``ConnectionRefusedError`` or ``gaierror`` that says why sits further down."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def network_error(exc: httpx.HTTPError, host: str, method: str, path: str, timeout: float) -> NetworkError:
    common: dict[str, Any] = dict(method=method, path=path)
    chain = _cause_chain(exc)
    text = " ".join(str(e) for e in chain).lower()
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        text += " refused"
    if any(isinstance(e, socket.gaierror) for e in chain):
        text += " getaddrinfo"
    if any(isinstance(e, ssl.SSLError) for e in chain):
        text += " ssl"
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return NetworkError(f"Timed out connecting to {host}.", kind="timeout", sent=False, timeout=timeout, **common)
    if isinstance(exc, httpx.TimeoutException):
        return NetworkError(f"{host} did not answer within {duration(timeout)}.", kind="timeout", timeout=timeout,
                            **common)
    if isinstance(exc, httpx.ConnectError):
        if "ssl" in text or "certificate" in text:
            return NetworkError(f"TLS handshake with {host} failed.", kind="tls", sent=False, **common)
        if "name or service" in text or "nodename" in text or "getaddrinfo" in text or "resolv" in text:
            return NetworkError(f"Cannot resolve {host} (DNS).", kind="dns", sent=False, **common)
        if "refused" in text:
            return NetworkError(f"{host} refused the connection.", kind="refused", sent=False, **common)
        return NetworkError(f"Cannot connect to {host}.", kind="network", sent=False, **common)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return NetworkError(f"{host} dropped the connection.", kind="dropped", **common)
    return NetworkError(f"Network error talking to {host}.", kind="network", **common)
