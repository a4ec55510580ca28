"""The terminal goes away under a running ``watchdeck --demo``: the dashboard ends, and its demo server with it.

A real pseudo-terminal: its leader holds SIGHUP while it waits for the dashboard, as ``make demo``'s make does,
so nothing tells the dashboard that the terminal was hung up when the test closes the terminal's other end. Unless
the dashboard looks for itself (``tui.terminal_watch``), it reads end-of-file for ever with a core busy.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tui.terminal_watch import EXIT_HUNG_UP

ROOT = Path(__file__).resolve().parents[1]
LIMIT_SECONDS = 60.0  # a bound for a stuck process, not a measure: every wait below ends on its condition
FIRST_FRAME = b"LIVE"  # the monitor's header, once the first poll is drawn
# The terminal's session leader, as make is under `make demo` in a terminal window: the terminal is its
# session's, and it holds SIGHUP (pending, never acted on) while it waits for its command, which gets the
# signal's default back.
LEADER = """
import fcntl, signal, subprocess, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
command = subprocess.Popen(sys.argv[1:], preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP}))
sys.exit(command.wait())
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")


def _processes_naming(text: str) -> list[int]:
    """Processes whose command line holds ``text`` (the demo server's world folder is the test's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:  # it ended while read
                continue
    return found


def _read_until(fd: int, wanted: bytes) -> bytes:
    seen = b""
    deadline = time.monotonic() + LIMIT_SECONDS
    while wanted not in seen:
        assert time.monotonic() < deadline, f"no {wanted!r} on the terminal: {seen[-400:]!r}"
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            seen += os.read(fd, 65536)
    return seen


def test_the_dashboard_ends_when_its_terminal_is_hung_up_under_make(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL_") and k != "WATCHDECK_API_KEY"}
    env.update(TERM="xterm-256color", PYTHONPATH=str(ROOT))
    world_folder = env["WATCHDECK_CACHE_DIR"]  # the conftest's folder of this test: on the demo server's command line
    master, terminal = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    leader = subprocess.Popen([sys.executable, "-c", LEADER, sys.executable, "-m", "tui", "--demo"],
                              stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True, env=env,
                              cwd=ROOT)
    os.close(terminal)
    try:
        _read_until(master, FIRST_FRAME)
        assert _processes_naming(world_folder), "the demo server is not running"
        os.close(master)  # the terminal window closes
        master = -1
        try:
            code = leader.wait(timeout=LIMIT_SECONDS)
        except subprocess.TimeoutExpired:
            raise AssertionError("the dashboard did not end when its terminal was hung up") from None
        assert code == EXIT_HUNG_UP
        deadline = time.monotonic() + LIMIT_SECONDS
        while (left := _processes_naming(world_folder)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left == [], "the demo server outlived the dashboard"
    finally:
        if master >= 0:
            os.close(master)
        if leader.poll() is None:
            os.killpg(leader.pid, signal.SIGKILL)  # the leader's group: the dashboard and its demo server with it
            leader.wait()
    assert not (Path(env["WATCHDECK_STATE_DIR"]) / "errors.log").exists(), "the exit logged an error"
