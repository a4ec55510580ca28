"""The current incident starts where the outage started, as the server's runs list holds it.

Two hourly exports in the sandbox: A failed its 14 newest runs (about 14 h; ``latest_runs`` holds ten of them,
``BatchExportSerializer.get_latest_runs`` in PostHog's ``posthog/batch_exports/http.py`` slices ``[:10]``), B failed
three and then completed two. The failure groups view's default "since the current incident" starts at A's first
failed interval, read from the runs list; its group holds A's 14 and B's 3 failed runs; ``R`` on it previews that
window and sends one retry for each of the 17 intervals, counted on the server.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from textual.widgets import DataTable, Input

from tests.incident.test_group_repair_record import fail_runs, sandbox, two_five_minute_exports, two_hourly_exports
from tests.monitor.conftest import FROZEN_AT, make_app, requests, select_export
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.repair import DATE_FORMAT, RepairScreen

__all__ = ["sandbox"]  # the fixture, shared with the group repair tests


def interval_start(handle: SandboxHandle, run_id: str) -> Any:
    with handle.state.db.read() as c:
        row = c.execute("SELECT data_interval_start FROM runs WHERE id = ?", (run_id,)).fetchone()
    return parse_iso(row["data_interval_start"])


async def test_the_incident_starts_at_the_first_failure_of_the_streak_the_runs_list_holds(
        sandbox: SandboxHandle) -> None:
    a, b = two_hourly_exports(sandbox)
    failed_a = fail_runs(sandbox, a, 0, 14)
    failed_b = fail_runs(sandbox, b, 2, 3)
    first_failure = min(interval_start(sandbox, run_id) for run_id in failed_a)
    assert min(interval_start(sandbox, run_id) for run_id in failed_b) > first_failure
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor: Any = app.screen
        key_a = f"{sandbox.project_id}:{a}"
        # The alert open at the first look begins where the server's record shows the streak begin.
        (alert,) = monitor.incident.desk.book.in_course
        assert alert.key == key_a and alert.since == first_failure
        await pilot.press("g")
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, FailureGroupsScreen)
        start, words = groups.since()
        assert start == first_failure
        assert words == f"since {first_failure:%H:%M} (the current incident)" or words.startswith(
            f"since {first_failure:%m-%d %H:%M}")
        (group,) = [g for g in groups._groups if "Connection refused" in g.sample_error]
        assert group.run_count == 17 and group.export_count == 2
        assert {f.run.id for f in group.runs} == failed_a | failed_b
        title = str(groups.query_one("#groups-title").render())
        assert title.startswith(f"Failure groups · {words} · ")
        table = groups.query_one("#groups-table", DataTable)
        assert str(table.get_row(group.signature)[0]) == "17"  # the Runs column on screen
        table.move_cursor(row=[str(k.value) for k in table.rows].index(group.signature))
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        repair = app.screen
        assert isinstance(repair, RepairScreen)
        assert repair.since == first_failure
        assert repair.query_one("#repair-since", Input).value == f"{first_failure:{DATE_FORMAT}}"
        assert repair.plan.count == 17 and repair.plan.exports == 2
        await pilot.press("y")
        for _ in range(200):
            await settle(pilot)
            if repair.progress is not None and repair.progress.finished:
                break
        assert repair.progress is not None and repair.progress.sent == 17
    retried: dict[str, set[str]] = {}
    for request in requests(sandbox, "POST", "/retry/"):
        export_id, run_id = request["path"].split("/batch_exports/")[1].split("/runs/")
        retried.setdefault(export_id, set()).add(run_id.split("/")[0])
    assert len(requests(sandbox, "POST", "/retry/")) == 17
    assert retried == {a: failed_a, b: failed_b}


async def test_a_streak_longer_than_the_verdicts_read_is_read_back_to_its_start(sandbox: SandboxHandle) -> None:
    """300 failed 5-minute runs (25 h): the verdict's read stops a clear margin past the allowed lag (one page of
    100) and asks for the last Completed run alone, so the streak is "100+"; the groups view reads the runs list
    between them (past its own 24 h), and the incident, its alert and the group then start at the streak's first
    failure."""
    export_id = two_five_minute_exports(sandbox)[0]
    failed = fail_runs(sandbox, export_id, 0, 300)
    first_failure = min(interval_start(sandbox, run_id) for run_id in failed)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor: Any = app.screen
        key = f"{sandbox.project_id}:{export_id}"
        verdict = monitor.board.facts(key).verdict
        assert verdict.failure_streak_is_lower_bound and verdict.failure_streak < 300
        alert = monitor.incident.desk.book.episode(key)
        assert alert is not None and alert.since > first_failure
        await pilot.press("g")
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, FailureGroupsScreen)
        assert groups.since()[0] == first_failure < FROZEN_AT - timedelta(hours=24)
        assert alert.since == first_failure
        (group,) = [g for g in groups._groups if "Connection refused" in g.sample_error]
        # one per interval: the seed's retry of one of them is that interval's latest attempt
        assert {f.run.id for f in group.runs} <= failed
        assert len({interval_start(sandbox, run_id) for run_id in failed}) == group.run_count >= 299
        assert group.first_interval == first_failure


async def test_an_export_repair_defaults_to_the_whole_streak_read_back_to_its_start(sandbox: SandboxHandle) -> None:
    """``R`` on the monitor's row of an export 300 failed runs (25 h) into its outage: the dialog reads the runs
    list back to the run that ended the streak, and its default window starts at the first failed interval."""
    export_id = two_five_minute_exports(sandbox)[0]
    failed = fail_runs(sandbox, export_id, 0, 300)
    first_failure = min(interval_start(sandbox, run_id) for run_id in failed)
    intervals = len({interval_start(sandbox, run_id) for run_id in failed})
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor: Any = app.screen
        key = f"{sandbox.project_id}:{export_id}"
        select_export(app, monitor.board.watched(key).export.name)
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        repair = app.screen
        assert isinstance(repair, RepairScreen)
        assert repair.since == first_failure
        assert repair.query_one("#repair-since", Input).value == f"{first_failure:{DATE_FORMAT}}"
        assert repair.plan.count == intervals and {t.run_id for t in repair.plan.targets} <= failed
