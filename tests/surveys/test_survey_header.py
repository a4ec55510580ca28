"""Issue 27, item 16: the survey browser's header is the monitor's: freshness, the project (kept at 80 columns), the
data's age."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from tests.pilot import settle
from tui.clock import FrozenClock
from tui.state.io.project_names import fetch_project_label

from .conftest import make_app


@pytest.mark.parametrize("width", [160, 80])
async def test_the_header_says_live_the_project_and_the_age(sandbox: Any, clock: FrozenClock, width: int) -> None:
    app = make_app(sandbox, clock)
    app.monotonic = lambda: 1000.0  # elapsed time stopped: the age read is the age at the read, however slow
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        label, _ = await fetch_project_label(app.api)
        assert label
        header = str(app.screen.query_one("#survey-header", Static).render())
        assert header.startswith(" ● LIVE ") and label in header, header
        if width == 160:
            assert "updated 0 s ago" in header, header
        assert "⭘" not in header


async def test_the_header_is_drawn_again_only_when_its_line_changes(sandbox: Any, clock: FrozenClock) -> None:
    """The one-second timer redraws the header: an unchanged line is not handed to the widget again (no repaint),
    a changed one is, without a layout of the whole screen (the header's height is fixed)."""
    app = make_app(sandbox, clock)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]  # the data's age is counted in elapsed time
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        header = screen.query_one("#survey-header", Static)
        shown = header.content
        screen._render_header()  # what the timer calls every second
        assert header.content is shown, "the same line is not set again"
        elapsed[0] += 5
        screen._render_header()
        assert header.content is not shown and "updated 5 s ago" in str(header.render()), str(header.render())
