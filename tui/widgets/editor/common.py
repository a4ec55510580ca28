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


class FieldError(Static):
    """The message shown right under a field; hidden while there is none."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="field-error", markup=False)
        self.display = False
        self.message: str | None = None

    def show(self, message: str | None) -> None:
        if message == self.message:
            return
        self.message = message
        self.display = bool(message)
        self.update(Text(clean(message or ""), style=""))
