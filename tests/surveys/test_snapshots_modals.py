"""The survey browser's modals and the editor it opens, at 80x24 and 160x48 (every screen, both sizes)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pilot import settle
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


async def _stable(pilot: Any) -> None:
    """Settle, then wait until three screenshots agree, each taken once the app's queues are empty and its
    animations done: forms and trees can take a few frames to lay out, and a busy machine spreads them out.
    A blinking cursor would make the picture vary with the time taken: it is held on."""
    await settle(pilot)
    shots: list[str] = []
    for _ in range(40):
        for widget in pilot.app.screen.query("*"):
            if hasattr(widget, "cursor_blink"):
                widget.cursor_blink = False
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await pilot.pause(0.05)
        await pilot.pause()
        shots.append(pilot.app.export_screenshot())
        if len(shots) >= 3 and shots[-1] == shots[-2] == shots[-3]:
            return


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(SCREENS))
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
