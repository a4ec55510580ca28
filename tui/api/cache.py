"""The shared response cache for reads: hishel on httpx, stored in SQLite (one host) or Redis (several).

Every watchdeck process that talks to the same base URL with the same key
finds the others' fresh GET answers here instead of asking the server again.
hishel does the caching (its ``AsyncCacheTransport`` under the client's httpx
client, its SQLite and Redis storages); this module adds what is particular to
watchdeck, around hishel's storage:

* **Keys.** Each GET carries its own cache key: an HMAC keyed with the API key
  of (base URL, the project's write generation, path, query). Answers never
  cross keys, and the key itself is never stored: the ``Authorization`` header
  is taken off the request before hishel writes it.
* **Trust.** Whoever can write to the store need not hold the API key. Each
  entry carries an HMAC (keyed from the API key) over its cache key, status,
  headers and body; an entry whose HMAC does not check, or that does not parse,
  is a miss, and the request goes to the server.
* **Writes.** A write bumps its project's *generation*, a counter in the same
  store that is part of every key of that project: the answers it made stale
  can no longer be found by any process of the same key sharing the store, and
  expire within their TTL (most of the poll interval). Another key's viewers
  see the write when their answers expire, as they see one made elsewhere.
* **One request for many viewers.** On a miss, the first process takes a short
  lease on the key; the others wait (briefly) for its answer instead of asking
  the server at the same moment.
* **Shared state.** Generations, leases, the request count and the viewers are
  signed entries, each writer's own (:mod:`tui.api.shared_state`): what fails the
  check or is out of range is ignored, never believed.
* **Age.** The time the answer arrived is stored with it, so a screen shows the
  age of the answer, not the age of the cache read.
* **Broken stores.** A store that fails (Redis down, SQLite locked, a corrupt
  file) is skipped for ``RETRY_BROKEN_SECONDS`` and every request goes to the
  server; :attr:`SharedCache.problem` says why, for the status line.

The same store also holds what the processes share to plan their polling: the
key's request count (per 10-second bucket) and who is watching (``viewers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import hashlib
import hmac
import logging
import os
import sqlite3
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
from hishel import AsyncBaseStorage, AsyncRedisStorage, AsyncSqliteStorage, Entry, Headers, Request, Response
from hishel.httpx import AsyncCacheClient

from tui.api.cache_context import CACHE_FILE_NAME, bypassing, digest, key_id, keyed_digest, note_answer_time
from tui.api.shared_state import SharedState, StateStore, derive_key
from tui.api.state_stores import SQLITE_SCHEMA, RedisStateStore, SqliteStateStore
from tui.api.urls import Params, query_key
from tui.secrets.private_files import private_dir

if TYPE_CHECKING:
    from redis.asyncio import Redis

#: hishel evicts the least recently used entries beyond this.
MAX_CACHE_BYTES = 32 * 1024 * 1024
#: A store that failed is not tried again for this long: every request goes to the server meanwhile. Short, since
#: a failure can be a moment's stall (a start-up holding the event loop past the timeout below), and a store that
#: is really gone costs one failed attempt per period, not one per request.
RETRY_BROKEN_SECONDS = 10.0
#: Longest a store operation may take before the request goes to the server instead.
STORE_TIMEOUT_SECONDS = 5.0
#: How long a process that missed may hold the key while it asks the server; the others wait at most this long.
LEASE_SECONDS = 5.0
LEASE_POLL_SECONDS = 0.05
#: A writer's generation entry is kept this long after its last write (the answers it made stale are long gone).
GENERATION_KEEP_SECONDS = 86400.0
#: No process writes more often than this in its life: a larger count in a generation entry is ignored.
MAX_GENERATION = 10**9
#: The keys whose shared state this process keeps (one, unless a test stands for several viewers).
STATES_KEPT = 16
RECEIVED_AT_HEADER = "x-watchdeck-received-at"
#: An answer serves other viewers until it is this share of the poll interval old. Viewers poll one interval
#: after the answer they showed was fetched, so they fall in step with the first one; with half an interval,
#: viewers half an interval apart would find the answer just expired as often as not and stay apart
#: (tests/cache/test_wall_screens.py). A viewer never reads its own last answer: it polls a whole interval on.
ANSWER_SHARE_OF_INTERVAL = 0.9
PRIVATE_REQUEST_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
MAC_HEADER = "x-watchdeck-mac"
#: Answers larger than this are not stored (hishel's own limit for a stored body).
MAX_ENTRY_BYTES = 10 * 1024 * 1024
#: Cache keys this process asked for, with the secret their entries are checked with (the newest kept).
SECRETS_KEPT = 4096

_log = logging.getLogger("hishel")


def project_scope(base_url: str, path: str) -> str:
    """What a write to ``path`` makes stale: everything of its project (or, outside a project, everything)."""
    parts = [p for p in path.split("/") if p]
    project = parts[2] if len(parts) > 2 and parts[0] == "api" and parts[1] in ("projects", "environments") else "*"
    return digest("scope", base_url.rstrip("/"), project)[:32]


class _StoreFailureLog(logging.Handler):
    """hishel logs a failing storage and carries on; this tells the cache, so the status line can say so."""

    def __init__(self, cache: SharedCache) -> None:
        super().__init__(logging.ERROR)
        self._cache = cache

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        self._cache.failed(error if isinstance(error, BaseException) else RuntimeError(record.getMessage()))


def describe_store_failure(error: BaseException, kind: str) -> str:
    """A few words on why the store cannot be used (never a URL: it may hold a password)."""
    text = str(error).lower()
    if kind == "redis":
        if "timeout" in text or isinstance(error, TimeoutError):
            return "Redis does not answer"
        return "Redis unreachable" if "connect" in text or "refused" in text or "closed" in text else "Redis failed"
    if "not a database" in text or "malformed" in text or "can't use" in text or "1.x" in text:
        return "cache file unreadable"
    if "locked" in text or "busy" in text or isinstance(error, TimeoutError):
        return "cache file locked"
    return "cache file failed"


class GuardedStorage(AsyncBaseStorage):
    """hishel's storage, with the key kept out, the arrival time kept in, one asker per miss, and a breaker."""

    def __init__(self, inner: AsyncBaseStorage, cache: SharedCache) -> None:
        super().__init__()
        self._inner = inner
        self._cache = cache

    async def create_entry(self, request: Request, response: Response, key: str, *,
                           ttl: float | None = None, tti: float | None = None) -> Entry:
        public = Headers({k: v for k, v in header_lists(request.headers).items() if k not in PRIVATE_REQUEST_HEADERS})
        stamped = Headers({k: v for k, v in header_lists(response.headers).items() if k != MAC_HEADER})
        stamped[RECEIVED_AT_HEADER] = f"{self._cache.wall():.3f}"
        response = replace(response, headers=stamped)
        secret = self._cache.secret_for(key)
        if not self._cache.usable or secret is None:
            return Entry(id=uuid.uuid4(), request=request, response=response)
        body, rest = await _read_at_most(response.stream, MAX_ENTRY_BYTES)
        if rest is not None:  # too large to store: the caller reads it whole all the same
            return Entry(id=uuid.uuid4(), request=request, response=replace(response, stream=_chain(body, rest)))
        stamped[MAC_HEADER] = entry_mac(secret, key, response.status_code, stamped, body)
        response = replace(response, headers=stamped, stream=_once(body))
        try:
            return await asyncio.wait_for(
                self._inner.create_entry(replace(request, headers=public), response, key, ttl=ttl, tti=tti),
                STORE_TIMEOUT_SECONDS)
        except Exception as error:
            self._cache.failed(error)
            return Entry(id=uuid.uuid4(), request=request, response=replace(response, stream=_once(body)))

    async def get_entries(self, key: str) -> list[Entry]:
        if not self._cache.usable:
            return []
        try:
            entries = await self._lookup(key)
        except Exception as error:
            self._cache.failed(error)
            return []
        self._cache.worked()
        return entries

    async def _lookup(self, key: str) -> list[Entry]:
        entries = await self._newest_first(key)
        if bypassing():
            for entry in entries:
                await self._inner.remove_entry(entry.id)
            return []
        if entries:
            return entries
        state = self._cache.state_of(key)
        if state is None:
            return []
        lease = lease_slot(key)
        if await asyncio.wait_for(state.take(lease, LEASE_SECONDS), STORE_TIMEOUT_SECONDS):
            # Read again: another viewer may have stored its answer and let go of the lease since the read above.
            entries = await self._newest_first(key)
            if entries:
                await asyncio.wait_for(state.release(lease), STORE_TIMEOUT_SECONDS)
                return entries
            self._cache.leases.add(key)
            return []  # ours to ask; the others wait for the answer
        deadline = time.monotonic() + LEASE_SECONDS
        while time.monotonic() < deadline:
            await asyncio.sleep(LEASE_POLL_SECONDS)
            # The lease first, then the entries: a holder stores its answer before it lets go, so entries read
            # after a lease found gone include that answer (read the other way round, an answer stored between the
            # two reads would be missed, and this viewer would ask the server too).
            held = await state.held(lease)
            entries = await self._newest_first(key)
            if entries or not held:
                return entries
        return []

    async def _newest_first(self, key: str) -> list[Entry]:
        """The entries young enough for this viewer, newest first (another viewer may poll less often).

        Only entries whose HMAC checks: one written by someone without the API key is not there.
        """
        entries = await asyncio.wait_for(self._authentic(key), STORE_TIMEOUT_SECONDS)
        oldest = self._cache.wall() - self._cache.ttl
        dated = [(received_at(e.response.headers.get(RECEIVED_AT_HEADER)) or 0.0, e) for e in entries]
        return [e for when, e in sorted(dated, key=lambda d: d[0], reverse=True) if when >= oldest]

    async def _authentic(self, key: str) -> list[Entry]:
        """The stored entries of ``key`` whose HMAC checks, each with its body read (and so checked) whole."""
        secret = self._cache.secret_for(key)
        if secret is None:
            return []
        found = []
        for entry in await self._inner.get_entries(key):
            response = entry.response
            try:
                body, rest = await _read_at_most(response.stream, MAX_ENTRY_BYTES)
                mac = response.headers.get(MAC_HEADER)
                headers = Headers({k: v for k, v in header_lists(response.headers).items() if k != MAC_HEADER})
                valid = (rest is None and isinstance(mac, str)
                         and hmac.compare_digest(mac, entry_mac(secret, key, response.status_code, headers, body)))
            except (TypeError, ValueError, AttributeError, UnicodeError):
                valid = False
            if valid:
                found.append(replace(entry, response=replace(response, stream=_once(body))))
        return found

    async def update_headers(self, id: uuid.UUID, headers: Headers) -> None:
        """Headers are part of an entry's HMAC: one revalidated is dropped instead, and asked for again."""
        if self._cache.usable:
            await self._inner.remove_entry(id)

    async def remove_entry(self, id: uuid.UUID) -> None:
        if self._cache.usable:
            await self._inner.remove_entry(id)

    async def close(self) -> None:
        await self._inner.close()


def lease_slot(key: str) -> str:
    return f"lease:{key}"


def generation_slot(scope: str) -> str:
    return f"gen:{scope}"


def header_lists(headers: Headers) -> dict[str, list[str]]:
    """Every header with all its values, in order (hishel's public reading of what it keeps per name)."""
    return {name: headers.get_list(name) or [] for name in headers}


def entry_mac(secret: bytes, key: str, status: int, headers: Headers, body: bytes) -> str:
    """The HMAC of one stored answer: its cache key, status, every header (in order) and body."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    for part in (key, str(status), *(f"{k}\x1e{v}" for k, v in header_lists(headers).items())):
        mac.update(part.encode("utf-8", "surrogateescape") + b"\x1f")
    mac.update(body)
    return mac.hexdigest()


async def _read_at_most(stream: Any, limit: int) -> tuple[bytes, AsyncIterator[bytes] | None]:
    """The body of ``stream`` up to ``limit`` bytes, and the rest of the stream when there is more (else None)."""
    body = bytearray()
    if stream is None:
        return b"", None
    iterator = aiter(stream)
    async for chunk in iterator:
        body += chunk
        if len(body) > limit:
            return bytes(body), iterator
    return bytes(body), None


async def _once(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _chain(head: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield head
    async for chunk in rest:
        yield chunk


def received_at(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


class SharedCache:
    """One store shared by the processes of this host (SQLite) or of several hosts (Redis)."""

    def __init__(self, storage: AsyncBaseStorage, store: StateStore, kind: str, where: str, *,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self.kind = kind  # "sqlite" or "redis"
        self.where = where  # the file, or the Redis host:port (never its password)
        self.store = store  # the shared state's entries (generations, leases, counts, viewers)
        self.writer = uuid.uuid4().hex  # this process, as a writer of shared state
        self.storage = GuardedStorage(storage, self)
        self.ttl = 10.0 * ANSWER_SHARE_OF_INTERVAL
        self.problem: str | None = None
        self.leases: set[str] = set()
        self._states: OrderedDict[str, tuple[bytes, SharedState]] = OrderedDict()
        self._secrets: OrderedDict[str, tuple[bytes, SharedState]] = OrderedDict()
        self._clock = clock
        self.wall = wall  # this host's wall clock, in seconds: when an answer arrived, how old a stored one is
        self._broken_until = 0.0
        self._unsent = 0
        self._failure_log = _StoreFailureLog(self)
        _log.addHandler(self._failure_log)
        _log.propagate = False  # hishel's tracebacks never reach the terminal

    def __repr__(self) -> str:
        return f"SharedCache({self.kind}, {self.where!r})"

    # ------------------------------------------------------------------ health

    @property
    def usable(self) -> bool:
        return self._clock() >= self._broken_until

    def failed(self, error: BaseException) -> None:
        """The store failed: ask the server for ``RETRY_BROKEN_SECONDS``, then try the store again."""
        self.problem = describe_store_failure(error, self.kind)
        self._broken_until = self._clock() + RETRY_BROKEN_SECONDS

    def worked(self) -> None:
        """A store operation went through (hishel logs and swallows its own failures: those mark it broken first)."""
        if self.usable:
            self.problem = None

    async def guarded(self, operation: Any, default: Any = None) -> Any:
        """Run one shared-state call; a failure marks the store broken and returns ``default``."""
        if not self.usable:
            operation.close()
            return default
        try:
            result = await asyncio.wait_for(operation, STORE_TIMEOUT_SECONDS)
        except Exception as error:
            self.failed(error)
            return default
        self.worked()
        return result

    # ------------------------------------------------------------------ the client's side

    def http_client(self, **options: Any) -> httpx.AsyncClient:
        """An httpx client whose transport answers GETs from this store (hishel's client)."""
        return AsyncCacheClient(storage=self.storage, **options)

    async def extensions(self, base_url: str, api_key: str, path: str, params: Params) -> dict[str, Any]:
        """The per-request cache settings of one GET: its key (never the API key itself) and TTL."""
        secret, state = self._key_state(base_url, api_key)
        generation = await self.guarded(
            state.total([generation_slot(project_scope(base_url, path))], most=MAX_GENERATION), 0)
        query = "&".join(f"{k}={v}" for k, v in query_key(params))
        key = keyed_digest(api_key, "answer", base_url.rstrip("/"), str(generation), path, query)
        self._secrets[key] = (secret, state)
        self._secrets.move_to_end(key)
        while len(self._secrets) > SECRETS_KEPT:
            self._secrets.popitem(last=False)
        return {"caching": {"key": key, "ttl": self.ttl}}

    def _key_state(self, base_url: str, api_key: str) -> tuple[bytes, SharedState]:
        """The answers' HMAC key and the shared state of one (server, key) pair, both derived once."""
        owner = key_id(base_url, api_key)
        found = self._states.get(owner)
        if found is None:
            found = (derive_key(api_key, "answers"), SharedState(self.store, api_key, owner, self.writer))
            self._states[owner] = found
            while len(self._states) > STATES_KEPT:
                self._states.popitem(last=False)
        return found

    def state(self, base_url: str, api_key: str) -> SharedState:
        """The shared state of one (server, key) pair: signed with a key derived from ``api_key``."""
        return self._key_state(base_url, api_key)[1]

    def secret_for(self, key: str) -> bytes | None:
        """The HMAC key for entries of cache key ``key`` (derived from the API key that asked), if we asked."""
        found = self._secrets.get(key)
        return found[0] if found else None

    def state_of(self, key: str) -> SharedState | None:
        """The shared state of the key that asked for cache key ``key``, if we asked."""
        found = self._secrets.get(key)
        return found[1] if found else None

    async def answered(self, request_key: str | None, response: httpx.Response | None) -> None:
        """After a request: count it if the server saw it, note its answer's age, let waiting viewers in."""
        status = response.extensions.get("caching") if response is not None else None
        from_cache = bool(status and status.get("from_cache"))
        if not from_cache:
            self._unsent += 1
        stamp = received_at(response.headers.get(RECEIVED_AT_HEADER)) if response is not None else None
        note_answer_time(stamp if from_cache and stamp is not None else self.wall())
        if request_key is not None and request_key in self.leases:
            self.leases.discard(request_key)
            state = self.state_of(request_key)
            if state is not None:
                await self.guarded(state.release(lease_slot(request_key)))

    async def after_write(self, base_url: str, api_key: str, path: str) -> None:
        """A write went out: the answers about its project of every process of this key are stale from now on."""
        slot = generation_slot(project_scope(base_url, path))
        await self.guarded(self.state(base_url, api_key).add(slot, 1, keep=GENERATION_KEEP_SECONDS))

    def poll_interval_is(self, seconds: float) -> None:
        """Answers stored from now on serve others (and are accepted from others) for most of this interval."""
        self.ttl = seconds * ANSWER_SHARE_OF_INTERVAL

    def date_as_of_now(self, response: httpx.Response) -> str | None:
        """The server's Date for this moment: a cached answer's Date moved on by the answer's age.

        A cached answer carries the Date of when another viewer fetched it; read as "now" it made the
        server's clock look behind by up to most of a poll interval. Moved on by the time since it
        arrived (stamped by this host's clock when stored), it dates the server's clock again, so every
        viewer sharing the answers keeps the same estimate (and asks the same URLs).
        """
        date = response.headers.get("date")
        status = response.extensions.get("caching")
        if not date or not (status and status.get("from_cache")):
            return date
        stamp = received_at(response.headers.get(RECEIVED_AT_HEADER))
        try:
            when = email.utils.parsedate_to_datetime(date)
        except (TypeError, ValueError):
            return None
        if stamp is None or when.tzinfo is None:
            return None
        return email.utils.format_datetime(when + timedelta(seconds=max(0.0, self.wall() - stamp)), usegmt=True)

    def sent_elsewhere(self, requests: int) -> None:
        """Requests this process sent for its first poll before the store was open (tui.cli.startup): counted too."""
        self._unsent += requests

    def take_sent(self) -> int:
        """Requests this process sent to the server since the last call (for the shared count)."""
        sent, self._unsent = self._unsent, 0
        return sent

    async def aclose(self) -> None:
        _log.removeHandler(self._failure_log)
        with contextlib.suppress(Exception):
            await self.storage.close()
        with contextlib.suppress(Exception):
            await self.store.close()


HISHEL_GITIGNORE = ".gitignore"
"""hishel's SQLite storage writes this into the store's folder when it is missing, with the umask's mode (0644)."""
HISHEL_GITIGNORE_TEXT = "# Automatically created by Hishel\n*"


def _private_file(path: Path) -> None:
    """The store holds answers only this user may read: its folders 0700, its files 0600, made so before use.

    Every folder made on the way is 0700 (``mkdir(parents=True)`` gives the parents the umask's 0755). The
    ``.gitignore`` hishel keeps next to the store is made here, 0600, with hishel's text: hishel leaves a file
    that is there alone.
    """
    private_dir(path.parent)
    for name, text in ((path.name, None), (HISHEL_GITIGNORE, HISHEL_GITIGNORE_TEXT)):
        file = path.parent / name
        fd = os.open(file, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            if text is not None and os.fstat(fd).st_size == 0:
                os.write(fd, text.encode())
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.chmod(file, 0o600)


def _prepare_sqlite(path: Path, patience: float = 10.0) -> None:
    """Switch a new file to WAL and make the tables, once, before any request waits on it.

    Several dashboards started together would otherwise all do it on their first
    request and fight over the lock it needs (SQLite does not wait for that one),
    each giving up on the cache. A file that is corrupt raises here: the caller
    then starts with the store marked broken.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            with contextlib.closing(sqlite3.connect(path, timeout=patience, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode=WAL")
                for statement in SQLITE_SCHEMA:
                    db.execute(statement)
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def open_sqlite_cache(directory: Path) -> SharedCache:
    """The store in ``directory`` (the caller's: this layer is given its paths)."""
    path = directory / CACHE_FILE_NAME
    storage: AsyncBaseStorage
    storage = AsyncSqliteStorage(database_path=path, max_size=MAX_CACHE_BYTES, soft_delete_ttl=60)
    cache = SharedCache(storage, SqliteStateStore(path, STORE_TIMEOUT_SECONDS), "sqlite", str(path))
    try:
        _private_file(path)
        _prepare_sqlite(path)
    except (OSError, sqlite3.Error) as error:
        cache.failed(error)
    return cache


def redis_location(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}"


#: What an operator reads when ``--cache-url redis://…`` meets an install without the optional package.
REDIS_NOT_INSTALLED = "the redis package is not installed: pip install 'watchdeck[redis]'"


class CacheUnavailable(Exception):
    """The store asked for cannot be opened at all (not a failing store: one this install cannot speak to)."""


def open_redis_cache(url: str) -> SharedCache:
    """Redis through hishel's storage; :class:`CacheUnavailable` when the optional ``redis`` package is missing."""
    try:
        from redis.asyncio import Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:
        raise CacheUnavailable(REDIS_NOT_INSTALLED) from None

    # One quick retry: a pooled connection to a server that restarted fails once before a new one is made.
    client: Redis = Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=STORE_TIMEOUT_SECONDS,
                                   retry=Retry(NoBackoff(), 1), retry_on_error=[RedisConnectionError])
    storage = AsyncRedisStorage(client, key_prefix="watchdeck:answers", default_ttl=60, soft_delete_ttl=60)
    return SharedCache(storage, RedisStateStore(client, "watchdeck:state"), "redis", redis_location(url))


def open_shared_cache(url: str | None, directory: Path) -> SharedCache:
    """SQLite in ``directory`` (the user cache dir), or Redis when ``url`` says ``redis://`` (``rediss://`` for TLS)."""
    if url:
        return open_redis_cache(url)
    return open_sqlite_cache(directory)
