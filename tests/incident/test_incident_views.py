"""Pilot tests of the incident views over a fixed outage: each key does what the footer says."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import Button, DataTable, Input, Static

from tui.screens.alerts import AlertsScreen, JumpTo
from tui.screens.export_modals import RunErrorScreen
from tui.screens.failure_groups import FailureGroupsScreen, FilterTo
from tui.screens.repair import RepairScreen
from tui.screens.timeline import OpenRun, TimelineScreen
from tui.state.incident import IncidentDesk
from tui.state.repair import RepairProgress
from tui.widgets.timeline_view import TimelineView

from .outage import Host, RecordingClient, context, outage_desk, outage_exports, verdicts
from .runs import NOW


def text_of(app: Host, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_alerts_pane_lists_acknowledges_and_jumps(tmp_path: Path) -> None:
    desk = outage_desk(tmp_path / "journal.jsonl")
    ctx = context(desk, tmp_path / "journal.jsonl")
    app = Host(lambda _app: AlertsScreen(ctx))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#alerts-open", DataTable)
        assert table.row_count == 4
        assert "4 open" in text_of(app, "#alerts-title")
        await pilot.press("a")
        await pilot.pause()
        assert desk.book.open_count == 3 and len(desk.book.history) == 1
        assert app.screen.query_one("#alerts-history", DataTable).row_count == 1
        await pilot.press("enter")
        await pilot.pause()
    assert len(app.results) == 1 and isinstance(app.results[0], JumpTo)
    journal = [json.loads(line) for line in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [entry["action"] for entry in journal] == ["alert acknowledged"]


async def test_alerts_pane_follows_the_desk_and_closes_with_the_same_key() -> None:
    desk = outage_desk()
    app = Host(lambda _app: AlertsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        healthy = outage_exports(repaired=True)
        desk.observe(healthy, verdicts(healthy), NOW)
        await pilot.pause()
        assert "none open" in text_of(app, "#alerts-title")
        assert app.screen.query_one("#alerts-history", DataTable).row_count == 4
        await pilot.press("exclamation_mark")
        await pilot.pause()
    assert app.results == [None]


async def test_groups_view_names_the_outage_and_filters_to_its_exports() -> None:
    desk = outage_desk()
    app = Host(lambda _app: FailureGroupsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#groups-table", DataTable).row_count == 2
        detail = text_of(app, "#groups-detail")
        assert "12 runs in 3 exports, first 08:06, last 11:06" in detail
        assert "Access Denied for bucket 'acme-e" in detail  # one sample, as the server said it
        await pilot.press("enter")
        await pilot.pause()
    result = app.results[0]
    assert isinstance(result, FilterTo) and result.keys == ("1:e01", "1:e02", "1:e03")


async def test_timeline_shows_the_outage_column_names_the_cell_and_opens_a_run() -> None:
    desk = outage_desk()
    app = Host(lambda _app: TimelineScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert screen.model.zoom.label == "24h"
        assert "up to 4 failing in one column" in text_of(app, "#timeline-title")
        # cursor starts on the newest cell of the first row; the outage hour 2 is 4-5 cells to the left
        await pilot.press(*["left"] * 5)
        await pilot.pause()
        cell = text_of(app, "#timeline-cell")
        assert "Events to S3 data lake" in cell and "F failed" in cell and "AccessDenied" in cell
        await pilot.press("minus")
        await pilot.pause()
        assert screen.model.zoom.label == "7d"
        await pilot.press("plus", "plus")
        await pilot.pause()
        assert screen.model.zoom.label == "6h"
        # cells fill the width at every zoom: walk left to the newest cell that names a run
        named = None
        for _ in range(200):
            await pilot.press("left")
            await pilot.pause()
            named = re.search(r"\be01-r\d+\b", text_of(app, "#timeline-cell"))
            if named:
                break
        assert named is not None, "the first row has runs inside the 6h zoom"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunErrorScreen) and app.screen.run.id == named.group(0)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen, "escape comes back to the timeline"
        assert app.results == []
        await pilot.press("escape")
        await pilot.pause()
    result = app.results[0]
    assert isinstance(result, OpenRun) and result.key == "1:e01" and result.run_id == named.group(0)


async def test_timeline_repaints_only_changed_rows() -> None:
    desk = outage_desk()
    app = Host(lambda _app: TimelineScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        exports = outage_exports()
        fixed = outage_exports(repaired=True)
        exports[0] = fixed[0]
        desk.observe(exports, verdicts(exports), NOW)
        await pilot.pause()
        assert screen.update_from_desk(full=False) == set()  # already applied on the desk's change
        view = screen.query_one(TimelineView)
        assert "1:e01" in view._strips and "F" not in view._strips["1:e01"].text


async def test_repair_group_previews_sends_two_at_a_time_journals_and_summarises(tmp_path: Path) -> None:
    desk = outage_desk()
    client = RecordingClient()
    journal = tmp_path / "journal.jsonl"
    ctx = context(desk, journal, client_for=lambda _pid: client)
    group = desk.groups()[0]
    app = Host(lambda _app: RepairScreen.for_group(ctx, group))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        preview = text_of(app, "#repair-preview")
        assert "12 failed intervals in 3 exports to retry, 2 at a time" in preview
        for name in ("Events to S3 data lake", "Persons to S3 archive", "Billing events to S3"):
            assert f"{name}: 4, 11-22 07:00→08:00 … 11-22 10:00→11:00" in preview
        assert app.screen.query_one("#repair-typed", Input).has_class("hidden")
        assert app.screen.focused is app.screen.query_one("#repair-go")
        await pilot.press("y")
        for _ in range(100):
            await pilot.pause(0.02)
            if text_of(app, "#repair-status").startswith("Done"):
                break
        assert "Done: 12 retried" in text_of(app, "#repair-status")
        await pilot.press("escape")
        await pilot.pause()
    api = client.batch_exports
    expected = sorted((r.export_key.split(":")[1], r.run.id) for r in group.runs)
    assert sorted(api.retried) == expected and api.most == 2
    assert api.history == []  # the run before each streak is known: no need to read further back
    assert isinstance(app.results[0], RepairProgress) and app.results[0].sent == 12
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(lines) == 12 and {line["action"] for line in lines} == {"bulk retry"}


async def test_repair_above_twenty_asks_for_the_typed_count_and_esc_stops() -> None:
    desk = IncidentDesk()
    from .runs import export, run

    failing = export("big", [run(f"r{i}", i, "Failed", error="boom") for i in range(1, 26)])
    from tui.state.exports import WatchedExport

    watched = WatchedExport("1", failing)
    desk.observe([watched], {}, NOW)
    client = RecordingClient()
    client.batch_exports.delay = 0.1
    ctx = context(desk, client_for=lambda _pid: client)
    app = Host(lambda _app: RepairScreen.for_export(ctx, watched.key))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the window's runs are read before anything can be sent
        await pilot.pause()
        typed = app.screen.query_one("#repair-typed", Input)
        assert not typed.has_class("hidden")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert client.batch_exports.retried == []  # nothing sent without the typed count
        typed.value = "24"
        await pilot.pause()
        assert "type 25 to confirm" in text_of(app, "#repair-typed-error")
        typed.value = "25"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause(0.03)
        await pilot.press("escape")
        for _ in range(50):
            await pilot.pause(0.02)
            if "Done" in text_of(app, "#repair-status"):
                break
        status = text_of(app, "#repair-status")
        assert "stopped:" in status and "not sent" in status
    sent = len(client.batch_exports.retried)
    assert 0 < sent < 25
    # every known run failed: the streak may go further back, so the export's history was read first
    assert client.batch_exports.history == ["big"]


async def test_repair_preview_follows_the_server_and_lists_each_interval_on_e() -> None:
    desk = outage_desk()
    ctx = context(desk)
    group = desk.groups()[0]
    app = Host(lambda _app: RepairScreen.for_group(ctx, group))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "12 failed intervals in 3 exports" in text_of(app, "#repair-preview")
        await pilot.press("e")
        await pilot.pause()
        listed = text_of(app, "#repair-preview")
        assert listed.count("    11-22 08:00→09:00") == 3 and "(e: fewer)" in listed
        exports = outage_exports()
        exports[0] = outage_exports(repaired=True)[0]  # one export's intervals were retried and completed
        desk.observe(exports, verdicts(exports), NOW)
        await pilot.pause()
        assert "8 failed intervals in 2 exports" in text_of(app, "#repair-preview")
        assert "Retry 8 (y)" in str(app.screen.query_one("#repair-go", Button).label)


async def test_repair_typed_count_has_the_focus_enter_there_sends_and_a_finished_repair_offers_no_confirm() -> None:
    """Issue 42, item 3: past twenty intervals the focus starts in the count field, where typing goes; Enter there
    sends once the count is right (a wrong count sends nothing); once done, the footer no longer offers y Confirm."""
    from tests.pilot import burst, footer_words, settle

    from .runs import export, run

    desk = IncidentDesk()
    failing = export("big", [run(f"r{i}", i, "Failed", error="boom") for i in range(1, 26)])
    from tui.state.exports import WatchedExport

    watched = WatchedExport("1", failing)
    desk.observe([watched], {}, NOW)
    client = RecordingClient()
    client.batch_exports.delay = 0.001
    ctx = context(desk, client_for=lambda _pid: client)
    app = Host(lambda _app: RepairScreen.for_export(ctx, watched.key))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        typed = screen.query_one("#repair-typed", Input)
        assert not typed.has_class("hidden") and typed.has_focus
        await burst(pilot, "2", "4", "enter")
        assert client.batch_exports.retried == [] and "type 25 to confirm" in text_of(app, "#repair-typed-error")
        # (Backspace is one of the field's bindings, handled after the digits behind it in the same write.)
        await burst(pilot, "backspace")
        await burst(pilot, "5", "enter")
        assert "Done" in text_of(app, "#repair-status")
        assert len(client.batch_exports.retried) == 25
        assert "Confirm" not in footer_words(screen)
