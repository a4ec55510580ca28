"""``watchdeck --web`` serves the dashboard page on loopback (textual-serve)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tui.web import strip_web_flags

pytest.importorskip("textual_serve")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_strip_web_flags_keeps_the_rest() -> None:
    argv = ["--web", "--port", "9000", "--demo", "--web-host=127.0.0.1", "--poll", "5"]
    assert strip_web_flags(argv) == ["--demo", "--poll", "5"]


def test_web_mode_serves_the_page_on_loopback(tmp_path: object) -> None:
    port = free_port()
    env = dict(os.environ, WATCHDECK_STATE_DIR=str(tmp_path), WATCHDECK_DATA_DIR=str(tmp_path),
               WATCHDECK_CONFIG_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "tui", "--web", "--demo", "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        page = None
        while time.monotonic() < deadline:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert page is not None, proc.stderr.read().decode() if proc.poll() is not None else "no answer"
        assert page.status_code == 200
        assert "watchdeck" in page.text
        with pytest.raises(httpx.TransportError):
            # bound to loopback only: not reachable on another local address, if the machine has one
            addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
            others = [a for a in addresses if not a.startswith("127.")]
            if not others:
                raise httpx.ConnectError("no other address to try")
            httpx.get(f"http://{others[0]}:{port}/", timeout=2)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
