"""The monitor's first poll, sent while the app loads (tui.cli.startup), through the app's own client and state code.

What it must do: be the monitor's first poll (not an extra request), put the
exports in the first frame, hand over what it learned (a server without the
export list is not asked for it again), date the server clock, and never be
shown when it is old or failed: then the monitor asks itself, with the client's
own errors.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import tui.state.io.export_source as export_source
from tests.monitor.conftest import FROZEN_AT, make_app, requests
from tests.pilot import settle
from tui.api.cache import open_shared_cache
from tui.api.cache_context import others_watching
from tui.app import WatchdeckApp
from tui.cli.startup import start_first_poll
from tui.clock import FrozenClock
from tui.config import Settings
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.monitor import MonitorScreen
from tui.state.io.export_source import FirstPoll
from tui.state.io.shared import SharedViewers
from tui.widgets.virtual_table import VirtualTable

LIST_404 = "status:status=404,path=/batch_exports/$"


def settings_for(handle: SandboxHandle, **values: Any) -> Settings:
    fields: dict[str, Any] = {"base_url": handle.base_url, "api_key": handle.api_key,
                              "project_ids": [handle.project_id], "poll_seconds": 30.0, "bell": False, **values}
    return Settings(**fields)


async def finished(early: FirstPoll | None) -> FirstPoll:
    assert early is not None
    assert await asyncio.wrap_future(early.done), "the first poll ran"
    return early


def list_requests(handle: SandboxHandle, since: int = 0) -> list[dict[str, Any]]:
    return [r for r in requests(handle, "GET", "/batch_exports/")[since:] if r["path"].endswith("/batch_exports/")]


async def first_frame_rows(app: WatchdeckApp) -> int:
    """Rows in the exports table on the first frame the monitor painted."""
    rows: list[int] = []
    display = app._display

    def counting(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None and isinstance(screen, MonitorScreen):
            rows.append(screen.query_one("#exports", VirtualTable).row_count)

    app._display = counting  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
    return rows[0]


async def test_the_first_poll_is_the_monitors_first_poll_and_fills_the_first_frame(sandbox: SandboxHandle) -> None:
    assert await first_frame_rows(make_app(sandbox)) == 0, "without it the first frame is empty"
    before = len(requests(sandbox, "GET", "/batch_exports/"))
    early = await finished(start_first_poll(settings_for(sandbox), FrozenClock(FROZEN_AT)))
    assert early.server_clock.samples >= 1, "the first poll's answers date the server clock"
    app = make_app(sandbox, first_poll=early)
    assert app.server_clock is early.server_clock
    assert await first_frame_rows(app) == 12
    assert len(list_requests(sandbox, before)) == 1, "the early list was the first poll, not an extra request"


async def test_a_missing_export_list_found_early_is_not_asked_for_again() -> None:
    """A server without the list: the first poll finds the route missing; the monitor goes straight to the ids."""
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), faults=[LIST_404])
    with start_sandbox(options) as sandbox:
        ids = [e["id"] for e in sandbox.state.db.conn.execute(
            "SELECT id FROM exports WHERE project_id = 1 AND deleted = 0 ORDER BY created_at LIMIT 3")]
        settings = settings_for(sandbox, export_ids=ids)
        early = await finished(start_first_poll(settings, FrozenClock(FROZEN_AT)))
        app = make_app(sandbox, first_poll=early, export_ids=ids)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen: Any = app.screen
            assert screen.query_one("#exports", VirtualTable).row_count == 3
            asked = len(list_requests(sandbox))
            assert asked == 1, "only the first poll asked for the list"
            await screen.source.fetch()  # the monitor's next poll
            assert len(list_requests(sandbox)) == asked, "the missing route was handed over, not asked again"
            gets = [r for r in requests(sandbox, "GET") if r["path"].endswith(f"/batch_exports/{ids[0]}/")]
            assert len(gets) == 2, "the ids were asked for by the first poll and by this one"


async def test_an_old_first_poll_is_not_shown(sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export_source, "FIRST_POLL_MAX_AGE", 0.0)
    before = len(requests(sandbox, "GET", "/batch_exports/"))
    early = await finished(start_first_poll(settings_for(sandbox), FrozenClock(FROZEN_AT)))
    app = make_app(sandbox, first_poll=early)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#exports", VirtualTable).row_count == 12
    assert len(list_requests(sandbox, before)) == 2, "too old to show: the monitor asked itself"


async def test_a_failed_first_poll_is_the_monitors_first_failure_in_the_clients_words(
        sandbox: SandboxHandle) -> None:
    """Not sent twice: the monitor shows the first poll's failure at once, and its next poll asks again."""
    key = "phx_not_a_key_of_this_server"
    early = await finished(start_first_poll(settings_for(sandbox, api_key=key), FrozenClock(FROZEN_AT)))
    assert early.snapshot is None and early.error is not None
    app = make_app(sandbox, first_poll=early, api_key=key)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        status = str(app.screen.query_one("#monitor-status").render())
        assert "key" in status.lower(), status
        refused = [r for r in requests(sandbox, "GET", "/batch_exports/") if r.get("status") == 401]
        assert len(refused) == 1, "the first poll's failure was shown, not asked for again"
        screen: Any = app.screen
        screen.poll_now()  # what the armed timer does when it fires
        await settle(pilot)
    refused = [r for r in requests(sandbox, "GET", "/batch_exports/") if r.get("status") == 401]
    assert len(refused) == 2, "the next poll asks the server again"


async def test_no_first_poll_while_other_viewers_share_the_cache(sandbox: SandboxHandle, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The thread's client does not read the store: it would ask for what another viewer's answer already says."""
    monkeypatch.setenv("WATCHDECK_CACHE_DIR", str(tmp_path / "cache"))
    clock = FrozenClock(FROZEN_AT)
    alone = start_first_poll(settings_for(sandbox, cache=True), clock)
    assert alone is not None, "alone on the store: the first frame comes first"
    await finished(alone)
    cache = open_shared_cache(None, cache_dir())
    try:
        stranger = SharedViewers(cache, sandbox.base_url, "someone-elses-key")
        await stranger.sync(10.0)
        assert start_first_poll(settings_for(sandbox, cache=True), clock) is not None, "another key is no one"
        other = SharedViewers(cache, sandbox.base_url, sandbox.api_key)
        await other.sync(10.0)
        assert start_first_poll(settings_for(sandbox, cache=True), clock) is None
    finally:
        await cache.aclose()
    assert start_first_poll(settings_for(sandbox, cache=True, cache_url="redis://127.0.0.1:1/0"), clock) is None


async def test_a_first_poll_for_other_projects_is_not_taken(sandbox: SandboxHandle) -> None:
    early = await finished(start_first_poll(settings_for(sandbox), FrozenClock(FROZEN_AT)))
    app = make_app(sandbox, first_poll=early)
    assert app.take_first_poll(["2"]) is None
    assert app.take_first_poll([sandbox.project_id]) is None, "offered once, and only for the projects it asked"


async def test_with_a_first_poll_the_shared_store_opens_after_the_first_frames(
        sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening the store (hishel, redis) is not paid before the first frame; once open, polls go through it and
    the key's shared request count includes the first poll's request."""
    monkeypatch.setenv("WATCHDECK_CACHE_DIR", str(tmp_path / "cache"))
    early = await finished(start_first_poll(settings_for(sandbox, cache=True), FrozenClock(FROZEN_AT)))
    app = make_app(sandbox, first_poll=early, cache=True)
    assert app.shared_cache is None, "not opened before the first frame"
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for _ in range(100):
            if app.shared_cache is not None:
                break
            await pilot.pause(0.05)
        assert app.shared_cache is not None and app.shared.cache is app.shared_cache
        screen: Any = app.screen
        screen.poll_now()  # what the armed timer does when it fires
        await settle(pilot)
        assert others_watching(tmp_path / "cache", sandbox.base_url, sandbox.api_key), "the poll used the store"
        assert app.shared.combined_last_minute >= 2, "the first poll's request and this poll's are both counted"


async def test_the_detail_pane_follows_the_first_frame_into_a_slot_of_its_size(sandbox: SandboxHandle) -> None:
    """The first frame with data draws the exports; the selected export's runs come a frame later, and the
    exports table keeps its size when they do (nothing on screen moves)."""
    early = await finished(start_first_poll(settings_for(sandbox), FrozenClock(FROZEN_AT)))
    app = make_app(sandbox, first_poll=early)
    frames: list[tuple[int, bool, int]] = []
    display = app._display

    def recording(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None and isinstance(screen, MonitorScreen):
            table = screen.query_one("#exports", VirtualTable)
            frames.append((table.row_count, bool(screen.query("#runs")), table.region.height))

    app._display = recording  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert screen.detail_shown and screen.query_one("#runs", VirtualTable).row_count > 0, "the runs are shown"
    rows, runs_mounted, height = frames[0]
    assert rows == 12 and not runs_mounted, "the first frame: the exports, before the pane"
    assert any(mounted for _, mounted, _ in frames), "the pane came"
    assert {h for _, _, h in frames} == {height}, "the exports table never changed size"
