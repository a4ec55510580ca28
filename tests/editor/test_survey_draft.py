"""Unit tests of the editor's model (tui/state/survey_draft.py): pure, no app, no server."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tui.api.models.surveys import Survey
from tui.screens.survey_preview import next_step
from tui.state.io.draft_files import DraftStore
from tui.state.survey_draft import END, BranchDraft, SurveyDraft, question_path, rating_values, top_level

RAW: dict[str, Any] = {
    "id": "11111111-1111-1111-1111-111111111111",
    "name": "Feedback",
    "type": "popover",
    "start_date": "2026-01-01T00:00:00Z",
    "future_field": {"nested": [1, 2]},
    "appearance": {"backgroundColor": "#fff", "newAppearanceKey": True},
    "conditions": {"url": "x", "unknownCondition": 3},
    "questions": [
        {"id": "qa", "type": "open", "question": "Why?", "translations": {"fr": {"question": "Pourquoi ?"}}},
        {"id": "qb", "type": "rating", "question": "Rate us", "display": "number", "scale": 5,
         "branching": {"type": "response_based", "responseValues": {"1": 3, "5": "end"}, "extraBranchKey": 1}},
        {"id": "qc", "type": "single_choice", "question": "Pick", "choices": ["a", "b", "c"],
         "branching": {"type": "specific_question", "index": 0}},
        {"id": "qd", "type": "link", "question": "Visit", "link": "https://example.com/",
         "validation": [{"type": "min_length", "value": 3, "x": 1}]},
    ],
}


def load(raw: dict[str, Any] | None = None) -> SurveyDraft:
    return SurveyDraft(Survey.model_validate(copy.deepcopy(raw or RAW)))


def test_untouched_survey_has_no_changes_and_round_trips_questions() -> None:
    draft = load()
    assert draft.changes() == {}
    assert not draft.dirty
    assert draft.questions_payload() == RAW["questions"]
    assert draft.problems() == {}


def test_editing_one_question_sends_only_questions_and_keeps_unknown_keys() -> None:
    draft = load()
    draft.questions[0].set("question", "Why, really?")
    changes = draft.changes()
    assert set(changes) == {"questions"}
    assert changes["questions"][0] == {**RAW["questions"][0], "question": "Why, really?"}
    assert changes["questions"][1:] == RAW["questions"][1:]


def test_showing_a_default_never_adds_the_key() -> None:
    draft = load()
    q = draft.questions[0]
    assert not q.set("descriptionContentType", "text")
    assert not q.set("optional", False)
    q.set("optional", True)
    q.set("optional", False)
    assert "optional" not in q.data
    assert draft.changes() == {}


def test_moving_questions_keeps_branch_targets() -> None:
    draft = load()
    keys = [q.key for q in draft.questions]
    draft.move_question(keys[0], 1)  # "Why?" is now second
    payload = draft.questions_payload()
    assert [q["id"] for q in payload] == ["qb", "qa", "qc", "qd"]
    assert payload[2]["branching"] == {"type": "specific_question", "index": 1}  # still "Why?"
    assert payload[0]["branching"]["responseValues"] == {"1": 3, "5": "end"}  # "Visit" did not move
    assert payload[0]["branching"]["extraBranchKey"] == 1
    draft.move_question(keys[3], -1)  # "Visit" now third
    assert draft.questions_payload()[0]["branching"]["responseValues"] == {"1": 2, "5": "end"}


def test_deleting_a_target_marks_the_branch_invalid() -> None:
    draft = load()
    draft.delete_question(draft.questions[0].key)
    problems = draft.problems()
    assert "deleted question 'Why?'" in problems["questions[1].branching.index"]
    assert set(draft.blocking_problems()) == {"questions[1].branching.index"}


def test_a_question_cannot_branch_to_itself_and_server_out_of_range_index_is_flagged() -> None:
    raw = copy.deepcopy(RAW)
    raw["questions"][2]["branching"] = {"type": "specific_question", "index": 9}
    draft = load(raw)
    assert "pointed at no question (9)" in draft.problems()["questions[2].branching.index"]
    # untouched, the broken value goes back as it came and blocks nothing that is not sent
    assert draft.questions_payload()[2]["branching"] == {"type": "specific_question", "index": 9}
    assert draft.blocking_problems() == {}
    draft.questions[2].branch.target = draft.questions[2].key  # type: ignore[union-attr]
    assert draft.problems()["questions[2].branching.index"] == "a question cannot branch to itself"


def test_a_branching_loop_is_refused_before_saving() -> None:
    """The real service's own editor refuses a survey whose branching can go round forever ("endless cycle")."""
    raw = copy.deepcopy(RAW)
    draft = load(raw)
    assert not any("endless cycle" in m for m in draft.problems().values())
    last = draft.questions[-1]
    last.branch = BranchDraft(type="specific_question", target=draft.questions[0].key)
    problems = draft.problems()
    looping = [p for p, m in problems.items() if "endless cycle" in m]
    assert looping == [f"questions[{len(draft.questions) - 1}].branching.index"]
    assert looping[0] in draft.blocking_problems()
    last.branch = BranchDraft(type="end")
    assert not any("endless cycle" in m for m in draft.problems().values())


def test_duplicate_drops_the_id_and_keeps_the_rest() -> None:
    draft = load()
    copy_ = draft.duplicate_question(draft.questions[0].key)
    payload = draft.questions_payload()
    assert "id" not in payload[1]
    assert payload[1]["translations"] == RAW["questions"][0]["translations"]
    assert copy_.key != draft.questions[0].key
    # branches after the insertion point still follow their questions
    assert payload[3]["branching"] == {"type": "specific_question", "index": 0}


def test_choice_moves_carry_response_rows() -> None:
    draft = load()
    q = draft.questions[2]
    draft.set_branch_type(q.key, "response_based")
    q.branch.responses = {"0": END, "2": draft.questions[3].key}  # type: ignore[union-attr]
    draft.move_choice(q.key, 2, -1)  # "c" becomes choice 1
    assert q.choices == ["a", "c", "b"]
    assert q.branch.responses == {"0": END, "1": draft.questions[3].key}  # type: ignore[union-attr]
    draft.remove_choice(q.key, 0)
    assert q.branch.responses == {"0": draft.questions[3].key}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("field", "value", "path", "fragment"),
    [
        ("responses_limit", "2147483648", "responses_limit", "at most 2147483647"),
        ("responses_limit", "12x", "responses_limit", "whole number"),
        ("iteration_count", "-1", "iteration_count", "between 0"),
        ("appearance", '{"a": 1,\n  "b": }', "appearance", "invalid JSON at 2:8"),
        ("appearance", "[1, 2]", "appearance", "JSON object"),
        ("start_date", "tomorrow", "start_date", "ISO 8601"),
        ("name", "  ", "name", "name is required"),
    ],
)
def test_survey_field_problems(field: str, value: str, path: str, fragment: str) -> None:
    draft = load()
    draft.form[field] = value
    problems = draft.problems()
    assert fragment in problems[path]
    assert path in draft.blocking_problems()


def test_question_problems_use_payload_paths() -> None:
    draft = SurveyDraft(None)
    draft.form["name"] = "New"
    link = draft.add_question("link")
    choice = draft.add_question("single_choice")
    link.set("question", "Go")
    link.set("link", "http://insecure.example.com")
    choice.set("question", "Pick")
    choice.set("choices", ["a", ""])
    problems = draft.problems()
    assert "https" in problems["questions[0].link"]
    assert problems["questions[1].choices[1]"] == "a choice cannot be empty"
    assert "questions[0].question" not in problems


def test_creating_sends_only_filled_fields() -> None:
    draft = SurveyDraft(None)
    draft.form.update(name="Fresh", responses_limit="10", appearance='{"a": 1}')
    q = draft.add_question("open")
    q.set("question", "Hi")
    assert draft.changes() == {"name": "Fresh", "type": "popover", "responses_limit": 10, "appearance": {"a": 1},
                               "questions": [{"type": "open", "question": "Hi"}]}


def test_dates_are_compared_as_instants() -> None:
    draft = load()
    draft.form["start_date"] = "2026-01-01T01:00:00+01:00"  # the same instant, written differently
    assert draft.changes() == {}
    draft.form["start_date"] = ""
    assert draft.changes() == {"start_date": None}


def test_rating_values_and_ranges() -> None:
    assert rating_values(10) == list(range(0, 11))
    assert rating_values(5) == [1, 2, 3, 4, 5]
    draft = SurveyDraft(None)
    q = draft.add_question("rating")
    draft.set_branch_type(q.key, "response_based")
    assert [k for k, _ in q.response_keys()] == ["1", "2", "3", "4", "5"]
    q.branch.mode = "ranges"  # type: ignore[union-attr]
    assert [k for k, _ in q.response_keys()] == ["negative", "neutral", "positive"]


def test_paths() -> None:
    assert top_level("questions[2].branching.index") == "questions"
    assert top_level("destination__config") == "destination"
    assert question_path("questions[2].branching.index") == (2, "branching.index")
    assert question_path("questions[0]") == (0, "")
    assert question_path("name") is None


def test_draft_round_trips_through_the_store(tmp_path: Path) -> None:
    draft = load()
    draft.form["name"] = "Renamed"
    draft.delete_question(draft.questions[0].key)
    draft.add_question("rating")
    store = DraftStore(tmp_path / "drafts")
    saved_at = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    store.write(draft.draft_id, draft.to_json(saved_at))
    stored = store.read(RAW["id"])
    assert stored is not None and stored.saved_at == saved_at
    again = load()
    again.restore(stored.data)
    assert again.changes() == draft.changes()
    assert again.add_question("open").key not in {q.key for q in draft.questions}
    store.remove(RAW["id"])
    assert store.read(RAW["id"]) is None


def test_latest_new_draft(tmp_path: Path) -> None:
    store = DraftStore(tmp_path)
    for stamp, draft_id in (("2026-01-01T00:00:00+00:00", "new-a"), ("2026-02-01T00:00:00+00:00", "new-b")):
        store.write(draft_id, {"version": 1, "draft_id": draft_id, "saved_at": stamp, "form": {}, "questions": []})
    (tmp_path / "new-c.json").write_text("{not json")
    latest = store.latest_new()
    assert latest is not None and latest.data["draft_id"] == "new-b"


def test_preview_follows_every_rule() -> None:
    questions = load().questions_payload()
    assert next_step(questions, 0) == (1, "next question")
    assert next_step(questions, 1, 1)[0] == 3
    assert next_step(questions, 1, 5)[0] == END
    assert next_step(questions, 1, 3)[0] == 2  # no row for 3: next question
    assert next_step(questions, 2, 1)[0] == 0  # specific question
    assert next_step(questions, 3) == (END, "next question")
    nps: list[dict[str, Any]] = [{"type": "rating", "scale": 10, "question": "NPS",
            "branching": {"type": "response_based", "responseValues": {"detractors": "end", "promoters": 1}}},
           {"type": "open", "question": "Why?", "branching": {"type": "end"}}]
    assert next_step(nps, 0, 6)[0] == END
    assert next_step(nps, 0, 10)[0] == 1
    assert next_step(nps, 0, 8)[0] == 1  # passives: no branch, next question
    assert next_step(nps, 1)[0] == END


def test_draft_json_is_plain_json() -> None:
    draft = load()
    text = json.dumps(draft.to_json(datetime(2026, 1, 1, tzinfo=UTC)))
    assert json.loads(text)["survey_id"] == RAW["id"]


def test_the_real_services_rules_show_in_its_words_at_their_fields() -> None:
    """tui/api/survey_rules.py, from products/surveys/backend/api/survey.py: an external survey's page conditions,
    a minimum length above the maximum, a translation keyed by a language name; each at its own field."""
    draft = load({**RAW, "type": "external_survey", "conditions": {"url": "https://acme.io", "urlMatchType": "exact"},
                  "questions": [{"id": "qa", "type": "open", "question": "Email?",
                                 "validation": [{"type": "min_length", "value": 9}, {"type": "max_length", "value": 3}]}
                                ]})
    draft.questions[0].set("translations", {"english": {"question": "Email?"}})  # a key the survey did not have
    problems = draft.problems()
    assert problems["conditions"] == ("The following condition fields are not allowed for external surveys: url, "
                                      "urlMatchType")
    assert problems["questions[0].validation"] == "Minimum length cannot be greater than maximum length"
    assert problems["questions[0].translations"].startswith(
        "Question 1 translation: 'english' is not a valid language code.")


def test_translation_keys_the_survey_already_has_are_kept() -> None:
    """_validate_question_translations keeps keys the stored survey already has (saved before the rule); a new
    bad key is refused, and so is the survey's base language."""
    legacy = {**RAW, "questions": [{"id": "qa", "type": "open", "question": "Why?",
                                    "translations": {"default": {"question": "Pourquoi ?"}}}]}
    draft = load(legacy)
    assert draft.problems() == {}
    draft.questions[0].set("translations", {"default": {"question": "Pourquoi ?"}, "EN": {"question": "Why?"}})
    assert "matches the survey's base language ('en')" in draft.problems()["questions[0].translations"]


def test_a_variant_condition_goes_with_its_flag() -> None:
    """validate(): the real service judges linkedFlagVariant against the linked_flag_id of the same request, so a
    PATCH of the conditions carries the survey's flag too; without a flag it is refused before sending."""
    draft = load({**RAW, "linked_flag_id": 12, "conditions": {"url": "x"}})
    draft.form["conditions"] = json.dumps({"linkedFlagVariant": "any"})
    draft.form["conditions.url"] = ""  # the URL has a field of its own
    assert draft.changes() == {"conditions": {"linkedFlagVariant": "any"}, "linked_flag_id": 12}
    assert draft.blocking_problems() == {}
    flagless = load()
    flagless.form["conditions"] = json.dumps({"linkedFlagVariant": "any"})
    assert flagless.blocking_problems() == {
        "conditions": "linkedFlagVariant can only be used when a linked_flag_id is specified"}


@pytest.mark.parametrize("survey_id", ["../x", "..", "a/../../b", "", ".hidden", "x" * 300, "a\x00b", "c:\\x"])
def test_a_draft_of_any_survey_id_stays_in_the_drafts_folder_in_a_file_of_its_own(tmp_path: Path,
                                                                                  survey_id: str) -> None:
    """Survey ids are server text: a hostile one neither leaves the folder nor overwrites another draft."""
    drafts = tmp_path / "drafts"
    store = DraftStore(drafts)
    path = store.write(survey_id, {"version": 1})
    assert path.parent == drafts and path.resolve().parent == drafts.resolve()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [path.name]
    assert path != store.path_for("x") and path != store.path_for("b")
    assert store.path_for("0191f2c0-7d4e-7c3a-9e61-3c5a0b7f2d11").name == "0191f2c0-7d4e-7c3a-9e61-3c5a0b7f2d11.json"
