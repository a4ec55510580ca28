"""The private members of Textual that the tests (not watchdeck) use, with why: Textual offers no public door.

``tests/test_textual_private.py`` checks that each is still there and that no test uses another unlisted;
watchdeck's own are in ``tui/widgets/textual_private.py``.
"""

from __future__ import annotations

from tui.widgets.textual_private import PrivateUse

TEST_PRIVATE_USES: tuple[PrivateUse, ...] = (
    PrivateUse("textual.app.App", "_notifications",
               "a test reads the notifications the app holds (tests/pilot.py notifications, the one reader)"),
    PrivateUse("textual.app.App", "_display",
               "the first-frame tests and the start-up benchmarks see each frame as the app hands it to the driver"),
    PrivateUse("textual.screen.Screen", "_compositor",
               "the NO_COLOR test draws the screen as the terminal receives it (SGR codes, not an SVG)"),
    PrivateUse("textual.app.App", "_background_screens", "the same drawing, with the screens under a dialog"),
    PrivateUse("textual.message_pump.MessagePump", "_message_queue",
               "settle waits until no message waits in any widget (tests/pilot.py messages_pending)"),
    PrivateUse("textual.message_pump.MessagePump", "_next_callbacks",
               "settle waits for call_next callbacks too, a dialog's answer among them (the same function)"),
)
