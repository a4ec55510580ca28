"""Dashboards that share acknowledgements and silences (tests/cache/test_redis.py): helpers."""

from __future__ import annotations

import json
from typing import Any

from tui.api.cache_context import key_id
from tui.api.shared_state import derive_key, seal
from tui.app import WatchdeckApp
from tui.clock import SystemClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.screens.monitor import MonitorScreen
from tui.state.alert_marks import slot_of
from tui.state.exports import WatchedExport

FAILING = "Snowflake warehouse (hourly)"  # the seeded world's failing export: an open alert at the first look
QUIET = "Realtime webhook relay"  # a healthy one


def dashboard(handle: SandboxHandle, url: str | None) -> WatchdeckApp:
    settings = Settings(base_url=handle.base_url, api_key=handle.api_key, project_ids=[handle.project_id],
                        poll_seconds=60.0, bell=False, cache=url is not None, cache_url=url)
    return WatchdeckApp(settings, clock=SystemClock())


def monitor(app: WatchdeckApp) -> MonitorScreen:
    screen = app.screen
    assert isinstance(screen, MonitorScreen)
    return screen


def watched(screen: MonitorScreen, name: str) -> WatchedExport:
    assert screen.board.snapshot is not None
    [found] = [w for w in screen.board.snapshot.exports if w.export.name == name]
    return found


def forged_silence(handle: SandboxHandle, export: WatchedExport, wall: float) -> tuple[str, dict[str, bytes]]:
    """A silence of ``export`` for an hour as someone without the API key writes it (the Redis key, and its
    entries): a made-up MAC, and one signed with another key."""
    name = f"{key_id(handle.base_url, handle.api_key)}:{slot_of((export.project_id, export.export.id))}"
    value: dict[str, Any] = {"silence": {"until": wall + 3600, "at": wall, "reason": "forged", "by": "mallory"}}
    payload = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    return f"watchdeck:state:{name}", {
        "f" * 32: b"w1." + payload + b"." + b"0" * 64,
        "e" * 32: seal(derive_key("someone-elses-key", "state"), name, "e" * 32, value),
    }
