"""The first poll in a child process: what ``watchdeck`` does on Linux, where forking before Textual loads is safe.

pytest's own process has threads (the sandboxes serve on them), and there the
first poll runs on a thread instead (tests/monitor/test_first_poll.py). These
tests run a fresh interpreter, as the command does, so the child is the real
one: its answer must come back whole (exports, what it learned, its failure in
the client's words, the server clock's samples), and it must never outlive the
dashboard.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.monitor.conftest import FROZEN_AT, requests
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

ROOT = Path(__file__).resolve().parents[2]
LIST_404 = "status:status=404,path=/batch_exports/$"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the first poll forks only on Linux")

POLL_SCRIPT = r"""
import json, os, sys, threading, time
from tui import startup
from tui.clock import SystemClock
from tui.config import Settings

base_url, key, mode, *ids = sys.argv[1:]
settings = Settings(base_url=base_url, api_key=key, project_ids=["1"], export_ids=ids, poll_seconds=30.0,
                    cache=False)
threads_before = threading.active_count()
early = startup.start_first_poll(settings, SystemClock())
print(json.dumps({"child": early._child_pid, "threads_at_fork": threads_before}), flush=True)
if mode == "wait-forever":
    time.sleep(600)
if mode == "stop":
    time.sleep(0.5)
    early.stop()
first = early.answer.result(timeout=30)
out = {"in_child": early.in_child, "none": first is None}
if first is not None:
    exports = first.snapshot.exports if first.snapshot else []
    out.update(
        exports=sorted(w.export.id for w in exports),
        names=sorted(w.export.name for w in exports),
        runs=sum(len(w.export.latest_runs or []) for w in exports),
        notes=first.snapshot.notes if first.snapshot else [],
        requests_sent=first.learned.requests_sent,
        lists_missing=sorted(first.learned.lists_missing),
        list_answered=sorted(first.learned.list_answered),
        error_type=type(first.error).__name__ if first.error else None,
        error=str(first.error) if first.error else None,
        error_status=getattr(first.error, "status", None),
        clock_samples=early.server_clock.samples,
        fresh=first.fresh(),
    )
print(json.dumps(out), flush=True)
"""


@pytest.fixture
def frozen_sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def run_poll(base_url: str, key: str, *ids: str, mode: str = "answer") -> tuple[dict[str, Any], dict[str, Any]]:
    proc = subprocess.run([sys.executable, "-c", POLL_SCRIPT, base_url, key, mode, *ids], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    started, answered = (json.loads(line) for line in proc.stdout.splitlines()[-2:])
    return started, answered


def test_the_childs_answer_comes_back_whole(frozen_sandbox: SandboxHandle) -> None:
    before = len(requests(frozen_sandbox, "GET", "/batch_exports/"))
    started, answer = run_poll(frozen_sandbox.base_url, frozen_sandbox.api_key)
    assert started["threads_at_fork"] == 1 and started["child"], "forked before any thread, as the command does"
    assert answer["in_child"] and not answer["none"]
    listed = frozen_sandbox.state.db.conn.execute("SELECT id FROM exports WHERE project_id = 1 AND deleted = 0")
    assert answer["exports"] == sorted(row[0] for row in listed)
    assert all(answer["names"]), "whole exports, names included"
    assert answer["runs"] > 0, "with their runs"
    assert answer["requests_sent"] == {"1": 1} and answer["list_answered"] == ["1"]
    assert answer["clock_samples"] >= 1, "the child's Date headers date this process's server clock"
    assert answer["fresh"], "one machine-wide monotonic clock: the child's time is this process's"
    assert len(requests(frozen_sandbox, "GET", "/batch_exports/")) - before == 1


def test_the_childs_failure_comes_back_in_the_clients_words(frozen_sandbox: SandboxHandle) -> None:
    _, answer = run_poll(frozen_sandbox.base_url, "phx_not_a_key_of_this_server")
    assert answer["in_child"] and answer["exports"] == []
    assert answer["error_type"] == "Unauthorized" and answer["error_status"] == 401
    assert "key" in answer["error"].lower()


def test_what_the_child_learned_of_a_missing_list_comes_back() -> None:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), faults=[LIST_404])
    with start_sandbox(options) as sandbox:
        ids = [row[0] for row in sandbox.state.db.conn.execute(
            "SELECT id FROM exports WHERE project_id = 1 AND deleted = 0 ORDER BY created_at LIMIT 3")]
        _, answer = run_poll(sandbox.base_url, sandbox.api_key, *ids)
    assert answer["exports"] == sorted(ids)
    assert answer["lists_missing"] == ["1"] and answer["list_answered"] == []
    assert any("no export list" in note for note in answer["notes"])


@pytest.fixture
def black_hole() -> Iterator[str]:
    """A server that accepts connections and never answers: a poll that is still under way."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def ended(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # an orphan's zombie, where nothing reaps it, has ended too


def test_stop_ends_a_child_still_polling(black_hole: str) -> None:
    started, answer = run_poll(black_hole, "key", mode="stop")
    assert answer["none"], "stopped: no answer, the monitor asks itself"
    assert ended(started["child"])


def test_the_child_never_outlives_the_dashboard(black_hole: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", POLL_SCRIPT, black_hole, "key", "wait-forever"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        child = json.loads(proc.stdout.readline())["child"]
        assert child and not ended(child), "the child is polling"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not ended(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ended(child), "the dashboard was killed: its child ended with it"
    finally:
        proc.kill()
        proc.wait()


def test_where_it_cannot_fork_the_first_poll_runs_on_a_thread(frozen_sandbox: SandboxHandle) -> None:
    """A failed fork (no memory, no process slot) is no failed start: the poll runs on a thread instead."""
    script = POLL_SCRIPT.replace("early = startup.start_first_poll(",
                                 "def refuse():\n    raise OSError(11, 'Resource temporarily unavailable')\n"
                                 "os.fork = refuse\nearly = startup.start_first_poll(")
    proc = subprocess.run([sys.executable, "-c", script, frozen_sandbox.base_url, frozen_sandbox.api_key, "answer"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    started, answer = (json.loads(line) for line in proc.stdout.splitlines()[-2:])
    assert started["child"] is None and not answer["in_child"]
    assert len(answer["exports"]) == 12 and answer["error"] is None
