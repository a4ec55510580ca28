"""The monitor's actions service (tui.state.io.export_actions) without an app: the sandbox served in-process.

Each action is sent once, changes the board, leaves one journal line and says one thing; a failure is said and
journaled and changes nothing; a missing cancel route is learned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.app import create_app
from tui.sandbox.auth import DEMO_KEY
from tui.sandbox.faults import parse_fault
from tui.sandbox.options import SandboxOptions
from tui.state.export_board import ExportBoard
from tui.state.exports import WatchedExport
from tui.state.io.export_actions import NO_RUN_CANCEL, Change, ExportActions
from tui.state.io.journal import ActionJournal

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def sandbox_app() -> Iterator[Starlette]:
    app = create_app(SandboxOptions(seed=7, simulate=False), FrozenClock(NOW))
    yield app
    app.state.sandbox.db.close()


class Heard:
    """What the service told the screen."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, str, str]] = []
        self.changes: list[Change] = []

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None) -> None:
        self.notes.append((message, title, severity))


@pytest.fixture
async def client(sandbox_app: Starlette) -> AsyncIterator[ApiClient]:
    async with ApiClient("http://sandbox", DEMO_KEY, "1", max_retries=0,
                         transport=httpx.ASGITransport(app=sandbox_app)) as api:
        yield api


def service(client: ApiClient, board: ExportBoard, heard: Heard, journal: ActionJournal) -> ExportActions:
    return ExportActions(board, lambda _project: client, journal, profile="ops", clock=FrozenClock(NOW),
                         server_clock=FrozenClock(NOW), notify=heard.notify, changed=heard.changes.append,
                         unsupported=set())


async def watched_where(client: ApiClient, keep: Any) -> WatchedExport:
    exports = (await client.batch_exports.list()).results
    return WatchedExport("1", next(e for e in exports if keep(e)))


def posts(sandbox_app: Starlette) -> list[str]:
    return [r["path"] for r in sandbox_app.state.sandbox.requests.list() if r["method"] == "POST"]


async def test_a_pause_is_sent_once_shown_journaled_and_said(client: ApiClient, sandbox_app: Starlette,
                                                             tmp_path: Path) -> None:
    board, heard, journal = ExportBoard(), Heard(), ActionJournal(tmp_path / "journal.jsonl")
    actions = service(client, board, heard, journal)
    watched = await watched_where(client, lambda e: not e.paused)
    told: list[tuple[str, bool]] = []
    board.pause_listeners.append(lambda key, paused: told.append((key, paused)))
    assert await actions.set_paused(watched, True)
    assert posts(sandbox_app) == [f"/api/environments/1/batch_exports/{watched.export.id}/pause/"]
    assert (await client.batch_exports.get(watched.export.id)).paused
    assert told == [(watched.key, True)] and not board.is_pending("pause", watched.key)
    assert heard.changes == [Change.PENDING, Change.PENDING, Change.BOARD]
    assert heard.notes == [(f"Paused: {watched.export.name}", "", "information")]
    [entry] = journal.tail()
    assert (entry["action"], entry["result"], entry["export"], entry["name"], entry["profile"], entry["server_time"]) \
        == ("pause", "ok", watched.export.id, watched.export.name, "ops", NOW.isoformat())


async def test_an_action_already_pending_is_not_sent_again(client: ApiClient, sandbox_app: Starlette,
                                                           tmp_path: Path) -> None:
    board, heard, journal = ExportBoard(), Heard(), ActionJournal(tmp_path / "journal.jsonl")
    actions = service(client, board, heard, journal)
    watched = await watched_where(client, lambda e: not e.paused)
    assert board.begin("delete", watched.key)
    assert not await actions.delete(watched)
    assert posts(sandbox_app) == [] and heard.notes == [] and heard.changes == [] and journal.tail() == []


async def test_a_refused_retry_is_said_and_journaled_and_changes_nothing(client: ApiClient, sandbox_app: Starlette,
                                                                         tmp_path: Path) -> None:
    board, heard, journal = ExportBoard(), Heard(), ActionJournal(tmp_path / "journal.jsonl")
    actions = service(client, board, heard, journal)
    watched = await watched_where(client, lambda e: e.latest_runs)
    run = watched.export.latest_runs[0]
    sandbox_app.state.sandbox.faults.add(parse_fault({"kind": "status", "status": 403, "path": "/retry/$"}))
    assert not await actions.retry(watched, run)
    assert len(posts(sandbox_app)) == 1, "sent once, never retried"
    assert board.take_started_retries() == [] and not board.is_pending("retry", watched.key)
    assert heard.changes == [Change.PENDING, Change.PENDING]
    [(message, title, severity)] = heard.notes
    assert (title, severity) == ("Retry failed", "error") and "403" in message
    [entry] = journal.tail()
    assert (entry["action"], entry["run"]) == ("retry", run.id) and entry["result"].startswith("failed: ")


async def test_a_missing_cancel_route_is_learned_and_the_run_no_longer_shows_cancelling(
    client: ApiClient, sandbox_app: Starlette, tmp_path: Path
) -> None:
    board, heard, journal = ExportBoard(), Heard(), ActionJournal(tmp_path / "journal.jsonl")
    actions = service(client, board, heard, journal)
    watched = await watched_where(client, lambda e: any(r.is_in_progress for r in e.latest_runs))
    run = next(r for r in watched.export.latest_runs if r.is_in_progress)
    sandbox_app.state.sandbox.faults.add(parse_fault({"kind": "status", "status": 404, "path": "/cancel/$"}))
    assert actions.can_cancel_runs("1")
    assert not await actions.cancel_run(watched, run)
    assert not actions.can_cancel_runs("1") and board.cancelling == set()
    assert heard.changes == [Change.RUNS, Change.RUNS]
    assert heard.notes == [(NO_RUN_CANCEL.replace("nothing was sent", "nothing was changed"), "", "information")]
    [entry] = journal.tail()
    assert (entry["action"], entry["run"], entry["result"]) == ("cancel run", run.id, "not supported")
