"""The mark next to an editable field whose server text held control characters or escape sequences.

The field shows the cleaned text (:func:`tui.text.clean.editable`); this note says so, so that the
operator knows why the value looks different from what the server holds. The server's value is kept
(:class:`tui.text.clean.Shown`) and saved as it is until the operator edits the field; an edited
field saves what it shows.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tui.look.palette import Tone
from tui.text.clean import CLEANED_NOTE, Shown, editable

if TYPE_CHECKING:
    from tui.state.survey_draft import SurveyDraft


class CleanedNote(Static):
    """``control characters hidden; kept unless you edit it``, under the field it is about."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text(CLEANED_NOTE, style=Tone.WARNING.style), id=id, classes="cleaned-note", markup=False)


ONE_LINE_QUESTION_FIELDS = ("question", "buttonText", "link", "lowerBoundLabel", "upperBoundLabel")


def clean_survey_draft(draft: SurveyDraft) -> None:
    """Put in the draft what each editable widget shows of a server text: :func:`editable`'s text.

    The draft holds what the fields show (the forms write their values into it as they are), and keeps
    each server value shown cleaned as a :class:`~tui.text.clean.Shown`: while the field shows it
    unchanged, the draft sends (and stores) the server's value, also for questions whose form was never
    opened. The paths cleaned are ``draft.cleaned`` (``name``, ``q3.question``, ``q3.choices``), so each
    form marks its field. Called again after a stored draft is restored: what it held is looked at afresh.
    """
    # Imported here: the monitor's dialogs use CleanedNote without loading the survey editor's model.
    from tui.state.survey_draft import JSON_FIELDS, ONE_LINE_SETTINGS

    draft.cleaned.clear()
    draft.kept.clear()
    for name in ONE_LINE_SETTINGS:
        value = draft.form.get(name)
        if isinstance(value, str):
            safe = editable(value)
            if safe.cleaned:
                draft.form[name] = safe.text
                draft.kept[name] = Shown(value, safe.text)
                draft.cleaned.add(name)
    for name in JSON_FIELDS:
        value = draft.form.get(name)
        if isinstance(value, str):
            text = _clean_json_text(value)
            if text != value:
                draft.form[name] = text
                draft.kept[name] = Shown(value, text)
                draft.cleaned.add(name)
    for q in draft.questions:
        q.kept.clear()
        for name in (*ONE_LINE_QUESTION_FIELDS, "description"):
            value = q.data.get(name)
            if isinstance(value, str):
                safe = editable(value, multiline=name == "description")
                if safe.cleaned:
                    q.data[name] = safe.text
                    q.kept[name] = Shown(value, safe.text)
                    draft.cleaned.add(f"{q.key}.{name}")
        choices = q.data.get("choices")
        if isinstance(choices, list):
            cleaned = [editable(c) if isinstance(c, str) else None for c in choices]
            if any(c is not None and c.cleaned for c in cleaned):
                shown = [c.text if c is not None else original for c, original in zip(cleaned, choices, strict=True)]
                q.data["choices"] = shown
                q.kept["choices"] = Shown(list(choices), list(shown))
                draft.cleaned.add(f"{q.key}.choices")


def _clean_json_text(text: str) -> str:
    """JSON text with every string in it (keys too) cleaned, serialised again as the draft writes it.

    Cleaned as values, not as text: in the text a control character is already escaped (``\\u001b``),
    so an escape sequence would survive, and an 8-bit OSC (U+009D) would take the rest of the text
    with it. Text that is not JSON (the operator's, half typed) is cleaned as text.
    """
    try:
        value = json.loads(text)
    except ValueError:
        return editable(text, multiline=True).text
    cleaned = _clean_value(value)
    return text if cleaned == value else json.dumps(cleaned, indent=2, ensure_ascii=False)


def _clean_value(value: Any) -> Any:
    if isinstance(value, str):
        return editable(value, multiline=True).text
    if isinstance(value, dict):
        return {_clean_value(k): _clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_value(v) for v in value]
    return value
