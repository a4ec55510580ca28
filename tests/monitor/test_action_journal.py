"""Every write the monitor sends is journaled, once it succeeded and once it failed: the exact line each leaves.

Pause, unpause, backfill, retry, edit, delete, cancel run, cancel backfill and the bulk repair (``R``), driven
through Pilot against the sandbox; the failure is the sandbox's ``body`` fault answering the write with a 400 and a
validation error, as the service does when it refuses a change. The journal is the next person on call's record: an
action whose entry goes missing, in either outcome, fails its case here.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input

from tests.incident.long_outage import fail_newest
from tests.incident.test_monitor_keys import FAILING, put_cursor_on_a_running_run, running_export
from tests.monitor.conftest import back_to, make_app, requests, sandbox_call, select_export
from tests.pilot import settle, until
from tui.api.models.batch_exports import RunStatus
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso
from tui.screens.backfills import BackfillsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import BackfillScreen, DeleteExportScreen, EditExportScreen
from tui.screens.repair import RepairScreen
from tui.state.exports import WatchedExport
from tui.state.io.journal import ActionJournal

REFUSAL = "refused by the test"
FAILED = f"failed: The server refused the input: {REFUSAL}."

Drive = Callable[[Pilot[Any], WatchedExport], Awaitable[None]]


async def confirm(pilot: Pilot[Any], key: str) -> None:
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    await pilot.press("y")


async def pause(pilot: Pilot[Any], _watched: WatchedExport) -> None:
    await confirm(pilot, "p")


async def unpause(pilot: Pilot[Any], _watched: WatchedExport) -> None:
    await confirm(pilot, "u")


async def backfill(pilot: Pilot[Any], _watched: WatchedExport) -> None:
    await pilot.press("b")
    await until(pilot, lambda: isinstance(pilot.app.screen, BackfillScreen))
    pilot.app.screen.query_one("#backfill-start", Input).value = "2026-11-20 00:00"
    pilot.app.screen.query_one("#backfill-end", Input).value = "2026-11-20 02:00"
    await pilot.pause()
    await pilot.press("ctrl+s")


async def retry(pilot: Pilot[Any], _watched: WatchedExport) -> None:
    screen: Any = pilot.app.screen
    run = screen.selected_run()
    await pilot.press("r")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    first = pilot.app.screen
    await pilot.press("y")
    if run is not None and run.status == RunStatus.COMPLETED:  # a completed run asks a second time
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen) and pilot.app.screen is not first)
        await pilot.press("y")


async def edit(pilot: Pilot[Any], _watched: WatchedExport) -> None:
    await pilot.press("e")
    await until(pilot, lambda: isinstance(pilot.app.screen, EditExportScreen))
    pilot.app.screen.query_one("#edit-name", Input).value = "Renamed by the journal test"
    await pilot.press("ctrl+s")


async def cancel_run(pilot: Pilot[Any], watched: WatchedExport) -> None:
    await confirm(pilot, "c")


async def cancel_backfill(pilot: Pilot[Any], watched: WatchedExport) -> None:
    await pilot.press("B")
    await until(pilot, lambda: isinstance(pilot.app.screen, BackfillsScreen))
    table = pilot.app.screen.query_one("#backfills-table", DataTable)
    await until(pilot, lambda: table.row_count > 0)
    table.move_cursor(row=0)
    await settle(pilot)
    await confirm(pilot, "c")


async def delete(pilot: Pilot[Any], watched: WatchedExport) -> None:
    await pilot.press("D")
    await until(pilot, lambda: isinstance(pilot.app.screen, DeleteExportScreen))
    pilot.app.screen.query_one("#delete-name", Input).value = watched.export.name
    await pilot.press("enter")


HOURLY = "Events to S3 data lake"
RUNNING = "the export with a run in progress"
# action -> (how the operator does it, the write's path pattern, the export acted on: None for the seeded paused one)
ACTIONS: dict[str, tuple[Drive, str, str | None]] = {
    "pause": (pause, r"/pause/$", HOURLY),
    "unpause": (unpause, r"/unpause/$", None),
    "backfill": (backfill, r"/backfills/$", HOURLY),
    "retry": (retry, r"/retry/$", "Realtime webhook relay"),  # its selected run is the one retried
    "edit": (edit, r"/batch_exports/[^/]+/$", HOURLY),
    "delete": (delete, r"/batch_exports/[^/]+/$", HOURLY),
    "cancel run": (cancel_run, r"/runs/[^/]+/cancel/$", RUNNING),
    "cancel backfill": (cancel_backfill, r"/backfills/[^/]+/cancel/$", HOURLY),
}
# How each screen words a refusal in the journal: the backfills list says "error", the monitor "failed".
REFUSED = {"cancel backfill": f"error: The server refused the input: {REFUSAL}."}
WRITES = ("POST", "PATCH", "DELETE")


def journal_lines(user_dirs: Path) -> list[dict[str, Any]]:
    """What the dashboard wrote, read back by the journal's own reader."""
    return ActionJournal(user_dirs / "data" / "journal.jsonl").tail()


# Writes that can follow one another in one session: the hourly export's in an order each leaves the next its
# precondition (a backfill to cancel is made first; delete comes last), the others each on their own export.
GROUPS = {
    "the hourly export": ("backfill", "cancel backfill", "pause", "edit", "delete"),
    "three other exports": ("unpause", "retry", "cancel run"),
}


async def both_outcomes(pilot: Pilot[Any], sandbox: SandboxHandle, user_dirs: Path, action: str,
                        expected: list[tuple[Any, ...]], hourly_id: str) -> None:
    """The write refused by the server (its ``body`` fault answers once), then the operator doing it again and
    the server taking it: one more journal line for each outcome, in that order, and each write sent once."""
    drive, path, name = ACTIONS[action]
    app = pilot.app
    screen: Any = app.screen
    if name == RUNNING:
        watched = running_export(screen)
        await put_cursor_on_a_running_run(pilot, screen, watched.export.name)
    else:
        watched = next(w for w in screen.board.snapshot.exports
                       if (w.export.id == hourly_id if name == HOURLY else w.export.name == name if name
                           else w.export.paused))
        select_export(app, watched.export.name)
        await settle(pilot)
    run = screen.selected_run() if action in ("retry", "cancel run") else None
    assert run is not None or action not in ("retry", "cancel run")
    if action == "cancel backfill":
        made = sandbox_call("POST", f"{sandbox.base_url}/api/projects/1/batch_exports/{watched.export.id}/backfills/",
                          headers={"Authorization": f"Bearer {sandbox.api_key}"}, timeout=10,
                          json={"start_at": "2026-11-20T00:00:00Z", "end_at": "2026-11-20T06:00:00Z"})
        assert made.status_code == 201, made.text
    for outcome in ("failed", "ok"):
        if outcome == "failed":
            answer = sandbox_call("POST", f"{sandbox.base_url}/_sandbox/faults", json={
                "kind": "body", "status": 400, "path": path, "count": 1,
                "body": {"type": "validation_error", "code": "invalid", "detail": REFUSAL, "attr": None}})
            assert answer.status_code in (200, 201), answer.text
        await back_to(pilot, screen)
        writes_before = len([r for r in requests(sandbox) if r["method"] in WRITES])
        await drive(pilot, watched)
        await until(pilot, lambda: len(journal_lines(user_dirs)) > len(expected))
        # Backfill first tries the older ``/backfill/`` path, which the newest service answers 404: not this write.
        writes = [r for r in requests(sandbox) if r["method"] in WRITES][writes_before:]
        assert len([r for r in writes if re.search(path, r["path"])]) == 1, \
            f"{action} {outcome}: the write sent once: {writes}"
        expected.append((action, sandbox.project_id, watched.export.id, run.id if run else None,
                         watched.export.name, "ok" if outcome == "ok" else REFUSED.get(action, FAILED)))
        lines = [(e["action"], e["project"], e["export"], e["run"], e["name"], e["result"])
                 for e in journal_lines(user_dirs)]
        assert lines == expected, f"{action} {outcome}"


@pytest.mark.slow
@pytest.mark.parametrize("group", list(GROUPS))
async def test_every_write_is_journaled_with_its_outcome(sandbox: SandboxHandle, user_dirs: Path, group: str) -> None:
    """Each write of the group in turn in one monitor session, each starting from the monitor: refused, then
    taken (see ``both_outcomes``); the journal holds every line so far, in order."""
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        hourly_id = next(w.export.id for w in screen.board.snapshot.exports if w.export.name == HOURLY)
        expected: list[tuple[Any, ...]] = []
        for action in GROUPS[group]:
            await back_to(pilot, screen)
            await both_outcomes(pilot, sandbox, user_dirs, action, expected, hourly_id)
    assert sorted(a for actions in GROUPS.values() for a in actions) == sorted(ACTIONS), "every write is covered"


def newest_runs(handle: SandboxHandle, export_id: str, count: int) -> list[dict[str, Any]]:
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, data_interval_start, data_interval_end FROM runs WHERE export_id = ? "
                         "ORDER BY created_at DESC, id DESC LIMIT ?", (export_id, count)).fetchall()
    return [dict(r) for r in rows]


@pytest.mark.parametrize("outcome", ["ok", "failed"])
async def test_a_repair_journals_each_interval_it_sent_with_its_outcome(
        sandbox: SandboxHandle, user_dirs: Path, outcome: str) -> None:
    """``R`` on an export: one ``bulk retry`` line per failed interval and one ``backfill gap`` line per ticked gap;
    the one the server refuses is journaled with the server's words."""
    with sandbox.state.db.read() as c:
        export_id = str(c.execute("SELECT id FROM exports WHERE json_extract(data, '$.name') = ?",
                                   (FAILING,)).fetchone()["id"])
    fail_newest(sandbox, export_id, 4)
    runs = newest_runs(sandbox, export_id, 4)
    with sandbox.state.db.transaction() as c:  # the second newest interval has no run at all: a gap
        c.execute("DELETE FROM runs WHERE id = ?", (runs[1]["id"],))
    failed = [runs[0]["id"], runs[2]["id"], runs[3]["id"]]
    refused = runs[2]["id"]
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if outcome == "failed":
            answer = sandbox_call("POST", f"{sandbox.base_url}/_sandbox/faults", json={
                "kind": "body", "status": 400, "path": rf"/runs/{refused}/retry/$", "count": 1,
                "body": {"type": "validation_error", "code": "invalid", "detail": REFUSAL, "attr": None}})
            assert answer.status_code in (200, 201), answer.text
        select_export(app, FAILING)
        await settle(pilot)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, RepairScreen))
        repair: Any = app.screen
        await until(pilot, lambda: not repair.reading_history)
        assert sorted(t.run_id for t in repair.plan.targets) == sorted(failed) and len(repair.gaps) == 1
        repair.query_one("#repair-gaps", Checkbox).value = True
        await settle(pilot)
        writes_before = len([r for r in requests(sandbox) if r["method"] in WRITES])
        await pilot.press("y")
        await until(pilot, lambda: repair.progress is not None and repair.progress.finished)
    writes = [r["path"] for r in requests(sandbox) if r["method"] in WRITES][writes_before:]
    assert sorted(p.split("/runs/")[1] for p in writes if p.endswith("/retry/")) == sorted(
        f"{run}/retry/" for run in failed), "one retry per failed interval"
    assert len([p for p in writes if p.endswith("/backfills/")]) == 1, writes
    refusal = f"error: The server refused the input: {REFUSAL}."
    results = {run: "sent" for run in failed} | ({refused: refusal} if outcome == "failed" else {})
    expected = [("bulk retry" if r["id"] in failed else "backfill gap", r["id"] if r["id"] in failed else None,
                 results.get(r["id"], "sent"), {"start": parse_iso(r["data_interval_start"]).isoformat(),
                                                "end": parse_iso(r["data_interval_end"]).isoformat()})
                for r in runs]
    lines = journal_lines(user_dirs)
    assert all((e["project"], e["export"], e["name"]) == (sandbox.project_id, export_id, FAILING) for e in lines)
    # Two are sent at a time, so the lines come in the order the answers did.
    assert sorted(((e["action"], e["run"], e["result"], e["detail"]) for e in lines), key=repr) == sorted(
        expected, key=repr)
