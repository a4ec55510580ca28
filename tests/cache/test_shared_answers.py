"""The shared cache under the client, over the real sandbox: one answer for many viewers, never across keys.

Each ``SharedCache`` here stands for one dashboard process: its own connections to
the same store, as two processes on one host have.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from tests.cache.conftest import OTHER_KEY, READER_KEY, sent
from tui.api.cache import SharedCache, open_shared_cache
from tui.api.cache_context import CACHE_FILE_NAME, bypass_cache, collect_answer_times
from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle
from tui.state.server_time import ServerClock

Viewer = Callable[..., ApiClient]


@pytest.fixture
async def viewer(user_dirs: Path) -> AsyncIterator[Viewer]:
    """``viewer(handle, key=None, cache_url=None)``: a client with a cache of its own on the shared store."""
    async with AsyncExitStack() as stack:

        def make(handle: SandboxHandle, key: str | None = None, cache_url: str | None = None) -> ApiClient:
            cache = open_shared_cache(cache_url, cache_dir())
            cache.ttl = 60.0
            client = ApiClient(handle.base_url, key or handle.api_key, handle.project_id, cache=cache)
            stack.push_async_callback(cache.aclose)
            stack.push_async_callback(client.aclose)
            return client

        yield make


def cache_of(client: ApiClient) -> SharedCache:
    cache = client._cache
    assert cache is not None
    return cache


async def test_a_second_viewer_of_the_same_key_reads_the_first_ones_answer(sandbox: SandboxHandle,
                                                                          viewer: Viewer) -> None:
    first, second = viewer(sandbox), viewer(sandbox)
    one = await first.batch_exports.list()
    two = await second.batch_exports.list()
    assert [e.id for e in two.results] == [e.id for e in one.results]
    assert len(sent(sandbox, contains="/batch_exports/")) == 1


async def test_answers_never_cross_keys(sandbox: SandboxHandle, viewer: Viewer) -> None:
    await viewer(sandbox).batch_exports.list()
    await viewer(sandbox, key=READER_KEY).batch_exports.list()
    await viewer(sandbox, key=OTHER_KEY).batch_exports.list()
    by_key = [r["key_id"] for r in sent(sandbox, contains="/batch_exports/")]
    assert sorted(by_key) == ["demo", "key-1", "key-2"]


async def test_viewers_asking_at_the_same_moment_send_one_request(sandbox: SandboxHandle, viewer: Viewer) -> None:
    clients = [viewer(sandbox) for _ in range(5)]
    pages = await asyncio.gather(*(c.batch_exports.list() for c in clients))
    assert all(len(p.results) == len(pages[0].results) for p in pages)
    assert len(sent(sandbox, contains="/batch_exports/")) == 1


async def test_the_key_is_never_stored_and_the_file_is_private(sandbox: SandboxHandle, viewer: Viewer,
                                                               user_dirs: Path) -> None:
    await viewer(sandbox).batch_exports.list()
    await viewer(sandbox, key=OTHER_KEY).surveys.list()
    folder = user_dirs / "cache"
    files = [p for p in folder.iterdir() if p.name.startswith(CACHE_FILE_NAME)]
    assert files
    for path in files:
        data = path.read_bytes()
        assert sandbox.api_key.encode() not in data and OTHER_KEY.encode() not in data
        assert b"Bearer" not in data
    assert stat.S_IMODE(os.stat(folder / CACHE_FILE_NAME).st_mode) == 0o600


async def test_answers_carry_the_time_they_arrived_not_the_time_they_were_read(sandbox: SandboxHandle,
                                                                              viewer: Viewer) -> None:
    first, second = viewer(sandbox), viewer(sandbox)
    fetched_at = time.time()
    await first.batch_exports.list()
    arrived_by = time.time()
    await asyncio.sleep(1.2)
    with collect_answer_times() as times:
        await second.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 1
    assert times and times[0] < time.time() - 1.0
    # While the first viewer's request was answered, however long that took (stamped to the millisecond).
    assert fetched_at - 0.001 <= times[0] <= arrived_by + 0.001


async def test_refresh_asks_the_server_and_refreshes_the_answer_for_everyone(sandbox: SandboxHandle,
                                                                            viewer: Viewer) -> None:
    first, second, third = viewer(sandbox), viewer(sandbox), viewer(sandbox)
    await first.batch_exports.list()
    with bypass_cache():
        await second.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 2
    with collect_answer_times() as times:
        await third.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 2  # the refreshed answer, shared
    assert len(times) == 1


async def test_a_corrupt_cache_file_falls_back_to_the_server_and_says_so(sandbox: SandboxHandle, viewer: Viewer,
                                                                        user_dirs: Path) -> None:
    folder = user_dirs / "cache"
    folder.mkdir(parents=True)
    (folder / CACHE_FILE_NAME).write_bytes(b"this is not a database" * 200)
    client = viewer(sandbox)
    first = await client.batch_exports.list()
    second = await client.batch_exports.list()
    assert first.results and [e.id for e in second.results] == [e.id for e in first.results]
    assert len(sent(sandbox, contains="/batch_exports/")) == 2
    assert cache_of(client).problem == "cache file unreadable"


async def test_the_shared_count_adds_every_viewers_requests(sandbox: SandboxHandle, viewer: Viewer) -> None:
    from tui.state.io.shared import SharedViewers

    first, second = viewer(sandbox), viewer(sandbox, key=OTHER_KEY)
    views = [SharedViewers(cache_of(first), sandbox.base_url, sandbox.api_key),
             SharedViewers(cache_of(second), sandbox.base_url, OTHER_KEY),
             SharedViewers(cache_of(viewer(sandbox)), sandbox.base_url, sandbox.api_key)]
    await first.batch_exports.list()
    await first.surveys.list()
    await second.batch_exports.list()
    for view in views:
        await view.sync(10.0)
    await views[0].sync(10.0)
    assert views[0].combined_last_minute == 2 and views[1].combined_last_minute == 1
    assert views[0].viewers == 2 and views[1].viewers == 1
    assert views[0].sharing_viewers() == 2 and views[0].cache_problem() is None
    assert views[1].sharing_viewers() == 1


async def test_a_cached_answer_dates_the_server_clock_as_of_now(sandbox: SandboxHandle, viewer: Viewer) -> None:
    """A cached answer's Date is when another viewer fetched it: read as "now" it makes the server look behind.

    Moved on by the answer's age it dates the clock right, so the viewer served from the cache keeps the same
    estimate (and asks the same URLs) as the one that asked the server.
    """
    server_clock = sandbox.clock
    assert isinstance(server_clock, FrozenClock)
    local = FrozenClock(server_clock.now())  # this machine and the server agree: there is no skew to see
    first, second = viewer(sandbox), viewer(sandbox)
    wall = [time.time()]
    cache_of(first).wall = cache_of(second).wall = lambda: wall[0]
    first_estimate, second_estimate = ServerClock(local), ServerClock(local)
    first.on_server_date, second.on_server_date = first_estimate.record, second_estimate.record
    await first.batch_exports.list()
    server_clock.advance(50)  # both clocks move on, the stored answer stays as it was
    local.advance(50)
    wall[0] += 50  # and so does this host's wall clock
    try:
        await second.batch_exports.list()
        assert len(sent(sandbox, contains="/batch_exports/")) == 1  # the second viewer read the cache
        assert second_estimate.samples == 1 and abs(second_estimate.offset_seconds) <= 2.0
        assert second_estimate.skew_words() is None
        with bypass_cache():
            await second.batch_exports.list()
        assert second_estimate.samples == 2
        assert first_estimate.samples == 1
    finally:
        server_clock.advance(-50)


def test_the_names_in_the_store_are_keyed_with_the_api_key() -> None:
    """A bare SHA-256 of (base URL, key) lets whoever reads the store confirm a guessed key; an HMAC does not."""
    import hashlib
    import hmac

    from tui.api.cache_context import key_id

    base, key = "https://eu.posthog.com", "phx_guessable"
    bare = hashlib.sha256("\x1f".join(("key", base, key)).encode()).hexdigest()[:32]
    keyed = hmac.new(key.encode(), "\x1f".join(("key", base)).encode(), hashlib.sha256).hexdigest()[:32]
    assert key_id(base, key) == keyed != bare


async def test_an_answer_is_shared_for_its_time_to_live_on_the_injected_wall_clock(sandbox: SandboxHandle,
                                                                                  viewer: Viewer) -> None:
    """The cache's wall clock is injected: an answer stored at 1000 s serves another viewer until 1000 s + ttl
    and not a moment after, whatever this machine's clock says."""
    first, second, third = viewer(sandbox), viewer(sandbox), viewer(sandbox)
    wall = [1000.0]
    for client in (first, second, third):
        cache_of(client).wall = lambda: wall[0]
    await first.batch_exports.list()
    wall[0] = 1060.0  # exactly the time to live (60 s) later: still young enough
    await second.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 1
    wall[0] = 1060.5
    await third.batch_exports.list()
    assert len(sent(sandbox, contains="/batch_exports/")) == 2, "older than its time to live: asked again"
