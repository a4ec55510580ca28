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
    """Settle, then wait until two screenshots agree: forms and trees can take a few frames to lay out."""
    await settle(pilot)
    previous = pilot.app.export_screenshot()
    for _ in range(20):
        await pilot.pause(0.05)
        current = pilot.app.export_screenshot()
        if current == previous:
            return
        previous = current


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
