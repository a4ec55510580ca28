"""Issue 27, item 17: the views say the same thing the same way (lag, a frozen view's age, the acknowledge toast,
the poll interval, the runs' cursor, export names in the alerts pane)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, Static

from tests.incident.test_monitor_keys import notes
from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle, until
from tests.surveys.conftest import FROZEN_AT
from tests.surveys.conftest import make_app as make_survey_app
from tui.clock import FrozenClock
from tui.look.export_cells import cursor_text
from tui.sandbox.runner import SandboxHandle
from tui.widgets.virtual_table import VirtualTable

FAILING = "Snowflake warehouse (hourly)"


class Ticks:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


async def test_lag_frozen_age_and_acknowledge_say_the_same_everywhere(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    ticks = Ticks()
    app.monotonic = ticks
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        key = select_export(app, FAILING)
        await settle(pilot)
        table = screen.query_one("#exports", VirtualTable)
        lag = table.cell(table.index_of(key), "lag")
        details = str(screen.query_one("#export-details", Static).render())
        assert f"{lag} behind" in details, (lag, details)
        await pilot.press("space")
        await settle(pilot)
        ticks.now += 16
        screen.refresh_status()
        status = str(screen.query_one("#monitor-status", Static).render())
        assert "FROZEN" in status and "updated 16s ago" in status, status
        await pilot.press("space")
        await pilot.press("a")
        await settle(pilot)
        assert any(FAILING in note for note in notes(app) if note.startswith("Alert acknowledged")), notes(app)


async def test_the_survey_list_ages_on_the_same_clock_as_the_monitor(survey_sandbox: SandboxHandle) -> None:
    """"updated 1m ago" counts elapsed seconds in both halves, never the injected clock's: under ``--demo`` that one
    runs sixty times faster, and the survey list read a minute ago said an hour."""
    clock = FrozenClock(FROZEN_AT)
    app = make_survey_app(survey_sandbox, clock)
    ticks = Ticks()
    app.monotonic = ticks
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        header = app.screen.query_one("#survey-header", Static)
        assert "updated 0s ago" in str(header.render())
        clock.advance(3600.0)  # the demo's hour
        ticks.now += 60  # the operator's minute
        await until(pilot, lambda: "updated 1m ago" in str(header.render()), rounds=60, step=0.05)
        assert "updated 1m ago" in str(header.render()), header.render()


async def test_a_shorter_interval_holds_from_the_key_press_not_from_the_old_poll(sandbox: SandboxHandle) -> None:
    """After `-` the status line says the new interval at once, and the poll planned on the old one follows it.

    Polling every 30 s, the last answer 10 s old: after `-` down to 2 s the next poll is due at once, not 20 s
    later when the poll planned on 30 s would have come.
    """
    app = make_app(sandbox, poll_seconds=30.0)
    ticks = Ticks()
    app.monotonic = ticks
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        poller = screen.poller
        assert poller.cycles == 1 and poller.seconds_until_next() == 30.0
        ticks.now += 10
        await pilot.press("minus")  # 30 -> 15: due 15 s after the last answer, 5 s from now
        assert "every 15s" in str(screen.query_one("#monitor-status", Static).render())
        assert poller.seconds_until_next() == 5.0 and poller.cycles == 1
        for _ in range(4):  # 15 -> 10 -> 5 -> 3 -> 2: due at once
            await pilot.press("minus")
        status = str(screen.query_one("#monitor-status", Static).render())
        assert "every 2s" in status, status
        await until(pilot, lambda: poller.cycles >= 2, rounds=100, step=0.1)
        assert poller.cycles == 2, "the poll planned on 30 s waited for its old time"
        assert poller.seconds_until_next() == 2.0
        for _ in range(3):  # 2 -> 3 -> 5 -> 10: the next poll waits the longer interval too
            await pilot.press("plus")
        assert poller.seconds_until_next() == 10.0
        assert "every 10s" in str(screen.query_one("#monitor-status", Static).render())


async def test_the_runs_panes_cursor_column_says_where_the_run_stopped(sandbox: SandboxHandle) -> None:
    """A failed run's resume cursor (the sandbox writes the time it stopped at)
    reads as the data interval does, ``11-22 09:41``, not as ``2026-11-22T…`` on every row."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        select_export(app, FAILING)
        await settle(pilot)
        runs = screen.query_one("#runs", VirtualTable)
        shown_runs = screen.board.selected_runs()  # the pane's rows: the selected export's runs
        assert len(shown_runs) == runs.row_count
        seen = []
        for run in shown_runs:
            if run.cursor:
                moment = datetime.fromisoformat(run.cursor).astimezone(UTC)
                seen.append((runs.cell(runs.index_of(run.id), "cursor"), f"{moment:%m-%d %H:%M}"))
        assert seen and all(shown == expected for shown, expected in seen), seen


def test_an_opaque_cursor_keeps_its_end_and_is_plain_text() -> None:
    assert str(cursor_text("2026-11-24T00:53:12.5+01:00")) == "11-23 23:53"
    assert str(cursor_text("offset:000000000123456")) == "…00000123456"
    assert str(cursor_text("short")) == "short" and str(cursor_text(None)) == ""
    hostile = cursor_text("\x1b]52;c;aGk=\x07[bold]x[/]")
    assert "\x1b" not in str(hostile) and "\x07" not in str(hostile) and not hostile.spans


LONG_NAME = "Snowflake warehouse (hourly) - EU region, finance team"


def rename(handle: SandboxHandle, name: str, new_name: str) -> None:
    headers = {"Authorization": f"Bearer {handle.api_key}"}
    base = f"{handle.base_url}/api/environments/{handle.project_id}/batch_exports/"
    export = next(e for e in httpx.get(base, headers=headers, verify=False).json()["results"] if e["name"] == name)
    httpx.patch(f"{base}{export['id']}/", json={"name": new_name}, headers=headers, verify=False).raise_for_status()


@pytest.mark.parametrize(("size", "shown"), [((160, 48), LONG_NAME), ((80, 24), LONG_NAME[:19] + "…")],
                         ids=["160x48", "80x24"])
async def test_the_alerts_pane_gives_export_names_room(sandbox: SandboxHandle, size: tuple[int, int],
                                                       shown: str) -> None:
    """At 160 columns a 55-character name is whole in the alerts pane; at 80 it is cut with an ellipsis and the
    "How much" column keeps its room."""
    rename(sandbox, FAILING, LONG_NAME)
    app = make_app(sandbox)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("exclamation_mark")
        await settle(pilot)
        table = app.screen.query_one("#alerts-open", DataTable)
        assert table.row_count == 1
        line = table.render_line(1).text  # the header is line 0
        assert f" {shown} " in line, line
        assert line.rstrip().endswith("  latest run Failed"), "How much is whole"


def test_a_one_line_text_cut_to_its_width_ends_in_an_ellipsis() -> None:
    """Server text in a column too narrow for it reads as cut, in every view: the alerts' "How much" and the
    failure groups' error were cut without a mark."""
    from rich.console import Console

    from tui.look.render import plain

    console = Console(color_system=None)
    options = console.options.update_width(12)

    def drawn(text: str) -> list[str]:
        return ["".join(segment.text for segment in line).rstrip()
                for line in console.render_lines(plain(text), options, pad=False)]

    assert drawn("4 failed runs in a row") == ["4 failed ru…"]
    assert drawn("fits") == ["fits"]


def test_counts_say_their_noun_in_the_singular_only_for_one() -> None:
    """One way to count, in every view: the logs said "1 lines"."""
    from tui.screens.logs import kept_summary
    from tui.text.words import counted

    assert [counted(n, "line") for n in (0, 1, 2, 1234)] == ["0 lines", "1 line", "2 lines", "1,234 lines"]
    assert kept_summary(1, 1) == "1 line"
    assert kept_summary(100_000, 5_000) == "last 5,000 of 100,000"
