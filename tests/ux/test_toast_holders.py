"""Issue 45: a wall screen with alerts arriving all day keeps a few toast holders, not one more per toast, and no
toast's drawn lines once it is gone; and issue 42: alert toasts that arrive while a dialog is open show when it
closes, at most three.

Textual takes a toast down with a timer of its own, set when the toast is drawn; a toast shown after the previous
one's notification ended but before that timer fired took the ended toast off and left its holder in the screen's
toast rack for good. A busy event loop (a long frame, a big poll) is what makes the timer late: the tests block the
loop for longer than a toast lasts, as such a frame does.
"""

from __future__ import annotations

import gc
import time
from typing import Any

import pytest
from textual._styles_cache import StylesCache

from tests.incident.long_outage import fail_newest
from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle
from tui.app import TOAST_RACK_ID
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen
from tui.screens.monitor import MonitorScreen
from tui.toasts import HELD_SECONDS, LEAVING_SECONDS, MAX_SHOWN, Toast, ToastQueue

FAILING = "Snowflake warehouse (hourly)"


def rack_holders(screen: Any) -> tuple[int, int]:
    """(holders in the screen's toast rack, toasts in them)."""
    rack = screen.query_one(f"#{TOAST_RACK_ID}")
    return len(rack.children), sum(len(holder.children) for holder in rack.children)


async def wait_for(pilot: Any, condition: Any, rounds: int = 200) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition never held")


@pytest.mark.slow
async def test_many_queued_toasts_leave_no_empty_holders_behind(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # toasts drawn, as in the terminal
        await settle(pilot)
        screen = app.screen
        asked = 4
        for n in range(asked):
            app.notify(f"Export {n}: failing", title="Alert", severity="error", timeout=1)
            await pilot.pause()
            time.sleep(1.05)  # a long frame: the toasts on screen end before Textual's timers can take them down
        await wait_for(pilot, lambda: not app.toasts.held and not app.toasts.on_screen())
        await wait_for(pilot, lambda: rack_holders(screen)[1] == 0)
        await pilot.pause(0.3)
        assert rack_holders(screen) == (0, 0), "every holder left with its toast"


def drawn_widgets() -> int:
    """Textual's per-widget caches of drawn lines alive now (one for each widget made and still held), of those the
    collector sees: what start-up made is frozen out of its sight (tui.cli.startup.resume_collector)."""
    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, StylesCache))


@pytest.mark.slow
async def test_toasts_gone_leave_no_drawn_lines_behind(sandbox: SandboxHandle) -> None:
    """Each toast is a new widget, and Textual's lru_cache on ``StylesCache.get_inner_outer`` keeps the drawn
    lines of the last 1024 widgets drawn, removed or not: without the app clearing it, every toast gone stayed
    behind with its lines, for an hour of alerts."""
    app = make_app(sandbox)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # toasts drawn, as in the terminal
        await settle(pilot)
        await wait_for(pilot, lambda: gc.get_freeze_count() > 0)  # counted from then on, start-up's frozen out
        screen = app.screen

        async def toasts(first: int, count: int) -> None:
            for n in range(first, first + count):
                app.notify(f"Export {n}: failing with error {n * 7919}", title="Alert", severity="error", timeout=1)
            await wait_for(pilot, lambda: app.toasts.idle(), rounds=400)
            await wait_for(pilot, lambda: rack_holders(screen) == (0, 0))

        await toasts(0, MAX_SHOWN)  # whatever the first toasts make once is made
        before = drawn_widgets()
        asked = 4 * MAX_SHOWN
        await toasts(MAX_SHOWN, asked)
        grown = drawn_widgets() - before
        # The toasts of the last show stay until the next toast shows, as those of the first round did.
        assert grown <= 0, f"{grown} drawn widgets more after {asked} toasts came and went"


async def test_a_dialog_over_toasts_takes_them_down_with_their_holders(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        monitor = app.screen
        select_export(app, FAILING)
        for round_ in range(2):
            for n in range(MAX_SHOWN):
                app.notify(f"alert {round_}.{n}", title="Alert", severity="error")
            await wait_for(pilot, lambda: rack_holders(monitor) == (MAX_SHOWN, MAX_SHOWN))
            await pilot.press("p")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await wait_for(pilot, lambda: not app.toasts.on_screen())
            await pilot.press("escape")
            await settle(pilot)
            await wait_for(pilot, lambda: len(app.toasts.on_screen()) == MAX_SHOWN)
            await wait_for(pilot, lambda: rack_holders(monitor) == (MAX_SHOWN, MAX_SHOWN))
            app.toasts.held.clear()
        await pilot.pause(0.3)
        assert rack_holders(monitor) == (MAX_SHOWN, MAX_SHOWN), "the toasts back after the dialog, and no more"


def healthy_exports(screen: MonitorScreen, count: int) -> list[tuple[str, str]]:
    """(export id, name) of ``count`` exports without an open alert, not paused."""
    book = screen.incident.desk.book
    found = [(w.export.id, w.export.name) for w in screen.board.snapshot.exports
             if not book.open_for(w.key) and not w.export.paused and w.export.name != FAILING]
    assert len(found) >= count, "the seed changed: need more healthy exports"
    return found[:count]


def alert_toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications if n.title == "Alert" or "more new alerts" in n.message]


async def test_alerts_that_open_under_a_dialog_are_toasted_when_it_closes_three_at_most(
        sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, poll_seconds=2.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        select_export(app, FAILING)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        book = screen.incident.desk.book
        before = book.open_count
        going_bad = healthy_exports(screen, 5)
        for export_id, _ in going_bad:
            fail_newest(sandbox, export_id, 2)
        await wait_for(pilot, lambda: book.open_count >= before + len(going_bad))
        await pilot.pause(0.6)  # two looks of the app at its waiting toasts
        assert alert_toasts(app) == [] and not app.toasts.held, "nothing covers the dialog, nothing waits in line yet"
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(alert_toasts(app)) == MAX_SHOWN)
        await pilot.pause(0.6)
        shown = alert_toasts(app)
        assert len(shown) == MAX_SHOWN and shown[-1] == "3 more new alerts: ! lists them", shown
        names = {name for _, name in going_bad}
        assert all(text.split(":")[0] in names for text in shown[:-1]), shown


async def test_alerts_that_waited_too_long_for_a_dialog_are_old_news(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, poll_seconds=2.0)
    now = [1000.0]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        screen.incident_keys._monotonic = lambda: now[0]
        select_export(app, FAILING)
        await pilot.press("p")
        await settle(pilot)
        book = screen.incident.desk.book
        before = book.open_count
        going_bad = healthy_exports(screen, 1)
        fail_newest(sandbox, going_bad[0][0], 2)
        await wait_for(pilot, lambda: book.open_count == before + 1)
        now[0] += HELD_SECONDS + 1
        await pilot.press("escape")
        await settle(pilot)
        await pilot.pause(0.6)
        assert alert_toasts(app) == [], "a toast that waited over a minute is old news"


def test_nothing_shows_while_an_ended_toast_may_still_be_up() -> None:
    now = [1000.0]
    queue = ToastQueue(lambda: now[0])

    def toast(message: str) -> Toast:
        return Toast(message, "", "error", 2.0, False, now[0])

    assert queue.offer(toast("a"), blocked=False) is True
    now[0] += 2.0  # "a" ended: Textual's own timer takes it down in a moment
    assert queue.on_screen() == []
    assert queue.offer(toast("b"), blocked=False) is False, "shown now, it would leave the holder of a behind"
    assert queue.release(blocked=False) == []
    now[0] += LEAVING_SECONDS
    assert [t.message for t in queue.release(blocked=False)] == ["b"]


async def test_with_no_toast_the_app_is_not_woken_for_them(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.toasts.idle())
        await pilot.pause(0.6)
        looks = app.toasts.idle
        calls: list[bool] = []
        app.toasts.idle = lambda: calls.append(True) or looks()  # type: ignore[method-assign]
        await pilot.pause(1.2)
        assert calls == [], "paused: no look at the toasts while there are none"
        app.notify("one", timeout=1)
        await wait_for(pilot, lambda: bool(calls) and looks())
