"""The signed shared state's scheme (tui/api/shared_state.py), on the SQLite store; tests/cache/test_redis.py
writes forged entries into a real Redis."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from tui.api.cache import open_sqlite_cache
from tui.api.cache_context import CACHE_FILE_NAME, key_id, others_watching
from tui.api.shared_state import UNSEALED, VIEWERS_SLOT, derive_key, hkdf_sha256, seal, unseal

BASE, KEY = "https://eu.posthog.com", "phx_the_key"


def test_the_key_derivation_is_hkdf_sha256() -> None:
    """RFC 5869's first test case (its output's first 32 bytes)."""
    okm = hkdf_sha256(bytes([0x0B] * 22), bytes(range(0x0D)), bytes(range(0xF0, 0xFA)))
    assert okm.hex() == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
    assert derive_key(KEY, "state") != derive_key(KEY, "answers") != derive_key("phx_other", "answers")
    assert KEY.encode() not in derive_key(KEY, "state")


def test_an_entry_checks_only_in_its_own_slot_under_its_own_writer_and_key() -> None:
    key = derive_key(KEY, "state")
    entry = seal(key, "owner:requests:1", "writer-a", 12)
    assert unseal(key, "owner:requests:1", "writer-a", entry) == 12
    assert unseal(key, "owner:requests:2", "writer-a", entry) is UNSEALED  # moved to another slot
    assert unseal(key, "owner:requests:1", "writer-b", entry) is UNSEALED  # passed off as another writer's
    assert unseal(derive_key("phx_other", "state"), "owner:requests:1", "writer-a", entry) is UNSEALED
    assert unseal(key, "owner:requests:1", "writer-a", entry.replace(b"12", b"99")) is UNSEALED
    for junk in (b"12", str(10**400).encode(), b"\xff\xfe", b"w1..", b"w1.12." + b"0" * 64, b"x" * 10_000, "12"):
        assert unseal(key, "owner:requests:1", "writer-a", junk) is UNSEALED


async def test_counters_are_each_writers_own_and_readers_add_them_up(tmp_path: Path) -> None:
    first, second = open_sqlite_cache(tmp_path), open_sqlite_cache(tmp_path)
    try:
        mine, theirs = first.state(BASE, KEY), second.state(BASE, KEY)
        await mine.add("requests:1", 3, keep=60)
        await theirs.add("requests:1", 4, keep=60)
        await mine.add("requests:1", 2, keep=60)
        assert await theirs.total(["requests:1"], most=100) == 9
        assert await theirs.total(["requests:1"], most=4) == 4, "a count out of range is ignored"
        assert theirs.ignored == 1
    finally:
        await first.aclose()
        await second.aclose()


async def test_the_start_up_path_counts_only_viewers_that_check(tmp_path: Path) -> None:
    """Whether to send the first poll before the store opens: a forged viewer row does not keep it back."""
    cache = open_sqlite_cache(tmp_path)
    try:
        name = f"{key_id(BASE, KEY)}:{VIEWERS_SLOT}"
        with sqlite3.connect(tmp_path / CACHE_FILE_NAME) as db:
            db.execute("INSERT INTO watchdeck_state VALUES (?, ?, ?, ?)", (name, "f" * 32, b"99999999999", 1e12))
        assert not others_watching(tmp_path, BASE, KEY)
        await cache.state(BASE, KEY).put(VIEWERS_SLOT, time.time() + 30, keep=90)
        assert others_watching(tmp_path, BASE, KEY)
        assert not others_watching(tmp_path, BASE, "phx_other")
    finally:
        await cache.aclose()


async def test_an_old_count_written_back_does_not_take_the_total_back(tmp_path: Path) -> None:
    """A generation that went back would find the answers from before a write again."""
    first, second = open_sqlite_cache(tmp_path), open_sqlite_cache(tmp_path)
    try:
        writer, reader = first.state(BASE, KEY), second.state(BASE, KEY)
        await writer.add("gen:scope", 1, keep=60)
        name = writer.name("gen:scope")
        with sqlite3.connect(tmp_path / CACHE_FILE_NAME) as db:
            [(old,)] = db.execute("SELECT blob FROM watchdeck_state WHERE name = ?", (name,)).fetchall()
        await writer.add("gen:scope", 1, keep=60)
        assert await reader.total(["gen:scope"], most=100) == 2
        with sqlite3.connect(tmp_path / CACHE_FILE_NAME) as db:
            db.execute("UPDATE watchdeck_state SET blob = ? WHERE name = ?", (old, name))
        assert await reader.total(["gen:scope"], most=100) == 2
    finally:
        await first.aclose()
        await second.aclose()
