"""How long a viewer takes to give up on a Redis store that went away and ask the server instead.

The suite checks what happens (tests/cache/test_redis.py: the answer comes from the server, the problem is
named, the store is used again once it is back); this measures how long the two requests that find the store
gone take, which a busy machine stretches. Target: well under the 5 s that would read as a hang.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cache.conftest import REDIS_MISSING, RedisServer, redis_binary
from tests.real_parts import missing
from tui.api.cache import open_shared_cache
from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

from .helpers import FROZEN_AT, report

HANG_SECONDS = 5.0


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if redis_binary() is None:
        missing(REDIS_MISSING)
    server = RedisServer(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


async def test_a_dead_redis_is_given_up_without_hanging(redis_server: RedisServer) -> None:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as sandbox:
        await _measure(sandbox, redis_server)


async def _measure(sandbox: SandboxHandle, redis_server: RedisServer) -> None:
    cache = open_shared_cache(redis_server.url, cache_dir())
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, cache=cache) as client:
        try:
            await client.batch_exports.list()
            redis_server.stop()
            started = time.monotonic()
            page = await client.batch_exports.list()
            again = await client.batch_exports.list()
            elapsed = time.monotonic() - started
        finally:
            await cache.aclose()
    assert page.results and len(again.results) == len(page.results)
    report("Redis gone: two lists answered by the server", [[f"{elapsed:.2f} s", f"{HANG_SECONDS:g} s"]],
           ["took", "a hang"])
    assert elapsed < HANG_SECONDS
