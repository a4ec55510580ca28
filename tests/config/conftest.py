"""Fixtures for the connection-setup tests: an isolated config/state dir and a frozen sandbox."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment with only the config and state dirs set (never the real user's files)."""
    (tmp_path / "config").mkdir()
    return {
        "WATCHDECK_CONFIG_DIR": str(tmp_path / "config"),
        "WATCHDECK_STATE_DIR": str(tmp_path / "state"),
    }


@pytest.fixture
def write_config(env: dict[str, str]) -> Callable[..., Path]:
    def write(text: str, mode: int = 0o600) -> Path:
        path = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
        path.write_text(text, encoding="utf-8")
        os.chmod(path, mode)
        return path

    return write


@pytest.fixture(autouse=True)
def _isolated_dirs(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """tui.config.paths reads os.environ: point it at the test's dirs too, so nothing touches the real ones."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("WATCHDECK_BASE_URL", "WATCHDECK_API_KEY", "WATCHDECK_PROJECT_ID", "WATCHDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)


# A fixed instant: the seeded history (and so every status) is the same on every run.
SANDBOX_NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
LIMITED_KEY = "limited-key"  # survey:read only: batch exports and projects answer 403
READ_ONLY_KEY = "read-only-key"  # reads exports, changes nothing: the monitor without its actions


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    """The real sandbox over loopback, frozen (no simulator) at SANDBOX_NOW."""
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    handle = start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(SANDBOX_NOW),
                                          keys=[f"{LIMITED_KEY}:survey:read",
                                                f"{READ_ONLY_KEY}:batch_export:read,project:read"]))
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def limited_key() -> str:
    return LIMITED_KEY


@pytest.fixture
def clock() -> FrozenClock:
    """The status command's clock, at the sandbox's instant (a test may advance it)."""
    return FrozenClock(SANDBOX_NOW)


@pytest.fixture
def free_port() -> int:
    """A loopback port that nothing listens on (for "connection refused")."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
