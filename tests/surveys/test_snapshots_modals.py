"""The survey browser's modals and the editor it opens, at 80x24 and 160x48 (every screen, both sizes)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pilot import SETTLE_ROUNDS, settle
from tests.surveys.conftest import make_app
from tui.clock import FrozenClock

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


def layout(app: Any) -> tuple[Any, ...]:
    """What the screen's layout is now: which screen, each widget's place, size, scroll and display, and the focus."""
    screen = app.screen
    return (screen, screen.focused, *((widget, widget.region, widget.virtual_size, widget.scroll_offset, widget.display)
                                      for widget in screen.walk_children(with_self=False)))


async def _stable(pilot: Any) -> None:
    """Settle, then wait until the layout stops changing and then until two screenshots agree, each taken once
    the app's queues are empty and its animations done: forms and trees can take a few rounds to lay out, and a
    busy machine spreads them out. A blinking cursor would make the picture vary with the time taken: it is
    held on."""
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
        taken = pilot.app.export_screenshot()
        if taken == shot:
            return
        shot = taken
    raise AssertionError("the screen did not settle")


# The list at 80x24 is the same picture as test_snapshots.py::test_list[80x24]: that test takes it.
CASES = [(screen, size) for screen in SCREENS for size in SIZES if (screen, size) != ("list", (80, 24))]


@pytest.mark.parametrize(("screen", "size"), CASES, ids=[f"{s}-{w}x{h}" for s, (w, h) in CASES])
def test_survey_screens(snap_compare: Any, sandbox: Any, clock: FrozenClock, screen: str,
                        size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("down", "down")
        await settle(pilot)
        for key in SCREENS[screen]:
            await pilot.press(key)
        await _stable(pilot)

    assert snap_compare(make_app(sandbox, clock), terminal_size=size, run_before=run_before)
