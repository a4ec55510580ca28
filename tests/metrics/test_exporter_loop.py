"""A poll that fails inside watchdeck never ends the exporter's poll loop: said once, counted, polled again.

The exporter runs in this process against the sandbox over loopback; the failure is
injected into one step of its poll (the shared-cache sync, where a forged count once
raised OverflowError), since no answer of a server can make watchdeck's own code fail.
"""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

import pytest

from tui.cli.metrics import Exporter
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.state.metric_families import POLL_FAILED, PollMetrics

FAILURES = 3


def list_requests(handle: SandboxHandle) -> int:
    return len([r for r in handle.requests() if r["method"] == "GET" and r["path"].endswith("/batch_exports/")])


@pytest.mark.slow
async def test_a_failing_poll_is_logged_once_counted_and_the_loop_polls_again(
        sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDECK_STATE_DIR", str(tmp_path / "state"))
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=["1"], poll_seconds=2.0,
                        cache=False)
    err = io.StringIO()
    metrics = PollMetrics()
    exporter = Exporter(settings, metrics, err=err)
    real_sync = exporter.shared.sync
    failed = 0

    async def sync(interval: float) -> None:
        nonlocal failed
        if failed < FAILURES:
            failed += 1
            raise OverflowError("int too large to convert to float")
        await real_sync(interval)

    monkeypatch.setattr(exporter.shared, "sync", sync)
    stop = asyncio.Event()
    loop = asyncio.create_task(exporter.run(stop))
    try:
        deadline = time.monotonic() + 60
        while list_requests(sandbox) < FAILURES + 2:  # polls after the failing ones
            assert not loop.done(), "the poll loop ended"
            assert time.monotonic() < deadline, "the exporter stopped polling"
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(loop, 30)
        await exporter.aclose()
    assert metrics.requests.labels(outcome=POLL_FAILED)._value.get() == FAILURES
    lines = err.getvalue().splitlines()
    log = tmp_path / "state" / "errors.log"
    assert lines == [f"watchdeck: unexpected error: OverflowError: int too large to convert to float; details in "
                     f"{log} (polling goes on)"], lines
    assert log.read_text().count("OverflowError") == 2  # one record: the exception line and the traceback's last
    assert exporter.last_success is not None
