"""The real service's survey rules, in its own words: one set for the sandbox, the editor and ``surveys apply``.

Pure Python (no client, no Textual, no sandbox), so all three import it and cannot drift apart:

* the sandbox raises the first :class:`Refusal` with its ``attr``, as the real service reports only its first error;
* the editor and ``surveys apply`` (through :func:`tui.api.writes.check_survey_write`) show every refusal next to
  its field (``path``), before anything is sent.

A body is checked as the real serializer checks a request: a rule looks only at the keys the body carries (a
PATCH of ``conditions`` alone is judged without ``linked_flag_id``, as the real service judges it). Rules that
depend on what the survey already holds (translation keys saved before the language rule existed are kept; the
base language) take the stored survey as ``existing``; ``None`` means it is not known, and those rules are
skipped rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SEARCH_MAX = 200  # the newest service refuses a longer survey search
SEARCH_TOO_LONG = f"Search query must be {SEARCH_MAX} characters or fewer."
VALIDATION_RULE_TYPES = ("min_length", "max_length", "email")
LENGTH_RULES = ("min_length", "max_length")
DEFAULT_BASE_LANGUAGE = "en"
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{2,8}){0,3}$")
REJECTED_LANGUAGE_KEYS = frozenset({"default", "original", "base"})
SURVEY_TRANSLATION_FIELDS = ("name", "description", "thankYouMessageHeader", "thankYouMessageDescription",
                             "thankYouMessageCloseButtonText")
QUESTION_TRANSLATION_FIELDS = ("question", "description", "buttonText", "lowerBoundLabel", "upperBoundLabel")
EXTERNAL_SURVEY = "external_survey"
NOT_FOR_EXTERNAL = ("linked_flag_id", "targeting_flag_filters")
# Condition keys an external survey may not carry, in the order the real service names them.
CONDITIONS_NOT_FOR_EXTERNAL = ("url", "urlMatchType", "selector", "seenSurveyWaitPeriodInDays", "linkedFlagVariant",
                               "deviceTypes", "deviceTypesMatchType")
VARIANT_NEEDS_FLAG = "linkedFlagVariant can only be used when a linked_flag_id is specified"


@dataclass(frozen=True)
class Refusal:
    """A broken rule: ``path`` locates it for a form, ``attr`` is what the real service names, ``message`` says it."""

    path: str
    attr: str | None
    message: str


def language_code(raw: str) -> str:
    """A language code as the real service compares them: trimmed, lower case, ``_`` as ``-``."""
    return raw.strip().lower().replace("_", "-")


def base_language(body: Mapping[str, Any], existing: Mapping[str, Any] | None) -> str:
    """The survey's base language after this write: the body's, else the stored one, else English."""
    for source in (body, existing or {}):
        value = source.get("base_language")
        if isinstance(value, str) and value.strip():
            return language_code(value)
    return DEFAULT_BASE_LANGUAGE


def search_refusal(search: str | None) -> Refusal | None:
    """The newest service's list refuses a search longer than :data:`SEARCH_MAX` characters."""
    if search and len(search) > SEARCH_MAX:
        return Refusal("search", "search", SEARCH_TOO_LONG)
    return None


def validation_rules_refusal(question: Mapping[str, Any], index: int) -> Refusal | None:
    """A question's ``validation`` rules (newest): known types, positive lengths, a minimum not above the maximum."""
    rules = question.get("validation")
    if rules is None:
        return None
    path = f"questions[{index}].validation"

    def refuse(message: str) -> Refusal:
        return Refusal(path, "questions", message)

    if not isinstance(rules, list):
        return refuse("Question validation must be a list of validation rules")
    for rule in rules:
        if not isinstance(rule, Mapping):
            return refuse("Each validation rule must be an object")
        kind = rule.get("type")
        if kind not in VALIDATION_RULE_TYPES:
            return refuse("Validation rule type must be one of: " + ", ".join(VALIDATION_RULE_TYPES))
        value = rule.get("value")
        if kind in LENGTH_RULES and value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            return refuse(f"Validation rule value for {kind} must be a positive integer")
    lowest = next((r.get("value") for r in rules if r.get("type") == "min_length"), None)
    highest = next((r.get("value") for r in rules if r.get("type") == "max_length"), None)
    if lowest is not None and highest is not None and lowest > highest:
        return refuse("Minimum length cannot be greater than maximum length")
    return None


def _language_key_problem(raw: Any, base: str, context: str) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return f"{context}: translation language code cannot be empty."
    code = language_code(raw)
    if code in REJECTED_LANGUAGE_KEYS:
        return (f"{context}: '{raw}' is not a valid translation language. The untranslated text is the original — "
                "set the survey's base language instead of adding it as a translation.")
    if not LANGUAGE_CODE.match(code):
        return (f"{context}: '{raw}' is not a valid language code. "
                "Use BCP-47 codes like 'en', 'es', or 'es-MX' (not language names like 'english').")
    if code == base:
        return (f"{context}: '{raw}' matches the survey's base language ('{base}'). "
                "The original text already covers this language — translate to a different language.")
    return None


def _translates(entry: Mapping[str, Any], question: bool) -> bool:
    """Whether an entry carries a translatable field (one without any is dropped, its key unchecked)."""
    if question:
        return any(f in entry for f in QUESTION_TRANSLATION_FIELDS) or bool(entry.get("link")) or "choices" in entry
    return any(f in entry for f in SURVEY_TRANSLATION_FIELDS)


def _translation_keys_problem(entries: Mapping[Any, Any], kept: Mapping[str, Any], base: str, context: str,
                              *, question: bool) -> str | None:
    """Entries carrying a translatable field need a valid, new, distinct language key (``kept`` keys are saved ones)."""
    seen: list[str] = []
    for raw, entry in entries.items():
        if not _translates(entry, question):
            continue
        if raw in kept:
            seen.append(language_code(raw) if isinstance(raw, str) else str(raw))
            continue
        problem = _language_key_problem(raw, base, context)
        if problem:
            return problem
        code = language_code(raw)
        if code in seen:
            return f"{context}: '{raw}' collides with another translation for '{code}'."
        seen.append(code)
    return None


def question_translations_refusal(question: Mapping[str, Any], index: int, base: str,
                                  existing: Mapping[str, Any] | None) -> Refusal | None:
    """A question's ``translations`` (newest): objects of text keyed by valid language codes, choices that match."""
    if "translations" not in question:
        return None
    n = index + 1
    path = f"questions[{index}].translations"
    translations = question["translations"]

    def refuse(message: str) -> Refusal:
        return Refusal(path, "questions", message)

    if not isinstance(translations, Mapping):
        return refuse(f"Question {n}: translations must be an object")
    for raw, entry in translations.items():
        if not isinstance(entry, Mapping):
            return refuse(f"Question {n}: Translation for '{raw}' must be an object")
        for key in QUESTION_TRANSLATION_FIELDS:
            if key in entry and not isinstance(entry[key], str):
                return refuse(f"Question {n}: Translation '{raw}' field '{key}' must be a string")
        if entry.get("link") and not isinstance(entry["link"], str):
            return refuse(f"Question {n}: Translation '{raw}' field 'link' must be a string")
        if "choices" in entry and not isinstance(entry["choices"], list):
            return refuse(f"Question {n}: Translation '{raw}' field 'choices' must be a list of strings")
    if existing is None:
        return None
    kept = _stored_question_translations(existing, index)
    problem = _translation_keys_problem(translations, kept, base, f"Question {n} translation", question=True)
    if problem:
        return refuse(problem)
    choices = question.get("choices")
    if isinstance(choices, list) and choices:
        for raw, entry in translations.items():
            translated = entry.get("choices")
            if isinstance(translated, list) and len(translated) != len(choices):
                code = raw if raw in kept else language_code(str(raw))
                return refuse(f"Question {n}: Translation '{code}' has {len(translated)} choices but question has "
                              f"{len(choices)} choices. Array lengths must match to avoid partial translations.")
    return None


def _stored_question_translations(existing: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    questions = existing.get("questions")
    if isinstance(questions, list) and index < len(questions) and isinstance(questions[index], Mapping):
        stored = questions[index].get("translations")
        if isinstance(stored, Mapping):
            return stored
    return {}


def translations_refusal(body: Mapping[str, Any], existing: Mapping[str, Any] | None) -> Refusal | None:
    """The survey's own ``translations`` (newest): objects of text keyed by valid, new language codes."""
    translations = body.get("translations")
    if translations is None:
        return None

    def refuse(message: str) -> Refusal:
        return Refusal("translations", "translations", message)

    if not isinstance(translations, Mapping):
        return refuse("Translations must be an object")
    for raw, entry in translations.items():
        if not isinstance(entry, Mapping):
            return refuse(f"Translation for '{raw}' must be an object")
        for key in SURVEY_TRANSLATION_FIELDS:
            if key in entry and not isinstance(entry[key], str):
                return refuse(f"Translation for '{raw}': '{key}' must be a string")
    if existing is None:
        return None
    stored = existing.get("translations")
    kept: Mapping[str, Any] = stored if isinstance(stored, Mapping) else {}
    problem = _translation_keys_problem(translations, kept, base_language(body, existing), "Survey translation",
                                        question=False)
    return refuse(problem) if problem else None


def linked_variant_refusal(body: Mapping[str, Any], flag_variants: Sequence[str] | None = None) -> Refusal | None:
    """``conditions.linkedFlagVariant`` needs ``linked_flag_id`` in the same body, and a variant that flag has.

    ``flag_variants`` are the linked flag's variant keys where known (the sandbox knows them; a client does not).
    """
    conditions = body.get("conditions")
    variant = conditions.get("linkedFlagVariant") if isinstance(conditions, Mapping) else None
    if not variant:
        return None
    if not body.get("linked_flag_id"):
        return Refusal("conditions", None, VARIANT_NEEDS_FLAG)
    if flag_variants is None or variant == "any" or variant in flag_variants:
        return None
    if flag_variants:
        return Refusal("conditions", None, f"Feature flag variant '{variant}' does not exist. "
                                           f"Available variants: {', '.join(flag_variants)}")
    return Refusal("conditions", None,
                   f"Feature flag variant '{variant}' specified but the linked feature flag has no variants")


def external_survey_refusals(body: Mapping[str, Any]) -> list[Refusal]:
    """A body making an ``external_survey`` may not target (flags, URL/device/event/action conditions, a delay)."""
    if body.get("type") != EXTERNAL_SURVEY:
        return []
    out = [Refusal(key, key, f"{key} is not allowed for external surveys")
           for key in NOT_FOR_EXTERNAL if body.get(key) is not None]
    conditions = body.get("conditions")
    if isinstance(conditions, Mapping) and conditions:
        named = [key for key in CONDITIONS_NOT_FOR_EXTERNAL if conditions.get(key) is not None]
        named += [key for key in ("actions", "events")
                  if isinstance(conditions.get(key), Mapping) and conditions[key].get("values")]
        if named:
            out.append(Refusal("conditions", "conditions", "The following condition fields are not allowed for "
                                                           "external surveys: " + ", ".join(named)))
    appearance = body.get("appearance")
    if isinstance(appearance, Mapping) and appearance.get("surveyPopupDelaySeconds") is not None:
        out.append(Refusal("appearance", "appearance", "surveyPopupDelaySeconds is not allowed for external surveys"))
    return out


def field_refusals(body: Mapping[str, Any], existing: Mapping[str, Any] | None, *,
                   newest: bool = True) -> list[Refusal]:
    """Per-field rules (questions, then translations): the ones the real serializer checks before the whole body."""
    out: list[Refusal] = []
    questions = body.get("questions")
    if newest and isinstance(questions, list):
        base = base_language(body, existing)
        for index, question in enumerate(questions):
            if not isinstance(question, Mapping):
                continue
            for found in (question_translations_refusal(question, index, base, existing),
                          validation_rules_refusal(question, index)):
                if found:
                    out.append(found)
    if newest:
        found = translations_refusal(body, existing)
        if found:
            out.append(found)
    return out


def body_refusals(body: Mapping[str, Any], flag_variants: Sequence[str] | None = None) -> list[Refusal]:
    """Whole-body rules, in the real serializer's order: the linked flag's variant, then the external survey's."""
    out = [found] if (found := linked_variant_refusal(body, flag_variants)) else []
    return out + external_survey_refusals(body)


def survey_refusals(body: Mapping[str, Any], existing: Mapping[str, Any] | None, *,
                    newest: bool = True) -> list[Refusal]:
    """Every rule of this module a survey create/PATCH body breaks, in the order the real service checks them."""
    return field_refusals(body, existing, newest=newest) + body_refusals(body)


def with_companions(changes: Mapping[str, Any], full: Mapping[str, Any]) -> dict[str, Any]:
    """A PATCH that sends ``conditions`` with a linked flag variant also sends ``linked_flag_id``.

    The real service judges the variant against the ``linked_flag_id`` of the same request only, so a PATCH of
    the conditions alone would be refused even when the survey has its flag.
    """
    out = dict(changes)
    if "conditions" in out and "linked_flag_id" not in out and full.get("linked_flag_id"):
        conditions = out["conditions"]
        if isinstance(conditions, Mapping) and conditions.get("linkedFlagVariant"):
            out["linked_flag_id"] = full["linked_flag_id"]
    return out
