"""The async HTTP client: one method per operation of the interface.

Knows nothing of Textual. One ``httpx.AsyncClient`` per ``ApiClient`` (keep-alive,
bearer header, ``watchdeck/<version>`` user agent), at most ``max_in_flight``
requests at once, and these retry rules:

* GETs are retried on connect errors, 502/503/504 and 429, with capped
  exponential backoff and full jitter, honouring ``Retry-After``; a wait longer
  than ``max_retry_wait`` is not slept here but raised, so a poller can show
  the wait and schedule it instead of hanging a worker.
* POST/PATCH/DELETE are retried only when the connection failed before the
  request was sent (nothing can have happened on the server).

Where the spec and the real service differ (backfill route, query field name) the spec's form is
tried first and the fallback that worked is remembered for the server, by every client of it in the
process (``tui.api.route_memory``).
"""

from __future__ import annotations

import asyncio
import builtins
import contextvars
import json
import math
import random
import re
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ValidationError

from tui import __version__
from tui.api.errors import (
    ApiError,
    BadResponse,
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
    unreadable_answer,
)
from tui.api.models.batch_exports import (
    BackfillResult,
    BatchExport,
    BatchExportBackfill,
    BatchExportRun,
    CancelResult,
    LogEntry,
    PauseResult,
)
from tui.api.models.common import Page, describe_validation_error, parse_items, parse_page
from tui.api.models.projects import ApiKeyInfo, Project, User
from tui.api.models.surveys import ActivityEntry, ResponseSummary, Survey, SurveyStats
from tui.api.retry_budget import attempt_timeout, may_retry
from tui.api.route_memory import SHARED_ROUTES, RouteMemory
from tui.api.survey_rules import SEARCH_MAX
from tui.api.urls import EXPORT_LIST_PAGE_SIZE, Params, batch_exports_path, follow_next
from tui.api.writes import check_export_write, check_survey_write, iso

if TYPE_CHECKING:
    from tui.api.cache import SharedCache

M = TypeVar("M", bound=BaseModel)

RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
# The status of the last answer this task received: per task, so concurrent requests never mix them up.
_last_status: contextvars.ContextVar[int | None] = contextvars.ContextVar("watchdeck_last_status", default=None)
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


def error_from_response(response: httpx.Response, method: str, path: str) -> ApiError:
    """Turn a non-2xx response into the matching error, with one actionable sentence."""
    status = response.status_code
    body: Any = None
    try:
        body = response.json() if response.content else None
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
        when = "retry later" if wait is None else f"retry in {wait:.0f} s" if math.isfinite(wait) else "never retry"
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


def _display_host(base_url: str) -> str:
    """host[:port] for messages: never the user:password@ part a URL may carry."""
    parts = urlsplit(base_url)
    if not parts.hostname:
        return base_url.split("@")[-1]
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


def _cause_chain(exc: BaseException) -> list[BaseException]:
    """The exception and what caused it: httpx says "All connection attempts failed" while the
    ``ConnectionRefusedError`` or ``gaierror`` that says why sits further down."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _network_error(exc: httpx.HTTPError, host: str, method: str, path: str, timeout: float) -> NetworkError:
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
        return NetworkError(f"{host} did not answer within {timeout:g} s.", kind="timeout", timeout=timeout, **common)
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


def _is_date_input(value: datetime | date) -> bool:
    return not isinstance(value, datetime)


def _bound(value: datetime | date, as_dates: bool) -> str:
    """A backfill bound on the wire: ``YYYY-MM-DD`` where dates are wanted, else an ISO datetime with offset."""
    if isinstance(value, datetime):
        return iso(value)
    if as_dates:
        return value.isoformat()
    return iso(datetime(value.year, value.month, value.day, tzinfo=UTC))


def _tls_for(base_url: str) -> ssl.SSLContext | bool:
    """Certificate checks for https; for a plain-http base URL a context that trusts nothing.

    No request of a plain-http client can reach TLS (redirects are not followed and
    ``next`` links are re-based on the base URL), yet httpx loads the whole CA bundle
    for every client, on the monitor's start path. Should TLS ever be reached, a
    context with no trusted roots fails closed.
    """
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if urlsplit(base_url).scheme == "http" else True


class ApiClient:
    """All operations of the interface for one project, over one connection pool."""

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
        self.projects = ProjectsApi(self)
        self.surveys = SurveysApi(self)
        self.batch_exports = BatchExportsApi(self)

    def __repr__(self) -> str:  # never the key (nor a password written into the URL)
        return f"ApiClient(host={self._host!r}, project_id={self.project_id!r})"

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

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
            limits=httpx.Limits(max_connections=self.max_in_flight, max_keepalive_connections=self.max_in_flight),
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

    def with_project(self, project_id: str) -> ApiClient:
        """A client for another project sharing this one's settings (not its pool)."""
        auth = self._headers.get("Authorization", "").removeprefix("Bearer ")
        return ApiClient(self.base_url, auth, project_id, timeout=self.timeout, max_retries=self.max_retries,
                         max_in_flight=self.max_in_flight, max_retry_wait=self.max_retry_wait, sleep=self._sleep,
                         cache=self._cache)

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
                # a timeout is likely to time out again: its retry must fit a whole timeout in the budget
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
                    raise  # past the poll's budget: the next poll is the retry
                await self._sleep(delay)
            attempt += 1

    async def _send_once(self, method: str, path: str, params: Params, json_body: Any) -> Any:
        if self._key_problem:
            raise Unauthorized(self._key_problem, method=method, path=path)
        cached = await self._cache_settings(method, path, params)
        timeout = attempt_timeout(self.timeout)  # a poll's attempt ends within its interval (tui.api.retry_budget)
        async with self._gate:
            self.requests_sent += 1
            response: httpx.Response | None = None
            try:
                response = await self._http.request(
                    method, path, params=params, json=json_body if json_body is not None else None,
                    extensions=cached, timeout=httpx.Timeout(timeout),
                )
            except httpx.HTTPError as exc:
                self._answered("network_error")
                raise _network_error(exc, self._host, method, path, timeout) from None
            finally:
                if self._cache is not None:
                    await self._cache.answered(cached["caching"]["key"] if cached else None, response)
                    if method != "GET":
                        await self._cache.after_write(self.base_url, path)
        # An answer read from the shared cache dates the server's clock as of now, not of when it was fetched.
        date = self._cache.date_as_of_now(response) if self._cache is not None else response.headers.get("date")
        if date and self.on_server_date is not None:
            self.on_server_date(date)
        _last_status.set(response.status_code)
        self._answered(answer_outcome(response))
        if response.status_code >= 400:
            raise error_from_response(response, method, path)
        if 300 <= response.status_code < 400:
            # Not followed: a redirect may point at another host, and the bearer key must only ever
            # go to the host the operator chose (e.g. the legacy app.posthog.com -> us.posthog.com).
            target = _display_host(response.headers.get("location", "")) or "another address"
            raise ApiError(
                f"{self._host} redirects {method} {path} to {target} (HTTP {response.status_code}): "
                "set the base URL to where it points.",
                status=response.status_code, method=method, path=path,
            )
        if not response.content or response.status_code == 204:
            return None
        try:
            return json.loads(response.content)
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
        key = self._headers.get("Authorization", "")
        return await self._cache.extensions(self.base_url, key, path, params)

    def _follow(self, next_url: str) -> tuple[str, list[tuple[str, str]]]:
        return follow_next(self.base_url, next_url)

    def _one(self, data: Any, model: type[M], method: str, path: str) -> M:
        try:
            return model.model_validate(data)
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
        """Follow ``next`` links page by page."""
        pages = 0
        current_path, current_params = path, params
        while True:
            page = await self.get_page(current_path, model, current_params)
            yield page
            pages += 1
            if not page.next or (max_pages is not None and pages >= max_pages):
                return
            current_path, query = self._follow(page.next)
            current_params = query


class ProjectsApi:
    def __init__(self, client: ApiClient) -> None:
        self._c = client

    async def me(self) -> User:
        """``GET /api/users/@me/`` (needs ``user:read``): who the key belongs to."""
        data = await self._c.request("GET", "/api/users/@me/")
        return self._c._one(data, User, "GET", "/api/users/@me/")

    async def current_key(self) -> ApiKeyInfo:
        """``GET /api/personal_api_keys/@current/`` (no scope needed): the key's own scopes."""
        path = "/api/personal_api_keys/@current/"
        return self._c._one(await self._c.request("GET", path), ApiKeyInfo, "GET", path)

    async def list(self) -> builtins.list[Project]:
        projects: builtins.list[Project] = []
        async for page in self._c.iterate("/api/projects/", Project, max_pages=20):
            projects.extend(page.results)
        return projects

    async def get(self, project_id: str) -> Project:
        path = f"/api/projects/{project_id}/"
        return self._c._one(await self._c.request("GET", path), Project, "GET", path)


class SurveysApi:
    def __init__(self, client: ApiClient) -> None:
        self._c = client

    @property
    def base(self) -> str:
        return f"/api/projects/{self._c.project_id}/surveys/"

    async def list(self, limit: int | None = None, offset: int | None = None,
                   search: str | None = None, archived: bool | None = None) -> Page[Survey]:
        """One page; ``search`` and ``archived`` are the real service's filters (older servers ignore them).

        A search longer than the newest service takes (``SEARCH_MAX``) is cut there, as older servers cut it.
        """
        params: dict[str, Any] = {}
        if limit is not None:
            params["limit"] = limit
        if offset is not None:
            params["offset"] = offset
        if search:
            params["search"] = search[:SEARCH_MAX]
        if archived is not None:
            params["archived"] = "true" if archived else "false"
        return await self._c.get_page(self.base, Survey, params or None)

    async def iterate(self, page_size: int = 100) -> AsyncIterator[Page[Survey]]:
        async for page in self._c.iterate(self.base, Survey, {"limit": page_size, "offset": 0}):
            yield page

    async def get(self, survey_id: str) -> Survey:
        path = f"{self.base}{survey_id}/"
        return self._c._one(await self._c.request("GET", path), Survey, "GET", path)

    async def create(self, fields: Mapping[str, Any]) -> Survey:
        body = check_survey_write(fields, creating=True)
        data = await self._c.request("POST", self.base, json_body=body)
        return self._c._one(data, Survey, "POST", self.base)

    async def update(self, survey_id: str, changes: Mapping[str, Any],
                     existing: Mapping[str, Any] | None = None) -> Survey:
        """PATCH exactly the given fields; ``existing`` (the survey as stored) lets every rule be checked first."""
        body = check_survey_write(changes, existing=existing)
        path = f"{self.base}{survey_id}/"
        return self._c._one(await self._c.request("PATCH", path, json_body=body), Survey, "PATCH", path)

    async def delete(self, survey_id: str) -> None:
        await self._c.request("DELETE", f"{self.base}{survey_id}/")

    async def activity(self, survey_id: str | None = None, *, limit: int | None = None,
                       max_items: int = 500) -> builtins.list[ActivityEntry]:
        """Activity of one survey or of all, newest first, following ``next`` up to ``max_items``."""
        path = f"{self.base}{survey_id}/activity/" if survey_id else f"{self.base}activity/"
        params = {"limit": limit} if limit else None
        entries: builtins.list[ActivityEntry] = []
        async for page in self._c.iterate(path, ActivityEntry, params):
            entries.extend(page.results)
            if len(entries) >= max_items:
                return entries[:max_items]
        return entries

    async def summarize_responses(self, survey_id: str, question_index: int | None = None) -> ResponseSummary:
        path = f"{self.base}{survey_id}/summarize_responses/"
        params = {"question_index": question_index} if question_index is not None else None
        data = await self._c.request("POST", path, params=params, json_body={})
        if data is None or not isinstance(data, Mapping):
            return ResponseSummary(content=None if data is None else str(data))
        return self._c._one(data, ResponseSummary, "POST", path)

    async def stats(self, survey_id: str) -> SurveyStats:
        """Shown, dismissed and sent counts and rates (not every server has this endpoint: 404 there)."""
        path = f"{self.base}{survey_id}/stats/"
        return self._c._one(await self._c.request("GET", path), SurveyStats, "GET", path)

    async def responses_count(self) -> dict[str, int]:
        """Survey id -> count; a survey absent from the map has none."""
        data = await self._c.request("GET", f"{self.base}responses_count/")
        if not isinstance(data, Mapping):
            return {}
        return {str(k): int(v) for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


BACKFILL_FORMS = ("backfill/", "backfills/")  # the spec's, then the real service's


class BatchExportsApi:
    def __init__(self, client: ApiClient) -> None:
        self._c = client
        self.logs_refused: LogsUnavailable | None = None  # logs refused to this key: not asked again

    @property
    def base(self) -> str:
        return batch_exports_path(self._c.project_id)

    async def list(self, page_size: int = EXPORT_LIST_PAGE_SIZE, max_pages: int = 50) -> Page[BatchExport]:
        """Every export of the project (the real service's list endpoint; the spec has none)."""
        merged = Page[BatchExport]()
        async for page in self._c.iterate(self.base, BatchExport, {"limit": page_size}, max_pages=max_pages):
            merged.results.extend(page.results)
            merged.errors.extend(page.errors)
            merged.count = page.count
        return merged

    async def get(self, export_id: str) -> BatchExport:
        path = f"{self.base}{export_id}/"
        return self._c._one(await self._c.request("GET", path), BatchExport, "GET", path)

    async def update(self, export_id: str, changes: Mapping[str, Any]) -> BatchExport:
        body = check_export_write(changes)
        path = f"{self.base}{export_id}/"
        return self._c._one(await self._c.request("PATCH", path, json_body=body), BatchExport, "PATCH", path)

    async def delete(self, export_id: str) -> None:
        await self._c.request("DELETE", f"{self.base}{export_id}/")

    async def runs(self, export_id: str, *, after: datetime | str | None = None,
                   before: datetime | str | None = None, ordering: str | None = None,
                   status: Iterable[str] = (), next_url: str | None = None) -> Page[BatchExportRun]:
        """One page of runs (cursor pagination); pass ``next_url`` from a page to get the following one.

        ``status`` (repeatable) is the newest service's filter; a server without it answers every status,
        so callers keep only the statuses they asked for.
        """
        if next_url:
            path, query = self._c._follow(next_url)
            return await self._c.get_page(path, BatchExportRun, query)
        params: list[tuple[str, Any]] = []
        for key, value in (("after", after), ("before", before)):
            if value is not None:
                params.append((key, iso(value) if isinstance(value, datetime) else value))
        if ordering:
            params.append(("ordering", ordering))
        params.extend(("status", value) for value in status)
        return await self._c.get_page(f"{self.base}{export_id}/runs/", BatchExportRun, params or None)

    async def backfill(self, export_id: str, start_at: datetime | date, end_at: datetime | date) -> BackfillResult:
        """Spec's ``backfill/`` first; on 404/405 the real ``backfills/``; the form that worked is kept for the server.

        Dates (a day or week export's bounds) are what the newest service's ``backfills/`` takes, as
        ``YYYY-MM-DD``; ``backfill/`` (older servers only) wants datetimes with an offset, so there a date
        goes as midnight UTC, and so it does on ``backfills/`` once a server has called a date naive.
        A remembered form that stops answering (the server changed generation) is learned again; when no
        form answers, the error is the remembered form's (an export that is gone), else the last one's.
        """
        route = self._c.routes.backfill(self._c.base_url)
        known = route.path
        forms = [known, *(f for f in BACKFILL_FORMS if f != known)] if known else list(BACKFILL_FORMS)
        errors: builtins.list[ApiError] = []
        for form in forms:
            as_dates = form == "backfills/" and route.dates
            try:
                data = await self._post_bounds(f"{self.base}{export_id}/{form}", start_at, end_at, as_dates)
            except (NotFound, MethodNotAllowed) as err:
                errors.append(err)
                continue
            except ValidationFailed as err:
                if not (as_dates and _is_date_input(start_at) and "naive" in (err.detail or "")):
                    raise
                route.dates = False  # an older server: its backfills/ wants datetimes too
                data = await self._post_bounds(f"{self.base}{export_id}/{form}", start_at, end_at, False)
            route.path = form
            return self._backfill_result(data, f"{self.base}{export_id}/{form}")
        raise errors[0] if known else errors[-1]

    async def _post_bounds(self, path: str, start_at: datetime | date, end_at: datetime | date,
                           as_dates: bool) -> Any:
        body = {"start_at": _bound(start_at, as_dates), "end_at": _bound(end_at, as_dates)}
        return await self._c.request("POST", path, json_body=body)

    def _backfill_result(self, data: Any, path: str) -> BackfillResult:
        if isinstance(data, Mapping):
            result = self._c._one(data, BackfillResult, "POST", path)
            if result.backfill_id is None and isinstance(data.get("id"), str):
                result.backfill_id = data["id"]
            return result
        return BackfillResult()

    async def pause(self, export_id: str) -> PauseResult:
        path = f"{self.base}{export_id}/pause/"
        data = await self._c.request("POST", path, json_body={})
        return self._c._one(data, PauseResult, "POST", path) if data is not None else PauseResult(paused=True)

    async def unpause(self, export_id: str) -> PauseResult:
        path = f"{self.base}{export_id}/unpause/"
        data = await self._c.request("POST", path, json_body={})
        return self._c._one(data, PauseResult, "POST", path) if data is not None else PauseResult(paused=False)

    async def retry_run(self, export_id: str, run_id: str) -> BackfillResult:
        path = f"{self.base}{export_id}/runs/{run_id}/retry/"
        return self._backfill_result(await self._c.request("POST", path, json_body={}), path)

    async def backfills(self, export_id: str, *, next_url: str | None = None) -> Page[BatchExportBackfill]:
        """One page of the export's backfills, newest first (the real service's list; the spec has none)."""
        if next_url:
            path, query = self._c._follow(next_url)
            return await self._c.get_page(path, BatchExportBackfill, query)
        return await self._c.get_page(f"{self.base}{export_id}/backfills/", BatchExportBackfill)

    async def cancel_backfill(self, export_id: str, backfill_id: str) -> CancelResult:
        data = await self._c.request("POST", f"{self.base}{export_id}/backfills/{backfill_id}/cancel/", json_body={})
        return CancelResult.model_validate(data) if isinstance(data, Mapping) else CancelResult(cancelled=True)

    async def cancel_run(self, export_id: str, run_id: str) -> CancelResult:
        """Cancel a Running or Starting run (the real service answers 400 for any other status)."""
        data = await self._c.request("POST", f"{self.base}{export_id}/runs/{run_id}/cancel/", json_body={})
        return CancelResult.model_validate(data) if isinstance(data, Mapping) else CancelResult(cancelled=True)

    @staticmethod
    def _log_params(level: str | Iterable[str] | None, search: str | None, after: datetime | str | None,
                    before: datetime | str | None, limit: int | None) -> builtins.list[tuple[str, Any]]:
        params: builtins.list[tuple[str, Any]] = []
        levels = [level] if isinstance(level, str) else builtins.list(level or [])
        for name in levels:
            params.append(("level", name.upper()))
            if name.upper() == "WARN":  # Python writers emit WARNING
                params.append(("level", "WARNING"))
        if search:
            params.append(("search", search))
        for key, value in (("after", after), ("before", before)):
            if value is not None:
                params.append((key, iso(value) if isinstance(value, datetime) else value))
        if limit is not None:
            params.append(("limit", max(1, min(500, limit))))
        return params

    async def _logs(self, path: str, params: builtins.list[tuple[str, Any]]) -> builtins.list[LogEntry]:
        if self.logs_refused is not None:
            raise self.logs_refused  # said once by the server; asking again would only be refused again
        try:
            data = await self._c.request("GET", path, params=params or None)
        except LogsUnavailable as err:
            self.logs_refused = err
            raise
        raw = data.get("results") if isinstance(data, Mapping) else data
        if not isinstance(raw, list):
            raise BadResponse(f"Unexpected answer to GET {path}: no results list.", method="GET", path=path)
        entries, _ = parse_items(raw, LogEntry)
        return entries

    async def logs(self, export_id: str, level: str | Iterable[str] | None = None, search: str | None = None,
                   after: datetime | str | None = None, before: datetime | str | None = None,
                   limit: int | None = None) -> builtins.list[LogEntry]:
        """The export's log entries, newest first. Raises LogsUnavailable where keys may not read logs."""
        return await self._logs(f"{self.base}{export_id}/logs/", self._log_params(level, search, after, before, limit))

    async def run_logs(self, export_id: str, run_id: str, level: str | Iterable[str] | None = None,
                       search: str | None = None, after: datetime | str | None = None,
                       before: datetime | str | None = None, limit: int | None = None) -> builtins.list[LogEntry]:
        path = f"{self.base}{export_id}/runs/{run_id}/logs/"
        return await self._logs(path, self._log_params(level, search, after, before, limit))
