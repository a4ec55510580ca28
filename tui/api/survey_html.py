"""What the real service stores for a survey's texts: HTML cleaned by nh3 (Ammonia), on the fields it cleans.

One place for the sandbox (which stores the cleaned text) and the client (which says, before sending, where the
stored text will differ from what was typed). The real survey serializer (PostHog's
``products/surveys/backend/api/survey.py``, ``SurveySerializerCreateUpdateOnly``: ``validate_questions``,
``_validate_and_sanitize_choices``, ``_validate_and_sanitize_link``, ``validate_translations``,
``_validate_question_translations``; the appearance's thank-you texts in ``survey_appearance.py``
``validate_survey_appearance``) runs ``nh3.clean`` with its allow list on a text only when ``nh3.is_html`` says it
looks like HTML, on these fields:

* each question's ``question``, ``description``, ``buttonText``, ``lowerBoundLabel``, ``upperBoundLabel``, every
  one of its ``choices`` and its ``link`` (after the link's scheme is checked);
* each question translation's same texts, link and choices;
* ``appearance``: ``thankYouMessageHeader``, ``thankYouMessageDescription``, ``thankYouMessageCloseButtonText``;
* each survey translation's ``name``, ``description`` and the three thank-you texts.

Nothing else is touched: the survey's own name and description, the other appearance keys, conditions.
Pure Python (nh3 only): no client, no Textual, no sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import nh3

QUESTION_TEXTS = ("question", "description", "buttonText", "lowerBoundLabel", "upperBoundLabel")
APPEARANCE_TEXTS = ("thankYouMessageHeader", "thankYouMessageDescription", "thankYouMessageCloseButtonText")
SURVEY_TRANSLATION_TEXTS = ("name", "description", *APPEARANCE_TEXTS)

# The real service's allow list (``nh3_clean_with_allow_list``): Ammonia's default tags, and its default
# attributes given again because the binding replaces them rather than adding to them.
_TABLE_CELL = frozenset({"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height",
                         "nowrap", "rowspan", "scope", "valign", "width"})
_ALIGNED = frozenset({"align", "char", "charoff", "valign"})
ALLOWED_TAGS = frozenset({
    "a", "abbr", "acronym", "area", "article", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption", "center",
    "cite", "code", "col", "colgroup", "data", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption",
    "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "i", "img", "ins", "kbd", "li",
    "map", "mark", "nav", "ol", "p", "pre", "q", "rp", "rt", "rtc", "ruby", "s", "samp", "small", "span", "strike",
    "strong", "sub", "summary", "sup", "table", "tbody", "td", "th", "thead", "time", "tr", "tt", "u", "ul", "var",
    "wbr",
})
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "*": {"style", "lang", "title", "width", "height"},
    "a": {"href", "hreflang", "target"},
    "bdo": {"dir"},
    "blockquote": {"cite"},
    "col": {"align", "char", "charoff", "span"},
    "colgroup": {"align", "char", "charoff", "span"},
    "del": {"cite", "datetime"},
    "hr": {"align", "size", "width"},
    "img": {"align", "alt", "height", "src", "width"},
    "ins": {"cite", "datetime"},
    "ol": {"start", "type"},
    "q": {"cite"},
    "table": {"align", "bgcolor", "border", "cellpadding", "cellspacing", "frame", "rules", "summary", "width"},
    "tbody": set(_ALIGNED),
    "td": set(_TABLE_CELL),
    "tfoot": set(_ALIGNED),
    "th": set(_TABLE_CELL),
    "thead": set(_ALIGNED),
    "tr": {"align", "bgcolor", "char", "charoff", "valign"},
}


def is_html(text: str) -> bool:
    """Whether the real service would clean this text (``nh3.is_html``: it holds something like a tag)."""
    return nh3.is_html(text)


def clean(text: str) -> str:
    """The text as the real service stores it: unchanged unless it looks like HTML, else cleaned by its allow list."""
    if not text or not is_html(text):
        return text
    return nh3.clean(text, tags=set(ALLOWED_TAGS), attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
                     link_rel="noopener")


def _texts(obj: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    out = dict(obj)
    for key in keys:
        value = out.get(key)
        if isinstance(value, str):
            out[key] = clean(value)
    return out


def _choices(value: Any) -> Any:
    return [clean(c) if isinstance(c, str) else c for c in value] if isinstance(value, list) else value


def _question(question: Mapping[str, Any]) -> dict[str, Any]:
    out = _texts(question, (*QUESTION_TEXTS, "link"))
    if "choices" in out:
        out["choices"] = _choices(out["choices"])
    translations = out.get("translations")
    if isinstance(translations, Mapping):
        out["translations"] = {
            lang: ({**_texts(entry, (*QUESTION_TEXTS, "link")), **(
                {"choices": _choices(entry["choices"])} if "choices" in entry else {})}
                if isinstance(entry, Mapping) else entry)
            for lang, entry in translations.items()}
    return out


def stored_texts(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body with every text the real service cleans as it will store it (the rest as given)."""
    out = dict(body)
    questions = body.get("questions")
    if isinstance(questions, list):
        out["questions"] = [_question(q) if isinstance(q, Mapping) else q for q in questions]
    appearance = body.get("appearance")
    if isinstance(appearance, Mapping):
        out["appearance"] = _texts(appearance, APPEARANCE_TEXTS)
    translations = body.get("translations")
    if isinstance(translations, Mapping):
        out["translations"] = {lang: _texts(entry, SURVEY_TRANSLATION_TEXTS) if isinstance(entry, Mapping) else entry
                               for lang, entry in translations.items()}
    return out


def _differences(before: Any, after: Any, path: str, out: dict[str, str]) -> None:
    if isinstance(before, str) and isinstance(after, str):
        if before != after:
            out[path] = after
    elif isinstance(before, Mapping) and isinstance(after, Mapping):
        for key, value in before.items():
            _differences(value, after.get(key), f"{path}.{key}" if path else str(key), out)
    elif isinstance(before, list) and isinstance(after, list):
        for index, (old, new) in enumerate(zip(before, after, strict=False)):
            _differences(old, new, f"{path}[{index}]", out)


def rewrites(body: Mapping[str, Any]) -> dict[str, str]:
    """Field paths (``questions[0].choices[2]``) whose stored text will differ from the body's, with that text."""
    out: dict[str, str] = {}
    _differences(dict(body), stored_texts(body), "", out)
    return out


STORED_AS_LIMIT = 160


def stored_as(text: str) -> str:
    """The note shown where the service will store other text than typed: ``stored as: "…"``."""
    shown = text if len(text) <= STORED_AS_LIMIT else text[:STORED_AS_LIMIT - 1] + "…"
    return f'the service cleans HTML here; stored as: "{shown}"'
