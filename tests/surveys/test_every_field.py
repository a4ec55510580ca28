"""Every field of the real survey model passes through `surveys get/apply`, `E` and the sandbox; values the SDK
does not understand are refused before anything is sent.

Fields: PostHog/posthog ``posthog/api/survey.py`` ``SurveySerializerCreateUpdateOnly.Meta.fields`` (schedule,
response_sampling_*, enable_partial_responses) and the newest serializer (enable_iframe_embedding,
linked_insight_id, base_language, translations). ``validate_schedule`` refuses a schedule other than once,
recurring or always; ``response_sampling_interval_type`` is a model choice of day, week or month
(``posthog/models/surveys/survey.py``). ``validate_appearance``/``validate_conditions`` do not check a URL match
type, a position or a colour: the SDK (posthog-js ``posthog-surveys-types.ts`` ``SurveyPosition``,
``SurveyMatchType``) is what does not understand them, so watchdeck refuses them and the sandbox stores them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.surveys.conftest import sandbox_options, survey_writes
from tests.surveys.test_survey_files import watchdeck
from tui.api.errors import WriteValidationError
from tui.api.writes import (
    NEEDS_FREQUENCY,
    NEEDS_ITERATION_COUNT,
    SURVEY_POSITIONS,
    check_survey_write,
    survey_notes,
    valid_colour,
)
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox

NEW_FIELDS = ("schedule", "enable_partial_responses", "enable_iframe_embedding", "linked_insight_id",
              "base_language", "translations", "response_sampling_start_date", "response_sampling_interval_type",
              "response_sampling_interval", "response_sampling_limit", "response_sampling_daily_limits")


def _surveys(sandbox: Any) -> list[dict[str, Any]]:
    response = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/",
                         headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    return list(response.json()["results"])


def _raw(sandbox: Any, survey_id: str) -> dict[str, Any]:
    response = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{survey_id}/",
                         headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    return dict(response.json())


def test_get_carries_every_field_and_the_audience_of_the_targeting_flag(sandbox: Any, tmp_path: Path) -> None:
    targeted = next(s for s in _surveys(sandbox) if s.get("targeting_flag"))
    got = watchdeck(sandbox, "get", targeted["id"], tmp_path=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    for name in NEW_FIELDS:
        assert name in doc, name
    assert doc["schedule"] == targeted["schedule"]
    assert doc["targeting_flag_filters"] == targeted["targeting_flag"]["filters"]  # not null: the audience shows
    (tmp_path / "s.json").write_text(got.stdout)
    again = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "No changes" in again.stdout and survey_writes(sandbox) == []


def test_apply_sends_the_model_fields_and_the_sandbox_returns_them(sandbox: Any, tmp_path: Path) -> None:
    survey_id = _surveys(sandbox)[0]["id"]
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    partial = not doc["enable_partial_responses"]
    doc.update({"schedule": "recurring", "iteration_count": 4, "iteration_frequency_days": 30,
                "enable_partial_responses": partial, "response_sampling_interval_type": "month",
                "response_sampling_interval": 1, "response_sampling_limit": 200, "linked_insight_id": 12,
                "translations": {"fr": {"name": "Enquête"}}})
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    [write] = survey_writes(sandbox)
    assert write["method"] == "PATCH"
    assert write["body"] == {"schedule": "recurring", "iteration_count": 4, "iteration_frequency_days": 30,
                             "enable_partial_responses": partial, "response_sampling_interval_type": "month",
                             "response_sampling_interval": 1, "response_sampling_limit": 200,
                             "linked_insight_id": 12, "translations": {"fr": {"name": "Enquête"}}}
    stored = _raw(sandbox, survey_id)
    assert {k: stored[k] for k in write["body"]} == write["body"]


def test_apply_refuses_what_the_service_refuses_and_notes_what_only_the_sdk_cannot_use(
        sandbox: Any, tmp_path: Path) -> None:
    """A negative popup delay, an unknown schedule and an unknown file field are refused (the real service refuses
    the first two); a ``startswith`` match type, a ``middle`` position and a colour the SDK cannot draw are stored by
    the real service (validate_conditions checks only that it is an object), so they are notes, not refusals."""
    survey_id = _surveys(sandbox)[0]["id"]
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    doc["conditions"] = {**(doc.get("conditions") or {}), "url": "/pricing", "urlMatchType": "startswith"}
    doc["appearance"] = {**(doc.get("appearance") or {}), "position": "middle", "backgroundColor": "notacolor",
                         "surveyPopupDelaySeconds": -5}
    doc["schedule"] = "sometimes"
    doc["nmae"] = "typo"
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 1
    for path in ("appearance.surveyPopupDelaySeconds", "schedule", "nmae: unknown field"):
        assert path in done.stderr, path
    for path in ("conditions.urlMatchType", "appearance.position", "appearance.backgroundColor"):
        assert path not in done.stderr, path
    assert survey_writes(sandbox) == []
    del doc["nmae"]
    doc["schedule"] = "once"
    doc["appearance"]["surveyPopupDelaySeconds"] = 5
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", "--dry-run", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: conditions.urlMatchType: the SDK knows regex, not_regex, exact, is_not, icontains, not_icontains "
        "(the service stores this one as it is)",
        "note: appearance.position: the SDK knows " + ", ".join(SURVEY_POSITIONS)
        + " (the service stores this one as it is)",
        "note: appearance.backgroundColor: not a colour the SDK can draw (#rrggbb, rgb(...), hsl(...) or a CSS "
        "colour name)"]
    assert survey_writes(sandbox) == []


def test_the_sandbox_refuses_what_the_real_serializer_refuses_and_stores_the_rest(sandbox: Any) -> None:
    survey_id = _surveys(sandbox)[0]["id"]
    url = f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{survey_id}/"
    headers = {"Authorization": f"Bearer {sandbox.api_key}"}
    bad = httpx.patch(url, json={"response_sampling_interval_type": "fortnight"}, headers=headers, verify=False)
    assert bad.status_code == 400
    assert bad.json()["attr"] == "response_sampling_interval_type" and bad.json()["code"] == "invalid_choice"
    bad = httpx.patch(url, json={"schedule": "sometimes"}, headers=headers, verify=False)
    assert bad.status_code == 400 and bad.json()["detail"] == "Schedule must be one of: once, recurring, always"
    kept = httpx.patch(url, json={"conditions": {"urlMatchType": "startswith"}, "appearance": {"position": "middle"},
                                  "enable_iframe_embedding": True, "base_language": "de"}, headers=headers,
                       verify=False)
    assert kept.status_code == 200
    stored = _raw(sandbox, survey_id)
    assert stored["conditions"]["urlMatchType"] == "startswith" and stored["appearance"]["position"] == "middle"
    assert stored["enable_iframe_embedding"] is True and stored["base_language"] == "de"


def test_colours_and_positions() -> None:
    for good in ("#fff", "#eeeded", "#11223344", "rgb(1, 2, 3)", "rgba(0,0,0,.5)", "hsl(120 50% 50%)", "white",
                 "RebeccaPurple", "transparent", "var(--brand)"):
        assert valid_colour(good), good
    for bad in ("notacolor", "#ggg", "#12345", "", "rgb(1,2", 12):
        assert not valid_colour(bad), bad
    try:
        check_survey_write({"appearance": {"position": "next_to_trigger", "ratingButtonActiveColor": "black",
                                           "surveyPopupDelaySeconds": 2.5},
                            "conditions": {"urlMatchType": "not_icontains", "seenSurveyWaitPeriodInDays": 0},
                            "schedule": "always", "response_sampling_interval_type": "day"})
    except WriteValidationError as err:  # pragma: no cover - the assertion below says what was refused
        raise AssertionError(err.problems) from err


def test_apply_sends_a_recurring_schedule_without_count_or_frequency_with_notes(sandbox: Any, tmp_path: Path) -> None:
    """``validate_schedule`` and the ``iteration_count`` field (PostHog/posthog
    ``products/surveys/backend/api/survey.py``) accept ``recurring`` with no count or frequency; such a survey runs
    once, which is watchdeck's own check: both fields noted before sending, and the file applied (exit 0)."""
    survey_id = next(s["id"] for s in _surveys(sandbox) if s["schedule"] == "once")
    doc = json.loads(watchdeck(sandbox, "get", survey_id, tmp_path=tmp_path).stdout)
    doc.update({"schedule": "recurring", "iteration_count": None, "iteration_frequency_days": 0})
    (tmp_path / "s.json").write_text(json.dumps(doc))
    done = watchdeck(sandbox, "apply", "s.json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"note: iteration_count: {NEEDS_ITERATION_COUNT}" in done.stdout
    assert f"note: iteration_frequency_days: {NEEDS_FREQUENCY}" in done.stdout
    assert len(survey_writes(sandbox)) == 1
    assert _raw(sandbox, survey_id)["schedule"] == "recurring"


@pytest.mark.parametrize("generation", ["newest", "older"])
def test_the_sandbox_stores_a_recurring_schedule_without_count_as_the_real_service_does(
        clock: FrozenClock, generation: str) -> None:
    """Neither generation of the real serializer refuses ``schedule: recurring`` without ``iteration_count`` or
    ``iteration_frequency_days`` (``validate_schedule`` checks the value only; the count is ``min_value=0``,
    nullable), so the sandbox stores it; the refusal is watchdeck's, before sending."""
    with start_sandbox(sandbox_options(clock, generation=generation)) as handle:
        survey_id = _surveys(handle)[0]["id"]
        url = f"{handle.base_url}/api/projects/{handle.project_id}/surveys/{survey_id}/"
        body = {"schedule": "recurring", "iteration_count": None, "iteration_frequency_days": None}
        kept = httpx.patch(url, json=body, headers={"Authorization": f"Bearer {handle.api_key}"}, verify=False)
        assert kept.status_code == 200, kept.text
        assert {k: _raw(handle, survey_id)[k] for k in body} == body
        check_survey_write(body, existing=_raw(handle, survey_id))
        assert survey_notes(body, existing=_raw(handle, survey_id)) == {
            "iteration_count": NEEDS_ITERATION_COUNT, "iteration_frequency_days": NEEDS_FREQUENCY}
