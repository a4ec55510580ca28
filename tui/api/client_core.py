"""The requests every resource's operations go through, for one project over one connection pool.

Knows nothing of Textual. One ``httpx.AsyncClient`` per client (keep-alive,
bearer header, ``watchdeck/<version>`` user agent), at most ``max_in_flight``
requests at once, and these retry rules:

* GETs are retried on connect errors, 502/503/504 and 429, with capped
  exponential backoff and full jitter, honouring ``Retry-After``; a wait longer
  than ``max_retry_wait`` is not slept here but raised, so a poller can show
  the wait and schedule it instead of hanging a worker.
* POST/PATCH/DELETE are retried only when the connection failed before the
  request was sent (nothing can have happened on the server).

Reads go through the shared answer cache when one is given (:mod:`tui.api.cache`); an answer that is not a
success becomes an error by :mod:`tui.api.answers`.

An answer's body is read as it arrives and refused past :data:`MAX_ANSWER_BYTES` (32 MB, counted after any
content encoding is undone): the connection is closed, nothing is parsed, and the request fails with
:class:`~tui.api.errors.AnswerTooLarge` ("answer too large"); a write so answered may have been done
(:class:`~tui.api.errors.UnreadableAnswer`). An error status keeps its meaning, without the body's detail.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import random
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ValidationError

from tui import __version__
from tui.api.answers import answer_outcome, error_from_response, network_error
from tui.api.deadline import attempt_timeout, may_retry
from tui.api.errors import (
    AnswerTooLarge,
    ApiError,
    BadResponse,
    NetworkError,
    RateLimited,
    ServerError,
    Unauthorized,
    unreadable_answer,
)
from tui.api.models.common import Page, describe_validation_error, parse_page, read_answer
from tui.api.route_memory import SHARED_ROUTES, RouteMemory
from tui.api.urls import Params, next_query

if TYPE_CHECKING:
    from tui.api.cache import SharedCache


M = TypeVar("M", bound=BaseModel)

RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""The largest answer body read; a larger one is refused unparsed (a page of the real service is far smaller)."""
# The status of the last answer this task received: per task, so concurrent requests never mix them up.
_last_status: contextvars.ContextVar[int | None] = contextvars.ContextVar("watchdeck_last_status", default=None)


def _display_host(base_url: str) -> str:
    """host[:port] for messages: never the user:password@ part a URL may carry."""
    parts = urlsplit(base_url)
    if not parts.hostname:
        return base_url.split("@")[-1]
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


KEEPALIVE_SECONDS = 4.0
"""How long an idle connection is kept for the next request: below the 5 s after which common servers (uvicorn,
the sandbox's server, among them) close an idle one. At equal times a write could go out on a connection the
server is closing at that moment, and a write that may have been sent is not retried: "dropped the connection"."""


def _tls_for(base_url: str) -> ssl.SSLContext | bool:
    """Certificate checks for https; for a plain-http base URL a context that trusts nothing.

    No request of a plain-http client can reach TLS (redirects are not followed and
    ``next`` links are re-based on the base URL), yet httpx loads the whole CA bundle
    for every client, on the monitor's start path. Should TLS ever be reached, a
    context with no trusted roots fails closed.
    """
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if urlsplit(base_url).scheme == "http" else True


async def read_at_most(response: httpx.Response, limit: int) -> bytes | None:
    """The body of a streamed response, or None as soon as it is known to be larger than ``limit`` bytes (a
    ``Content-Length`` that says so is believed before anything is read)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def answer_too_large(status: int, method: str, path: str) -> BadResponse:
    """The error for a 2xx answer past :data:`MAX_ANSWER_BYTES`: a write so answered may have been done."""
    limit = f"over {MAX_ANSWER_BYTES // (1024 * 1024)} MB"
    if method != "GET":
        return unreadable_answer(status, method, path, f"answer too large, {limit}")
    return AnswerTooLarge(f"The server's answer to {method} {path} is too large ({limit}); it was not read.",
                          status=status, method=method, path=path)


class ClientCore:
    """Transport, retries, the shared cache and pages; :class:`~tui.api.client.ApiClient` adds the operations."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        project_id: str,
        *,
        timeout: float = 15.0,
        max_retries: int = 3,
        max_in_flight: int = 8,
        max_retry_wait: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        cache: SharedCache | None = None,
        routes: RouteMemory | None = None,
    ) -> None:
        # A key that cannot go in a header is never put in one: httpx/h11 would quote the header value,
        # key included, in their error. Such a client answers every request with Unauthorized instead
        # (constructing it must not fail: the app builds clients before the operator fixes the key).
        self._key_problem: str | None = None
        if not api_key:
            self._key_problem = "No API key is set: set WATCHDECK_API_KEY or add one to the profile."
        elif any(not 0x20 < ord(ch) < 0x7F for ch in api_key):
            self._key_problem = "The API key contains spaces or characters that cannot be sent; paste it again."
        self.base_url = base_url.rstrip("/")
        self.project_id = str(project_id)
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.max_in_flight = max_in_flight
        self._sleep = sleep
        self._host = _display_host(self.base_url)
        self._gate = asyncio.Semaphore(max_in_flight)
        self._cache = cache  # shared answers for reads (tui.api.cache); None: every read asks the server
        self.routes = SHARED_ROUTES if routes is None else routes  # what this server's routes turned out to be
        self._transport = transport
        # httpx's Headers: its repr masks the key.
        self._headers = httpx.Headers({
            "User-Agent": f"watchdeck/{__version__}",
            "Accept": "application/json",
            **({} if self._key_problem else {"Authorization": f"Bearer {api_key}"}),
        })
        # Made on the first request: the first one made in a process loads httpx's transport (httpcore, h11),
        # which the monitor's first frame need not wait for when its first poll was sent elsewhere.
        self._http_client: httpx.AsyncClient | None = None
        self._retired: list[httpx.AsyncClient] = []  # replaced by share_answers; closed with this client
        self.requests_sent = 0
        # Told the Date header of every answer fresh from the server (never of a cached one): the state layer
        # estimates the server's clock from them.
        self.on_server_date: Callable[[str], None] | None = None
        # Told what each request came to (one of OUTCOMES): the exporter counts them.
        self.on_answer: Callable[[str], None] | None = None

    @property
    def _http(self) -> httpx.AsyncClient:
        if self._http_client is None:
            self._http_client = self._make_http(self._cache, self._headers)
        return self._http_client

    def _make_http(self, cache: SharedCache | None, headers: Mapping[str, str]) -> httpx.AsyncClient:
        return (cache.http_client if cache is not None else httpx.AsyncClient)(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(self.timeout),
            limits=httpx.Limits(max_connections=self.max_in_flight, max_keepalive_connections=self.max_in_flight,
                                keepalive_expiry=KEEPALIVE_SECONDS),
            transport=self._transport,
            follow_redirects=False,
            verify=_tls_for(self.base_url),
        )

    def share_answers(self, cache: SharedCache) -> None:
        """Read through the shared store from now on (it opened after this client was made: after the first frame).

        Requests in flight finish on the old connection pool, closed with this client; what this client sent
        before counts in the key's shared request count.
        """
        if self._cache is not None:
            return
        if self._http_client is not None:
            self._retired.append(self._http_client)
            self._http_client = None
        self._cache = cache
        cache.sent_elsewhere(self.requests_sent)

    async def aclose(self) -> None:
        for http in (*self._retired, *([self._http_client] if self._http_client is not None else [])):
            await http.aclose()

    # ------------------------------------------------------------------ transport

    def _backoff(self, attempt: int) -> float:
        return random.uniform(0, min(8.0, 0.5 * 2**attempt))

    def count_sent_elsewhere(self, requests: int) -> None:
        """Requests sent for this client's project by another client of this process (the first poll, sent
        while the app loaded): the shared count of requests per key includes them."""
        self.requests_sent += requests
        if self._cache is not None:
            self._cache.sent_elsewhere(requests)

    async def request(self, method: str, path: str, *, params: Params = None, json_body: Any = None) -> Any:
        """Send one request (with the retry rules above); return the parsed JSON body or None."""
        attempt = 0
        while True:
            try:
                return await self._send_once(method, path, params, json_body)
            except NetworkError as err:
                retry = attempt < self.max_retries and (method == "GET" or not err.sent)
                backoff = self._backoff(attempt)
                # a timeout is likely to time out again: its retry must fit a whole timeout before the deadline
                if not retry or not may_retry(backoff, attempt_timeout(self.timeout) if err.kind == "timeout" else 0.0):
                    raise
                await self._sleep(backoff)
            except (RateLimited, ServerError) as err:
                if method != "GET" or attempt >= self.max_retries or err.status not in RETRYABLE_STATUSES:
                    raise
                wait = err.retry_after
                if wait is not None and wait > self.max_retry_wait:
                    raise  # the caller (a poller) shows the wait and schedules it rather than hang here
                # Retry-After is honoured exactly; without it (PR #37812: it can be missing) back off
                delay = wait if wait is not None else self._backoff(attempt)
                if not may_retry(delay):
                    raise  # past the poll's deadline: the next poll is the retry
                await self._sleep(delay)
            attempt += 1

    async def _send_once(self, method: str, path: str, params: Params, json_body: Any) -> Any:
        if self._key_problem:
            raise Unauthorized(self._key_problem, method=method, path=path)
        cached = await self._cache_settings(method, path, params)
        timeout = attempt_timeout(self.timeout)  # a poll's attempt ends within its interval (tui.api.deadline)
        async with self._gate:
            self.requests_sent += 1
            response: httpx.Response | None = None
            try:
                request = self._http.build_request(
                    method, path, params=params, json=json_body if json_body is not None else None,
                    extensions=cached, timeout=httpx.Timeout(timeout),
                )
                response = await self._http.send(request, stream=True)
                try:
                    content = await read_at_most(response, MAX_ANSWER_BYTES)
                finally:
                    await response.aclose()  # a body refused part-way closes its connection
            except httpx.HTTPError as exc:
                self._answered("network_error")
                raise network_error(exc, self._host, method, path, timeout) from None
            finally:
                if self._cache is not None:
                    await self._cache.answered(cached["caching"]["key"] if cached else None, response)
                    if method != "GET":
                        await self._cache.after_write(self.base_url, self._api_key(), path)
        # An answer read from the shared cache dates the server's clock as of now, not of when it was fetched.
        date = self._cache.date_as_of_now(response) if self._cache is not None else response.headers.get("date")
        if date and self.on_server_date is not None:
            self.on_server_date(date)
        _last_status.set(response.status_code)
        self._answered(answer_outcome(response))
        if response.status_code >= 400:
            raise error_from_response(response, method, path, content or b"")
        if 300 <= response.status_code < 400:
            # Not followed: a redirect may point at another host, and the bearer key must only ever
            # go to the host the operator chose (e.g. the legacy app.posthog.com -> us.posthog.com).
            target = _display_host(response.headers.get("location", "")) or "another address"
            raise ApiError(
                f"{self._host} redirects {method} {path} to {target} (HTTP {response.status_code}): "
                "set the base URL to where it points.",
                status=response.status_code, method=method, path=path,
            )
        if content is None:
            raise answer_too_large(response.status_code, method, path)
        if not content or response.status_code == 204:
            return None
        try:
            return json.loads(content)
        except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser's depth: not an answer
            raise BadResponse(
                f"{self._host} sent a malformed or truncated answer to {method} {path}.",
                status=response.status_code, method=method, path=path,
            ) from None

    def _answered(self, outcome: str) -> None:
        if self.on_answer is not None:
            self.on_answer(outcome)

    async def _cache_settings(self, method: str, path: str, params: Params) -> dict[str, Any] | None:
        """The shared cache's key and TTL for a GET (the key is hashed with the API key: answers never cross keys)."""
        if self._cache is None or method != "GET":
            return None
        return await self._cache.extensions(self.base_url, self._api_key(), path, params)

    def _api_key(self) -> str:
        return self._headers.get("Authorization", "").removeprefix("Bearer ")

    def _one(self, data: Any, model: type[M], method: str, path: str) -> M:
        try:
            return read_answer(model, data)
        except ValidationError as err:
            if method != "GET":
                raise unreadable_answer(_last_status.get(), method, path, describe_validation_error(err)) from None
            raise BadResponse(
                f"Unexpected answer to {method} {path}: {describe_validation_error(err)}.", method=method, path=path
            ) from None

    def _page(self, data: Any, model: type[M], method: str, path: str) -> Page[M]:
        try:
            return parse_page(data, model)
        except ValueError as err:
            raise BadResponse(f"Unexpected answer to {method} {path}: {err}.", method=method, path=path) from None

    async def get_page(self, path: str, model: type[M], params: Params = None) -> Page[M]:
        return self._page(await self.request("GET", path, params=params), model, "GET", path)

    async def iterate(self, path: str, model: type[M], params: Params = None,
                      max_pages: int | None = None) -> AsyncIterator[Page[M]]:
        """Page after page of one list, by the query of each page's ``next`` link (its path is ``path``)."""
        pages = 0
        current_params = params
        while True:
            page = await self.get_page(path, model, current_params)
            yield page
            pages += 1
            if not page.next or (max_pages is not None and pages >= max_pages):
                return
            current_params = next_query(page.next)
