"""The palette and the help screen speak to operators: sentences, no action names, no duplicates, no widget keys."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Group
from rich.table import Table
from textual.widgets import Static

from tests.monitor.conftest import make_app
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle
from tui.screens.help import HelpScreen

LEAKS = ("app.", "screen.", "switch_to", "copy_text", "('", "_")


def _help_lines(screen: HelpScreen) -> list[str]:
    group = screen.query_one("#help-keys", Static).content
    assert isinstance(group, Group)
    lines = []
    for part in group.renderables:
        if isinstance(part, Table):
            lines.extend(str(cell) for column in part.columns for cell in column.cells)
        else:
            lines.append(str(part))
    return lines


def _assert_palette_speaks(app: Any, mode: str) -> None:
    commands = list(app.get_system_commands(app.screen))
    titles = Counter(command.title for command in commands)
    assert [title for title, n in titles.items() if n > 1] == [], mode
    assert titles["Quit"] == 1 and titles["Switch project"] == 1, mode
    assert "Project" not in titles and "Keys" not in titles, mode
    for command in commands:
        for leak in LEAKS:
            assert leak not in command.help, (mode, command.title, command.help)
        if "(key:" in command.help:  # ours; Textual's own (theme, screenshot) are phrases of its own
            assert command.help.split(" (key:")[0].endswith("."), (mode, command.help)


async def test_palette_entries_are_sentences_without_duplicates_and_help_leaves_out_widget_keys(
        sandbox: SandboxHandle) -> None:
    """One app: the monitor's palette entries, its help (no generic widget keys), then the survey browser's
    palette entries."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        _assert_palette_speaks(app, "monitor")

        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = _help_lines(app.screen)
        for generic in ("Cursor up", "Cursor left", "Page Left", "Copy selected text", "Top", "Bottom", "Other"):
            assert generic not in lines
        assert "Switch project" in lines and "Pick another project from the ones this key can see." in lines
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)

        await pilot.press("tab")
        await settle(pilot)
        assert type(app.screen).__name__ == "SurveyBrowserScreen"
        _assert_palette_speaks(app, "surveys")
