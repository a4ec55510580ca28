"""Issue 27, items 4-8: the question editor without a mouse."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from tui.screens.help import screen_keys
from tui.widgets.editor.check_field import CheckField

from .conftest import make_app
from .helpers import add_question, open_editor, select_item, set_input, settle

SIZE = (80, 24)
"""Small: the layout is not what these tests check, and each refresh of a smaller screen costs less."""


def burst(app: Any, keys: str) -> None:
    """Keys as a terminal delivers fast typing: every one in the app's queue before the first is handled.

    (``pilot.press`` waits for each key to be handled, as typing with pauses does: Tab then always worked.)
    """
    for key in keys.split():
        app.post_message(events.Key(key, "\t" if key == "tab" else key))


async def test_a_new_survey_without_a_mouse(sandbox: Any) -> None:
    """One new survey, driven by keys only; in turn:

    - it starts on its name, and ``q`` with edits asks first, as Escape does (Escape in the question stays);
    - typed fast, `Alpha` Tab `Beta` keeps each word in its own choice (tmux send-keys "Alpha" Tab "Beta"
      gave `AlphaBeta` in the first choice), Shift+Tab goes back, and F4 adds a choice and focuses it;
    - Enter on a checkbox moves on without toggling, Space toggles, and the state reads without colour.
    """
    from tui.screens.editor_dialogs import LeaveScreen

    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await open_editor(pilot, None)
        await settle(pilot)
        # a new survey starts on its name; q with edits asks, as Escape does
        assert screen.focused is not None and screen.focused.id == "f-name"
        await pilot.press("N", "e", "w")
        await settle(pilot)
        await pilot.press("f6")  # to the question list, where q is not a letter
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, LeaveScreen), "edits unsaved: asks before leaving"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and app.is_running

        # fast typing keeps each key in its field; F4 adds a choice
        await add_question(pilot, "single_choice")
        assert screen.query_one("#choice-0", Input).value == ""
        screen.query_one("#choice-0", Input).focus()
        await pilot.pause()
        burst(app, "A l p h a tab B e t a")
        await settle(pilot)
        assert [screen.query_one(f"#choice-{i}", Input).value for i in (0, 1)] == ["Alpha", "Beta"]
        burst(app, "shift+tab X")
        await settle(pilot)
        assert [screen.query_one(f"#choice-{i}", Input).value for i in (0, 1)] == ["AlphaX", "Beta"]
        await pilot.press("f4")
        await settle(pilot)
        added = screen.query_one("#choice-2", Input)
        assert added.has_focus and added.value == ""
        keys = {title: key for _group, key, title, _sentence, _applies in screen_keys(screen)}
        assert {"Add choice", "Move choice up", "Remove choice", "Add question"} <= set(keys)
        # Only the key that works in a choice field is listed: Textual reads alt+n as a key that types "n", and a text
        # field takes it before any binding (issue 42).
        assert keys["Add choice"].lower() == "f4", keys["Add choice"]

        # Enter on a checkbox moves on, Space toggles, the state reads without colour
        box = screen.query_one("#q-hasOpenChoice", CheckField)
        assert box.value is False
        box.focus()
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert box.value is False and not box.has_focus, "Enter goes on, it does not toggle"
        box.focus()
        await pilot.pause()
        assert "▐ ▌" in str(box.render())
        await pilot.press("space")
        await settle(pilot)
        assert box.value is True and "▐x▌" in str(box.render())


async def test_question_keys_sent_with_a_move_act_on_the_question_under_the_list_cursor(sandbox: Any) -> None:
    """``Down F8`` in one write asks to delete the question the list's cursor moved to, not the one whose form was
    still shown (the form follows the cursor once it rests); ``Down alt+up`` moves that question (issue 42, item 1)."""
    from tests.pilot import burst as one_write
    from tui.screens.confirm import ConfirmScreen

    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await open_editor(pilot, None)
        await settle(pilot)
        for text in ("First", "Second", "Third"):
            await add_question(pilot, "open")
            await set_input(pilot, "#q-question", text)
        await select_item(pilot, 1)
        keys = [q.key for q in screen.draft.questions]
        await one_write(pilot, "down", "f8")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        question = str(dialog.query_one("#confirm-question").render())
        assert "Delete question 2: Second" in question, question
        await one_write(pilot, "escape")
        await settle(pilot)
        await one_write(pilot, "down", "alt+up")
        assert [q.key for q in screen.draft.questions] == [keys[0], keys[2], keys[1]]
