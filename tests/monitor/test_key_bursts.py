"""Keys that arrive together act on the row the cursor is on when each key is handled (issue 42, item 1).

A terminal delivers keys typed quickly, or queued during a stall, in one read: ``Down Down p`` then reaches the app
before the table's ``RowHighlighted`` for the first ``Down`` is handled. Each test sends its keys as one write
(:func:`tests.pilot.burst`), asserts that the dialog names the row under the cursor, and, where the key writes, that
the request went to that row's export.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Static

from tests.monitor.conftest import make_app, requests
from tests.pilot import burst, settle, toast_texts
from tui.app import WatchdeckApp
from tui.sandbox.runner import SandboxHandle
from tui.screens.backfills import BackfillsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import BackfillScreen, DeleteExportScreen, EditExportScreen, RunErrorScreen
from tui.screens.logs import LogsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.repair import RepairScreen
from tui.widgets.virtual_table import VirtualTable

# The seed's exports in the table's order (seed 7): the eighth is paused, the last one failing.
PAUSED_ROW = 7
FAILING_ROW = 11


def monitor(app: WatchdeckApp) -> MonitorScreen:
    screen = next(s for s in app.screen_stack if isinstance(s, MonitorScreen))
    return screen


def exports(app: WatchdeckApp) -> VirtualTable:
    return monitor(app).query_one("#exports", VirtualTable)


def runs(app: WatchdeckApp) -> VirtualTable:
    return monitor(app).query_one("#runs", VirtualTable)


def name_at_cursor(app: WatchdeckApp) -> str:
    watched = monitor(app).board.watched(exports(app).cursor_key)
    assert watched is not None
    return watched.export.name


def id_at_cursor(app: WatchdeckApp) -> str:
    watched = monitor(app).board.watched(exports(app).cursor_key)
    assert watched is not None
    return watched.export.id


def dialog_text(screen: Any) -> str:
    return "\n".join(str(static.render()) for static in screen.query(Static))


async def started(pilot: Any) -> None:
    """The monitor settled, its cursor on the first row (as Home leaves it), its runs pane shown."""
    await settle(pilot)
    await burst(pilot, "home")
    assert exports(pilot.app).cursor_row == 0 and monitor(pilot.app).detail_shown


def names_of_other_rows(app: WatchdeckApp) -> list[str]:
    table, board = exports(app), monitor(app).board
    names = []
    for index in range(table.row_count):
        key = table.key_at(index)
        watched = board.watched(key)
        if watched is not None and key != table.cursor_key:
            names.append(watched.export.name)
    return names


def asks_only_about_the_cursor_row(app: WatchdeckApp, screen: Any) -> None:
    text = dialog_text(screen)
    assert name_at_cursor(app) in text, text
    wrong = [name for name in names_of_other_rows(app) if name in text and name not in name_at_cursor(app)]
    assert wrong == [], text


async def test_down_down_p_asks_about_the_row_under_the_cursor(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "down", "down", "p")
        assert exports(app).cursor_row == 2
        assert isinstance(app.screen, ConfirmScreen)
        asks_only_about_the_cursor_row(app, app.screen)


async def test_down_p_y_pauses_the_export_under_the_cursor(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "down", "p", "y")
        assert exports(app).cursor_row == 1
        assert [r["path"] for r in requests(sandbox, "POST", "/pause")] == [
            f"/api/environments/{sandbox.project_id}/batch_exports/{id_at_cursor(app)}/pause/"]


async def test_end_p_asks_about_the_last_row(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "end", "p")
        assert exports(app).cursor_row == exports(app).row_count - 1
        assert isinstance(app.screen, ConfirmScreen)
        asks_only_about_the_cursor_row(app, app.screen)


async def test_unpause_on_a_paused_row_reached_in_the_same_write(sandbox: SandboxHandle) -> None:
    """The row the cursor left is not paused: judged by it, ``u`` would not even run."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, *["down"] * PAUSED_ROW, "u", "y")
        assert [r["path"] for r in requests(sandbox, "POST", "/unpause")] == [
            f"/api/environments/{sandbox.project_id}/batch_exports/{id_at_cursor(app)}/unpause/"]


async def test_four_downs_and_L_open_the_logs_of_the_fifth_row(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "down", "down", "down", "down", "L")
        assert exports(app).cursor_row == 4
        assert isinstance(app.screen, LogsScreen)
        assert app.screen.watched.export.name == name_at_cursor(app) and app.screen.run is None


async def test_every_export_key_acts_on_the_row_reached_in_the_same_write(sandbox: SandboxHandle) -> None:
    """Backfill, edit, delete, run logs, repair and the backfills list: each opened for the row under the cursor."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        for moves, key, kind in ((["down", "down"], "b", BackfillScreen), (["down"], "e", EditExportScreen),
                                 (["down", "down"], "D", DeleteExportScreen), (["down"], "l", LogsScreen),
                                 (["down"], "R", RepairScreen), (["down", "down"], "B", BackfillsScreen)):
            row = exports(app).cursor_row + len(moves)
            await burst(pilot, *moves, key)
            assert exports(app).cursor_row == row, key
            screen = app.screen
            assert isinstance(screen, kind), (key, screen)
            if isinstance(screen, LogsScreen):
                assert screen.watched.export.name == name_at_cursor(app)
                assert screen.run is not None and screen.run.id == runs(app).cursor_key
            elif isinstance(screen, BackfillsScreen):
                assert screen.export.name == name_at_cursor(app)
            elif isinstance(screen, RepairScreen):
                assert screen.keys == [exports(app).cursor_key]
            else:
                asks_only_about_the_cursor_row(app, screen)
            await burst(pilot, "escape")
            await settle(pilot)
            assert app.screen is monitor(app), key


async def test_acknowledge_acts_on_the_alerting_row_reached_in_the_same_write(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        book = monitor(app).incident.desk.book
        assert book.is_marked(exports(app).key_at(FAILING_ROW))
        await burst(pilot, "end", "a")
        assert exports(app).cursor_row == FAILING_ROW
        assert not book.is_marked(exports(app).key_at(FAILING_ROW))


async def test_down_c_in_the_runs_pane_answers_for_the_run_under_the_cursor(sandbox: SandboxHandle) -> None:
    """The first export's runs: Running, Completed, Terminated... ``Down Down c`` speaks of the terminated run."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "enter")
        assert runs(app).has_focus
        statuses = [monitor(app).board.runs_for(exports(app).cursor_key)[i].status for i in range(3)]
        assert statuses == ["Running", "Completed", "Terminated"]
        await burst(pilot, "down", "down", "c")
        assert runs(app).cursor_row == 2
        said = toast_texts(app)
        assert said and said[-1].startswith("This run is Terminated"), said
        await burst(pilot, "home", "c")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Cancel the Running run of" in dialog_text(app.screen)
        running = runs(app).key_at(0)
        await burst(pilot, "y")
        assert [r["path"] for r in requests(sandbox, "POST", "/cancel")] == [
            f"/api/environments/{sandbox.project_id}/batch_exports/{id_at_cursor(app)}/runs/{running}/cancel/"]


async def test_down_r_and_enter_in_the_runs_pane_act_on_the_run_under_the_cursor(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await burst(pilot, "end", "enter")  # the failing export's runs: Failed, Completed, Completed, ...
        assert runs(app).has_focus
        first, second = runs(app).key_at(0), runs(app).key_at(1)
        await burst(pilot, "home", "enter", "down")  # Enter on the failed run, then a key that moves on
        assert isinstance(app.screen, RunErrorScreen)
        assert app.screen.run.id == first
        await burst(pilot, "escape")
        await burst(pilot, "home")
        await burst(pilot, "down", "r", "y")
        assert runs(app).cursor_row == 1
        assert isinstance(app.screen, ConfirmScreen)  # a completed run asks twice
        await burst(pilot, "y")
        # (The retry's new run, once a poll shows it, takes the cursor: the run retried is the one read before.)
        assert [r["path"] for r in requests(sandbox, "POST", "/retry")] == [
            f"/api/environments/{sandbox.project_id}/batch_exports/{id_at_cursor(app)}/runs/{second}/retry/"]


async def test_a_down_and_a_run_key_from_the_exports_table_act_on_the_new_rows_run(sandbox: SandboxHandle) -> None:
    """From the exports table, ``Down l`` opens the logs of the run shown for the row the cursor moved to."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "end", "l")
        assert isinstance(app.screen, LogsScreen)
        assert app.screen.watched.export.name == name_at_cursor(app)
        assert app.screen.run is not None
        assert app.screen.run.id in {run.id for run in monitor(app).board.runs_for(exports(app).cursor_key)}


async def test_a_dialog_holds_the_keys_that_reach_the_app_before_its_buttons_are_mounted(
        sandbox: SandboxHandle) -> None:
    """``y`` sent with the ``p`` that opened the dialog can reach the app's bindings before the dialog has built
    its buttons (when the monitor's table has already taken it): the dialog holds it and presses Yes once built."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        answers: list[bool | None] = []
        dialog = ConfirmScreen("Pause", "Pause the export?")
        app.push_screen(dialog, answers.append)
        assert dialog.holding_keys and not dialog.query("#confirm-yes")  # not built yet, and waiting
        await app.on_event(events.Key("y", "y"))  # as the app handles a key: held, not dropped
        assert [key.key for key in dialog.held_keys] == ["y"]
        await settle(pilot)
        assert answers == [True] and not dialog.holding_keys
        assert not isinstance(app.screen, ConfirmScreen)


async def test_keys_after_a_key_that_moves_the_focus_go_where_it_went(sandbox: SandboxHandle) -> None:
    """Enter goes down to the runs and Escape back to the exports as each arrives: the keys in the same write act
    where the focus went, not in the table it left; a Down before Enter still moves the exports' cursor first."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await burst(pilot, "enter", "down")
        assert runs(app).has_focus and exports(app).cursor_row == 0 and runs(app).cursor_row == 1
        await burst(pilot, "escape", "down")
        assert exports(app).has_focus and exports(app).cursor_row == 1 and runs(app).cursor_row == 0
        await burst(pilot, "down", "enter", "down", "r")
        assert exports(app).cursor_row == 2 and runs(app).has_focus and runs(app).cursor_row == 1
        assert isinstance(app.screen, ConfirmScreen)
        assert runs(app).key_at(1) in dialog_text(app.screen) or name_at_cursor(app) in dialog_text(app.screen)
