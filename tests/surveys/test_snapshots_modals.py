"""The survey browser's modals and the editor it opens, at 80x24 and 160x48 (every screen, both sizes).

The screens are opened one after the other from one list, each closed again before the next.
"""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.pictures import Pictures
from tests.pilot import SETTLE_ROUNDS, settle
from tests.surveys.conftest import make_app, pictured, sandbox_options
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox

SIZES = [(80, 24), (160, 48)]
# Keys pressed after the cursor is put on the third survey ("Team plan upgrade reasons": archived, three questions).
SCREENS = {
    "list": [],
    "delete-confirm": ["d"],
    "unarchive": ["a"],
    "summary": ["S"],
    "activity": ["h"],
    "all-activity": ["H"],
    "editor": ["e"],
    "new-survey": ["n"],
}
MODAL = [screen for screen in SCREENS if screen not in ("list", "unarchive")]
"""The screens that open over the list (unarchiving acts at once: the list shows the survey changed)."""


def layout(app: Any) -> tuple[Any, ...]:
    """What the screen's layout is now: which screen, each widget's place, size, scroll and display, and the focus."""
    screen = app.screen
    return (screen, screen.focused, *((widget, widget.region, widget.virtual_size, widget.scroll_offset, widget.display)
                                      for widget in screen.walk_children(with_self=False)))


async def _stable(pictures: Pictures, pilot: Any) -> str:
    """Settle, then wait until the layout stops changing and then until two pictures of the screen agree, each taken
    once the app's queues are empty and its animations done; returns that picture. Forms and trees can take a few
    rounds to lay out, and a busy machine spreads them out. A blinking cursor would make the picture vary with the
    time taken: it is held on."""
    await settle(pilot)
    previous: tuple[Any, ...] = ()
    shot = ""
    for _ in range(SETTLE_ROUNDS):
        for widget in pilot.app.screen.query("*"):
            if hasattr(widget, "cursor_blink"):
                widget.cursor_blink = False
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        current = layout(pilot.app)
        if current != previous:
            previous, shot = current, ""
            continue
        taken = pictures.shot(pilot)
        if taken == shot:
            return taken
        shot = taken
    raise AssertionError("the screen did not settle")


async def _take_screens(pictures: Pictures, pilot: Any, screens: list[str], size: tuple[int, int]) -> None:
    """Open each screen from the list with the third survey selected, take its picture, close it with escape."""
    await pilot.resize_terminal(*size)
    await settle(pilot)
    browser = pilot.app.screen
    for screen in screens:
        for key in SCREENS[screen]:
            await pilot.press(key)
        pictures.keep(f"{screen}-{size[0]}x{size[1]}", await _stable(pictures, pilot))
        if screen in MODAL:
            assert pilot.app.screen is not browser, f"{SCREENS[screen]} opened no {screen} at {size}"
            await pilot.press("escape")
            await settle(pilot)
            assert pilot.app.screen is browser, f"escape did not close the {screen} at {size}"


@pytest.mark.slow
async def test_survey_screens(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    """Each screen opened from the list and closed again, at 160x48 and then at 80x24, in one session; unarchiving
    changes the survey, so it comes last at 80x24 and has a session (and sandbox) of its own at 160x48. The list at
    80x24 is the same picture as test_snapshots.py::test_list[80x24]: that test takes it."""
    pictures = Pictures(snapshot)
    modal = list(MODAL)
    async with pictures.session(pictured(make_app(sandbox, clock)), (160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")
        await settle(pilot)
        await _take_screens(pictures, pilot, ["list", *modal], (160, 48))
        await _take_screens(pictures, pilot, [*modal, "unarchive"], (80, 24))
    with start_sandbox(sandbox_options(clock)) as unchanged:
        async with pictures.session(pictured(make_app(unchanged, clock)), (160, 48)) as pilot:
            await settle(pilot)
            await pilot.press("down", "down")
            await settle(pilot)
            await _take_screens(pictures, pilot, ["unarchive"], (160, 48))
    pictures.check()
