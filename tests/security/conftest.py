"""Isolated user dirs for every test here; a frozen sandbox for those that talk to a server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("CONFIG", "DATA", "STATE")}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    for name in ("WATCHDECK_BASE_URL", "WATCHDECK_API_KEY", "WATCHDECK_PROJECT_ID", "WATCHDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return values


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False,
                                      clock=FrozenClock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC)))) as handle:
        yield handle
