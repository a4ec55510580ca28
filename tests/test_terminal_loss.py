"""The terminal goes away under a running ``watchdeck --demo``: the dashboard ends, and its demo server with it.

A real pseudo-terminal: its leader holds SIGHUP while it waits for the dashboard, as ``make demo``'s make does,
so nothing tells the dashboard that the terminal was hung up when the test closes the terminal's other end. Unless
the dashboard looks for itself (``tui.terminal_watch``), it reads end-of-file for ever with a core busy.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from tui.terminal_watch import EXIT_HUNG_UP

ROOT = Path(__file__).resolve().parents[1]
LIMIT_SECONDS = 60.0  # a bound for a stuck process, not a measure: every wait below ends on its condition
FIRST_FRAME = b"LIVE"  # the monitor's header, once the first poll is drawn
# make's way with SIGHUP: held (pending, never acted on) while it waits for its command; the command gets the
# signal's default back.
LEADER = """
import signal, subprocess, sys
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


def _wait_for_exit(pid: int) -> int | None:
    """The exit code of ``pid``, or None when it is still running at the limit."""
    deadline = time.monotonic() + LIMIT_SECONDS
    while time.monotonic() < deadline:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    return None


def test_the_dashboard_ends_when_its_terminal_is_hung_up_under_make(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL_") and k != "WATCHDECK_API_KEY"}
    env.update(TERM="xterm-256color", PYTHONPATH=str(ROOT))
    world_folder = env["WATCHDECK_CACHE_DIR"]  # the conftest's folder of this test: on the demo server's command line
    pid, master = pty.fork()
    if pid == 0:  # the terminal's session leader
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-c", LEADER, sys.executable, "-m", "tui", "--demo"], env)
        finally:
            os._exit(127)
    code: int | None = None
    try:
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        _read_until(master, FIRST_FRAME)
        assert _processes_naming(world_folder), "the demo server is not running"
        os.close(master)  # the terminal window closes
        master = -1
        code = _wait_for_exit(pid)
        assert code == EXIT_HUNG_UP, f"the dashboard did not end when its terminal was hung up (leader: {code})"
        deadline = time.monotonic() + LIMIT_SECONDS
        while (left := _processes_naming(world_folder)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left == [], "the demo server outlived the dashboard"
    finally:
        if master >= 0:
            os.close(master)
        if code is None:
            os.killpg(pid, signal.SIGKILL)  # the leader's group: the dashboard and its demo server with it
            os.waitpid(pid, 0)
    assert not (Path(env["WATCHDECK_STATE_DIR"]) / "errors.log").exists(), "the exit logged an error"
