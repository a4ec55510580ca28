"""The monitor against the sandbox: what the server received and what the screen shows."""

from __future__ import annotations

import io
import json
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Log, OptionList, Static, TextArea

from tests.monitor.conftest import back_to, make_app, press_on, requests, select_export
from tests.pilot import footer_shows_current_keys, notifications, settle, until
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import BackfillScreen, DeleteExportScreen, EditExportScreen
from tui.screens.logs import LogsScreen
from tui.widgets.footer import KeyFooter
from tui.widgets.virtual_table import VirtualTable


def exports_table(app: Any) -> VirtualTable:
    return app.screen.query_one("#exports", VirtualTable)


def status_line(app: Any) -> str:
    return str(app.screen.query_one("#monitor-status", Static).render())


def cell(app: Any, key: str, column: str) -> str:
    return exports_table(app).cell(exports_table(app).index_of(key), column)








async def test_read_only_hides_every_mutating_key(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, read_only=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        select_export(app, "Events to S3 data lake")
        await pilot.pause()
        screen: Any = app.screen
        for action in ("pause", "unpause", "backfill", "retry", "edit", "delete"):
            assert screen.check_action(action, ()) is False, action
        await pilot.press("p", "b", "D")
        assert app.screen is screen
        assert "READ-ONLY" in status_line(app)


async def test_many_projects_stretch_the_interval_and_say_so_and_hostile_names_show_literally(
        sandbox: SandboxHandle) -> None:
    """Three projects polled every 2 s: the interval is stretched for the rate limit and the status line says so;
    a project column. Project 3's export names are hostile (markup, escape sequences): shown literally."""
    app = make_app(sandbox, project_ids=["1", "2", "3"], poll_seconds=2.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert exports_table(app).row_count == 16 + 3  # and a section row naming each project
        assert screen.poller.interval > 2.0
        assert "rate limit" in status_line(app)
        assert "project" in [c.key for c in exports_table(app).shown_columns], "several projects: a project column"
        joined = " ".join(exports_table(app).column_texts("name"))
        assert "[@click=app.quit]" in joined, "project 3's hostile names are on screen"
        assert "\x1b" not in joined
        assert app.is_running, "[@click=app.quit] must not be an action"



async def test_logs_refused_to_personal_keys_are_said_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.monitor.conftest import FROZEN_AT
    from tui.clock import FrozenClock
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    monkeypatch.setattr("tui.screens.logs.FOLLOW_SECONDS", 0.05)
    with start_sandbox(SandboxOptions(simulate=False, clock=FrozenClock(FROZEN_AT), logs_forbidden=True)) as box:
        app = make_app(box)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await press_on(pilot, "Events to S3 data lake", "L")
            await settle(pilot)
            status = str(app.screen.query_one("#logs-status", Static).render())
            assert "personal API keys" in status
            asked = len(requests(box, "GET", "/logs/"))
            await pilot.press("f", "f")  # follow off and on again: a screen that still follows asks at its next tick
            await pilot.pause(0.5)  # ten follow intervals
            await settle(pilot)
            assert len(requests(box, "GET", "/logs/")) == asked, "it stops asking"



async def test_server_gone_keeps_last_good_data_says_stale_and_recovers_by_itself(sandbox: SandboxHandle) -> None:
    """The server stops: the last good data stays on screen and the status line says stale and why; it comes back
    on the same port: the next poll is live again with every export."""
    from tests.monitor.conftest import FROZEN_AT
    from tui.clock import FrozenClock
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    port = int(sandbox.base_url.rsplit(":", 1)[1])
    app = make_app(sandbox, retries=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert exports_table(app).row_count == 12
        sandbox.stop()
        screen: Any = app.screen
        for _ in range(2):
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert screen.poller.failures == 2
        line = status_line(app)
        assert "STALE" in line and "refused" in line, line
        assert exports_table(app).row_count == 12, "the last good data stays on screen"
        with start_sandbox(SandboxOptions(simulate=False, clock=FrozenClock(FROZEN_AT)), port=port):
            screen.poll_now()  # what the armed timer does when it fires
            await settle(pilot)
            assert "LIVE" in status_line(app)
            assert exports_table(app).row_count == 12


WRITES = ("POST", "PATCH", "DELETE")


def writes(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in handle.requests() if r["method"] in WRITES]


async def one_list_request_per_cycle(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    table = exports_table(app)
    assert table.row_count == 12
    lists = requests(sandbox, "GET", "/batch_exports/")
    assert len([r for r in lists if r["path"].endswith("/batch_exports/")]) == 1
    assert "LIVE" in status_line(app)
    await pilot.press("ctrl+r")
    await settle(pilot)
    lists = [r for r in requests(sandbox, "GET") if r["path"].endswith("/batch_exports/")]
    assert len(lists) == 2, "one list call per cycle, not one request per export"


async def palette_offers_the_screen_actions(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    titles = {command.title for command in app.get_system_commands(app.screen)}
    assert {"Pause export", "Backfill", "Retry run", "Export logs", "Refresh now"} <= titles


async def help_lists_the_keys_of_the_screen_grouped(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    from rich.console import Console

    from tui.screens.help import HelpScreen, keys_table

    app: Any = pilot.app
    select_export(app, "Events to S3 data lake")
    await pilot.pause()
    monitor = app.screen
    await pilot.press("question_mark")
    assert isinstance(app.screen, HelpScreen)
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(keys_table(monitor))
    text = console.export_text()
    for expected in ("Act on the export", "Pause", "Backfill", "Runs and logs", "Retry run", "View", "Freeze"):
        assert expected in text, expected
    # Issue 27 item 18: every key is listed (u, enter, esc too); one that does not apply now is dimmed.
    for listed in ("Unpause export", "Open", "Clear filter"):
        assert listed in text, listed
    await pilot.press("escape")
    assert not isinstance(app.screen, HelpScreen)


async def run_logs_show_plain_lines(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    select_export(app, "Snowflake warehouse (hourly)")
    await settle(pilot)
    await pilot.press("l")
    await settle(pilot)
    assert isinstance(app.screen, LogsScreen)
    log = app.screen.query_one("#logs", Log)
    assert log.line_count > 0
    assert any(level in "\n".join(log.lines) for level in ("INFO", "DEBUG", "ERROR"))
    await pilot.press("escape")
    assert not isinstance(app.screen, LogsScreen)


async def follow_asks_only_for_newer_lines(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    await press_on(pilot, "Events to S3 data lake", "L")
    await settle(pilot)
    assert app.screen.query_one("#logs", Log).line_count > 0
    asked = len(requests(sandbox, "GET", "/logs/"))
    await until(pilot, lambda: len(requests(sandbox, "GET", "/logs/")) > asked, step=0.1)  # the next follow tick
    last = requests(sandbox, "GET", "/logs/")[-1]
    assert "after=" in last["query"], last


async def footer_changes_only_when_its_keys_change(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    screen: Any = app.screen
    footer = screen.query_one(KeyFooter)
    exports = screen.board.snapshot.exports
    active = next(w.export.name for w in exports if not w.export.paused)
    paused = next(w.export.name for w in exports if w.export.paused)
    select_export(app, active)
    await settle(pilot)
    keys = footer.keys
    for _ in range(10):
        screen.refresh_bindings()
    await settle(pilot)
    assert footer.keys is keys, "the same keys are kept"
    select_export(app, paused)
    await settle(pilot)
    assert footer.keys != keys, "other keys"
    enabled = {entry.key: entry.enabled for entry in footer.keys.entries}
    assert enabled.get("u") and not enabled.get("p"), "the footer shows that only unpause applies"
    assert not footer.children, "keys are drawn, not mounted"


async def a_keystroke_after_opening_edit_does_not_replace_the_name(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    select_export(app, "Postgres audit trail")
    await settle(pilot)
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, EditExportScreen)
    name = app.screen.query_one("#edit-name", Input)
    name.focus()
    await pilot.pause()
    await pilot.press("x")
    assert name.value != "x" and "Postgres audit trail" in name.value


async def edit_refuses_bad_json_and_sends_nothing(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    await press_on(pilot, "Postgres audit trail", "e")
    app.screen.query_one("#edit-destination", TextArea).text = "{not json"
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(app.screen, EditExportScreen)
    assert "not valid JSON" in str(app.screen.query_one("#edit-destination-error", Static).render())
    assert requests(sandbox, "PATCH") == []


async def switching_project_watches_the_new_one(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    assert exports_table(app).row_count == 12
    app.switch_project("2")
    await settle(pilot)
    table = exports_table(app)
    names = set(table.column_texts("name"))
    assert names == {"Staging S3 mirror", "Staging Postgres"}
    assert requests(sandbox, "GET", "/api/environments/2/batch_exports/")


async def first_down_in_the_project_picker_moves_to_the_next_project(pilot: Pilot[Any], sandbox: SandboxHandle,
                                                                     watching: str) -> None:
    app: Any = pilot.app
    await pilot.press("P")
    await settle(pilot)
    options = app.screen.query_one("#picker-list", OptionList)
    current = options.highlighted
    await pilot.press("down")
    assert options.highlighted == (current or 0) + 1
    chosen = options.get_option_at_index(options.highlighted).id
    await pilot.press("enter")
    await settle(pilot)
    assert app.project_id == chosen != watching


async def the_footer_follows_what_a_poll_changed(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    """Paused elsewhere (another operator, the API): after the next poll the footer offers unpause, not pause.

    Before, keys were checked again only when the cursor moved, so the footer kept offering what no longer applied.
    """
    app: Any = pilot.app
    screen: Any = app.screen
    watched = next(w for w in screen.board.snapshot.exports if not w.export.paused)
    select_export(app, watched.export.name)
    await settle(pilot)
    enabled = {entry.key: entry.enabled for entry in screen.query_one(KeyFooter).keys.entries}
    assert enabled.get("p") and not enabled.get("u")
    async with httpx.AsyncClient(base_url=sandbox.base_url, verify=False,  # plain loopback HTTP: no CA bundle
                                 headers={"Authorization": f"Bearer {sandbox.api_key}"}) as other:
        answer = await other.post(f"/api/projects/1/batch_exports/{watched.export.id}/pause/")
        assert answer.status_code == 200, answer.text
    screen.poll_now()  # what the armed timer does when it fires
    await settle(pilot)
    assert screen.board.selected().export.paused, "the poll saw the pause"
    enabled = {entry.key: entry.enabled for entry in screen.query_one(KeyFooter).keys.entries}
    assert enabled.get("u") and not enabled.get("p"), "the footer shows what applies now"
    assert footer_shows_current_keys(screen)


READING = (one_list_request_per_cycle, palette_offers_the_screen_actions, help_lists_the_keys_of_the_screen_grouped,
           run_logs_show_plain_lines, follow_asks_only_for_newer_lines, footer_changes_only_when_its_keys_change,
           a_keystroke_after_opening_edit_does_not_replace_the_name, edit_refuses_bad_json_and_sends_nothing)


async def test_looking_around_the_monitor(sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch) -> None:
    """One monitor session, each case starting from the monitor (what a case left open is escaped, an edited
    form discarded): one list request per cycle; the palette offers the screen's actions; help lists the
    screen's keys grouped; run logs are plain lines; following logs asks only for newer lines; the footer is
    rebuilt only when its keys change; a keystroke just after opening edit does not replace the name; edit
    refuses bad JSON and sends nothing; switching project watches the new one; the picker's first down moves to
    the next project. None of it sends a write."""
    monkeypatch.setattr("tui.screens.logs.FOLLOW_SECONDS", 0.2)  # the logs' follow ticks come in the case's time
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        monitor = app.screen
        for case in READING:
            await back_to(pilot, monitor)
            await case(pilot, sandbox)
        await back_to(pilot, monitor)
        # Last, as they leave the first project: switching to project 2, then the picker's first down from there.
        await switching_project_watches_the_new_one(pilot, sandbox)
        await first_down_in_the_project_picker_moves_to_the_next_project(pilot, sandbox, watching="2")
    assert writes(sandbox) == []


async def backfill_validates_then_sends_the_interval(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    await press_on(pilot, "Events to S3 data lake", "b")
    assert isinstance(app.screen, BackfillScreen)
    summary = str(app.screen.query_one("#backfill-summary", Static).render())
    assert "24 runs" in summary, summary
    end = app.screen.query_one("#backfill-end", Input)
    end.value = "2026-11-20 00:00"
    start = app.screen.query_one("#backfill-start", Input)
    start.value = "2026-11-21 00:00"
    await pilot.pause()
    before = len(requests(sandbox, "POST", "/backfills/"))
    await pilot.press("ctrl+s")
    assert isinstance(app.screen, BackfillScreen), "end before start is refused"
    assert "after the start" in str(app.screen.query_one("#backfill-end-error", Static).render())
    end.value = "2026-11-21 03:00"
    await pilot.pause()
    await pilot.press("ctrl+s")
    await settle(pilot)
    # the newest service has no backfill/ (404); the client then sends the same bounds to backfills/
    sent = requests(sandbox, "POST", "/backfills/")[before:]
    assert len(sent) == 1 and sent[0]["status"] == 201
    assert sent[0]["body"] == {"start_at": "2026-11-21T00:00:00+00:00", "end_at": "2026-11-21T03:00:00+00:00"}


async def backfill_of_a_daily_export_offers_and_sends_dates(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    """The newest service takes a day export's bounds as dates only; a time there is a 400."""
    app: Any = pilot.app
    await press_on(pilot, "BigQuery analytics (daily)", "b")
    assert isinstance(app.screen, BackfillScreen)
    start = app.screen.query_one("#backfill-start", Input)
    end = app.screen.query_one("#backfill-end", Input)
    assert len(start.value) == len("2026-11-21") and len(end.value) == len("2026-11-21")
    start.value = "2026-11-18 00:00"
    await pilot.pause()
    assert "YYYY-MM-DD" in str(app.screen.query_one("#backfill-start-error", Static).render())
    start.value, end.value = "2026-11-18", "2026-11-20"
    await pilot.pause()
    assert "2 runs" in str(app.screen.query_one("#backfill-summary", Static).render())
    before = len(requests(sandbox, "POST", "/backfills/"))
    await pilot.press("ctrl+s")
    await settle(pilot)
    sent = requests(sandbox, "POST", "/backfills/")[before:]
    assert len(sent) == 1 and sent[0]["status"] == 201, sent
    assert sent[0]["body"] == {"start_at": "2026-11-18", "end_at": "2026-11-20"}


async def pause_asks_first_then_shows_paused_and_journals(pilot: Pilot[Any], sandbox: SandboxHandle,
                                                          user_dirs: Path) -> None:
    app: Any = pilot.app
    key = await press_on(pilot, "Events to S3 data lake", "p")
    assert isinstance(app.screen, ConfirmScreen)
    assert app.screen.focused is not None and app.screen.focused.id == "confirm-yes", "Enter confirms"
    await pilot.press("n")
    assert requests(sandbox, "POST", "/pause/") == [], "No sends nothing"
    await pilot.press("p")
    await pilot.press("y")
    await settle(pilot)
    sent = requests(sandbox, "POST", "/pause/")
    assert len(sent) == 1 and sent[0]["path"].startswith("/api/environments/1/batch_exports/")
    assert "paused" in cell(app, key, "state")
    screen: Any = app.screen
    assert screen.check_action("pause", ()) is False and screen.check_action("unpause", ()) is True
    journal = (user_dirs / "data" / "journal.jsonl").read_text().splitlines()
    entry = json.loads(journal[-1])
    assert entry["action"] == "pause" and entry["result"] == "ok" and entry["project"] == "1"
    assert sandbox.api_key not in "".join(journal)


async def double_press_never_sends_twice(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    before = len(requests(sandbox, "POST", "/pause/"))
    await press_on(pilot, "Databricks lakehouse events", "p", "y", "p", "y")
    await settle(pilot)
    assert len(requests(sandbox, "POST", "/pause/")) == before + 1


async def retry_of_a_completed_run_asks_twice(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    select_export(app, "Realtime webhook relay")
    await settle(pilot)
    screen: Any = app.screen
    run = screen.selected_run()
    assert run is not None and run.status == "Completed"
    before = len(requests(sandbox, "POST", "/retry/"))
    await pilot.press("r")
    await pilot.press("y")
    assert isinstance(app.screen, ConfirmScreen), "a Completed run asks a second time"
    await pilot.press("y")
    await settle(pilot)
    sent = requests(sandbox, "POST", "/retry/")[before:]
    assert len(sent) == 1 and f"/runs/{run.id}/retry/" in sent[0]["path"]


async def edit_sends_only_the_changed_field(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    await press_on(pilot, "Postgres audit trail", "e")
    assert isinstance(app.screen, EditExportScreen)
    app.screen.query_one("#edit-name", Input).value = "Postgres audit trail (renamed)"
    await pilot.press("ctrl+s")
    await settle(pilot)
    sent = requests(sandbox, "PATCH")
    assert len(sent) == 1 and sent[0]["body"] == {"name": "Postgres audit trail (renamed)"}


async def delete_needs_the_name_typed(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    key = await press_on(pilot, "Snowflake persons", "D")
    assert isinstance(app.screen, DeleteExportScreen)
    await pilot.press(*"wrong", "enter")
    assert isinstance(app.screen, DeleteExportScreen)
    app.screen.query_one("#delete-name", Input).value = "Snowflake persons"
    await pilot.press("enter")
    await settle(pilot)
    assert len(requests(sandbox, "DELETE")) == 1
    assert key not in exports_table(app)


async def test_retry_new_run_is_announced_and_highlighted(sandbox: SandboxHandle) -> None:
    """On its own: it looks at the toasts, and toasts a longer session made would hold its own back."""
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await retry_new_run_is_announced_and_highlighted(pilot, sandbox)


async def retry_new_run_is_announced_and_highlighted(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app: Any = pilot.app
    select_export(app, "Snowflake warehouse (hourly)")
    await settle(pilot)
    screen: Any = app.screen
    runs = screen.board.selected_runs()
    failed = next(r for r in runs if r.status in ("Failed", "FailedRetryable", "TimedOut", "Terminated"))
    runs_table = app.screen.query_one("#runs", VirtualTable)
    runs_table.move_to_key(failed.id)
    await pilot.press("r", "y")
    await settle(pilot)
    assert any("appears in a moment" in str(n.message) for n in notifications(app))
    clock: Any = sandbox.clock
    clock.advance(120)  # the sandbox starts the retry's run a little later, as the real service does
    sandbox.state.simulator.tick()
    await pilot.press("ctrl+r")
    await settle(pilot)
    assert any("new run has started" in str(n.message) for n in notifications(app))
    highlighted = screen.selected_run()
    assert highlighted is not None and highlighted.id != failed.id
    assert highlighted.data_interval_start == failed.data_interval_start


@pytest.mark.slow
async def test_each_write_on_its_own_export(sandbox: SandboxHandle, user_dirs: Path) -> None:
    """One monitor session, each write on an export no earlier case touched, each case starting from the
    monitor and counting requests from its own start: backfill validates then sends the interval; a daily
    export's backfill offers and sends dates; pause asks first, then shows paused and journals; a double press
    never sends twice; retrying a completed run asks twice; edit sends only the changed field; delete needs the
    name typed; the footer follows what a poll changed (an export paused elsewhere)."""
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        monitor = app.screen
        for case in (backfill_validates_then_sends_the_interval, backfill_of_a_daily_export_offers_and_sends_dates,
                     partial(pause_asks_first_then_shows_paused_and_journals, user_dirs=user_dirs),
                     double_press_never_sends_twice, retry_of_a_completed_run_asks_twice,
                     edit_sends_only_the_changed_field, delete_needs_the_name_typed,
                     the_footer_follows_what_a_poll_changed):
            await back_to(pilot, monitor)
            await case(pilot, sandbox)
