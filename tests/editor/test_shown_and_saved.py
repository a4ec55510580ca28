"""Cleaning for display never changes what is saved: for any string, what the editor shows and saves untouched
round-trips byte for byte, and what it shows holds no control character.

The draft is the editor's own (``SurveyDraft`` with ``clean_survey_draft``, as the editor screen opens it); the
strings are any text, control characters, escape sequences and bidi overrides included.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models.surveys import Survey
from tui.state.survey_draft import SurveyDraft
from tui.text.clean import editable
from tui.widgets.cleaned_note import clean_survey_draft

SHOWN_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Text with the pieces of escape sequences in it far more often than plain st.text() draws them.
PIECES = st.sampled_from(["\x1b", "\x1b]", "\x1b[", "\x1bP", "\x9b", "\x9d", "\x9c", "\x07", "\x1b\\", "0;", "52;c;",
                          "\u202e", "\u2067", "\x00", "\r\n", "\n", "\t", "é", " ", "a", "Z", "#", ";", "m"])
TEXTS = st.one_of(st.text(), st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=12).map("".join))


def _survey(text: str) -> Survey:
    return Survey.model_validate({
        "id": "s1", "name": text, "description": text, "type": "popover",
        "appearance": {"placeholder": text}, "conditions": {"selector": text},
        "questions": [
            {"id": "q-a", "type": "open", "question": text, "description": text, "buttonText": text},
            {"id": "q-b", "type": "link", "question": "Read", "link": text},
            {"id": "q-c", "type": "single_choice", "question": "Pick", "choices": [text, "plain"]},
            {"id": "q-d", "type": "open", "question": "Edit me"},
        ]})


def _opened(survey: Survey) -> SurveyDraft:
    draft = SurveyDraft(survey)
    clean_survey_draft(draft)
    return draft


def _shown_strings(draft: SurveyDraft) -> list[str]:
    values: list[Any] = [*draft.form.values()]
    for q in draft.questions:
        values.extend(q.data.get(name) for name in ("question", "description", "buttonText", "link"))
        values.extend(q.choices)
    return [v for v in values if isinstance(v, str)]


@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_any_text_untouched_round_trips_and_is_shown_without_control_characters(text: str) -> None:
    survey = _survey(text)
    draft = _opened(survey)
    shown = _shown_strings(draft)
    assert [s for s in shown if SHOWN_FORBIDDEN.search(s.replace("\n", "").replace("\t", ""))] == []

    # Untouched: nothing to send, and the payload is the server's text exactly.
    assert draft.changes() == {}
    payload = draft.payload()
    assert payload["name"] == text and payload["description"] == text
    assert payload["appearance"]["placeholder"] == text and payload["conditions"]["selector"] == text
    first, link, choice, _ = payload["questions"]
    assert (first["question"], first["description"], first["buttonText"]) == (text, text, text)
    assert link["link"] == text and choice["choices"] == [text, "plain"]

    # A stored draft, restored into a new editor, is as untouched.
    again = _opened(survey)
    again.restore(draft.to_json(datetime(2026, 1, 1, tzinfo=UTC)))
    clean_survey_draft(again)
    assert again.changes() == {}

    # Another question edited: the questions go out whole, the untouched ones byte for byte.
    assert draft.questions[3].set("question", "Edited")
    sent = draft.changes()
    assert set(sent) == {"questions"}
    assert sent["questions"][:3] == payload["questions"][:3]
    assert sent["questions"][3]["question"] == "Edited"

    # An edited field saves what it showed, the edit included.
    draft.form["name"] = editable(text).text + "!"
    assert draft.changes()["name"] == editable(text).text + "!"


def test_a_stored_draft_holds_the_server_text_in_ascii(tmp_path: Path) -> None:
    """The draft file keeps the untouched server text as it is, written as JSON escapes: ``cat`` of a draft never
    replays a control sequence, and the draft read back is the same."""
    from tui.state.io.draft_files import DraftStore

    hostile = "Pulse \x1b]52;c;aGk=\x07 \x9b5m \u202eevil é"
    draft = _opened(_survey(hostile))
    store = DraftStore(tmp_path)
    path = store.write(draft.draft_id, draft.to_json(datetime(2026, 1, 1, tzinfo=UTC)))
    assert path.read_bytes().isascii()
    stored = store.read(draft.draft_id)
    assert stored is not None and stored.data["form"]["name"] == hostile
