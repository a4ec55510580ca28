"""One answer is at most MAX_ANSWER_BYTES: a huge or endless body is refused as "answer too large", read no further.

The server is a raw loopback one (tests/api/huge_server.py): the sandbox answers only what its API holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.huge_server import HugeServer
from tui.api.client import ApiClient
from tui.api.client_core import MAX_ANSWER_BYTES
from tui.api.errors import AnswerTooLarge

ROOT = Path(__file__).resolve().parents[2]
MB = 1024 * 1024


def test_the_limit_is_the_documented_32_mb() -> None:
    assert MAX_ANSWER_BYTES == 32 * MB
    assert "32 MB" in (ROOT / "README.md").read_text(encoding="utf-8")


async def test_a_huge_body_is_refused_after_the_limit_and_not_asked_again() -> None:
    with HugeServer(body_bytes=96 * MB) as server:
        async with ApiClient(server.base_url, "phx_k", "1") as client:
            with pytest.raises(AnswerTooLarge) as caught:
                await client.surveys.list()
        assert "too large" in str(caught.value) and caught.value.short == "answer too large"
        assert server.requests == 1  # not retried: the next answer would be as large
    # The client stopped reading at the limit and closed the connection: the server could not send it all.
    assert server.sent and server.sent[0] < 64 * MB, server.sent


async def test_a_declared_length_past_the_limit_is_refused_before_reading() -> None:
    with HugeServer(body_bytes=0, declared=10**12) as server:
        async with ApiClient(server.base_url, "phx_k", "1") as client:
            with pytest.raises(AnswerTooLarge):
                await client.batch_exports.list()
        assert server.requests == 1


_MEASURED = """
import re, sys
from pathlib import Path
from tui.cli.main import main
code = main(sys.argv[1:])
peak = re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)
sys.stderr.write(f"peak-rss-kb {peak}\\n")
sys.exit(code)
"""
"""Runs the command and writes its peak RSS: VmHWM, this process's own (getrusage's ru_maxrss also counts the
test process that started it, which it was forked from)."""


def test_status_against_a_huge_answer_stays_small_and_says_why(tmp_path: Path) -> None:
    """`watchdeck status` against 256 MB answers: exit 2, "too large" on stderr, and its peak RSS far below the
    body (reading it whole took more than the body's size)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDECK_")}
    env |= {f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("CONFIG", "DATA", "STATE", "CACHE")}
    with HugeServer(body_bytes=256 * MB) as server:
        env |= {"WATCHDECK_BASE_URL": server.base_url, "WATCHDECK_API_KEY": "phx_k", "WATCHDECK_PROJECT_ID": "1",
                "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", _MEASURED, "status", "--no-cache"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "too large (over 32 MB)" in done.stderr, done.stderr
    peak_mb = int(done.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0]) / 1024
    assert peak_mb < 200, f"peak RSS {peak_mb:.0f} MB: {done.stderr}"
