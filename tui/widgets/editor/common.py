"""Small pieces shared by the survey editor's forms: the edit message and the inline error line."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from tui.text.clean import clean


class DraftEdited(Message):
    """A form changed the shared :class:`~tui.state.survey_draft.SurveyDraft`.

    Forms write straight into the draft (one source of truth) and only tell the screen that
    something changed; ``structural`` says the question list itself changed (labels, order, count),
    ``field`` names the top-level payload key touched, so a server error on it can be cleared.
    """

    def __init__(self, field: str = "", *, structural: bool = False, source: str = "") -> None:
        super().__init__()
        self.field = field
        self.structural = structural
        self.source = source


NOTE_PREFIX = "note: "
"""Starts a message that warns without refusing (``tui.api.writes.survey_notes``): drawn as a note, not an error."""


def as_note(message: str) -> str:
    return NOTE_PREFIX + message


def with_notes(problems: dict[str, str], notes: dict[str, str]) -> dict[str, str]:
    """One message per path: the problem where there is one, else the note (marked with :data:`NOTE_PREFIX`)."""
    return {**{path: as_note(message) for path, message in notes.items()}, **problems}


def joined(messages: list[str]) -> str | None:
    """Messages for one field as one line: the problems first; marked a note only when every one is a note."""
    if not messages:
        return None
    problems = [m for m in messages if not m.startswith(NOTE_PREFIX)]
    notes = [m.removeprefix(NOTE_PREFIX) for m in messages if m.startswith(NOTE_PREFIX)]
    text = "; ".join(problems + notes)
    return text if problems else NOTE_PREFIX + text


class FieldError(Static):
    """The message shown right under a field (a problem, or a note: see :data:`NOTE_PREFIX`); hidden while there
    is none."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="field-error", markup=False)
        self.display = False
        self.message: str | None = None

    def show(self, message: str | None) -> None:
        if message == self.message:
            return
        self.message = message
        self.display = bool(message)
        self.set_class(bool(message) and str(message).startswith(NOTE_PREFIX), "field-note")
        self.update(Text(clean(message or ""), style=""))
