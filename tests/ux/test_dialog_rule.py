"""Issue 27, item 2: the dialogs not built on the shared rule at first confirm as every dialog does.

The editor's leave dialog and kind picker, key storage and the project picker: ``y`` or Enter on the confirming
button (focused first, unless the dialog starts in a field), which names the action; Escape cancels; the footer
shows the dialog's own keys. Help shows its own keys in its footer, not the monitor's.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import Button, Input, OptionList

from tests.monitor.conftest import make_app
from tests.pilot import footer_words, settle
from tui.api.models.projects import Project
from tui.config.paths import stylesheets
from tui.sandbox.runner import SandboxHandle
from tui.screens.dialog import Dialog
from tui.screens.editor_dialogs import KindPickerScreen, LeaveScreen
from tui.screens.help import HelpScreen
from tui.screens.key_storage import KeyStorageScreen
from tui.screens.project_picker import ProjectPickerScreen

SIZE = (100, 30)


class Host(App[None]):
    """An empty app that opens one dialog and keeps what it answered."""

    CSS_PATH = stylesheets("app.tcss", "modals.tcss", "welcome.tcss")

    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make
        self.answers: list[object] = []

    def open(self) -> Dialog[Any]:
        dialog = self.make()
        self.push_screen(dialog, self.answers.append)
        return dialog


async def opened(pilot: Any) -> Dialog[Any]:
    app = pilot.app
    dialog = app.open()
    await pilot.pause()
    await pilot.pause()
    assert app.screen is dialog
    return dialog


async def answer_in_turn(pilot: Any, *answers: str | tuple[str, ...]) -> None:
    """Each answer's keys pressed on the dialog open now, then (but after the last) the dialog opened again."""
    for number, keys in enumerate(answers):
        if number:
            await opened(pilot)
        await pilot.press(*((keys,) if isinstance(keys, str) else keys))
        await pilot.pause()


def label(dialog: Any, selector: str) -> str:
    return str(dialog.query_one(selector, Button).label)


async def _leave_dialog_y_enter_escape_and_its_own_footer(pilot: Any) -> None:
    app = pilot.app
    app.make = LeaveScreen
    app.answers.clear()
    dialog = await opened(pilot)
    assert dialog.focused is not None and dialog.focused.id == "leave-keep"
    assert label(dialog, "#leave-keep") == "Keep draft (y)"
    assert footer_words(dialog) == {"Confirm", "Cancel", "Discard"}
    await answer_in_turn(pilot, "escape", "y", "enter", "d", "q")
    assert app.answers == ["cancel", "keep", "keep", "discard", "cancel"], "q cancels as Escape does (issue 42)"


async def _kind_picker_names_the_kind_y_adds_it_escape_cancels(pilot: Any) -> None:
    app = pilot.app
    app.make = KindPickerScreen
    app.answers.clear()
    dialog = await opened(pilot)
    assert isinstance(dialog.focused, OptionList), "it starts in the list"
    assert label(dialog, "#kind-add") == "Add open text question (y)"
    assert footer_words(dialog) == {"Confirm", "Cancel"}
    await pilot.press("down", "down")
    await pilot.pause()
    assert label(dialog, "#kind-add") == "Add rating question (y)"
    await answer_in_turn(pilot, "y", ("down", "enter"), "escape")
    assert app.answers == ["rating", "link", None]


async def _key_storage_confirms_the_keyring_or_this_session_never_the_file_by_y(pilot: Any) -> None:
    app = pilot.app
    app.make = lambda: KeyStorageScreen("kept", None, keyring=True)
    app.answers.clear()
    dialog = await opened(pilot)
    assert dialog.focused is not None and dialog.focused.id == "keystore-keyring"
    assert label(dialog, "#keystore-keyring") == "Keep in keyring (y/k)"
    assert footer_words(dialog) == {"Confirm", "Cancel", "Keyring", "File", "Session only"}, "its keys, f too"
    await answer_in_turn(pilot, "y", "enter", "escape", "f")
    app.make = lambda: KeyStorageScreen("kept", None, keyring=False)
    dialog = await opened(pilot)
    assert dialog.focused is not None and dialog.focused.id == "keystore-nowhere"
    assert label(dialog, "#keystore-nowhere") == "This session only (y/s)"
    assert footer_words(dialog) == {"Confirm", "Cancel", "File", "Session only"}, "no keyring: no k"
    await pilot.press("k")  # no keyring that works: k does nothing
    await pilot.pause()
    assert app.screen is dialog
    await pilot.press("y")
    await pilot.pause()
    assert app.answers == ["keyring", "keyring", None, "file", "nowhere"]


PROJECTS = [Project(id=1, name="Demo project"), Project(id=2, name="Staging"), Project(id=3, name="[b]Play\x1b[31m")]


async def _project_picker_names_the_project_y_outside_the_filter_escape_cancels(pilot: Any) -> None:
    app = pilot.app
    app.make = lambda: ProjectPickerScreen(projects=PROJECTS, current="1")
    app.answers.clear()
    dialog = await opened(pilot)
    assert isinstance(dialog.focused, Input), "it starts in the filter"
    assert label(dialog, "#picker-choose") == "Switch to Demo project (y)"
    assert footer_words(dialog) == {"Cancel"}, "y is a letter in the filter"
    await pilot.press("down")  # into the list, one project down
    await pilot.pause()
    assert label(dialog, "#picker-choose") == "Switch to Staging (y)"
    assert footer_words(dialog) == {"Confirm", "Cancel"}
    await pilot.press("down")
    await pilot.pause()
    assert label(dialog, "#picker-choose") == "Switch to [b]Play (y)", "server text, cleaned, never markup"
    await pilot.press("y")
    await pilot.pause()
    dialog = await opened(pilot)
    await pilot.press(*"nothing")
    await pilot.pause()
    assert dialog.query_one("#picker-choose", Button).disabled
    await pilot.press("escape")
    await pilot.pause()
    assert app.answers == ["3", None]


async def test_each_dialog_confirms_by_y_or_enter_cancels_by_escape_and_shows_its_own_keys() -> None:
    """One host app opens each dialog in turn: the editor's leave dialog, its kind picker, key storage (with and
    without a keyring) and the project picker."""
    app = Host(LeaveScreen)
    async with app.run_test(size=SIZE) as pilot:
        for check in (_leave_dialog_y_enter_escape_and_its_own_footer,
                      _kind_picker_names_the_kind_y_adds_it_escape_cancels,
                      _key_storage_confirms_the_keyring_or_this_session_never_the_file_by_y,
                      _project_picker_names_the_project_y_outside_the_filter_escape_cancels):
            await check(pilot)
            assert len(app.screen_stack) == 1, f"{check.__name__}: a dialog was left open"


async def test_help_shows_its_own_keys_in_its_footer(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert footer_words(app.screen) == {"Close"}
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
