"""The monitor on the shared cache, through Pilot: ctrl+r asks the server, and the status line tells the story."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from textual.widgets import Static

from tests.cache.conftest import sent
from tests.pilot import notifications, settle
from tui.api.cache import open_shared_cache
from tui.api.cache_context import CACHE_FILE_NAME
from tui.app import WatchdeckApp
from tui.clock import SystemClock
from tui.config import Settings
from tui.config.paths import cache_dir
from tui.sandbox.runner import SandboxHandle
from tui.screens.monitor import MonitorScreen
from tui.state.io.shared import SharedViewers


def make_app(handle: SandboxHandle) -> WatchdeckApp:
    settings = Settings(base_url=handle.base_url, api_key=handle.api_key, project_ids=[handle.project_id],
                        poll_seconds=60.0, bell=False, cache=True)
    return WatchdeckApp(settings, clock=SystemClock())


def status_line(app: Any) -> str:
    return str(app.screen.query_one("#monitor-status", Static).render())


def list_requests(handle: SandboxHandle) -> int:
    return len([r for r in sent(handle) if r["path"].endswith("/batch_exports/")])


def runs_requests(handle: SandboxHandle) -> int:
    return len([r for r in sent(handle) if r["path"].endswith("/runs/")])


async def test_ctrl_r_asks_the_server_while_a_plain_poll_reads_the_shared_answer(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert list_requests(sandbox) == 1 and runs_requests(sandbox) == 1
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        screen.poll_now()  # what the timer does: the answer is 30 s fresh in the store
        await settle(pilot)
        assert list_requests(sandbox) == 1 and runs_requests(sandbox) == 1
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert list_requests(sandbox) == 2
        assert runs_requests(sandbox) == 2, "the runs load after ctrl+r asks the server too"
        assert "LIVE" in status_line(app)


async def test_the_status_line_counts_the_viewers_sharing_the_cache(sandbox: SandboxHandle) -> None:
    other_cache = open_shared_cache(None, cache_dir())
    other = SharedViewers(other_cache, sandbox.base_url, sandbox.api_key)
    stranger = SharedViewers(other_cache, sandbox.base_url, "a-key-of-someone-else")
    try:
        await other.sync(60.0)
        await stranger.sync(60.0)
        app = make_app(sandbox)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            assert "shared cache: 2 viewers" in status_line(app)
            await other.leave()
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert "shared cache" not in status_line(app)
    finally:
        await other_cache.aclose()


async def test_a_corrupt_cache_file_is_said_once_in_the_status_line_and_the_data_still_comes(
        sandbox: SandboxHandle, user_dirs: Path) -> None:
    folder = user_dirs / "cache"
    folder.mkdir(parents=True)
    (folder / CACHE_FILE_NAME).write_bytes(b"\x00garbage" * 500)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        line = status_line(app)
        assert "cache off (cache file unreadable): asking the server" in line
        assert line.count("cache off") == 1
        assert "12 exports" in line


async def test_redis_without_its_package_is_one_clear_line_and_the_server_answers(
        sandbox: SandboxHandle, monkeypatch: Any) -> None:
    """``--cache-url redis://…`` on an install without the optional extra: said once, and the data still comes."""
    for name in ("redis", "redis.asyncio", "redis.asyncio.retry", "redis.backoff", "redis.exceptions"):
        monkeypatch.setitem(sys.modules, name, None)  # what an install without the package finds: ImportError
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        poll_seconds=60.0, bell=False, cache=True, cache_url="redis://127.0.0.1:1/0")
    app = WatchdeckApp(settings, clock=SystemClock())
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.shared_cache is None
        said = [n.message for n in notifications(app) if "redis" in n.message]
        assert said == ["Shared cache off, asking the server: the redis package is not installed: "
                        "pip install 'watchdeck[redis]'"]
        assert "LIVE" in status_line(app) and list_requests(sandbox) == 1


async def test_ctrl_r_on_the_surveys_screen_asks_the_server(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.switch_mode("surveys")
        await settle(pilot)
        lists = [r for r in sent(sandbox) if r["path"].endswith("/surveys/")]
        assert len(lists) == 1
        await pilot.press("ctrl+r")
        await settle(pilot)
        lists = [r for r in sent(sandbox) if r["path"].endswith("/surveys/")]
        assert len(lists) == 2, "the reload asked the server, not the answer stored a moment ago"
