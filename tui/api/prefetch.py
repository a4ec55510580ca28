"""The monitor's first poll, sent on a thread while the dashboard is still loading.

Start-up is about 0.4 s of imports, styles and mounting on one core, and the
server needs about as long again to list 200 exports (two pages). Sent by the
first poll, that answer arrived after the first frame, so the data came second;
sent here, before Textual is imported, it arrives while Textual loads, on the
other core of the machine or of the network. Measured in tests/benchmarks (1.).

The rules stay with the client. This module only keeps answers: a 200 with a
JSON body, each page once, for ``max_age`` seconds. Anything else (an error
status, a redirect, a timeout, a proxy configured in the environment, a bad
certificate) is dropped without a word and the client sends the request itself,
with its own retries, error messages and Retry-After handling. The key goes only
to the configured host (links are re-based as the client does; redirects are not
followed). stdlib only: importing httpx first would cost what this saves.
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import Any
from urllib.parse import urlencode, urlsplit

from tui import __version__
from tui.api.urls import EXPORT_LIST_PAGE_SIZE, Params, QueryKey, batch_exports_path, follow_next, query_key

#: httpx would send through these (trust_env); a request that bypassed them could reach a host the proxy guards.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
MAX_PROJECTS = 8
MAX_PAGES = 50


class Prefetch:
    """GET one path (and the pages its ``next`` links name) on a daemon thread; hand each answer out once."""

    def __init__(self, base_url: str, api_key: str, path: str, params: Params = None, *, timeout: float = 10.0,
                 max_age: float = 10.0, max_pages: int = MAX_PAGES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._path = path
        self._params = [(str(k), str(v)) for k, v in (params.items() if isinstance(params, Mapping) else params or [])]
        self._timeout = timeout
        self._max_age = max_age
        self._max_pages = max_pages
        self._clock = clock
        self._lock = threading.Lock()
        self._pages: dict[tuple[str, QueryKey], Future[tuple[Any, float] | None]] = {}
        self._finished = threading.Event()
        self.sent = 0

    def __repr__(self) -> str:  # never the key
        return f"Prefetch(host={urlsplit(self.base_url).hostname!r}, path={self._path!r})"

    # ------------------------------------------------------------------ the client's side

    def claim(self, path: str, params: Params) -> Future[tuple[Any, float] | None] | None:
        """The answer to this GET if it was (or is being) fetched here; each answer is handed out once."""
        with self._lock:
            return self._pages.pop((path, query_key(params)), None)

    @property
    def done(self) -> bool:
        """The thread has finished (every page in, or given up)."""
        return self._finished.is_set()

    def ready(self) -> bool:
        """Every page is in (or the prefetch gave up) and an answer is still waiting to be claimed."""
        if not self._finished.is_set():
            return False
        with self._lock:
            return any(future.result() is not None for future in self._pages.values())

    def fresh(self, answer: tuple[Any, float] | None) -> Any | None:
        """The parsed body of a claimed answer, or None when there is none or it is too old to show."""
        if answer is None:
            return None
        data, received_at = answer
        return data if self._clock() - received_at <= self._max_age else None

    # ------------------------------------------------------------------ the thread's side

    def start(self) -> Prefetch:
        first = self._expect(self._path, self._params)
        threading.Thread(target=self._run, args=(first,), name="watchdeck-prefetch", daemon=True).start()
        return self

    def _expect(self, path: str, params: Iterable[tuple[str, str]]) -> Future[tuple[Any, float] | None]:
        future: Future[tuple[Any, float] | None] = Future()
        with self._lock:
            self._pages[(path, query_key(list(params)))] = future
        return future

    def _run(self, first: Future[tuple[Any, float] | None]) -> None:
        pending = [first]
        connection: http.client.HTTPConnection | None = None
        try:
            connection = self._connect()
            path, params = self._path, self._params
            for _ in range(self._max_pages):
                current = pending[0]
                data = self._get(connection, path, params)
                if data is None:
                    return
                next_url = data.get("next") if isinstance(data, dict) else None
                if isinstance(next_url, str) and next_url:
                    # Announced before this page is handed out, so the client waits for it instead of asking.
                    path, params = follow_next(self.base_url, next_url)
                    pending.append(self._expect(path, params))
                pending.remove(current)
                current.set_result((data, self._clock()))
                if not pending:
                    return
        except Exception:  # a prefetch that fails is simply not used: the client asks itself
            pass
        finally:
            for future in pending:
                if not future.done():
                    future.set_result(None)
            if connection is not None:
                connection.close()
            self._finished.set()

    def _connect(self) -> http.client.HTTPConnection:
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if parts.scheme == "https":
            return http.client.HTTPSConnection(host, parts.port, timeout=self._timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(host, parts.port, timeout=self._timeout)

    def _get(self, connection: http.client.HTTPConnection, path: str, params: list[tuple[str, str]]) -> Any | None:
        target = urlsplit(self.base_url).path.rstrip("/") + path + (f"?{urlencode(params)}" if params else "")
        self.sent += 1
        connection.request("GET", target, headers={
            "User-Agent": f"watchdeck/{__version__}",
            "Accept": "application/json",
            "Authorization": f"Bearer {self._api_key}",
        })
        response = connection.getresponse()
        body = response.read()
        if response.status != 200 or "json" not in (response.getheader("content-type") or ""):
            return None
        try:
            return json.loads(body)
        except ValueError:
            return None


def prefetch_export_lists(base_url: str, api_key: str, project_ids: Iterable[str],
                          env: dict[str, str] | None = None) -> dict[str, Prefetch]:
    """Start the first page of each watched project's export list; {} when it should not be tried."""
    environment = os.environ if env is None else env
    if any(environment.get(name) or environment.get(name.upper()) for name in PROXY_VARIABLES):
        return {}
    if not api_key or any(not 0x20 < ord(ch) < 0x7F for ch in api_key):
        return {}  # the client explains a missing or unsendable key; nothing to fetch with it
    if urlsplit(base_url).scheme not in ("http", "https"):
        return {}
    started: dict[str, Prefetch] = {}
    for project_id in list(dict.fromkeys(project_ids))[:MAX_PROJECTS]:
        started[project_id] = Prefetch(base_url, api_key, batch_exports_path(project_id),
                                       [("limit", str(EXPORT_LIST_PAGE_SIZE))]).start()
    return started
