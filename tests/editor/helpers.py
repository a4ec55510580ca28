"""Driving the editor through its widgets, the way an operator would (keys, clicks, typed values)."""

from __future__ import annotations

import contextlib
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Input, OptionList, Select, TextArea
from textual.worker import WorkerCancelled

from tests.editor.conftest import survey_writes
from tests.pilot import SETTLE_ROUNDS, workers_done
from tui.api.models.surveys import Survey
from tui.screens.editor import SETTINGS, SurveyEditorScreen
from tui.state.survey_draft import QUESTION_KINDS
from tui.widgets.editor.common import FieldError
from tui.widgets.editor.pick_field import PickField

KIND_ORDER = list(QUESTION_KINDS)
FORM_WAITS = 500
"""Rounds of 10 ms an item may take to show its form (5 s: fifty times SHOW_DELAY)."""


async def open_editor(pilot: Pilot[Any], survey: Survey | None) -> tuple[SurveyEditorScreen, list[Survey | None]]:
    """The editor on ``survey`` (read from the server first) or on a new survey, once it takes keys."""
    results: list[Survey | None] = []
    screen = SurveyEditorScreen(survey)
    pilot.app.push_screen(screen, results.append)
    await settle(pilot)
    return screen, results


def layout(app: Any) -> tuple[Any, ...]:
    """What the screen's layout is now: which screen, each widget's place, size and scroll, and the focus."""
    screen = app.screen
    return (screen, screen.focused, *((widget, widget.region, widget.virtual_size, widget.scroll_offset, widget.display)
                                      for widget in screen.walk_children(with_self=False)))


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until the app is idle, its workers and animations done, and the layout stops changing.

    Each round waits for the workers and animations, then for one pause (every widget's pending messages
    handled, the app idle, the screen refreshed); the app is settled once that pause changed nothing in the
    layout and left no worker running. Under load a form's layout can take several rounds; each round waits
    for the screen's messages and the app's idleness, never for a time.
    """
    app = pilot.app
    for _ in range(SETTLE_ROUNDS):
        # A worker cancelled meanwhile (an exclusive one replaced by the next) is done too: not a failure to wait on.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await app.animator.wait_until_complete()
        before = layout(app)
        await pilot.pause()
        if not workers_done(app) or layout(app) != before:
            continue
        return
    raise AssertionError("the editor's layout did not settle")


async def save(pilot: Pilot[Any], h: Any, since: int) -> list[dict[str, Any]]:
    """ctrl+s, then (once the editor has settled) the survey writes the sandbox received after request number
    ``since``."""
    await pilot.press("ctrl+s")
    await settle(pilot)
    return survey_writes(h, since)


async def set_input(pilot: Pilot[Any], selector: str, value: str) -> None:
    pilot.app.screen.query_one(selector, Input).value = value
    await settle(pilot)


async def fill(pilot: Pilot[Any], values: dict[str, Any]) -> None:
    """Set several fields of the form shown at once (inputs, selects, checkboxes, text areas), then settle once.

    For fields whose change rebuilds no other field of the batch: each is set as its own helper sets it.
    """
    screen = pilot.app.screen
    for selector, value in values.items():
        widget = screen.query_one(selector)
        if isinstance(widget, TextArea):
            widget.load_text(value)
        else:
            assert isinstance(widget, Input | Select | Checkbox | PickField), selector
            widget.value = value
    await settle(pilot)


async def type_into(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Focus, clear and type key by key."""
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    widget.value = ""
    await pilot.press(*[c if c != " " else "space" for c in text])
    await settle(pilot)


async def set_area(pilot: Pilot[Any], selector: str, text: str) -> None:
    area = pilot.app.screen.query_one(selector, TextArea)
    area.load_text(text)
    await settle(pilot)


async def set_select(pilot: Pilot[Any], selector: str, value: Any) -> None:
    """Pick ``value`` in a Select or a PickField (None: the blank, where the field has one)."""
    widget = pilot.app.screen.query_one(selector)
    assert isinstance(widget, Select | PickField), selector
    widget.value = Select.NULL if value is None and isinstance(widget, Select) else value
    await settle(pilot)


async def check(pilot: Pilot[Any], selector: str, value: bool = True) -> None:
    pilot.app.screen.query_one(selector, Checkbox).value = value
    await settle(pilot)


async def add_question(pilot: Pilot[Any], kind: str) -> str:
    """ctrl+n, pick the kind in the dialog; returns the new question's key."""
    await pilot.press("ctrl+n")
    await settle(pilot)
    for _ in range(KIND_ORDER.index(kind)):
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SurveyEditorScreen)
    assert screen.current is not None
    return screen.current


async def select_item(pilot: Pilot[Any], index: int) -> None:
    """Highlight list item ``index`` (0 = survey settings, 1 = first question)."""
    items = pilot.app.screen.query_one("#editor-items", OptionList)
    items.focus()
    items.highlighted = index
    option = items.get_option_at_index(index).id
    wanted = None if option == SETTINGS else option
    for _ in range(FORM_WAITS):  # the form is mounted once the cursor has rested SHOW_DELAY on the item
        if pilot.app.screen.current == wanted:
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError(f"the editor did not show item {index}")
    await settle(pilot)


def shown_form(screen: Screen[Any]) -> Widget:
    """The form the editor's pane shows now (the settings form stays mounted, hidden, while a question is shown)."""
    forms = [form for form in screen.query("#editor-form > .editor-form") if form.display]
    assert len(forms) == 1, forms
    return forms[0]


def error_at(pilot: Pilot[Any], selector: str) -> str | None:
    return pilot.app.screen.query_one(selector, FieldError).message


def summary(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#editor-summary").render())
