"""A frozen sandbox and a monitor app on it, for Pilot tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot

from tests.pilot import opened_by, settle
from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.logs import LogsScreen
from tui.state.io.export_source import FirstPoll
from tui.widgets.virtual_table import VirtualTable

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def make_app(handle: SandboxHandle, first_poll: FirstPoll | None = None, *, retries: int | None = None,
             **settings: Any) -> WatchdeckApp:
    """The monitor on the sandbox; ``retries``: how often its client retries a failed request (its default
    otherwise), e.g. 0 where a test stops the server: each retry of a refused request only adds its back-off."""
    values: dict[str, Any] = {"base_url": handle.base_url, "api_key": handle.api_key,
                              "project_ids": [handle.project_id], "poll_seconds": 30.0, "bell": False}
    values.update(settings)
    resolved = Settings(**values)
    api = None if retries is None else ApiClient(resolved.base_url, resolved.api_key.get_secret_value(),
                                                 resolved.project_id, max_retries=retries)
    return WatchdeckApp(resolved, clock=FrozenClock(FROZEN_AT), first_poll=first_poll, api=api)


def sandbox_call(method: str, url: str, **kwargs: Any) -> httpx.Response:
    """One request of the test's own to the sandbox, on its plain-HTTP loopback port: no TLS can be involved, so the
    client is made without certificate checks (made with them, it loads the system's CA bundle: tens of ms of CPU
    each time)."""
    return httpx.request(method, url, verify=False, **kwargs)


def requests(handle: SandboxHandle, method: str | None = None, contains: str = "") -> list[dict[str, Any]]:
    return [r for r in handle.requests()
            if (method is None or r["method"] == method) and contains in r["path"]]


def select_export(app: WatchdeckApp, name: str) -> str:
    """Put the cursor on the export with that name; returns its row key."""
    table = app.screen.query_one("#exports", VirtualTable)
    screen: Any = app.screen
    for watched in screen.board.snapshot.exports:
        if watched.export.name == name:
            table.move_to_key(watched.key)
            return str(watched.key)
    raise AssertionError(f"no export named {name!r}")


async def press_on(pilot: Pilot[Any], name: str, *keys: str) -> str:
    """Put the cursor on the export with that name, let the screen take it in, then press ``keys``; returns its row
    key."""
    key = select_export(pilot.app, name)
    await pilot.pause()
    await pilot.press(*keys)
    return key


async def open_logs(pilot: Pilot[Any], name: str = "Snowflake warehouse (hourly)") -> LogsScreen:
    """The run logs (``l``) of the export with that name, once the monitor has settled; returns their screen."""
    await settle(pilot)
    select_export(pilot.app, name)
    return await opened_by(pilot, "l", LogsScreen)


async def back_to(pilot: Pilot[Any], screen: Any) -> None:
    """Escape out of whatever is open on top of ``screen`` (a dialog, a form with the server's words) to ``screen``;
    a form holding the operator's edits asks before it drops them, and is told yes."""
    escaped = False
    for _ in range(6):
        await settle(pilot)
        if pilot.app.screen is screen:
            return
        discard = escaped and isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y" if discard else "escape")
        escaped = not discard
    assert pilot.app.screen is screen, f"still on {pilot.app.screen}"
