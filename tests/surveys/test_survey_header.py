"""Issue 27, item 16: the survey browser's header is the monitor's: freshness, the project (kept at 80 columns), the
data's age."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from tests.pilot import settle, until
from tests.surveys.conftest import requests_to
from tui.clock import FrozenClock
from tui.screens import surveys as survey_screen
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
            assert "updated 0s ago" in header, header
        assert "⭘" not in header


async def test_the_header_is_drawn_again_only_when_its_line_changes(sandbox: Any, clock: FrozenClock,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The header is drawn again by its one-second timer and after each read of the list: an unchanged line is not
    handed to the widget again (no repaint), a changed one is, without a layout of the whole screen (the header's
    height is fixed)."""
    lists = f"/projects/{sandbox.project_id}/surveys/"
    elapsed = [1000.0]
    # the list read again soon, at the same elapsed time: the same line, not set again
    with monkeypatch.context() as quick:
        quick.setattr(survey_screen, "LIST_REFRESH", 0.1)
        app = make_app(sandbox, clock)
        app.monotonic = lambda: elapsed[0]  # the data's age is counted in elapsed time
        async with app.run_test(size=(160, 30)) as pilot:
            await settle(pilot)
            header = app.screen.query_one("#survey-header", Static)
            shown = header.content
            asked = len(requests_to(sandbox, "GET", lists))
            await until(pilot, lambda: len(requests_to(sandbox, "GET", lists)) > asked, step=0.1)
            assert header.content is shown, "the same line is not set again"
    # five seconds on, the timer's next tick draws the new age
    app = make_app(sandbox, clock)
    app.monotonic = lambda: elapsed[0]
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        header = app.screen.query_one("#survey-header", Static)
        shown = header.content
        elapsed[0] += 5
        await until(pilot, lambda: "updated 5s ago" in str(header.render()), step=0.2)
        assert header.content is not shown and "updated 5s ago" in str(header.render()), str(header.render())
