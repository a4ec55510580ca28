"""Strict checks before anything is sent: each rule, with the field path it names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tui.api.errors import WriteValidationError
from tui.api.writes import (
    MAX_ITERATION_COUNT,
    check_backfill,
    check_export_write,
    check_run_counts,
    check_survey_write,
    iso,
    survey_notes,
)

OPEN = {"type": "open", "question": "Why?"}


def _problems(payload: dict[str, Any], *, creating: bool = False) -> dict[str, str]:
    with pytest.raises(WriteValidationError) as caught:
        check_survey_write(payload, creating=creating)
    assert str(caught.value).startswith(caught.value.first_path)  # one line naming the field
    return caught.value.problems


@pytest.mark.parametrize("field", ["responses_limit", "iteration_count", "iteration_frequency_days",
                                   "current_iteration"])
def test_int32_limits(field: str) -> None:
    largest = MAX_ITERATION_COUNT if field == "iteration_count" else 2**31 - 1  # the model caps iterations lower
    assert check_survey_write({field: largest}) == {field: largest}
    if field == "iteration_count":
        assert _problems({field: largest + 1}) == {field: f"must be at most {MAX_ITERATION_COUNT}"}
    assert field in _problems({field: 2**31})
    assert field in _problems({field: -1})
    assert field in _problems({field: True})


def test_run_counters_are_int32() -> None:
    check_run_counts(-(2**31), 2**31 - 1)
    with pytest.raises(WriteValidationError) as caught:
        check_run_counts(0, 2**31)
    assert caught.value.first_path == "records_total_count"


@pytest.mark.parametrize("kind", ["rating", "single_choice"])
def test_response_based_allowed_on_rating_and_single_choice(kind: str) -> None:
    question: dict[str, Any] = {"type": kind, "question": "Q", "branching": {"type": "response_based",
                                                                              "responseValues": {"1": 1, "2": "end"}}}
    if kind == "rating":
        question |= {"display": "number", "scale": 5}
    else:
        question |= {"choices": ["a", "b"]}
    check_survey_write({"questions": [question, OPEN]})


@pytest.mark.parametrize("kind", ["open", "link", "multiple_choice"])
def test_response_based_refused_elsewhere(kind: str) -> None:
    question: dict[str, Any] = {"type": kind, "question": "Q", "link": "https://example.com", "choices": ["a"],
                                "branching": {"type": "response_based", "responseValues": {"a": 1}}}
    assert "questions[1].branching.type" in _problems({"questions": [OPEN, question]})


@pytest.mark.parametrize(("index", "ok"), [(0, True), (2, True), (3, False), (-1, False), ("2", False)])
def test_specific_question_index_in_range(index: Any, ok: bool) -> None:
    questions = [{**OPEN, "branching": {"type": "specific_question", "index": index}}, OPEN, OPEN]
    if index == 0:
        assert _problems({"questions": questions})["questions[0].branching.index"]  # not to itself
    elif ok:
        check_survey_write({"questions": questions})
    else:
        assert "questions[0].branching.index" in _problems({"questions": questions})


@pytest.mark.parametrize(("link", "ok"), [("https://example.com/x", True), ("http://example.com", True),
                                          ("mailto:ops@example.com", True), ("javascript:alert(1)", False),
                                          ("https://", False), ("example.com", False), (None, False)])
def test_link_is_an_http_url(link: Any, ok: bool) -> None:
    payload = {"questions": [{"type": "link", "question": "Read", "link": link}]}
    if ok:
        check_survey_write(payload)
    else:
        assert "questions[0].link" in _problems(payload)


@pytest.mark.parametrize(("display", "ok"), [("number", True), ("emoji", True), ("stars", False), (None, False)])
def test_rating_display_is_a_note_never_a_refusal(display: Any, ok: bool) -> None:
    """The real serializer's validate_questions checks no rating display: stored as sent, so watchdeck only warns."""
    payload = {"questions": [OPEN, {"type": "rating", "question": "Rate", "display": display, "scale": 5}]}
    check_survey_write(payload)
    assert ("questions[1].display" in survey_notes(payload)) is not ok


@pytest.mark.parametrize(("display", "scale", "note"), [
    ("number", 4, "the SDK draws scales 3, 5, 7, 10 (the service stores this one as it is)"),
    ("emoji", 7, "the SDK draws scales 3, 5 (the service stores this one as it is)"),
    ("number", 10, None)])
def test_rating_scale_is_a_note_never_a_refusal(display: str, scale: int, note: str | None) -> None:
    """A rating ``scale: 4`` is stored by the real service (validate_questions checks no scale) and by the sandbox."""
    payload = {"questions": [{"type": "rating", "question": "Rate", "display": display, "scale": scale}]}
    check_survey_write(payload)
    assert survey_notes(payload).get("questions[0].scale") == note


@pytest.mark.parametrize(("choices", "path", "refused"), [([], "questions[0].choices", False),
                                                          (None, "questions[0].choices", False),
                                                          (["a", " "], "questions[0].choices[1]", True)])
def test_choices_non_empty(choices: Any, path: str, refused: bool) -> None:
    """An empty choice is refused as the real service refuses it ("Question choices cannot be empty"); no choices
    at all is stored by it (its check runs only ``if choices``), so that is a note."""
    payload = {"questions": [{"type": "multiple_choice", "question": "Pick", "choices": choices}]}
    if refused:
        assert path in _problems(payload)
    else:
        check_survey_write(payload)
    assert (path in survey_notes(payload)) is not refused


def test_unknown_nested_keys_are_notes_with_the_closest_known_key() -> None:
    payload = {"appearance": {"fontFamily2": "x", "position": "right"},
               "conditions": {"urlMatchTyp": "exact", "url": ""},
               "questions": [{"type": "open", "question": "Q", "labelz": 1, "zzqqx": 2}]}
    check_survey_write(payload)
    notes = survey_notes(payload)
    assert notes["conditions.urlMatchTyp"] == "not a key the service knows; did you mean urlMatchType?"
    assert notes["appearance.fontFamily2"] == "not a key the service knows; did you mean fontFamily?"
    assert notes["questions[0].labelz"].startswith("not a key the service knows")
    assert notes["questions[0].zzqqx"] == "not a key the service knows (stored as it is; the SDK ignores it)"
    assert not {"appearance.position", "conditions.url"} & set(notes)


def test_create_needs_a_name_and_patch_keeps_only_given_keys() -> None:
    assert "name" in _problems({"questions": []}, creating=True)
    assert check_survey_write({"archived": True}) == {"archived": True}


def test_export_write_rules() -> None:
    assert check_export_write({"paused": True}) == {"paused": True}
    for payload, path in [({"model": "sessions"}, "model"), ({"interval": "fortnight"}, "interval"),
                          ({"start_at": "2026-02-01T00:00:00Z", "end_at": "2026-01-01T00:00:00Z"}, "end_at"),
                          ({"destination": {"type": "S3", "config": "x"}}, "destination.config")]:
        with pytest.raises(WriteValidationError) as caught:
            check_export_write(payload)
        assert caught.value.first_path == path


def test_backfill_window() -> None:
    now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    check_backfill(now - timedelta(hours=2), now - timedelta(hours=1), now=now)
    with pytest.raises(WriteValidationError):
        check_backfill(now - timedelta(hours=1), now - timedelta(hours=2), now=now)
    with pytest.raises(WriteValidationError):
        check_backfill(now - timedelta(hours=1), now + timedelta(hours=1), now=now)


def test_iso_sends_utc_and_reads_naive_as_utc(away_from_utc: str) -> None:
    assert iso(datetime(2026, 1, 1, 6, 0)) == "2026-01-01T06:00:00+00:00"
    assert iso(datetime(2026, 1, 1, 6, 0, tzinfo=UTC)) == "2026-01-01T06:00:00+00:00"
