"""Logs: the search filters as you type and highlights, escape clears it, PageUp says PAUSED until end."""

from __future__ import annotations

from rich.style import Style
from textual.widgets import Log, Static

from tests.monitor.conftest import make_app, open_logs, requests
from tests.pilot import settle, until
from tui.sandbox.runner import SandboxHandle
from tui.screens.logs import LevelHighlighter, LogsScreen


def _title(screen: LogsScreen) -> str:
    return str(screen.query_one("#logs-title", Static).render())


async def test_page_up_says_paused_until_end_and_the_search_filters_as_you_type_and_highlights(
        sandbox: SandboxHandle) -> None:
    """One logs view: PageUp says PAUSED until End; then the search filters as you type (asking the server before
    Enter), highlights the word, and Escape clears it."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_logs(pilot)
        assert "FOLLOW" in _title(screen)
        await pilot.press("pageup")
        assert screen.follow is False
        assert "PAUSED" in _title(screen) and "FOLLOW" not in _title(screen)
        await pilot.press("end")
        assert screen.follow is True and "FOLLOW" in _title(screen)
        await settle(pilot)  # whatever End started is over before the lines are read

        log = screen.query_one("#logs", Log)
        every = log.line_count
        word = log.lines[-1].split()[3]  # a word of a message
        await pilot.press("slash", *word.lower())  # no Enter

        def searched_for() -> bool:
            return any("search=" in r.get("query", r["path"]) for r in requests(sandbox, "GET", "/logs/"))

        await until(pilot, lambda: searched_for() and all(word.lower() in line.lower() for line in log.lines),
                    step=0.05)  # the search waits for typing to pause
        searched = [r for r in requests(sandbox, "GET", "/logs/") if "search=" in r.get("query", r["path"])]
        assert searched, "the server was asked with the search before Enter"
        assert 0 < log.line_count <= every
        assert all(word.lower() in line.lower() for line in log.lines)
        highlighter = log.highlighter
        assert isinstance(highlighter, LevelHighlighter) and highlighter.needle == word.lower()
        line = log.lines[0]
        text = highlighter(line)
        start = line.lower().index(word.lower())
        assert any(Style.parse(str(span.style)).reverse and span.start == start for span in text.spans)
        assert "search" in _title(screen)
        await pilot.press("escape")  # closes the bar and clears the search
        await until(pilot, lambda: log.line_count == every, step=0.05)
        assert "search" not in _title(screen)
        assert log.line_count == every
        assert isinstance(app.screen, LogsScreen)
