"""A toast names a survey as every screen shows server text: cleaned, never as a Python repr's escapes."""

from __future__ import annotations

from typing import Any

from tests.pilot import settle, toast_texts
from tests.surveys.conftest import make_app
from tests.surveys.test_browser import browser
from tui.clock import FrozenClock
from tui.screens.confirm import ConfirmScreen

HOSTILE_NAME = "\x1b[31mRed alert\x1b[0m survey"  # seeded in the sandbox's third project


async def test_the_archived_toast_shows_the_name_cleaned(sandbox: Any, clock: FrozenClock) -> None:
    app = make_app(sandbox, clock, project_id="3")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        (index,) = [i for i in range(screen.table.row_count)
                    if (row := screen.pager.get(screen.table.key_at(i))) is not None and row.name == HOSTILE_NAME]
        screen.table.move_cursor(index)
        await pilot.pause()
        assert screen.check_action("archive", ()) is True
        await pilot.press("a")
        assert isinstance(app.screen, ConfirmScreen), "archive asks first"
        await pilot.press("y")
        await settle(pilot)
        assert toast_texts(app)[-1] == "Archived survey 'Red alert survey'."
