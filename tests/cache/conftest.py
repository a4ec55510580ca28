"""The sandbox over loopback, a private cache folder per test, and a real Redis server when one is installed."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.real_parts import missing
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
OTHER_KEY = "other-viewer-key"  # a second full key: key-1 in the sandbox's request log
READER_KEY = "read-only-viewer-key"  # key-2
REDIS_SERVER = "redis-server"


@pytest.fixture(scope="session")
def sandbox_session() -> Iterator[SandboxHandle]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(NOW), summary_delay=(0.0, 0.0),
                             keys=[OTHER_KEY, f"{READER_KEY}:batch_export:read,survey:read"])
    with start_sandbox(options) as handle:
        yield handle


@pytest.fixture
def sandbox(sandbox_session: SandboxHandle) -> SandboxHandle:
    """The seeded world again and an empty request log, so test order never matters."""
    with httpx.Client(base_url=sandbox_session.base_url, timeout=10, verify=False) as admin:
        assert admin.post("/_sandbox/reset/").status_code == 200
        admin.delete("/_sandbox/requests/")
    return sandbox_session


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


def sent(handle: SandboxHandle, *, key_id: str | None = None, method: str = "GET",
         contains: str = "") -> list[dict[str, Any]]:
    """The requests the sandbox received (the admin endpoints are not recorded)."""
    return [r for r in handle.requests() if r["method"] == method and contains in r["path"]
            and (key_id is None or r["key_id"] == key_id)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


#: The one reason every Redis test gives when it cannot run (they all live in test_redis.py, skipped as one).
REDIS_MISSING = f"SKIP: {REDIS_SERVER} is not installed (Debian package redis-server; .ci/run installs it)"


def redis_binary() -> str | None:
    """The redis-server program, or None where it is not installed."""
    return shutil.which(REDIS_SERVER) or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists()
                                          else None)


class RedisServer:
    """A throwaway redis-server on a free loopback port, no persistence, its files in a tmp folder."""

    def __init__(self, folder: Path) -> None:
        binary = redis_binary()
        if binary is None:
            missing(REDIS_MISSING)
        self._binary = binary
        self._folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> RedisServer:
        self._process = subprocess.Popen(
            [self._binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self._folder), "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=10)
        self._process = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def wall_counts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Counter[str] | BaseException]]:
    """Requests in the window of each store's wall (SQLite always; Redis where redis-server is installed), by group,
    or what stopped the measurement (raised by each wall's test)."""
    from tests.cache.wall import measure_walls

    redis: RedisServer | None = None
    if redis_binary() is not None:
        redis = RedisServer(tmp_path_factory.mktemp("redis")).start()
    try:
        measured: dict[str, Counter[str] | BaseException] = {
            **measure_walls(tmp_path_factory.mktemp("wall"), redis.url if redis is not None else None)}
    except BaseException as err:  # handed to the tests that ask for a wall
        measured = {"sqlite": err, "redis": err}
    finally:
        if redis is not None:
            redis.stop()
    yield measured
