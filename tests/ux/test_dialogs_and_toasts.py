"""Issue 27, items 1-3: toasts wait for dialogs and stay few and short; every dialog confirms the same way and shows
its own keys; the runs pane's Escape, Home/End and `c` on a finished or cancelled run."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Button, Input

from tests.incident.test_monitor_keys import monitor, notes, put_cursor_on_a_running_run, running_export
from tests.monitor.conftest import make_app, requests, select_export
from tests.pilot import footer_words, settle, toast_texts
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import BackfillScreen
from tui.toasts import (
    HELD_SECONDS,
    INFO_SECONDS,
    LEAVING_SECONDS,
    MAX_SHOWN,
    Toast,
    ToastQueue,
    toast_height,
    toast_seconds,
    toast_side,
)
from tui.widgets.timeline_view import TimelineView
from tui.widgets.virtual_table import VirtualTable

FAILING = "Snowflake warehouse (hourly)"


def toasts_on_screen(app: Any) -> list[str]:
    """The notifications the app shows now (what its toast rack draws; the tests' notes() read the same)."""
    return toast_texts(app)


async def wait_for(pilot: Any, condition: Any, rounds: int = 100) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition never held")


class Ticks:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def toast(ticks: Ticks, severity: str = "error", asked: float | None = None) -> Toast:
    return Toast("m", "", severity, toast_seconds(severity, asked), False, ticks.now)


def test_toasts_wait_for_a_dialog_show_a_few_at_a_time_and_old_news_is_dropped() -> None:
    ticks = Ticks()
    queue = ToastQueue(ticks)
    assert queue.offer(toast(ticks), blocked=True) is False, "a dialog is open: it waits"
    assert queue.release(blocked=True) == []
    assert len(queue.release(blocked=False)) == 1
    assert [queue.offer(toast(ticks), blocked=False) for _ in range(MAX_SHOWN + 2)] == [True] * (MAX_SHOWN - 1) + [
        False] * 3, "one shows already: at most MAX_SHOWN at once"
    ticks.now += 10.1 + LEAVING_SECONDS  # the errors on screen have left, and Textual has taken them down
    assert len(queue.release(blocked=False)) == MAX_SHOWN
    queue.offer(toast(ticks), blocked=True)
    ticks.now += HELD_SECONDS + 1
    assert queue.release(blocked=False) == [], "a toast that waited over a minute is old news"


def test_information_leaves_within_a_few_seconds_whatever_was_asked() -> None:
    assert toast_seconds("information", 60) == INFO_SECONDS
    assert toast_seconds("information", None) == INFO_SECONDS
    assert toast_seconds("error", 2) == 2 and toast_seconds("error", 600) == 10


async def test_an_alert_toast_waits_until_the_dialog_closes(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        app.notify("Snowflake: failing", title="Alert", severity="error")
        await pilot.pause(0.6)  # two looks of the app at its waiting toasts
        assert toasts_on_screen(app) == [], "nothing covers the dialog"
        await pilot.press("escape")
        await wait_for(pilot, lambda: any("Snowflake: failing" in text for text in toasts_on_screen(app)))
        for n in range(6):
            app.notify(f"note {n}")
        await pilot.pause()
        assert len(toasts_on_screen(app)) <= MAX_SHOWN


async def test_confirm_dialog_y_enter_escape_and_its_own_footer(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        await pilot.press("p")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.focused is not None and dialog.focused.id == "confirm-yes"
        assert str(dialog.query_one("#confirm-yes", Button).label) == "Pause (y)", "names the action"
        assert footer_words(dialog) == {"Confirm", "Cancel", "No"}, "the dialog's keys, not the monitor's"
        await pilot.press("escape")
        await settle(pilot)
        assert requests(sandbox, "POST", "/pause/") == []
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("enter")  # on the confirming button
        await settle(pilot)
        assert len(requests(sandbox, "POST", "/pause/")) == 1


async def test_backfill_button_names_the_count_y_in_a_field_is_a_letter_and_a_fast_tab_keeps_the_keys(
        sandbox: SandboxHandle) -> None:
    """The backfill dialog: its button names the count, its footer its own keys, and `y` in the focused field is a
    letter. Issue 27, item 5, in the same dialog: `1` Tab `2` typed fast (in one burst, as a terminal delivers them)
    end in the backfill's start and end fields, not both in the start field."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        await pilot.press("b")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, BackfillScreen)
        assert str(dialog.query_one("#backfill-go", Button).label) == "Backfill 24 runs (y)"
        # Its own keys; y is a letter in the focused field, so the footer leaves it out there.
        assert footer_words(dialog) == {"Cancel"}
        start, end = (dialog.query_one(f"#backfill-{name}", Input) for name in ("start", "end"))
        assert start.has_focus
        await pilot.press("y")  # focus is in the start field: a letter, not a confirmation
        await settle(pilot)
        assert app.screen is dialog and requests(sandbox, "POST", "/backfills/") == []
        assert start.has_focus
        start.value = end.value = ""
        for key in ("1", "tab", "2"):
            app.post_message(events.Key(key, "\t" if key == "tab" else key))
        await settle(pilot)
        assert (start.value, end.value) == ("1", "2")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not dialog
        assert requests(sandbox, "POST", "/backfills/") == []


async def test_runs_pane_escape_home_end_and_cancel(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        exports = screen.query_one("#exports", VirtualTable)
        runs = screen.query_one("#runs", VirtualTable)
        await pilot.press("end")
        assert exports.cursor_row == exports.row_count - 1
        await pilot.press("home")
        assert exports.cursor_row == 0
        running = running_export(screen)
        await put_cursor_on_a_running_run(pilot, screen, running.export.name)
        runs.focus()
        await pilot.press("end")
        finished = screen.selected_run()
        assert finished is not None and not finished.is_in_progress
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert notes(app)[-1] == f"This run is {finished.status}: only a starting or running run can be cancelled."
        await put_cursor_on_a_running_run(pilot, screen, running.export.name)
        run = screen.selected_run()
        assert run is not None
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("y")
        assert runs.cell(runs.index_of(run.id), "status") == "cancelling…", "at once, before the next poll"
        await settle(pilot)
        runs.focus()
        await pilot.press("escape")
        assert exports.has_focus, "Escape from the runs pane goes back to the exports"


def test_toasts_stack_in_the_corner_that_leaves_the_focused_line_clear() -> None:
    ticks = Ticks()
    alert = Toast("Export: failing", "Alert", "error", 10, False, ticks.now)
    one, two, three = ([alert] * n for n in (1, 2, 3))  # 5 rows each: margin, padding, title, text
    assert toast_height(alert) == 5 and toast_height(Toast("x" * 58, "", "error", 1, False, 0)) == 5
    assert toast_side((80, 24), three, None) == "bottom"
    assert toast_side((80, 24), three, (0, 20, 80, 1)) == "top", "the focused line at the bottom: toasts at the top"
    assert toast_side((80, 24), three, (0, 3, 80, 1)) == "bottom"
    assert toast_side((80, 24), three, (0, 20, 10, 1)) == "bottom", "a line left of the stack is not covered"
    assert toast_side((80, 24), two, (0, 13, 80, 1)) == "top"
    assert toast_side((80, 24), three, (0, 13, 80, 1)) is None, "covered either way: the third toast waits"
    assert toast_side((80, 24), one, (0, 1, 80, 22)) == "bottom", "one toast covers it either way: no wait"


def test_a_toast_waits_while_the_stack_with_it_would_cover_the_focused_line() -> None:
    ticks = Ticks()
    queue = ToastQueue(ticks)

    def fits(stack: list[Toast]) -> bool:  # room beside the focused line for two toasts
        return len(stack) <= 2

    assert [queue.offer(toast(ticks), blocked=False, fits=fits) for _ in range(3)] == [True, True, False]
    assert queue.release(blocked=False, fits=fits) == [] and len(queue.held) == 1
    ticks.now += 10.1 + LEAVING_SECONDS  # both left: the third shows
    assert len(queue.release(blocked=False, fits=fits)) == 1


def toast_regions(app: Any) -> list[Any]:
    return [widget.region for widget in app.screen.query("Toast") if widget.region.area]


async def test_a_toast_never_covers_the_focused_line(sandbox: SandboxHandle) -> None:
    """At 80x24 stacked alert toasts sat over the timeline's cursor line; they go to the other corner instead,
    and come back when the cursor moves under the corner they are in."""
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # toasts drawn, as in the terminal
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        await pilot.press(*["down"] * (len(view.model.order) - 1))
        await settle(pilot)
        line = view.cursor_line_region()
        assert line is not None and line.y > 10, "the cursor's line is in the lower half"
        for n in range(3):
            app.notify(f"Export {n}: failing, latest run Failed", title="Alert", severity="error")
        await wait_for(pilot, lambda: len(toast_regions(app)) == 2)
        assert not any(region.overlaps(line) for region in toast_regions(app)), (line, toast_regions(app))
        assert min(region.y for region in toast_regions(app)) >= 1, "the status line stays in sight"
        assert len(app.toasts.held) == 1, "a third would cover the line in either corner: it waits its turn"
        await pilot.press(*["up"] * len(view.model.order))
        await settle(pilot)
        line = view.cursor_line_region()
        assert line is not None and line.y < 5
        await wait_for(pilot, lambda: len(toast_regions(app)) == 3)
        await wait_for(pilot, lambda: not any(region.overlaps(line) for region in toast_regions(app)))


async def test_toasts_on_screen_when_a_dialog_opens_wait_and_come_back_after(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # toasts drawn, as in the terminal
        await settle(pilot)
        select_export(app, FAILING)
        app.notify("Snowflake: failing", title="Alert", severity="error")
        await wait_for(pilot, lambda: len(toast_regions(app)) == 1)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await wait_for(pilot, lambda: toasts_on_screen(app) == [] and toast_regions(app) == [])
        assert [toast.message for toast in app.toasts.held] == ["Snowflake: failing"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(toast_regions(app)) == 1)
        assert toasts_on_screen(app) == ["Snowflake: failing"]


async def test_backfill_confirms_with_y_on_its_button_as_every_dialog_does(sandbox: SandboxHandle) -> None:
    """Issue 42, item 3: from a field, Tab to the button and `y` sends the backfill (the footer offers y there); Enter
    in the last field sends it too."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        for keys in (("shift+tab", "y"), ("tab", "enter")):
            await pilot.press("b")
            await settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, BackfillScreen)
            before = len(requests(sandbox, "POST", "/backfills/"))
            await pilot.press(keys[0])  # shift+tab: round to the Backfill button; tab: to the end field
            await settle(pilot)
            if keys[1] == "y":
                assert dialog.focused is dialog.query_one("#backfill-go", Button)
                assert "Confirm" in footer_words(dialog)
            else:
                assert dialog.focused is dialog.query_one("#backfill-end", Input)
            await pilot.press(keys[1])
            await settle(pilot)
            assert app.screen is not dialog
            assert len(requests(sandbox, "POST", "/backfills/")) == before + 1, (
                keys, type(app.screen).__name__, toast_texts(app), [worker.state for worker in app.workers])
