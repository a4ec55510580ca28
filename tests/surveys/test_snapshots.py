"""Snapshots of the survey browser's states (list, detail, empty, error) at two terminal sizes.

The sandbox is frozen (simulate=False, FrozenClock), and each snapshot waits for every worker, so the
pictures only change when the screen does. Each state is pictured at both sizes in one session, resized in between.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot

from tests.pictures import Pictures
from tests.pilot import settle
from tests.surveys.conftest import make_app, pictured, sandbox_options
from tests.surveys.test_browser import browser, cell_text, column_texts, editor_of, static_text, type_in
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox

SIZES = [(120, 36), (80, 24)]


@pytest.fixture
def empty_sandbox(clock: FrozenClock) -> Iterator[Any]:
    with start_sandbox(sandbox_options(clock, surveys=0)) as handle:
        yield handle


async def _both_sizes(snapshot: SnapshotAssertion, app: WatchdeckApp, keys: tuple[str, ...] = (),
                      then: Callable[[Pilot[Any]], Awaitable[None]] | None = None) -> None:
    """The app's picture at each size, in one session: the keys pressed, then the terminal resized between them;
    ``then``: what the session goes on to check after the pictures (at the last size)."""
    pictures = Pictures(snapshot)
    async with pictures.session(pictured(app), SIZES[0]) as pilot:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            await pictures.take(pilot, f"{width}x{height}")
        if then is not None:
            await then(pilot)
    pictures.check()


async def test_list(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock), ("down", "down"))


async def test_detail(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    # a survey with response-based branching, detail full screen
    await _both_sizes(snapshot, make_app(sandbox, clock), ("down", "enter"))


async def test_empty_project(snapshot: SnapshotAssertion, empty_sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(empty_sandbox, clock))


async def test_search_matches_nothing(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock), ("slash", *"no such survey", "enter"))


async def test_error_bad_key(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    """And the list says the server's 401 in words, nothing listed, the app still running."""

    async def says_401(pilot: Pilot[Any]) -> None:
        app = pilot.app
        screen = browser(app)
        assert screen.table.row_count == 0
        message = static_text(app, "#survey-empty")
        assert "Cannot load surveys" in message and "401" in message
        assert app.is_running

    await _both_sizes(snapshot, make_app(sandbox, clock, api_key="wrong-key"), then=says_401)


async def test_hostile_project(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    """And the hostile names show literally: each hostile survey walked through the detail pane and the question
    tree, a click on the list, and a survey the operator creates with hostile text."""

    async def names_show_literally(pilot: Pilot[Any]) -> None:
        app = pilot.app
        screen = browser(app)
        names = column_texts(screen, "name")
        assert "[bold]x[/bold] launch survey" in names
        assert "[@click=app.quit]Quit now" in names
        assert "Red alert survey" in names  # the escape sequence is gone, the words stay
        assert not any("\x1b" in n for n in names)
        # walk every row so each hostile survey reaches the detail pane and the question tree
        for _ in range(screen.table.row_count):
            await pilot.press("down")
        await pilot.click("#survey-table", offset=(3, 2))
        await settle(pilot)
        assert app.is_running
        assert app.screen is screen
        await pilot.press("home")
        await pilot.pause()
        fields = static_text(app, "#survey-detail-fields")
        assert "\x1b" not in fields
        # and a survey created with hostile text by the operator
        await editor_of(pilot, "n")
        await type_in(pilot, "#f-name", "[bold]y[/bold] [@click=app.quit] \x1b[31mred")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        assert cell_text(screen, 0, "name") == "[bold]y[/bold] [@click=app.quit] red"
        assert app.is_running

    await _both_sizes(snapshot, make_app(sandbox, clock, project_id="3"), then=names_show_literally)
