"""HTML in survey texts: the sandbox stores what the real service stores, cleaned by the same library (nh3).

The real service: PostHog/posthog ``products/surveys/backend/api/survey.py`` (``SurveySerializerCreateUpdateOnly``:
``validate_questions`` cleans each question's question, description, buttonText, lowerBoundLabel, upperBoundLabel,
choices and link where ``nh3.is_html``; ``validate_translations``; the thank-you texts in
``survey_appearance.py validate_survey_appearance``) with ``nh3_clean_with_allow_list``. The cases of its own tests
are ``products/surveys/backend/api/test/test_survey.py``
``TestSurveyQuestionValidation.test_create_basic_survey_question_validation`` (a dropped script, kept ``<b>`` and a
closing ``</b>`` added), ``test_update_basic_survey_question_validation`` (the same on a PATCH) and
``test_cleaning_empty_questions`` (blank texts kept as they are).
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tui.api.survey_html import clean, rewrites, stored_texts

S = "/api/projects/1/surveys/"
NOTEBOOKS = "<b>We'll use it to make notebooks better.<script>alert(0)</script>"
QUESTIONS = [
    {"type": "open", "question": "What up?", "description": "<script>alert(0)</script>check?"},
    {"type": "link", "link": "https://bazinga.com",
     "question": "<b>What</b> do you think of the new notebooks feature?"},
]


def _create(c: httpx.Client, **fields: Any) -> dict[str, Any]:
    r = c.post(S, json={"name": f"HTML {uuid.uuid4().hex[:10]}", "type": "popover", **fields})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def test_the_real_services_cases_on_create(client: httpx.Client) -> None:
    s = _create(client, questions=QUESTIONS, appearance={"thankYouMessageHeader": "Thanks for your feedback!",
                                                         "thankYouMessageDescription": NOTEBOOKS})
    assert [(q["question"], q.get("description"), q.get("link")) for q in s["questions"]] == [
        ("What up?", "check?", None),
        ("<b>What</b> do you think of the new notebooks feature?", None, "https://bazinga.com"),
    ]
    assert s["appearance"] == {"thankYouMessageHeader": "Thanks for your feedback!",
                               "thankYouMessageDescription": "<b>We'll use it to make notebooks better.</b>"}


def test_the_real_services_cases_on_patch(client: httpx.Client) -> None:
    s = _create(client)
    r = client.patch(f"{S}{s['id']}/", json={"questions": QUESTIONS,
                                             "appearance": {"thankYouMessageDescription": NOTEBOOKS}})
    assert r.status_code == 200, r.text
    assert r.json()["questions"][0]["description"] == "check?"
    assert r.json()["appearance"] == {"thankYouMessageDescription": "<b>We'll use it to make notebooks better.</b>"}


def test_blank_texts_are_kept(client: httpx.Client) -> None:
    s = _create(client, questions=[], appearance={"thankYouMessageHeader": " ", "thankYouMessageDescription": ""})
    assert s["appearance"] == {"thankYouMessageHeader": " ", "thankYouMessageDescription": ""}


def test_what_an_owner_types_is_stored_as_the_service_stores_it(client: httpx.Client) -> None:
    """The issue's texts: a tag-like word is dropped and the rest escaped, in questions, choices and the thank-you
    header; the survey's name and description, and texts without anything like a tag, are never touched."""
    s = _create(client, description="<Product> survey", questions=[
        {"type": "single_choice", "question": "Would you use <Feature X> if it cost < $5 & took >2 min?",
         "choices": ["Yes", "Other <specify>"], "buttonText": "Next <b>now</b>"},
        {"type": "open", "question": "cost < 5 & more"}],
        appearance={"thankYouMessageHeader": "<b>Bold</b> <Product>", "thankYouMessageCloseButtonText": "Close <x>"})
    q = s["questions"][0]
    assert q["question"] == "Would you use  if it cost &lt; $5 &amp; took &gt;2 min?"
    assert q["choices"] == ["Yes", "Other "]
    assert q["buttonText"] == "Next <b>now</b>"
    assert s["questions"][1]["question"] == "cost < 5 & more"
    assert s["appearance"]["thankYouMessageHeader"] == "<b>Bold</b> "
    assert s["appearance"]["thankYouMessageCloseButtonText"] == "Close "
    assert s["description"] == "<Product> survey"


def test_translations_are_cleaned_as_the_service_cleans_them(client: httpx.Client) -> None:
    s = _create(client, translations={"fr": {"name": "Sondage <b>x</b><script>1</script>"}}, questions=[
        {"type": "single_choice", "question": "Q", "choices": ["a", "b"],
         "translations": {"fr": {"question": "Q <i>fr</i><script>1</script>", "choices": ["a <x>", "b"]}}}])
    assert s["translations"]["fr"]["name"] == "Sondage <b>x</b>"
    assert s["questions"][0]["translations"]["fr"] == {"question": "Q <i>fr</i>", "choices": ["a ", "b"]}


def test_links_keep_their_attributes_and_get_noopener() -> None:
    """The allow list's attributes: an anchor keeps href and target and gets rel="noopener"; onclick and unknown
    tags go."""
    assert clean('<a href="https://x.io" target="_blank" onclick="x()">go</a>') == (
        '<a href="https://x.io" target="_blank" rel="noopener">go</a>')
    assert clean('<table border="1"><tr><td colspan="2">x</td></tr></table>') == (
        '<table border="1"><tbody><tr><td colspan="2">x</td></tr></tbody></table>')
    assert clean("<iframe src=x></iframe>kept") == "kept"


def test_the_client_says_which_texts_change_from_the_same_place() -> None:
    body = {"name": "<Product>", "questions": [{"type": "single_choice", "question": "Q <X>",
                                                "choices": ["Yes", "Other <specify>"]}],
            "appearance": {"thankYouMessageHeader": "ok", "position": "<left>"}}
    assert rewrites(body) == {"questions[0].question": "Q ", "questions[0].choices[1]": "Other "}
    assert stored_texts(body)["appearance"] == body["appearance"]
