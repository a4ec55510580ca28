"""Survey rules of the real service (PostHog), on both generations the sandbox answers as.

Each case names the real service's source (products/surveys/backend/api/survey.py, the newest; its tests in
products/surveys/backend/api/test/test_survey.py). The rules themselves live in tui/api/survey_rules.py, which the
editor and ``surveys apply`` check too. Rules the newest generation added (question validation rules, translation
language codes, the search length, launch/stop) are absent from the older one: there the same request is served.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.sandbox.conftest import make_options
from tui.sandbox.runner import start_sandbox

S = "/api/projects/1/surveys/"


@pytest.fixture(scope="module", params=["newest", "older"])
def gen(request: pytest.FixtureRequest) -> Iterator[tuple[str, httpx.Client]]:
    """(generation, a client of a sandbox answering as it); one sandbox per generation for the module."""
    with start_sandbox(make_options(generation=request.param)) as handle, httpx.Client(
            base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.api_key}"}, timeout=10,
            verify=False) as c:
        yield request.param, c


def _survey(c: httpx.Client, **fields: Any) -> httpx.Response:
    return c.post(S, json={"name": f"Rules {uuid.uuid4().hex[:10]}", "type": "popover", **fields})


def _error(r: httpx.Response, status: int = 400) -> tuple[str, str | None]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"type", "code", "detail", "attr"} and body["type"] == "validation_error"
    return body["detail"], body["attr"]


def _linked_flag_id(c: httpx.Client) -> int:
    """A flag of project 1: one a seeded survey links to."""
    surveys = c.get(S, params={"limit": 200}).json()["results"]
    return next(s["linked_flag"]["id"] for s in surveys if s.get("linked_flag"))


def test_appearance_html_is_cleaned_on_create_and_patch(gen: tuple[str, httpx.Client]) -> None:
    """SurveySerializerCreateUpdateOnly.validate_appearance: thankYouMessageHeader, ...Description and
    ...CloseButtonText are cleaned (nh3 allow list) where they hold HTML, on create and on PATCH alike."""
    _, c = gen
    created = _survey(c, appearance={"thankYouMessageHeader": "<b>Thanks</b><script>x()</script>",
                                     "thankYouMessageDescription": "<img src=x onerror=alert(1)>Bye"}).json()
    assert created["appearance"]["thankYouMessageHeader"] == "<b>Thanks</b>"
    assert "onerror" not in created["appearance"]["thankYouMessageDescription"]
    assert created["appearance"]["thankYouMessageDescription"].endswith("Bye")
    patched = c.patch(f"{S}{created['id']}/", json={"appearance": {
        "thankYouMessageDescription": "<p>See you</p><iframe src='https://evil.example'></iframe>",
        "thankYouMessageCloseButtonText": "<em>Close</em><style>*{}</style>"}}).json()
    assert patched["appearance"]["thankYouMessageDescription"] == "<p>See you</p>"
    assert patched["appearance"]["thankYouMessageCloseButtonText"] == "<em>Close</em>"
    assert c.get(f"{S}{created['id']}/").json()["appearance"]["thankYouMessageDescription"] == "<p>See you</p>"


@pytest.mark.parametrize(("rules", "detail"), [
    ([{"type": "phone"}], "Validation rule type must be one of: min_length, max_length, email"),
    ([{"type": "min_length", "value": 10}, {"type": "max_length", "value": 5}],
     "Minimum length cannot be greater than maximum length"),
    ([{"type": "max_length", "value": 0}], "Validation rule value for max_length must be a positive integer"),
    ("min 3", "Question validation must be a list of validation rules"),
])
def test_question_validation_rules(gen: tuple[str, httpx.Client], rules: Any, detail: str) -> None:
    """validate_questions (newest): ``validation`` rules of known types with positive lengths, min <= max;
    test_survey.py validation-rule cases. Older servers store the rules as sent."""
    generation, c = gen
    questions = [{"type": "open", "question": "Your email?", "validation": rules}]
    r = _survey(c, questions=questions)
    if generation == "older":
        assert r.status_code == 201 and r.json()["questions"][0]["validation"] == rules
        return
    assert _error(r) == (detail, "questions")
    ok = _survey(c, questions=[{"type": "open", "question": "Q", "validation": [
        {"type": "min_length", "value": 2}, {"type": "max_length", "value": 20}, {"type": "email"}]}]).json()
    assert _error(c.patch(f"{S}{ok['id']}/", json={"questions": questions})) == (detail, "questions")


def test_linked_flag_variant_needs_the_linked_flag_in_the_same_request(gen: tuple[str, httpx.Client]) -> None:
    """validate() of both generations (posthog/api/survey.py, products/surveys/backend/api/survey.py):
    ``linkedFlagVariant`` without ``linked_flag_id`` in the request is refused (attr null), even on a survey that
    has its flag; with the flag, the variant must be one it has (or "any")."""
    _, c = gen
    flag = _linked_flag_id(c)
    message = "linkedFlagVariant can only be used when a linked_flag_id is specified"
    assert _error(_survey(c, conditions={"linkedFlagVariant": "test"})) == (message, None)
    s = _survey(c, linked_flag_id=flag, conditions={"linkedFlagVariant": "any"})
    assert s.status_code == 201, s.text
    assert _error(c.patch(f"{S}{s.json()['id']}/", json={"conditions": {"linkedFlagVariant": "any"}})) == (
        message, None)
    assert c.patch(f"{S}{s.json()['id']}/", json={"conditions": {"linkedFlagVariant": "any"},
                                                  "linked_flag_id": flag}).status_code == 200
    detail, attr = _error(_survey(c, linked_flag_id=flag, conditions={"linkedFlagVariant": "blue"}))
    assert detail == "Feature flag variant 'blue' specified but the linked feature flag has no variants"
    assert attr is None


@pytest.mark.parametrize(("conditions", "named"), [
    ({"url": "https://acme.io", "urlMatchType": "icontains"}, "url, urlMatchType"),
    ({"actions": {"values": [{"id": 1, "name": "Signed up"}]}}, "actions"),
    ({"deviceTypes": ["Mobile"], "events": {"values": [{"name": "$pageview"}]}}, "deviceTypes, events"),
])
def test_external_survey_refuses_page_conditions(gen: tuple[str, httpx.Client], conditions: dict[str, Any],
                                                 named: str) -> None:
    """validate() of both generations (posthog/api/survey.py, products/surveys/backend/api/survey.py): a request
    making an external_survey may not carry URL/selector/device conditions, nor actions or events with values
    (errors keyed "conditions"); products/surveys/backend/api/test/test_external_surveys.py."""
    _, c = gen
    detail, attr = _error(_survey(c, type="external_survey", conditions=conditions))
    assert (detail, attr) == (f"The following condition fields are not allowed for external surveys: {named}",
                              "conditions")
    plain = _survey(c, type="external_survey", conditions={"actions": {"values": []}})
    assert plain.status_code == 201, plain.text
    assert _error(c.patch(f"{S}{plain.json()['id']}/", json={"type": "external_survey", "conditions": conditions}))[
        1] == "conditions"


@pytest.mark.parametrize(("translations", "detail"), [
    ({"english": {"name": "Hi"}}, "Survey translation: 'english' is not a valid language code. Use BCP-47 codes "
                                  "like 'en', 'es', or 'es-MX' (not language names like 'english')."),
    ({"default": {"name": "Hi"}}, "Survey translation: 'default' is not a valid translation language. The "
                                  "untranslated text is the original — set the survey's base language instead of "
                                  "adding it as a translation."),
    ({"EN": {"name": "Hi"}}, "Survey translation: 'EN' matches the survey's base language ('en'). The original "
                             "text already covers this language — translate to a different language."),
])
def test_translations_need_a_language_code(gen: tuple[str, httpx.Client], translations: dict[str, Any],
                                           detail: str) -> None:
    """validate_translations / _validate_translation_language_key (newest): BCP-47 keys, not a sentinel, not the
    base language. Older servers have no translations rule."""
    generation, c = gen
    r = _survey(c, translations=translations)
    if generation == "older":
        assert r.status_code == 201, r.text
        return
    assert _error(r) == (detail, "translations")
    fine = _survey(c, translations={"pt-BR": {"name": "Olá"}})
    assert fine.status_code == 201, fine.text


def test_question_translations_need_a_language_code(gen: tuple[str, httpx.Client]) -> None:
    """_validate_question_translations (newest): the same key rule per question, context "Question N translation";
    translated choices must match the question's in number."""
    generation, c = gen
    bad = [{"type": "open", "question": "Q"},
           {"type": "single_choice", "question": "Pick", "choices": ["a", "b"],
            "translations": {"français": {"question": "Choisir"}}}]
    r = _survey(c, questions=bad)
    if generation == "older":
        assert r.status_code == 201, r.text
        return
    detail, attr = _error(r)
    assert attr == "questions" and detail.startswith("Question 2 translation: 'français' is not a valid language code")
    short = [{"type": "single_choice", "question": "Pick", "choices": ["a", "b"],
              "translations": {"fr": {"choices": ["un"]}}}]
    assert _error(_survey(c, questions=short)) == (
        "Question 1: Translation 'fr' has 1 choices but question has 2 choices. Array lengths must match to avoid "
        "partial translations.", "questions")


def test_search_longer_than_200_characters(gen: tuple[str, httpx.Client]) -> None:
    """SurveyViewSet.safely_get_queryset (newest): a search over MAX_SEARCH_LENGTH (200) is refused, keyed "search";
    older servers (DRF's SearchFilter) cut it and search."""
    generation, c = gen
    marker = uuid.uuid4().hex[:12]
    named = _survey(c, name="z" * 200 + "A" + marker).json()
    assert c.get(S, params={"search": "z" * 200}).status_code == 200
    r = c.get(S, params={"search": "z" * 200 + "B"})
    if generation == "older":
        assert [row["id"] for row in r.json()["results"]] == [named["id"]]
        return
    assert _error(r) == ("Search query must be 200 characters or fewer.", "search")


def test_launch_sets_the_start_date(gen: tuple[str, httpx.Client], now: datetime) -> None:
    """SurveyViewSet.launch (newest): start_date = now, activity "launched"; launched already: unchanged; an
    archived survey or one whose end_date has passed is refused. Older servers have no such route (404)."""
    generation, c = gen
    draft = _survey(c).json()
    r = c.post(f"{S}{draft['id']}/launch/")
    if generation == "older":
        assert r.status_code == 404
        assert c.get(f"{S}{draft['id']}/").json()["start_date"] is None
        return
    assert r.status_code == 200, r.text
    launched = r.json()
    assert launched["start_date"] == now.isoformat().replace("+00:00", "Z")
    assert "feature_flag_keys" in launched  # the full survey, as a retrieve shows it
    assert launched["internal_targeting_flag"]["active"] is True
    activity = c.get(f"{S}{draft['id']}/activity/").json()["results"][0]
    assert activity["activity"] == "launched" and activity["detail"]["changes"][0]["field"] == "start_date"
    assert c.post(f"{S}{draft['id']}/launch/").json()["start_date"] == launched["start_date"]
    archived = _survey(c, archived=True).json()
    assert _error(c.post(f"{S}{archived['id']}/launch/")) == (
        "Cannot launch an archived survey. Unarchive it first.", None)
    ended = _survey(c, end_date=(now - timedelta(days=1)).isoformat()).json()
    assert _error(c.post(f"{S}{ended['id']}/launch/")) == (
        "Cannot launch a survey with end_date in the past. Extend the end_date first.", None)
    stopped = c.post(f"{S}{draft['id']}/stop/").json()
    assert stopped["end_date"] == launched["start_date"]
