"""The keys the real service and its SDK know inside a survey's ``appearance``, ``conditions`` and questions.

The real service stores any key inside these objects (it checks only that they are objects), so an unknown key
is never refused: it is named, with the known key it most resembles, so a typo (``conditions.urlMatchTyp``) is
seen before it is stored and silently ignored by every respondent's browser.

The lists are the real service's (PostHog/posthog ``products/surveys/backend/api/survey.py``:
``SurveyAppearanceSchemaSerializer``, ``SurveyConditionsSchemaSerializer``, the question schema serializers;
``survey_appearance.py`` ``SURVEY_STYLING_APPEARANCE_FIELDS``) and the SDK's keys it reads beyond them.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

APPEARANCE_KEYS = frozenset({
    "backgroundColor", "submitButtonColor", "textColor", "submitButtonText", "submitButtonTextColor",
    "descriptionTextColor", "ratingButtonColor", "ratingButtonActiveColor", "ratingButtonHoverColor", "whiteLabel",
    "autoDisappear", "displayThankYouMessage", "thankYouMessageHeader", "thankYouMessageDescription",
    "thankYouMessageDescriptionContentType", "thankYouMessageCloseButtonText", "borderColor", "placeholder",
    "shuffleQuestions", "surveyPopupDelaySeconds", "widgetType", "widgetSelector", "widgetLabel", "widgetColor",
    "fontFamily", "maxWidth", "zIndex", "disabledButtonOpacity", "boxPadding", "textSubtleColor", "inputBackground",
    "inputTextColor", "boxShadow", "borderRadius", "position", "tabPosition",
})
CONDITION_KEYS = frozenset({
    "url", "urlMatchType", "selector", "seenSurveyWaitPeriodInDays", "events", "actions", "deviceTypes",
    "deviceTypesMatchType", "linkedFlagVariant",
})
QUESTION_KEYS = frozenset({
    "id", "type", "question", "description", "descriptionContentType", "optional", "buttonText", "link", "display",
    "scale", "lowerBoundLabel", "upperBoundLabel", "isNpsQuestion", "choices", "shuffleOptions", "hasOpenChoice",
    "branching", "validation", "translations", "skipSubmitButton", "originalQuestionIndex",
})
UNKNOWN = "not a key the service knows"


def unknown_key_note(key: str, known: frozenset[str]) -> str:
    """``not a key the service knows; did you mean urlMatchType?`` (the closest known key, where one is close)."""
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return f"{UNKNOWN}; did you mean {close[0]}?" if close else f"{UNKNOWN} (stored as it is; the SDK ignores it)"


def _unknown(obj: Any, known: frozenset[str], prefix: str, out: dict[str, str]) -> None:
    if isinstance(obj, Mapping):
        for key in obj:
            if isinstance(key, str) and key not in known:
                out[f"{prefix}.{key}"] = unknown_key_note(key, known)


def unknown_key_notes(body: Mapping[str, Any]) -> dict[str, str]:
    """Every unknown key inside the body's appearance, conditions and questions, by path."""
    out: dict[str, str] = {}
    _unknown(body.get("appearance"), APPEARANCE_KEYS, "appearance", out)
    _unknown(body.get("conditions"), CONDITION_KEYS, "conditions", out)
    questions = body.get("questions")
    if isinstance(questions, list):
        for index, question in enumerate(questions):
            _unknown(question, QUESTION_KEYS, f"questions[{index}]", out)
    return out
