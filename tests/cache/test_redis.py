"""The shared cache through a real Redis server (started on a free loopback port, no persistence).

Every test that needs redis-server is here, so that where it is not installed
the whole module is skipped with one reason: one SKIP line in ``make test``.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tests.cache.conftest import OTHER_KEY, REDIS_MISSING, RedisServer, redis_binary, sent
from tests.real_parts import missing

if redis_binary() is None:
    missing(REDIS_MISSING, module=True)

from tests.cache.test_shared_answers import Viewer, cache_of, viewer  # noqa: F401 (the fixture)
from tests.cache.wall import check_counts
from tui.api import cache as cache_module
from tui.sandbox.runner import SandboxHandle


async def test_viewers_share_answers_through_redis_and_never_across_keys(
        sandbox: SandboxHandle, viewer: Viewer, redis_server: RedisServer) -> None:  # noqa: F811
    clients = [viewer(sandbox, cache_url=redis_server.url) for _ in range(3)]
    other = viewer(sandbox, key=OTHER_KEY, cache_url=redis_server.url)
    await asyncio.gather(*(c.batch_exports.list() for c in clients))
    await clients[0].batch_exports.list()
    await other.batch_exports.list()
    assert [r["key_id"] for r in sent(sandbox, contains="/batch_exports/")] in (["demo", "key-1"], ["key-1", "demo"])
    assert all(cache_of(c).problem is None for c in clients)


async def test_a_redis_that_goes_away_mid_run_falls_back_to_the_server_then_comes_back(
        sandbox: SandboxHandle, viewer: Viewer, redis_server: RedisServer,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "RETRY_BROKEN_SECONDS", 1.0)
    first, second = viewer(sandbox, cache_url=redis_server.url), viewer(sandbox, cache_url=redis_server.url)
    await first.batch_exports.list()
    await second.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 1

    redis_server.stop()
    page = await second.batch_exports.list()
    again = await second.batch_exports.list()
    assert page.results and len(again.results) == len(page.results)  # how long this takes: make bench
    assert len(sent(sandbox, contains="/batch_exports/")) == 3
    assert cache_of(second).problem == "Redis unreachable"

    redis_server.start()
    await asyncio.sleep(1.1)
    await first.batch_exports.list()
    await second.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 4  # shared again
    assert cache_of(second).problem is None


@pytest.mark.slow
@pytest.mark.xdist_group("wall-screens")
def test_five_screens_on_one_redis_cost_one_screens_requests(wall_counts: dict[str, Counter[str] | BaseException]) \
        -> None:
    check_counts(wall_counts["redis"], store="Redis")


async def _stored_bodies(url: str) -> list[tuple[str, bytes]]:
    """Every stored body chunk of the answers' store, as anyone with access to Redis (but not the key) reads it."""
    from redis.asyncio import Redis

    client: Redis = Redis.from_url(url)
    try:
        found = []
        async for name in client.scan_iter(match="watchdeck:answers:stream:*"):
            for chunk in await client.lrange(name, 0, -1):
                found.append((name.decode(), bytes(chunk)))
        return found
    finally:
        await client.aclose()


async def test_an_entry_written_without_the_key_is_a_miss_not_an_answer(
        sandbox: SandboxHandle, viewer: Viewer, redis_server: RedisServer) -> None:  # noqa: F811
    """A crafted export list in Redis (a renamed, paused export) is not shown: the viewer asks the server."""
    from redis.asyncio import Redis

    first, second, third = (viewer(sandbox, cache_url=redis_server.url) for _ in range(3))
    real = await first.batch_exports.list()
    [(name, body)] = await _stored_bodies(redis_server.url)
    forged = body.replace(real.results[0].name.encode(), b"Renamed by someone with Redis access", 1)
    forged = forged.replace(b'"paused":false', b'"paused":true', 1)
    assert forged != body
    client: Redis = Redis.from_url(redis_server.url)
    try:
        await client.lset(name, 0, forged)
        shown = await second.batch_exports.list()
        assert [e.model_dump() for e in shown.results] == [e.model_dump() for e in real.results]
        assert len(sent(sandbox, contains="/batch_exports/")) == 2  # the forged entry was a miss

        for key in [k async for k in client.scan_iter(match="watchdeck:answers:entry:*")]:
            await client.set(key, b"\xc1 not msgpack")  # unparseable: a miss too, never "bad response"
        again = await third.batch_exports.list()
        assert [e.id for e in again.results] == [e.id for e in real.results]
        assert len(sent(sandbox, contains="/batch_exports/")) == 3
    finally:
        await client.aclose()
