"""The incident path end to end against the sandbox: a Postgres outage from the first alert to every failed
interval re-exported, with the ``on_alert`` hook hearing both the alert and its end.

One clock is shared by the sandbox and the app, and the sandbox's world only moves when this test ticks it, so
what the app polled is exactly what the sandbox holds when ``R`` is pressed. What was retried is counted in the
sandbox's request log and compared with the failed runs in the sandbox's own database, never with the plan the
screen drew.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from tests.incident.sandbox_admin import SandboxAdmin
from tests.monitor.conftest import requests
from tests.pilot import settle
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.screens.alerts import AlertsScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.repair import RepairScreen
from tui.screens.timeline import TimelineScreen

DESTINATION = "Postgres"  # two exports in the seed (every 5 and every 15 minutes): a group across exports
DOWN_ERROR = "Connection refused"  # what the sandbox's Postgres says while it is down

HOOK = """
import sys
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(sys.stdin.read().strip() + "\\n")
"""


def pass_time(admin: SandboxAdmin, minutes: int) -> None:
    """Move the shared clock a minute at a time, the sandbox scheduling and finishing runs as it goes."""
    for _ in range(minutes):
        admin.pass_seconds(60)


def postgres_exports(handle: SandboxHandle) -> dict[str, str]:
    """Export id -> name of the watched project's exports writing to the destination that goes down."""
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, data FROM exports WHERE deleted = 0 AND project_id = ?",
                         (int(handle.project_id),)).fetchall()
    found = {}
    for row in rows:
        data = json.loads(row["data"])
        if data["destination"]["type"] == DESTINATION:
            found[str(row["id"])] = str(data["name"])
    return found


def failed_in_outage(handle: SandboxHandle, exports: dict[str, str]) -> set[str]:
    """The runs of these exports the sandbox holds as failed by the outage whose interval has no later attempt."""
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, export_id, status, data_interval_end, created_at, latest_error FROM runs"
                         ).fetchall()
    latest: dict[tuple[str, str], Any] = {}
    for row in rows:
        if row["export_id"] not in exports:
            continue
        key = (row["export_id"], row["data_interval_end"])
        if key not in latest or row["created_at"] > latest[key]["created_at"]:
            latest[key] = row
    return {row["id"] for row in latest.values()
            if row["status"] == "Failed" and DOWN_ERROR in (row["latest_error"] or "")}


def monitor(app: Any) -> MonitorScreen:
    return next(s for s in app.screen_stack if isinstance(s, MonitorScreen))


async def poll(pilot: Any) -> None:
    await pilot.press("ctrl+r")
    await settle(pilot)


async def test_an_outage_from_first_alert_to_every_failed_interval_retried(
        sandbox: SandboxHandle, admin: SandboxAdmin, clock: FrozenClock, tmp_path: Path) -> None:
    heard = tmp_path / "hook.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK, encoding="utf-8")
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        poll_seconds=30.0, bell=False, on_alert=[sys.executable, str(hook), str(heard)])
    app = WatchdeckApp(settings, clock=clock)
    down = postgres_exports(sandbox)
    assert len(down) == 2
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        keys = {k for k, item in screen.incident.desk.exports.items() if item.watched.export.id in down}
        assert len(keys) == 2 and not any(screen.incident.desk.book.open_for(k) for k in keys)

        # The outage starts; half an hour of runs fail on both exports.
        admin("POST", "outages", destination=DESTINATION)
        pass_time(admin, 30)
        await poll(pilot)
        assert all(screen.incident.desk.book.open_for(k) for k in keys)

        # ! lists both exports as failing.
        await pilot.press("exclamation_mark")
        await settle(pilot)
        assert isinstance(app.screen, AlertsScreen)
        table = app.screen.query_one("#alerts-open", DataTable)
        listed = {str(table.get_row_at(i)[1]) for i in range(table.row_count)}
        assert set(down.values()) <= listed
        await pilot.press("escape")
        await settle(pilot)

        # t: the outage is a column of failures across both exports.
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        model = app.screen.model
        assert model.axis is not None
        both = [i for i in range(model.axis.count)
                if all(model.rows[k].statuses[i] == "Failed" for k in keys)]
        assert both, "no column where both exports failed"
        await pilot.press("escape")
        await settle(pilot)

        # g: one group holds the outage's runs of both exports.
        await pilot.press("g")
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, FailureGroupsScreen)
        # The last day of the exports' runs is read for the groups: the seed's own older failures group too.
        outage = [g for g in groups.desk.groups() if set(g.export_keys) == keys and DOWN_ERROR in g.sample_error]
        assert len(outage) == 1, [g.signature for g in groups.desk.groups()]
        group = outage[0]
        assert DOWN_ERROR in group.sample_error
        assert group.summary().startswith(f"{group.run_count} runs in 2 exports")
        table = groups.query_one("#groups-table", DataTable)
        table.move_cursor(row=[str(k.value) for k in table.rows].index(group.signature))
        await settle(pilot)
        assert groups.highlighted() == group

        # The destination is back; R on the group sends one retry per failed interval, no more.
        admin("DELETE", "outages")
        expected = failed_in_outage(sandbox, down)
        assert len(expected) >= 6
        await pilot.press("R")
        await settle(pilot)
        repair = app.screen
        assert isinstance(repair, RepairScreen)
        await pilot.press("ctrl+s")
        for _ in range(200):
            await settle(pilot)
            if repair.progress is not None and repair.progress.finished:
                break
        retried = [r["path"].split("/runs/")[1].split("/")[0] for r in requests(sandbox, "POST", "/retry/")]
        assert sorted(retried) == sorted(expected)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen

        # The retries run and complete; the exports are healthy and their alerts resolve.
        pass_time(admin, 40)
        assert not failed_in_outage(sandbox, down), "every failed interval has a newer attempt"
        await poll(pilot)
        assert not any(screen.incident.desk.book.open_for(k) for k in keys)
        resolved = {a.export_id for a in screen.incident.desk.book.history if a.state == "resolved"}
        assert set(down) <= resolved
        assert any(not a.new for a in screen.incident.desk.book.history if a.state == "resolved"), \
            "an alert open at the first look resolved too (the hook must stay silent about it)"
        for _ in range(50):  # the hook runs in a worker; settle waited for it, the file may lag a moment
            if heard.exists() and len(heard.read_text().splitlines()) >= 4:
                break
            await pilot.pause(0.1)

    events = [json.loads(line) for line in heard.read_text(encoding="utf-8").splitlines()]
    for export_id, name in down.items():
        mine = [(e["event"], e["kind"]) for e in events if e["export_id"] == export_id]
        assert mine == [("opened", "failing"), ("resolved", "failing")], (name, mine)
        assert all(e["export"] == name for e in events if e["export_id"] == export_id)
    opened = {(e["export_id"], e["kind"]) for e in events if e["event"] == "opened"}
    assert all((e["export_id"], e["kind"]) in opened for e in events if e["event"] == "resolved"), \
        "a resolved alert the hook never heard open"
