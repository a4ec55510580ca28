"""``watchdeck --demo``'s server: the sandbox in a child process, on a loopback socket opened here.

The socket is bound and listening before the child starts, so the base URL is
known at once and the dashboard's first poll can be sent while the child is
still seeding (it waits in the socket's queue). The child runs on another core
than this process's start-up; with the sandbox in-process, its imports and its
half second of seeding came before the dashboard's own. The dashboard and the
child share one simulated clock (the same anchor on the machine's monotonic
clock). The child ends when this process closes its standard input, whichever
way this process ends.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import IO

from tui.clock import ScaledClock

#: The sandbox's demo key and main project, written out: importing the sandbox's modules loads Starlette (~0.25 s).
DEMO_KEY = "sandbox-demo-key"
DEMO_PROJECT = "1"
DEMO_SPEED = 60.0
STOP_WAIT_SECONDS = 5.0


class DemoServer:
    """A running demo sandbox; use as a context manager."""

    def __init__(self, *, scenario: str | None = "outage", speed: float = DEMO_SPEED, log: Path | None = None,
                 worlds: Path | None = None) -> None:
        import socket

        self.clock = ScaledClock(speed=speed)
        self.api_key = DEMO_KEY
        self.project_id = DEMO_PROJECT
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
            epoch, monotonic = self.clock.anchor
            command = [sys.executable, "-m", "tui.sandbox.child", "--fd", str(sock.fileno()),
                       "--epoch", epoch.isoformat(), "--monotonic", repr(monotonic), "--speed", repr(speed)]
            if scenario:
                command += ["--scenario", scenario]
            if worlds is not None:  # seeded at the hour and kept: a start within the hour loads it (~0.4 s less)
                command += ["--world-cache", str(worlds)]
            self._log: IO[bytes] | None = _open_log(log)
            self._process = subprocess.Popen(command, pass_fds=[sock.fileno()], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE,
                                             stderr=self._log if self._log is not None else subprocess.DEVNULL)
        finally:
            sock.close()  # the child holds it now: should it die, connections are refused, not left waiting

    def wait_until_serving(self) -> bool:
        """Block until the child serves (True) or has ended (False): a request sent before then would wait in
        the socket's queue, and could time out on a slow machine while the child seeds."""
        if self._process.stdout is None:
            return False
        return self._process.stdout.readline().strip() == b"serving"

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def stop(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> DemoServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def _open_log(path: Path | None) -> IO[bytes] | None:
    """This run's log (the last run's is replaced), or None where it cannot be written: the demo runs anyway."""
    if path is None:
        return None
    from tui.secrets.private_files import create_private

    try:
        create_private(path)  # it may hold a traceback quoting server text: the user's alone
        return path.open("wb")
    except OSError:
        return None


def open_demo_server() -> DemoServer:
    """The demo's server as ``watchdeck --demo`` runs it: on a destination outage already under way (failures
    show in the first minute), its world kept in the user's cache, its own errors in the state dir's log (the
    terminal is the dashboard's)."""
    from tui.config.paths import cache_dir, state_dir
    from tui.secrets.private_files import private_dir

    log: Path | None = None
    try:
        folder = state_dir()
        private_dir(folder)
        log = folder / "demo-sandbox.log"
    except OSError:
        pass
    return DemoServer(scenario="outage", log=log, worlds=cache_dir() / "sandbox-worlds")
