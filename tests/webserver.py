"""Start ``watchdeck --web --demo`` as the operator would, and read the tokened URL it prints."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx

START_TIMEOUT = 30.0
_URL = re.compile(r"serving on (http://\S+)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class WebServer:
    proc: subprocess.Popen[bytes]
    port: int
    url: str = ""
    stderr_lines: list[str] = field(default_factory=list)

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.url).query)["token"][0]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stderr(self) -> str:
        return "".join(self.stderr_lines)


def _read_lines(stream: object, into: list[str]) -> None:
    for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
        into.append(raw.decode("utf-8", "replace"))


@contextmanager
def running_web(tmp_path: Path, *extra: str) -> Iterator[WebServer]:
    """``python -m tui --web --demo`` on a free loopback port, in its own process group; stopped on exit."""
    port = free_port()
    env = dict(os.environ, WATCHDECK_STATE_DIR=str(tmp_path), WATCHDECK_DATA_DIR=str(tmp_path),
               WATCHDECK_CONFIG_DIR=str(tmp_path), WATCHDECK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("WATCHDECK_API_KEY", None)
    proc = subprocess.Popen([sys.executable, "-m", "tui", "--web", "--demo", "--port", str(port), *extra],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    server = WebServer(proc, port)
    reader = threading.Thread(target=_read_lines, args=(proc.stderr, server.stderr_lines), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            found = next((m.group(1) for line in server.stderr_lines if (m := _URL.search(line))), None)
            if found:
                try:
                    httpx.get(f"{server.origin}/static/css/xterm.css", timeout=2, verify=False)
                except httpx.TransportError:
                    time.sleep(0.1)
                    continue
                server.url = found
                break
            time.sleep(0.1)
        assert server.url, f"web mode did not start: {server.stderr()}"
        yield server
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        reader.join(timeout=5)
