"""Incident tests write their journal and state under a temporary directory; a test that moves the server's
clock itself takes ``clock``, ``sandbox`` (a sandbox on it that simulates nothing) and ``admin`` (its admin calls)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.incident.sandbox_admin import SandboxAdmin, sandbox_admin
from tests.monitor.conftest import FROZEN_AT
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(FROZEN_AT)


@pytest.fixture
def sandbox(clock: FrozenClock) -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=clock)) as handle:
        yield handle


@pytest.fixture
def admin(sandbox: SandboxHandle) -> Iterator[SandboxAdmin]:
    with sandbox_admin(sandbox) as calls:
        yield calls
