"""Where the signed shared state (:mod:`tui.api.shared_state`) lives: a table of the cache's SQLite file, or Redis.

Both keep opaque entries: a *slot* of entries by field (one per writer), or a
single entry (a lease). Neither checks or trusts what it holds; that is the
signed layer's job. Standard library only (Redis is imported by its caller).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis.asyncio import Redis

#: The field of a single entry in the SQLite table (slots' fields are writer ids, never empty).
SINGLE = ""
SQLITE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS watchdeck_state (name TEXT NOT NULL, field TEXT NOT NULL, blob BLOB NOT NULL, "
    "until REAL NOT NULL, PRIMARY KEY (name, field))",
)


def read_sqlite_slot(db: sqlite3.Connection, name: str, most: int, now: float) -> dict[str, bytes] | None:
    """One slot's entries by field (None past ``most``), read with the caller's connection (start-up reads too)."""
    rows = db.execute("SELECT field, blob FROM watchdeck_state WHERE name = ? AND field != ? AND until >= ? "
                      "LIMIT ?", (name, SINGLE, now, most + 1)).fetchall()
    if len(rows) > most:
        return None
    return {str(field): _blob(blob) for field, blob in rows}


class SqliteStateStore:
    """The entries as rows of the cache's own SQLite file, on a worker thread (never the event loop)."""

    def __init__(self, path: Path, timeout: float) -> None:
        self._path = path
        self._timeout = timeout
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            connection = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None,
                                         check_same_thread=False)
            try:
                for statement in SQLITE_SCHEMA:
                    connection.execute(statement)
            except sqlite3.Error:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    async def _run(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        def locked() -> Any:
            with self._lock:
                return work(self._db())

        return await asyncio.to_thread(locked)

    async def write(self, name: str, field: str, blob: bytes, keep: float) -> None:
        def write(db: sqlite3.Connection) -> None:
            now = time.time()
            db.execute("DELETE FROM watchdeck_state WHERE until < ?", (now,))
            db.execute("INSERT OR REPLACE INTO watchdeck_state VALUES (?, ?, ?, ?)", (name, field, blob, now + keep))

        await self._run(write)

    async def read(self, names: Sequence[str], most: int) -> list[dict[str, bytes] | None]:
        found: list[dict[str, bytes] | None] = await self._run(
            lambda db: [read_sqlite_slot(db, name, most, time.time()) for name in names])
        return found

    async def erase(self, name: str, fields: Sequence[str]) -> None:
        await self._run(lambda db: db.executemany("DELETE FROM watchdeck_state WHERE name = ? AND field = ?",
                                                  [(name, field) for field in fields]))

    async def claim(self, name: str, blob: bytes, keep: float) -> bool:
        def claim(db: sqlite3.Connection) -> bool:
            now = time.time()
            db.execute("DELETE FROM watchdeck_state WHERE name = ? AND field = ? AND until < ?", (name, SINGLE, now))
            cursor = db.execute("INSERT OR IGNORE INTO watchdeck_state VALUES (?, ?, ?, ?)",
                                (name, SINGLE, blob, now + keep))
            return cursor.rowcount == 1

        claimed: bool = await self._run(claim)
        return claimed

    async def peek(self, name: str) -> bytes | None:
        row = await self._run(lambda db: db.execute(
            "SELECT blob FROM watchdeck_state WHERE name = ? AND field = ? AND until >= ?",
            (name, SINGLE, time.time())).fetchone())
        return None if row is None else _blob(row[0])

    async def clear(self, name: str) -> None:
        await self._run(lambda db: db.execute("DELETE FROM watchdeck_state WHERE name = ? AND field = ?",
                                              (name, SINGLE)))

    async def close(self) -> None:
        def close() -> None:
            with self._lock:
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None

        await asyncio.to_thread(close)


def _wrong_type(error: BaseException) -> bool:
    """Redis refused a command for the kind of value at the key: someone put something else there."""
    return "WRONGTYPE" in str(error)


class RedisStateStore:
    """A slot is a Redis hash (field: entry), a single entry a string; every key under one prefix, with a TTL.

    A key holding another kind of value than ours (someone else wrote it) reads as a
    damaged entry, and is replaced when this process writes there: never a store failure.
    """

    def __init__(self, client: Redis, prefix: str) -> None:
        self._r = client
        self._prefix = prefix

    def _k(self, name: str) -> str:
        return f"{self._prefix}:{name}"

    async def write(self, name: str, field: str, blob: bytes, keep: float) -> None:
        key = self._k(name)
        for attempt in (1, 2):
            try:
                async with self._r.pipeline(transaction=True) as pipe:
                    pipe.hset(key, field, blob)
                    pipe.pexpire(key, max(1, int(keep * 1000)))
                    await pipe.execute()
                return
            except Exception as error:
                if attempt == 2 or not _wrong_type(error):
                    raise
                await self._r.delete(key)

    async def read(self, names: Sequence[str], most: int) -> list[dict[str, bytes] | None]:
        keys = [self._k(name) for name in names]
        if not keys:
            return []
        async with self._r.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.hlen(key)
            sizes = await pipe.execute(raise_on_error=False)
        readable = [key for key, size in zip(keys, sizes, strict=True) if isinstance(size, int) and size <= most]
        async with self._r.pipeline(transaction=False) as pipe:
            for key in readable:
                pipe.hgetall(key)
            contents = dict(zip(readable, await pipe.execute(raise_on_error=False) if readable else [], strict=True))
        found: list[dict[str, bytes] | None] = []
        for key in keys:
            content = contents.get(key)
            if not isinstance(content, dict) or len(content) > most:
                found.append(None)
                continue
            found.append({_text(field): _blob(blob) for field, blob in content.items()})
        return found

    async def erase(self, name: str, fields: Sequence[str]) -> None:
        if not fields:
            return
        try:
            await self._r.hdel(self._k(name), *fields)
        except Exception as error:
            if not _wrong_type(error):  # else nothing of ours is there: another kind of value is
                raise

    async def claim(self, name: str, blob: bytes, keep: float) -> bool:
        return bool(await self._r.set(self._k(name), blob, nx=True, px=max(1, int(keep * 1000))))

    async def peek(self, name: str) -> bytes | None:
        try:
            value = await self._r.get(self._k(name))
        except Exception as error:
            if not _wrong_type(error):
                raise
            return b"?"  # something that is not an entry: read as a damaged one
        return None if value is None else _blob(value)

    async def clear(self, name: str) -> None:
        await self._r.delete(self._k(name))

    async def close(self) -> None:
        await self._r.aclose()


def _blob(value: object) -> bytes:
    """What the store holds, as bytes; anything else (a number, text) as bytes that never check."""
    return bytes(value) if isinstance(value, bytes | bytearray | memoryview) else b"?"


def _text(field: object) -> str:
    return field.decode("utf-8", "surrogateescape") if isinstance(field, bytes) else str(field)
