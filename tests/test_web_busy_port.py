"""Issue 27, item 13: web mode prints its URL only once it serves, and a busy port is one line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_busy_port_is_one_line_and_no_url(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), WATCHDECK_STATE_DIR=str(tmp_path), WATCHDECK_DATA_DIR=str(tmp_path),
               WATCHDECK_CONFIG_DIR=str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "tui", "--web", "--demo", "--port", str(port)], env=env,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"watchdeck: cannot listen on 127.0.0.1:{port}: "), lines
    assert "serving on" not in done.stderr and "token=" not in done.stderr
