"""The light half of the shared cache (stdlib only): what callers set around requests, and who else is watching.

Importing hishel and its storages costs start-up time the dashboard need not pay
before its first frame, nor at all with ``--no-cache``; the screens and the
start-up path only need these.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import sqlite3
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

CACHE_FILE_NAME = "responses.db"

_bypass: ContextVar[bool] = ContextVar("watchdeck_cache_bypass", default=False)
_answer_times: ContextVar[list[float] | None] = ContextVar("watchdeck_answer_times", default=None)


@contextlib.contextmanager
def bypass_cache() -> Iterator[None]:
    """Requests made inside ask the server (``ctrl+r``); their answers replace the stored ones for everyone."""
    token = _bypass.set(True)
    try:
        yield
    finally:
        _bypass.reset(token)


def bypassing() -> bool:
    return _bypass.get()


@contextlib.contextmanager
def collect_answer_times() -> Iterator[list[float]]:
    """Wall-clock times at which the answers to the requests made inside arrived from the server.

    An answer read from the shared cache arrived when the viewer that asked for
    it got it, so a screen can show the age of its data rather than of the read.
    """
    times: list[float] = []
    token = _answer_times.set(times)
    try:
        yield times
    finally:
        _answer_times.reset(token)


def note_answer_time(received_at: float) -> None:
    times = _answer_times.get()
    if times is not None:
        times.append(received_at)


def digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def keyed_digest(secret: str, *parts: str) -> str:
    """An HMAC-SHA256 of ``parts`` keyed with ``secret``: the store's names say nothing of the key they came from.

    It is one fast hash: whoever reads the store can test a guessed key with one HMAC (the parts are no secret).
    That is enough for personal API keys, long random strings no one can guess; it would not be for a password.
    """
    return hmac.new(secret.encode(), "\x1f".join(parts).encode(), hashlib.sha256).hexdigest()


def key_id(base_url: str, api_key: str) -> str:
    """Names one (server, key) pair in the store; the key cannot be recovered from it (a guess costs one HMAC)."""
    return keyed_digest(api_key, "key", base_url.rstrip("/"))[:32]


def others_watching(directory: Path, base_url: str, api_key: str) -> bool:
    """Whether another live viewer of this key uses the SQLite store (read without hishel: start-up path).

    Unknown (no file yet, unreadable, locked) counts as no; so does an entry that does not check
    (:mod:`tui.api.shared_state`).
    """
    from tui.api.shared_state import (
        MAX_VIEWER_LAPSE_SECONDS,
        MAX_WRITERS,
        VIEWERS_SLOT,
        checked,
        derive_key,
        plausible_until,
    )
    from tui.api.state_stores import read_sqlite_slot

    path = directory / CACHE_FILE_NAME
    if not path.is_file():
        return False
    name = f"{key_id(base_url, api_key)}:{VIEWERS_SLOT}"  # as tui.api.shared_state.SharedState names it
    now = time.time()
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.05)) as db:
            stored = read_sqlite_slot(db, name, MAX_WRITERS, now)
    except sqlite3.Error:
        return False
    if stored is None:
        return False
    viewers, _ = checked(derive_key(api_key, "state"), name, stored, plausible_until(now, MAX_VIEWER_LAPSE_SECONDS))
    return any(isinstance(until, int | float) and until >= now for until in viewers.values())
