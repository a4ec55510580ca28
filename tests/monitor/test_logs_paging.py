"""A log view on a server that ignores ``after`` and ``limit``: it says what it keeps, and stops re-reading.

The sandbox's ``logs_ignore_paging`` answers every entry to every log request, as the servers did
that made follow mode re-parse 22 MB every 3 s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from textual.widgets import Log, Static

from tests.monitor.conftest import FROZEN_AT, make_app, requests, select_export
from tests.pilot import settle, until
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.logs import MAX_LINES, LogsScreen, kept_summary

EXTRA = 12_000


@pytest.fixture
def ignoring_sandbox() -> Iterator[SandboxHandle]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), logs_ignore_paging=True)
    with start_sandbox(options) as handle:
        yield handle


def _add_logs(handle: SandboxHandle, export_id: str, count: int) -> int:
    start = FROZEN_AT - timedelta(days=2)
    rows = [(export_id, "run-x", "i", (start + timedelta(seconds=i)).isoformat().replace("+00:00", "Z"), "INFO",
             f"line {i}") for i in range(count)]
    with handle.state.db.transaction() as c:
        c.executemany("INSERT INTO logs(export_id, run_id, instance_id, timestamp, level, message) "
                      "VALUES(?,?,?,?,?,?)", rows)
        total = c.execute("SELECT count(*) FROM logs WHERE export_id = ?", (export_id,)).fetchone()[0]
    return int(total)


def test_the_summary_says_what_is_kept() -> None:
    assert kept_summary(100_000, 5000) == "last 5,000 of 100,000"
    assert kept_summary(1234, 5000) == "1,234 lines"


async def test_a_server_ignoring_after_and_limit_is_read_once(ignoring_sandbox: SandboxHandle,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tui.screens.logs.FOLLOW_SECONDS", 0.2)
    app = make_app(ignoring_sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        key = select_export(app, "Events to S3 data lake")
        screen: Any = app.screen
        export_id = next(w.export.id for w in screen.board.snapshot.exports if w.key == key)
        total = _add_logs(ignoring_sandbox, export_id, EXTRA)
        await pilot.press("L")
        await settle(pilot)
        logs = app.screen
        assert isinstance(logs, LogsScreen)
        await app.workers.wait_for_complete()
        await settle(pilot)
        status = str(logs.query_one("#logs-status", Static).render())
        assert f"last {MAX_LINES:,} of {total:,}" in status, status
        assert "ignores after/limit" in status
        assert logs.query_one("#logs", Log).line_count == MAX_LINES
        assert logs.follow is False and logs.ignores_paging
        asked = len(requests(ignoring_sandbox, "GET", "/logs"))
        await asyncio.sleep(1.0)  # five follow intervals
        await pilot.pause()
        assert len(requests(ignoring_sandbox, "GET", "/logs")) == asked, "nothing re-read while not following"


async def test_a_normal_server_keeps_following(sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tui.screens.logs.FOLLOW_SECONDS", 0.2)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, "Events to S3 data lake")
        await pilot.press("L")
        await settle(pilot)
        logs = app.screen
        assert isinstance(logs, LogsScreen)
        asked = len(requests(sandbox, "GET", "/logs"))
        await until(pilot, lambda: len(requests(sandbox, "GET", "/logs")) > asked, step=0.1)  # the next follow
        assert logs.follow and not logs.ignores_paging
        assert len(requests(sandbox, "GET", "/logs")) > asked
