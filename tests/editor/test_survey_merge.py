"""The three-way compare of a save (tui.state.survey_merge) and the draft carried onto the server's survey."""

from __future__ import annotations

from typing import Any

from tui.api.models.surveys import Survey
from tui.state.survey_draft import SurveyDraft
from tui.state.survey_merge import Conflict, compare

BASE: dict[str, Any] = {
    "id": "0195f000-0000-7000-8000-0000000000aa", "name": "Pulse", "description": "Monthly", "type": "popover",
    "appearance": {"position": "right", "fontFamily": "serif"},
    "questions": [{"id": "q-a", "type": "open", "question": "Why?"}],
}


def survey(**changes: Any) -> Survey:
    return Survey.model_validate({**BASE, **changes})


def test_an_edited_field_the_server_changed_too_is_a_conflict() -> None:
    compared = compare({"name": "A", "description": "d", "type": "popover"},
                       {"name": "B", "description": "d", "type": "popover"},
                       {"name": "C", "description": "e", "type": "popover"})
    assert compared.edited == ("name",)
    assert compared.conflicts == (Conflict("name", "A", "B", "C"),)
    assert compared.theirs_changed == ("description",)
    assert compared.kept() == ("name",) and compared.kept({"name"}) == ()


def test_the_same_change_on_both_sides_and_missing_fields() -> None:
    compared = compare({"name": "A"}, {"name": "B", "end_date": "x"}, {"name": "B"})
    assert compared.edited == ("name", "end_date")
    assert compared.conflicts == ()  # the server already holds the operator's name; end_date it never had
    compared = compare({"name": "A", "end_date": "x"}, {"name": "A"}, {"name": "A", "end_date": "y"})
    assert compared.conflicts == (Conflict("end_date", "x", None, "y"),)  # removed here, changed there


def test_a_field_the_operator_did_not_edit_takes_the_servers_value() -> None:
    """Renamed on the server while the operator edited the description: the save sends the description only, and
    the draft shows the server's name."""
    draft = SurveyDraft(survey())
    draft.form["description"] = "Every month"
    server = survey(name="Pulse (renamed)", appearance={"position": "left", "fontFamily": "serif"})
    theirs = SurveyDraft(server)
    compared = compare(draft.baseline, draft.payload(), theirs.baseline)
    assert compared.edited == ("description",) and compared.conflicts == ()
    assert set(compared.theirs_changed) == {"name", "appearance"}
    merged = draft.carried_onto(theirs, compared.kept())
    assert merged.changes() == {"description": "Every month"}
    assert merged.form["name"] == "Pulse (renamed)" and merged.form["appearance.position"] == "left"
    assert merged.draft_id == draft.draft_id and merged.survey is server


def test_conflicts_keep_mine_or_take_theirs() -> None:
    draft = SurveyDraft(survey())
    draft.form["name"] = "Mine"
    draft.form["appearance.position"] = "center"
    theirs = survey(name="Theirs")
    compared = compare(draft.baseline, draft.payload(), SurveyDraft(theirs).baseline)
    assert [c.field for c in compared.conflicts] == ["name"]
    kept = draft.carried_onto(SurveyDraft(theirs), compared.kept())
    assert kept.changes() == {"name": "Mine", "appearance": {"position": "center", "fontFamily": "serif"}}
    taken = draft.carried_onto(SurveyDraft(theirs), compared.kept(compared.conflicted))
    assert taken.changes() == {"appearance": {"position": "center", "fontFamily": "serif"}}
    assert taken.form["name"] == "Theirs"


def test_questions_carry_whole_with_their_keys() -> None:
    """The operator's questions (one added) go onto the server's survey; the server's rename stays."""
    draft = SurveyDraft(survey())
    added = draft.add_question("open")
    added.set("question", "And?")
    theirs = SurveyDraft(survey(name="Renamed", questions=[{"id": "q-a", "type": "open", "question": "Why?"}]))
    compared = compare(draft.baseline, draft.payload(), theirs.baseline)
    merged = draft.carried_onto(theirs, compared.kept())
    assert [q.key for q in merged.questions] == [q.key for q in draft.questions]
    assert merged.changes() == {"questions": [{"id": "q-a", "type": "open", "question": "Why?"},
                                              {"type": "open", "question": "And?"}]}
    assert merged.add_question("open").key not in {q.key for q in draft.questions}
