"""The shared cache through a real Redis server (started on a free loopback port, no persistence).

Every test that needs redis-server is here, so that where it is not installed
the whole module is skipped with one reason: one SKIP line in ``make test``.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.cache.conftest import OTHER_KEY, REDIS_MISSING, RedisServer, redis_binary, sent
from tests.real_parts import missing

if redis_binary() is None:
    missing(REDIS_MISSING, module=True)

from textual.pilot import Pilot
from textual.widgets import Static

from tests.cache.forged import BILLION, HUGE, delete, forge, forged_entries
from tests.cache.marks import FAILING, QUIET, dashboard, forged_silence, monitor, watched
from tests.cache.test_shared_answers import Viewer, cache_of, viewer  # noqa: F401 (the fixture)
from tests.cache.wall import check_counts
from tests.metrics.conftest import Exporter, value, wait_for, watchdeck_env
from tests.pilot import settle
from tui.api import cache as cache_module
from tui.api.cache import open_shared_cache
from tui.api.shared_state import MAX_WRITERS, derive_key, seal
from tui.app import WatchdeckApp
from tui.clock import SystemClock
from tui.config import Settings
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle
from tui.screens.monitor import MonitorScreen
from tui.state.budget import MAX_SHARED_STRETCH
from tui.state.io.shared import BUCKET_SECONDS, COUNT_KEEP_SECONDS, IGNORED_NOTE, MAX_REQUESTS_PER_BUCKET, requests_slot


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


# ------------------------------------------------------------------ forged shared state (tests/cache/forged.py)

def _dashboard(handle: SandboxHandle, url: str, poll: float, clock: list[float]) -> WatchdeckApp:
    settings = Settings(base_url=handle.base_url, api_key=handle.api_key, project_ids=[handle.project_id],
                        poll_seconds=poll, bell=False, cache=True, cache_url=url)
    app = WatchdeckApp(settings, clock=SystemClock())
    app.monotonic = lambda: clock[0]  # the polls' elapsed time, moved on by the test to judge staleness
    return app


def _status(app: WatchdeckApp) -> str:
    return str(app.screen.query_one("#monitor-status", Static).render())


async def _stale_after(pilot: Pilot[Any], screen: MonitorScreen, clock: list[float], seconds: float) -> bool:
    """Whether the status line says STALE ``seconds`` after the last answer (the screen's clock moved on)."""
    last = screen.poller.last_success
    assert last is not None
    clock[0] = last + seconds
    screen.refresh_status()
    await pilot.pause()
    return "STALE" in _status(screen.app)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [BILLION, HUGE], ids=["1000000000", "10**400"])
async def test_forged_counts_neither_stretch_the_dashboard_nor_keep_it_live(
        count: bytes, sandbox: SandboxHandle, redis_server: RedisServer, user_dirs: Path) -> None:
    """The issue's 1000000000 stretched the interval to 7.8e7 s (still LIVE); 10**400 logged a traceback a poll."""
    await forge(redis_server.url, sandbox.base_url, sandbox.api_key, count)
    clock = [1000.0]
    app = _dashboard(sandbox, redis_server.url, 60.0, clock)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        for _ in range(3):  # each poll reads the forged entries again
            assert screen.poll_now() is not None
            await settle(pilot)
        assert screen.poller.interval == 60.0
        line = _status(app)
        assert "LIVE" in line and "stretched" not in line
        assert line.count(IGNORED_NOTE) == 1, line  # said once, on the status line
        assert app.shared.combined_last_minute < 100 and app.shared.viewers == 1  # this viewer's own
        assert not await _stale_after(pilot, screen, clock, 3 * 60.0 - 5)
        assert await _stale_after(pilot, screen, clock, 3 * 60.0 + 1)
        assert app.is_running
    assert not (user_dirs / "state" / "errors.log").exists()


async def test_a_signed_but_huge_count_stretches_only_to_the_cap_and_stale_follows_the_cap(
        sandbox: SandboxHandle, redis_server: RedisServer) -> None:
    """A writer with the key (a bug, or many viewers) cannot stretch the interval past ten times the asked one."""
    others = open_shared_cache(redis_server.url, cache_dir())
    try:
        bucket = int(time.time() // BUCKET_SECONDS)
        state = others.state(sandbox.base_url, sandbox.api_key)
        await state.add(requests_slot(bucket), MAX_REQUESTS_PER_BUCKET, keep=COUNT_KEEP_SECONDS)
        clock = [1000.0]
        app = _dashboard(sandbox, redis_server.url, 30.0, clock)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MonitorScreen)
            assert app.shared.stretch == MAX_SHARED_STRETCH
            assert screen.poller.interval == 30.0 * MAX_SHARED_STRETCH
            assert "stretched from 30s" in _status(app) and IGNORED_NOTE not in _status(app)
            assert not await _stale_after(pilot, screen, clock, 3 * 300.0 - 5)
            assert await _stale_after(pilot, screen, clock, 3 * 300.0 + 1)
    finally:
        await others.aclose()


async def test_forged_state_is_ignored_and_a_forged_lease_is_taken_over(redis_server: RedisServer) -> None:
    """Every kind of shared state through the one scheme: a forged generation, count or lease changes nothing."""
    from redis.asyncio import Redis

    cache, other = open_shared_cache(redis_server.url, cache_dir()), open_shared_cache(redis_server.url, cache_dir())
    client: Redis = Redis.from_url(redis_server.url)
    try:
        base, key = "https://eu.posthog.com", "phx_the_key"
        state, peer = cache.state(base, key), other.state(base, key)
        await peer.add("gen:scope", 2, keep=60)
        await peer.add("gen:scope", 1, keep=60)  # each writer writes its own count whole: 3, not 2 + 3
        await state.add("gen:scope", 1, keep=60)
        assert await state.total(["gen:scope"], most=10**9) == 4
        name = state.name("gen:scope")
        await client.hset(f"watchdeck:state:{name}", mapping=forged_entries(name, BILLION))  # type: ignore[arg-type]
        ignored = state.ignored
        assert await state.total(["gen:scope"], most=10**9) == 4
        assert state.ignored - ignored == len(forged_entries(name, BILLION))
        await client.hset(f"watchdeck:state:{name}", "f" * 32, seal(derive_key(key, "state"), name, "f" * 32, 10**12))
        assert await state.total(["gen:scope"], most=10**9) == 4, "signed, but out of range"

        flooded = state.name("requests:1")
        await client.hset(f"watchdeck:state:{flooded}", mapping={f"{i:032x}": b"x" for i in range(MAX_WRITERS + 1)})
        await state.add("requests:1", 5, keep=60)
        assert await state.total(["requests:1"], most=100) == 0, "a flooded slot is read as empty"

        lease = state.name("lease:k")
        await client.set(f"watchdeck:state:{lease}", b"w1.{}." + b"0" * 64)  # never expires by itself
        assert not await peer.held("lease:k")
        assert await state.take("lease:k", 5.0) and await peer.held("lease:k")
        assert not await peer.take("lease:k", 5.0)
        await client.delete(f"watchdeck:state:{lease}")
        await client.hset(f"watchdeck:state:{lease}", "x", b"another kind of value")
        assert await peer.take("lease:k", 5.0), "a key of another type is taken over, never a store failure"
        assert cache.problem is None and other.problem is None
    finally:
        await client.aclose()
        await cache.aclose()
        await other.aclose()


@pytest.mark.slow
async def test_the_exporter_keeps_polling_through_forged_counts_and_after_they_go(
        sandbox: SandboxHandle, redis_server: RedisServer, tmp_path: Path) -> None:
    """10**400 in the shared counter ended the exporter's poll loop for good, silently; now nothing stops it."""
    written = await forge(redis_server.url, sandbox.base_url, sandbox.api_key, HUGE)
    exporter = Exporter(watchdeck_env(sandbox), ["--cache-url", redis_server.url, "--poll", "2"],
                        tmp_path / "exporter.log")

    def polls() -> int:
        return len(sent(sandbox, contains="/batch_exports/")) - len(sent(sandbox, contains="/runs/"))

    try:
        wait_for(lambda: polls() >= 3, "three polls with the forged counts in the store")
        await delete(redis_server.url, written)
        after = polls()
        wait_for(lambda: polls() >= after + 3, "three more polls after the forged keys went")
        samples = exporter.scrape()
        assert value(samples, "watchdeck_requests_total", outcome="internal_error") == 0.0
        assert exporter.process.poll() is None
        err = exporter.stderr()
        assert err.count(IGNORED_NOTE) == 1 and "Traceback" not in err and "unexpected" not in err, err
    finally:
        assert exporter.stop() == 0


# ------------------------------------------------------------- acknowledgements and silences (tests/cache/marks.py)

async def test_an_acknowledgement_and_a_silence_made_on_one_dashboard_show_on_another_and_outlive_a_restart(
        sandbox: SandboxHandle, redis_server: RedisServer, user_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two dashboards with state folders of their own (two hosts) share marks through Redis within one poll; a new
    dashboard on the first one's folder, without any cache, starts with them."""
    first, second = user_dirs / "state-first", user_dirs / "state-second"
    monkeypatch.setenv("WATCHDECK_STATE_DIR", str(first))
    one = dashboard(sandbox, redis_server.url)
    async with one.run_test(size=(160, 48)) as pilot_one:
        await settle(pilot_one)
        monkeypatch.setenv("WATCHDECK_STATE_DIR", str(second))
        other = dashboard(sandbox, redis_server.url)
        async with other.run_test(size=(160, 48)) as pilot_other:
            await settle(pilot_other)
            here, there = monitor(one), monitor(other)
            failing, quiet = watched(here, FAILING), watched(here, QUIET)
            assert here.incident.desk.book.is_marked(failing.key) and there.incident.desk.book.is_marked(failing.key)

            here.table.show_export(failing.key)
            await pilot_one.press("a")
            here.table.show_export(quiet.key)
            await pilot_one.press("s")
            await pilot_one.pause()
            await pilot_one.press(*"warehouse maintenance", "enter")
            await settle(pilot_one)
            assert here.board.facts(quiet.key).silenced  # type: ignore[union-attr]
            assert there.incident.desk.book.is_marked(failing.key)  # not yet: that dashboard has not polled since

            assert there.poll_now() is not None  # one poll of the other dashboard
            await settle(pilot_other)
            episode = there.incident.desk.book.episode(failing.key)
            assert episode is not None and episode.acknowledged_at is not None
            assert not there.incident.desk.book.is_marked(failing.key)
            silence = there.incident_keys.silence_of(quiet.project_id, quiet.export.id)
            assert silence is not None and silence.reason == "warehouse maintenance"
            assert silence.words().startswith("silenced 2h by ") and silence.words().endswith(": warehouse maintenance")
            facts = there.board.facts(quiet.key)
            assert facts is not None and facts.silenced and facts.verdict.state.value == "ok"  # its verdict stays
            assert there.incident_keys.silence_of(failing.project_id, failing.export.id) is None

    saved = first / "alerts"
    [path] = saved.iterdir()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    monkeypatch.setenv("WATCHDECK_STATE_DIR", str(first))
    again = dashboard(sandbox, None)  # no shared store: the state folder alone
    async with again.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(again)
        book = screen.incident.desk.book
        assert not book.is_marked(failing.key) and book.open_count == 0
        assert [(a.export_name, a.state) for a in book.history][-1:] == [(FAILING, "acknowledged")]
        assert screen.incident_keys.silence_of(quiet.project_id, quiet.export.id) is not None
        assert screen.board.facts(quiet.key).silenced  # type: ignore[union-attr]


async def test_a_silence_written_to_redis_without_the_key_is_ignored(
        sandbox: SandboxHandle, redis_server: RedisServer) -> None:
    from redis.asyncio import Redis

    app = dashboard(sandbox, redis_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        failing = watched(screen, FAILING)
        key, entries = forged_silence(sandbox, failing, time.time())
        client: Redis = Redis.from_url(redis_server.url)
        try:
            await client.hset(key, mapping=entries)  # type: ignore[arg-type]
        finally:
            await client.aclose()
        assert screen.poll_now() is not None
        await settle(pilot)
        assert screen.incident_keys.silence_of(failing.project_id, failing.export.id) is None
        assert screen.incident.desk.book.is_marked(failing.key)
        facts = screen.board.facts(failing.key)
        assert facts is not None and not facts.silenced
        assert IGNORED_NOTE in _status(app)
