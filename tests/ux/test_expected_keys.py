"""Keys people expect (issue 42, item 4): ``j``/``k`` move the cursor in every table and list as the arrows do, ``g``
stays the failure groups, Home/End go to the ends; the export's details tab has a key (listed in help and the
palette), and after a click on the tabs Escape gives the focus back to the exports."""

from __future__ import annotations

from textual.widgets import DataTable, OptionList, TabbedContent, Tabs

from tests.incident.outage import Host, context, outage_desk
from tests.monitor.conftest import make_app
from tests.pilot import burst, settle
from tests.surveys.conftest import make_app as make_survey_app
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle
from tui.screens.alerts import AlertsScreen
from tui.screens.editor import SurveyEditorScreen
from tui.screens.editor_dialogs import KindPickerScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.help import screen_keys
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.screens.timeline import TimelineScreen
from tui.widgets.timeline_view import TimelineView
from tui.widgets.virtual_table import VirtualTable


async def test_j_k_home_end_in_the_monitors_tables_and_g_is_still_the_groups(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        exports = monitor.query_one("#exports", VirtualTable)
        await burst(pilot, "home", "j", "j", "j", "k")
        assert exports.cursor_row == 2
        await burst(pilot, "end")
        assert exports.cursor_row == exports.row_count - 1
        await burst(pilot, "home", "enter")  # to the first export's runs
        runs = monitor.query_one("#runs", VirtualTable)
        assert runs.has_focus
        await burst(pilot, "j", "j")
        assert runs.cursor_row == 2
        await burst(pilot, "k")
        assert runs.cursor_row == 1
        await burst(pilot, "escape", "g")
        assert isinstance(app.screen, FailureGroupsScreen)
        groups = app.screen.query_one("#groups-table", DataTable)
        await burst(pilot, "j")
        assert groups.cursor_row == 1
        await burst(pilot, "k")
        assert groups.cursor_row == 0


async def test_j_k_home_end_in_the_alerts_pane_and_the_timeline() -> None:
    desk = outage_desk()
    app = Host(lambda _app: AlertsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#alerts-open", DataTable)
        assert table.row_count == 4
        await burst(pilot, "j", "j")
        assert table.cursor_row == 2
        await burst(pilot, "home")
        assert table.cursor_row == 0, "Home goes to the first row, not the left edge"
        await burst(pilot, "end")
        assert table.cursor_row == 3
        await burst(pilot, "k")
        assert table.cursor_row == 2
    app = Host(lambda _app: TimelineScreen(context(outage_desk())))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        await burst(pilot, "j", "j", "j", "k")
        assert view.cursor_row == 2


async def test_j_k_in_the_survey_list_the_editors_questions_and_a_picker(survey_sandbox: SandboxHandle) -> None:
    app = make_survey_app(survey_sandbox, FrozenClock(survey_sandbox.clock.now()))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        await burst(pilot, "home", "j", "j")
        assert browser.table.cursor_row == 2
        await burst(pilot, "k")
        assert browser.table.cursor_row == 1
        await burst(pilot, "e")
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen)
        items = editor.query_one("#editor-items", OptionList)
        items.focus()
        await settle(pilot)
        start = items.highlighted or 0
        await burst(pilot, "j")
        assert items.highlighted == start + 1
        await burst(pilot, "k")
        assert items.highlighted == start
        await burst(pilot, "ctrl+n")
        picker = app.screen
        assert isinstance(picker, KindPickerScreen)
        kinds = picker.query_one(OptionList)
        await burst(pilot, "j", "j")
        assert kinds.highlighted == 2


async def test_the_details_tab_has_a_key_in_help_and_the_palette_and_escape_after_a_click(
        sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        tabs = monitor.query_one(TabbedContent)
        exports = monitor.query_one("#exports", VirtualTable)
        assert tabs.active == "tab-runs"
        await burst(pilot, "d")
        assert tabs.active == "tab-details" and exports.has_focus
        await burst(pilot, "d")
        assert tabs.active == "tab-runs"
        rows = {title: key for _group, key, title, _sentence, _applies in screen_keys(monitor)}
        assert rows["Export details"] == "d"
        commands = [command.title for command in app.get_system_commands(monitor)]
        assert "Export details" in commands
        await pilot.click("#export-tabs Tab#--content-tab-tab-details")
        await settle(pilot)
        assert tabs.active == "tab-details"
        assert isinstance(monitor.focused, Tabs), monitor.focused
        await burst(pilot, "escape")
        assert exports.has_focus, "Escape gives the focus back to the exports, as from the runs pane"
        await burst(pilot, "j")
        assert exports.cursor_row == 1
