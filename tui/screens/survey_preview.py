"""A read-only walk through a survey as a respondent meets it, branches included.

It works on the payload the editor would send (indexes, not keys), so what the operator sees here is
exactly what the server would store: pick an answer and the next question is the one the branching
rule names. Nothing is sent anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.base import WatchdeckScreen
from tui.state.survey_draft import END, QUESTION_KINDS, rating_range_key, rating_values
from tui.text.clean import clean
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import ItemList
from tui.widgets.text_field import TextField

Target = int | str  # a question index or "end"


def next_step(questions: Sequence[Mapping[str, Any]], index: int, answer: Any = None) -> tuple[Target, str]:
    """Where a respondent goes after answering question ``index`` with ``answer``, and why.

    ``answer`` is the rating value (int) or the single choice's index (int); None for other kinds.
    """
    q = questions[index]
    branching = q.get("branching")
    following: Target = index + 1 if index + 1 < len(questions) else END
    if not isinstance(branching, Mapping):
        return following, "next question"
    kind = branching.get("type")
    if kind == "end":
        return END, "this question ends the survey"
    if kind == "specific_question":
        return _checked(branching.get("index"), questions), "goes to a specific question"
    if kind == "response_based" and answer is not None:
        values = branching.get("responseValues")
        values = values if isinstance(values, Mapping) else {}
        key = str(answer)
        if key in values:
            return _checked(values[key], questions), f"response {key}"
        if q.get("type") == "rating":
            bucket = rating_range_key(q.get("scale"), int(answer))
            if bucket is not None and bucket in values:
                return _checked(values[bucket], questions), f"response {answer} is {bucket}"
        return following, f"response {key} has no branch: next question"
    return following, "next question"


DEFAULT_THANK_YOU = "Thank you for your feedback!"  # the SDK's header when none is set


def thank_you(appearance: Mapping[str, Any]) -> tuple[Text, Text]:
    """The closing screen as configured: the thank-you header and description, or that none is shown."""
    if appearance.get("displayThankYouMessage") is False:
        return Text("The survey closes: no thank-you message is shown", style="bold"), Text("")
    header = appearance.get("thankYouMessageHeader")
    body = appearance.get("thankYouMessageDescription")
    close = appearance.get("thankYouMessageCloseButtonText")
    description = plain(body if isinstance(body, str) else "", oneline=False)
    if isinstance(close, str) and close:
        description.append_text(Text.assemble("\n[ ", plain(close, limit=40), " ]"))
    return plain(header if isinstance(header, str) and header else DEFAULT_THANK_YOU, "bold"), description


def choice_labels(q: Mapping[str, Any]) -> list[Text]:
    """The choices as shown; with an open choice, the last one takes typed text (as the SDK draws it)."""
    choices = q.get("choices") if isinstance(q.get("choices"), list) else []
    labels = [plain(c, limit=80) for c in choices or []]
    if q.get("hasOpenChoice") and labels:
        labels[-1] = Text.assemble(labels[-1], (": ____ (open text)", Tone.MUTED.style))
    return labels


def choices_note(q: Mapping[str, Any]) -> str:
    notes = []
    if q.get("hasOpenChoice"):
        notes.append("the last one is open text")
    if q.get("shuffleOptions"):
        notes.append("respondents see the choices shuffled" + (", the open one last" if q.get("hasOpenChoice")
                                                                  else ""))
    return f" ({'; '.join(notes)})" if notes else ""


def _checked(target: Any, questions: Sequence[Mapping[str, Any]]) -> Target:
    if target == END:
        return END
    if isinstance(target, int) and not isinstance(target, bool):
        if 0 <= target < len(questions):
            return target
        return f"question {target + 1} (index {target}), which does not exist"
    return f"question {target!r}, which does not exist"


class SurveyPreviewScreen(WatchdeckScreen[None]):
    """Shows one question at a time; answers pick the path; escape closes."""

    AUTO_FOCUS: ClassVar[str | None] = ""  # each step focuses its own answer widget

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="preview.close"),
        Binding("b,backspace,ctrl+b", "back", "Back", id="preview.back"),  # ctrl+b also while typing an answer
        Binding("r", "restart", "Restart", id="preview.restart"),
    ]

    def __init__(self, questions: Sequence[Mapping[str, Any]], name: str = "",
                 appearance: Mapping[str, Any] | None = None) -> None:
        super().__init__(classes="survey-preview")
        self.questions = list(questions)
        self.survey_name = name
        self.appearance: Mapping[str, Any] = appearance if isinstance(appearance, Mapping) else {}
        self.path: list[int] = []
        self.position: Target = 0 if self.questions else END
        self.reason = ""

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("Preview: ", "bold"), plain(self.survey_name or "(unnamed)")),
                     id="preview-title")
        with VerticalScroll(id="preview-body"):
            yield Static(id="preview-progress")
            yield Static(id="preview-question")
            yield Static(id="preview-description")
            yield Static(id="preview-hint")
            yield ItemList(id="preview-answers")
            yield TextField(placeholder="Your answer", id="preview-text")
            yield SelectionList[int](id="preview-multi")
            yield Static(id="preview-error", classes="field-error")
            with Horizontal(id="preview-buttons"):
                yield Button("Continue", id="preview-continue", variant="primary")
                yield Button("Back", id="preview-back")
                yield Button("Restart", id="preview-restart")
            yield Static(id="preview-trail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._render_step()

    # ------------------------------------------------------------------ rendering

    def _render_step(self) -> None:
        progress = self.query_one("#preview-progress", Static)
        question = self.query_one("#preview-question", Static)
        description = self.query_one("#preview-description", Static)
        hint = self.query_one("#preview-hint", Static)
        answers = self.query_one("#preview-answers", OptionList)
        proceed = self.query_one("#preview-continue", Button)
        trail = Text("Path: ")
        trail.append(" → ".join(f"Q{i + 1}" for i in self.path) or "(start)")
        if self.reason:
            trail.append(f"   (last step: {self.reason})", Tone.MUTED.style)
        self.query_one("#preview-trail", Static).update(trail)
        answers.clear_options()
        text_answer = self.query_one("#preview-text", Input)
        multi = self.query_one("#preview-multi", SelectionList)
        text_answer.value = ""
        multi.clear_options()
        self._error("")
        text_answer.display = multi.display = False
        if not isinstance(self.position, int):
            ended = self.position == END
            progress.update(Text("End of the survey" if ended else "Broken branch", style="bold"))
            if ended:
                header, body = thank_you(self.appearance)
                question.update(header)
                description.update(body)
            else:
                question.update(Text(f"The branch goes to {clean(self.position, limit=80)}.", style=Tone.ERROR.style))
                description.update("")
            hint.update(Text("b: back · r: restart · escape: close", style=Tone.MUTED.style))
            answers.display = False
            proceed.display = False
            return
        q = self.questions[self.position]
        kind = str(q.get("type", ""))
        progress.update(Text(f"Question {self.position + 1} of {len(self.questions)} · "
                             f"{QUESTION_KINDS.get(kind, kind)}" + (" · optional" if q.get("optional") else ""),
                             style=Tone.MUTED.style))
        question.update(plain(q.get("question") or "(untitled)", "bold", oneline=False))
        description.update(plain(q.get("description") or "", oneline=False))
        proceed.label = plain(q.get("buttonText") or "Continue", limit=40)
        proceed.display = True
        answers.display = kind in ("rating", "single_choice")
        if kind == "rating":
            values = rating_values(q.get("scale"))
            answers.add_options(Option(Text(str(v)), id=str(v)) for v in values)
            hint.update(Text.assemble(plain(q.get("lowerBoundLabel") or ""), " … ",
                                      plain(q.get("upperBoundLabel") or ""),
                                      (f"   ({q.get('display') or 'number'} display; pick a value)", Tone.MUTED.style)))
        elif kind == "single_choice":
            labels = choice_labels(q)
            answers.add_options(Option(label, id=str(i)) for i, label in enumerate(labels))
            hint.update(Text("Pick one answer" + choices_note(q), style=Tone.MUTED.style))
        elif kind == "multiple_choice":
            multi.add_options([(label, i) for i, label in enumerate(choice_labels(q))])
            multi.display = True
            hint.update(Text("Pick any number of answers (space ticks one)" + choices_note(q), style=Tone.MUTED.style))
        elif kind == "link":
            hint.update(Text.assemble(("Link: ", Tone.MUTED.style), plain(q.get("link") or "")))
        else:
            text_answer.display = True
            hint.update(Text("Open text answer", style=Tone.MUTED.style))
        if answers.display:
            answers.highlighted = 0 if answers.option_count else None
        target: Widget = answers if answers.display else multi if multi.display else (
            text_answer if text_answer.display else proceed)
        target.focus()

    def _error(self, message: str) -> None:
        self.query_one("#preview-error", Static).update(Text(message))

    def _missing_answer(self, q: Mapping[str, Any]) -> bool:
        """True (and said next to the answer) when a required question would be left without one."""
        if q.get("optional"):
            return False
        kind = q.get("type")
        if kind in ("rating", "single_choice"):
            missing = self.query_one("#preview-answers", OptionList).highlighted is None
            what = "pick a value" if kind == "rating" else "pick an answer"
        elif kind == "multiple_choice":
            missing = not self.query_one("#preview-multi", SelectionList).selected
            what = "tick at least one answer"
        elif kind == "open":
            missing = not self.query_one("#preview-text", Input).value.strip()
            what = "type an answer"
        else:
            return False
        if missing:
            self._error(f"This question is required: {what}.")
        return missing

    def _go(self, answer: Any = None) -> None:
        if not isinstance(self.position, int):
            return
        self.path.append(self.position)
        self.position, self.reason = next_step(self.questions, self.position, answer)
        self._render_step()

    # ------------------------------------------------------------------ input

    @on(OptionList.OptionSelected, "#preview-answers")
    def _answered(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._go(int(event.option.id or 0))

    @on(Input.Submitted, "#preview-text")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        self._continue()

    def _continue(self) -> None:
        if not isinstance(self.position, int):
            return
        q = self.questions[self.position]
        if self._missing_answer(q):
            return
        if q.get("type") in ("rating", "single_choice"):
            answers = self.query_one("#preview-answers", OptionList)
            if answers.highlighted is not None:
                option = answers.get_option_at_index(answers.highlighted)
                self._go(int(option.id or 0))
                return
        self._go()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "preview-continue":
            self._continue()
        elif event.button.id == "preview-back":
            self.action_back()
        elif event.button.id == "preview-restart":
            self.action_restart()

    def action_back(self) -> None:
        if self.path:
            self.position = self.path.pop()
            self.reason = ""
            self._render_step()

    def action_restart(self) -> None:
        self.path = []
        self.position = 0 if self.questions else END
        self.reason = ""
        self._render_step()

    def action_close(self) -> None:
        self.dismiss(None)
