"""Surveys to start from: the common templates, and a copy of an existing survey.

The templates follow the real service's own (PostHog's survey templates: Net Promoter Score with a
follow-up per detractor/passive/promoter range, customer satisfaction, product-market fit, open
feedback). Each is a create body; the editor opens it as a new survey, so nothing is sent until saved.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tui.api.models.surveys import Survey

TEMPLATES: dict[str, dict[str, Any]] = {
    "nps": {
        "name": "Net Promoter Score (NPS)",
        "description": "How likely are people to recommend you, and why",
        "type": "popover",
        "questions": [
            {"type": "rating", "question": "How likely are you to recommend us to a friend?", "display": "number",
             "scale": 10, "lowerBoundLabel": "Unlikely", "upperBoundLabel": "Very likely",
             "branching": {"type": "response_based",
                           "responseValues": {"detractors": 1, "passives": 2, "promoters": 3}}},
            {"type": "open", "question": "What could we do better?", "branching": {"type": "end"}},
            {"type": "open", "question": "What would make it a 10 for you?", "branching": {"type": "end"}},
            {"type": "open", "question": "What do you like most about us?", "branching": {"type": "end"}},
        ],
        "appearance": {"thankYouMessageHeader": "Thank you for your feedback!", "displayThankYouMessage": True},
    },
    "csat": {
        "name": "Customer satisfaction (CSAT)",
        "description": "How satisfied people are with the product",
        "type": "popover",
        "questions": [
            {"type": "rating", "question": "How satisfied are you with the product?", "display": "emoji", "scale": 5,
             "lowerBoundLabel": "Very dissatisfied", "upperBoundLabel": "Very satisfied"},
            {"type": "open", "question": "What is the main reason for your score?", "optional": True},
        ],
        "appearance": {"thankYouMessageHeader": "Thank you for your feedback!", "displayThankYouMessage": True},
    },
    "pmf": {
        "name": "Product-market fit (PMF)",
        "description": "How disappointed people would be without the product",
        "type": "popover",
        "questions": [
            {"type": "single_choice", "question": "How would you feel if you could no longer use the product?",
             "choices": ["Very disappointed", "Somewhat disappointed", "Not disappointed"]},
            {"type": "open", "question": "What is the main benefit you get from the product?", "optional": True},
        ],
    },
    "open": {
        "name": "Open feedback",
        "description": "Anything people want to tell you",
        "type": "popover",
        "questions": [{"type": "open", "question": "What can we do to improve our product?"}],
    },
}
TEMPLATE_LABELS: dict[str, str] = {
    "nps": "Net Promoter Score: 0-10, a follow-up for detractors, passives and promoters",
    "csat": "Customer satisfaction: 5 emoji, then why",
    "pmf": "Product-market fit: how disappointed without it",
    "open": "Open feedback: one open question",
}


def template(key: str) -> dict[str, Any]:
    """A fresh copy of a template's create body (the editor may change it freely)."""
    return copy.deepcopy(TEMPLATES[key])


def duplicate_body(survey: Survey, editable: Mapping[str, Any]) -> dict[str, Any]:
    """A new survey like ``survey``: ``editable`` is its file (``document``); the copy is a draft of its own.

    Its dates and archive flag are cleared (a copy starts as a draft), question ids dropped (the server gives
    new ones), and the targeting flag is not shared: the copy gets its own from the same filters.
    """
    body = {key: copy.deepcopy(value) for key, value in editable.items() if key != "id"}
    body["name"] = f"{survey.name} (copy)"
    for key in ("start_date", "end_date", "targeting_flag_id", "remove_targeting_flag"):
        body.pop(key, None)
    body["archived"] = False
    body["questions"] = [{k: v for k, v in q.items() if k != "id"} for q in body.get("questions") or []
                         if isinstance(q, dict)]
    return body
