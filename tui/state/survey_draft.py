"""The editable model behind the survey editor: pure Python, no Textual, no I/O beyond the draft files.

Why a separate model rather than reading the widgets at save time:

* **Stable identity.** Questions are tracked by a local key (``q1``, ``q2`` ...), never by position.
  Branching stores target *keys*; indexes are computed only when the payload is serialised, so moving
  a question keeps every branch pointing at the same question, and deleting one marks the branches
  that pointed at it (``!deleted:<text>``) instead of silently retargeting them.
* **Nothing lost on a round trip.** Each question starts from the server's own dump
  (``model_dump(mode="json", exclude_unset=True, by_alias=True)``) and only the keys the operator
  edits are overlaid, so unknown keys (translations, validation rules, ...) and the question ``id``
  (the real service hangs responses on it) go back exactly as they came.
* **Minimal PATCH.** The baseline payload is computed once from the survey as loaded, through the very
  same code; :meth:`SurveyDraft.changes` is the set of top-level keys whose value differs.
* **Drafts.** The whole editable state serialises to JSON (:meth:`SurveyDraft.to_json`), so unsaved
  edits survive a crash or a quit (:class:`tui.state.io.draft_files.DraftStore`).
* **What is shown cleaned is kept as it is.** A server text the editor shows without its control characters
  (:func:`tui.widgets.cleaned_note.clean_survey_draft`) is recorded as :class:`Shown`; while the field still
  shows that text, the payload (and a stored draft) carries the server's own value, so an untouched field is
  never sent and a questions array sent for another edit carries it byte for byte. A field the operator edits
  saves what it shows.
"""

from __future__ import annotations

import contextlib
import copy
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tui.api.errors import WriteValidationError
from tui.api.models.questions import QuestionType
from tui.api.models.surveys import Survey, SurveyStatus
from tui.api.survey_rules import with_companions
from tui.api.writes import INT32_MAX, check_survey_write, iso, parse_datetime, survey_notes, valid_link
from tui.text.clean import Shown

DRAFT_VERSION = 1
END = "end"
BRANCHING_LOOP = "Your survey contains an endless cycle. Please revisit your branching rules."
DELETED = "!deleted:"  # a branch target whose question was deleted; the rest is the question's text
MISSING = "!missing:"  # a branch target the server sent that points at no question; the rest is its JSON

QUESTION_KINDS: dict[str, str] = {
    QuestionType.OPEN.value: "Open text",
    QuestionType.LINK.value: "Link",
    QuestionType.RATING.value: "Rating",
    QuestionType.SINGLE_CHOICE.value: "Single choice",
    QuestionType.MULTIPLE_CHOICE.value: "Multiple choice",
}
SURVEY_TYPES: tuple[str, ...] = ("popover", "widget", "external_survey", "api")
BRANCH_TYPES: dict[str, str] = {
    "next_question": "Next question",
    "end": "End the survey",
    "specific_question": "A specific question",
    "response_based": "Depends on the response",
}
RESPONSE_BASED_KINDS = (QuestionType.RATING, QuestionType.SINGLE_CHOICE)

# Rating ranges as the real service's UI keys them (PostHog surveys: negative/neutral/positive,
# NPS detractors/passives/promoters), with the values each covers.
RATING_RANGES: dict[int, list[tuple[str, range]]] = {
    3: [("negative", range(1, 2)), ("neutral", range(2, 3)), ("positive", range(3, 4))],
    5: [("negative", range(1, 3)), ("neutral", range(3, 4)), ("positive", range(4, 6))],
    7: [("negative", range(1, 4)), ("neutral", range(4, 5)), ("positive", range(5, 8))],
    10: [("detractors", range(0, 7)), ("passives", range(7, 9)), ("promoters", range(9, 11))],
}
RANGE_KEYS = frozenset(name for ranges in RATING_RANGES.values() for name, _ in ranges)

# What a form shows when the server did not send the key. Setting a key the question did not have
# back to its default removes it again, so merely looking at a field never adds it to the payload.
QUESTION_DEFAULTS: dict[str, Any] = {
    "description": "",
    "descriptionContentType": "text",
    "optional": False,
    "buttonText": "",
    "link": "",
    "lowerBoundLabel": "",
    "upperBoundLabel": "",
    "shuffleOptions": False,
    "hasOpenChoice": False,
}

# Survey fields the form edits, grouped by the kind of input each uses.
TEXT_FIELDS = ("name", "description", "base_language")
CHOICE_FIELDS = ("type", "schedule", "response_sampling_interval_type")
DATE_FIELDS = ("start_date", "end_date", "response_sampling_start_date")
INT_FIELDS = ("responses_limit", "iteration_count", "iteration_frequency_days", "linked_flag_id", "targeting_flag_id",
              "linked_insight_id", "response_sampling_interval", "response_sampling_limit")
JSON_FIELDS = ("targeting_flag_filters", "appearance", "conditions", "translations", "response_sampling_daily_limits",
               "form_content")
BOOL_FIELDS = ("remove_targeting_flag", "archived", "enable_partial_responses", "enable_iframe_embedding")
OBJECT_JSON_FIELDS = ("targeting_flag_filters", "appearance", "translations")
# Keys of appearance and conditions the form types one by one (``appearance.position``), with the kind of
# input each takes; the other keys of both objects stay in their JSON fields.
TYPED_SETTINGS: dict[str, str] = {
    "conditions.url": "text",
    "conditions.urlMatchType": "choice",
    "conditions.seenSurveyWaitPeriodInDays": "int",
    "appearance.position": "choice",
    "appearance.surveyPopupDelaySeconds": "number",
    "appearance.thankYouMessageHeader": "text",
    "appearance.thankYouMessageDescription": "text",
    "appearance.backgroundColor": "text",
    "appearance.borderColor": "text",
    "appearance.textColor": "text",
    "appearance.submitButtonColor": "text",
    "appearance.submitButtonTextColor": "text",
    "appearance.ratingButtonColor": "text",
    "appearance.ratingButtonActiveColor": "text",
}
TYPED_PARENTS = ("appearance", "conditions")
# One-line and multi-line texts of the settings form, for the cleaning of control characters.
ONE_LINE_SETTINGS = ("name", "description", "base_language", *DATE_FIELDS, *INT_FIELDS,
                     *(path for path, kind in TYPED_SETTINGS.items() if kind != "choice"))
EDITED_SURVEY_FIELDS = (
    "name", "description", "type", "schedule", "start_date", "end_date", "responses_limit", "iteration_count",
    "iteration_frequency_days", "linked_flag_id", "targeting_flag_id", "targeting_flag_filters", "appearance",
    "conditions", "remove_targeting_flag", "archived", "enable_partial_responses", "enable_iframe_embedding",
    "linked_insight_id", "base_language", "translations", "response_sampling_start_date",
    "response_sampling_interval_type", "response_sampling_interval", "response_sampling_limit",
    "response_sampling_daily_limits", "form_content",
)
"""Every survey field a file holds and the draft carries. ``form_content`` (the newest service's hosted form) has
no field in the form: it is carried as the server holds it, and edited in a file (``E``, ``surveys apply``)."""


def rating_values(scale: Any) -> list[int]:
    """The values a respondent can pick: NPS (10) is rendered 0..10, every other scale 1..N."""
    if not isinstance(scale, int) or isinstance(scale, bool) or scale <= 0:
        return []
    return list(range(0, 11)) if scale == 10 else list(range(1, scale + 1))


def rating_range_key(scale: Any, value: int) -> str | None:
    for name, covered in RATING_RANGES.get(scale, []):
        if value in covered:
            return name
    return None


def _json_text(value: Any) -> str:
    return "" if value is None else json.dumps(value, indent=2, ensure_ascii=False)


def _typed_value(text: str, kind: str) -> Any:
    """A typed setting as sent: numbers as numbers when they read as one (else the text, which the rules refuse)."""
    stripped = text.strip()
    if kind in ("int", "number"):
        try:
            return int(stripped)
        except ValueError:
            pass
        if kind == "number":
            try:
                return float(stripped)
            except ValueError:
                pass
        return stripped
    return stripped if kind == "choice" else text


def json_error(text: str) -> tuple[Any, str | None]:
    """Parse JSON text; the error names line:col so the operator can find it."""
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as err:
        return None, f"invalid JSON at {err.lineno}:{err.colno}: {err.msg}"


def as_saved(value: Any, kept: Shown | None) -> Any:
    """What a field saves (:meth:`Shown.saved`); a field whose server text was clean saves what it holds."""
    return kept.saved(value) if kept is not None else value


# --------------------------------------------------------------------------- branching


@dataclass
class BranchDraft:
    """A question's branching, with targets as question keys (or ``end`` / a ``!`` marker)."""

    type: str
    target: str = ""
    responses: dict[str, str] = field(default_factory=dict)
    mode: str = "values"  # rating response-based: "values" (1..N) or "ranges" (negative/neutral/positive)
    raw: dict[str, Any] = field(default_factory=dict)  # the server's object, so extras survive

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "target": self.target, "responses": dict(self.responses), "mode": self.mode,
                "raw": self.raw}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BranchDraft:
        return cls(type=str(data.get("type", "next_question")), target=str(data.get("target", "")),
                   responses={str(k): str(v) for k, v in dict(data.get("responses") or {}).items()},
                   mode=str(data.get("mode", "values")), raw=dict(data.get("raw") or {}))


# --------------------------------------------------------------------------- questions


@dataclass
class QuestionDraft:
    """One question: the server's JSON (``data``) with the operator's edits overlaid, plus branching."""

    key: str
    data: dict[str, Any]
    branch: BranchDraft | None = None
    base_keys: frozenset[str] = frozenset()  # keys the question had when the editor got it
    kept: dict[str, Shown] = field(default_factory=dict)  # keys whose server text is shown cleaned

    def saved(self, name: str) -> Any:
        """The key's value as it is sent (:func:`as_saved`)."""
        return as_saved(self.data.get(name), self.kept.get(name))

    def saved_data(self) -> dict[str, Any]:
        return {name: as_saved(value, self.kept.get(name)) for name, value in self.data.items()}

    @property
    def kind(self) -> str:
        return str(self.data.get("type", ""))

    @property
    def text(self) -> str:
        value = self.data.get("question")
        return value if isinstance(value, str) else ""

    def get(self, name: str) -> Any:
        """The value a form shows: the question's own, else the default."""
        return self.data.get(name, QUESTION_DEFAULTS.get(name))

    def set(self, name: str, value: Any) -> bool:
        """Overlay one edited key; True when something changed.

        A key the question never had that is set back to its default is removed again, so an
        untouched field never shows up in the payload.
        """
        if self.get(name) == value and (name in self.data or name in QUESTION_DEFAULTS):
            return False
        if name not in self.base_keys and name in QUESTION_DEFAULTS and value == QUESTION_DEFAULTS[name]:
            self.data.pop(name, None)
        else:
            self.data[name] = value
        return True

    @property
    def choices(self) -> list[str]:
        value = self.data.get("choices")
        return [c if isinstance(c, str) else str(c) for c in value] if isinstance(value, list) else []

    def response_keys(self) -> list[tuple[str, str]]:
        """(key, label) of every response a response-based branch can map, in display order."""
        if self.kind == QuestionType.SINGLE_CHOICE:
            return [(str(i), text) for i, text in enumerate(self.choices)]
        if self.kind == QuestionType.RATING:
            scale = self.data.get("scale")
            if self.branch is not None and self.branch.mode == "ranges":
                return [(name, f"{name} ({covered[0]}-{covered[-1]})" if len(covered) > 1 else f"{name} ({covered[0]})")
                        for name, covered in (RATING_RANGES.get(scale, []) if isinstance(scale, int) else [])]
            return [(str(v), str(v)) for v in rating_values(scale)]
        return []

    def prune_responses(self) -> None:
        """Drop response rows that no longer exist (scale, mode or choices changed)."""
        if self.branch is None or self.branch.type != "response_based":
            return
        valid = {key for key, _ in self.response_keys()}
        self.branch.responses = {k: v for k, v in self.branch.responses.items() if k in valid}

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "data": self.saved_data(), "base_keys": sorted(self.base_keys),
                "branch": self.branch.to_json() if self.branch else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QuestionDraft:
        branch = data.get("branch")
        return cls(key=str(data["key"]), data=dict(data.get("data") or {}),
                   branch=BranchDraft.from_json(branch) if isinstance(branch, Mapping) else None,
                   base_keys=frozenset(data.get("base_keys") or ()))


def new_question_data(kind: str) -> dict[str, Any]:
    """The JSON a new question of ``kind`` starts from (no ``id``: the server assigns one)."""
    data: dict[str, Any] = {"type": str(kind), "question": ""}
    if kind == QuestionType.LINK:
        data["link"] = ""
    elif kind == QuestionType.RATING:
        data.update({"display": "number", "scale": 5, "lowerBoundLabel": "", "upperBoundLabel": ""})
    elif kind in (QuestionType.SINGLE_CHOICE, QuestionType.MULTIPLE_CHOICE):
        data["choices"] = ["", ""]
    return data


# --------------------------------------------------------------------------- the survey


class SurveyDraft:
    """Everything the editor edits, plus the baseline it is compared against."""

    def __init__(self, survey: Survey | None, *, draft_id: str | None = None) -> None:
        self.survey = survey
        self.draft_id = draft_id or (survey.id if survey is not None else f"new-{uuid.uuid4()}")
        self._counter = 0
        self.form: dict[str, Any] = {}
        self.questions: list[QuestionDraft] = []
        # paths (``name``, ``q3.choices``) whose server text the editor cleaned of control characters
        self.cleaned: set[str] = set()
        self.kept: dict[str, Shown] = {}  # form fields whose server text is shown cleaned
        self._load(survey)
        self.baseline: dict[str, Any] = self.payload() if survey is not None else {}
        # The survey as stored, for the real service's rules that depend on it (saved translation keys).
        self.existing: dict[str, Any] = stored(survey) if survey is not None else {}

    @classmethod
    def new_from(cls, body: Mapping[str, Any]) -> SurveyDraft:
        """A new survey (nothing sent yet) filled from a create body: a template, or a copy of a survey."""
        draft = cls(None)
        draft._load(Survey.model_validate({**body, "id": ""}))
        return draft

    @property
    def creating(self) -> bool:
        return self.survey is None

    def _next_key(self) -> str:
        self._counter += 1
        return f"q{self._counter}"

    # ------------------------------------------------------------------ loading

    def _load(self, survey: Survey | None) -> None:
        if survey is None:
            self.form = {"name": "", "description": "", "base_language": "", "type": "popover", "schedule": None,
                         "response_sampling_interval_type": None}
            self.form.update({k: "" for k in (*DATE_FIELDS, *INT_FIELDS, *JSON_FIELDS, *TYPED_SETTINGS)})
            self.form.update({k: False for k in BOOL_FIELDS})
            return
        dump = survey.model_dump(mode="json", exclude_unset=True, by_alias=True)
        linked = survey.linked_flag_id if survey.linked_flag_id is not None else (
            survey.linked_flag.id if survey.linked_flag else None)
        targeting = survey.targeting_flag_id if survey.targeting_flag_id is not None else (
            survey.targeting_flag.id if survey.targeting_flag else None)
        # The real service never echoes targeting_flag_filters: the audience is the targeting flag's filters.
        audience = dump.get("targeting_flag_filters")
        if audience is None and survey.targeting_flag is not None and survey.targeting_flag.filters:
            audience = survey.targeting_flag.filters
        self.form = {
            "name": survey.name or "",
            "description": survey.description or "",
            "type": survey.type,
            "schedule": survey.schedule,
            "response_sampling_interval_type": survey.response_sampling_interval_type,
            "base_language": survey.base_language or "",
            "targeting_flag_filters": _json_text(audience),
            "remove_targeting_flag": bool(survey.remove_targeting_flag),
            "archived": bool(survey.archived),
            "enable_partial_responses": bool(survey.enable_partial_responses),
            "enable_iframe_embedding": bool(survey.enable_iframe_embedding),
        }
        for name in DATE_FIELDS:
            self.form[name] = dump.get(name) or ""
        ints = {"linked_flag_id": linked, "targeting_flag_id": targeting}
        for name in INT_FIELDS:
            value = ints[name] if name in ints else getattr(survey, name)
            self.form[name] = "" if value is None else str(value)
        for name in ("translations", "response_sampling_daily_limits", "form_content"):
            self.form[name] = _json_text(dump.get(name))
        for parent in TYPED_PARENTS:
            self._split_typed(parent, dump.get(parent))

        raw_questions = dump.get("questions") or []
        self.questions = [
            QuestionDraft(key=self._next_key(), data=dict(q), base_keys=frozenset(q))
            for q in raw_questions
            if isinstance(q, dict)
        ]
        keys = [q.key for q in self.questions]
        for q in self.questions:
            q.branch = self._branch_from_server(q.data.get("branching"), keys, q)

    def _split_typed(self, parent: str, value: Any) -> None:
        """The typed keys of ``appearance``/``conditions`` into their own fields, the rest into the JSON field."""
        rest = dict(value) if isinstance(value, dict) else value
        for path in TYPED_SETTINGS:
            head, _, key = path.partition(".")
            if head != parent:
                continue
            typed = rest.get(key) if isinstance(rest, dict) else None
            # An empty text stays in the JSON field: an empty typed field means "leave the key out".
            if isinstance(typed, str | int | float) and not isinstance(typed, bool) and typed != "" \
                    and isinstance(rest, dict):
                self.form[path] = str(typed)
                rest.pop(key)
            else:
                self.form[path] = ""
        self.form[parent] = _json_text(rest)

    @staticmethod
    def _target_from_server(value: Any, keys: list[str]) -> str:
        if value == END:
            return END
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(keys):
            return keys[value]
        return MISSING + json.dumps(value)

    def _branch_from_server(self, raw: Any, keys: list[str], question: QuestionDraft) -> BranchDraft | None:
        if not isinstance(raw, dict):
            return None
        btype = str(raw.get("type", ""))
        branch = BranchDraft(type=btype, raw=copy.deepcopy(raw))
        if btype == "specific_question":
            branch.target = self._target_from_server(raw.get("index"), keys)
        elif btype == "response_based":
            values = raw.get("responseValues")
            if isinstance(values, dict):
                branch.responses = {str(k): self._target_from_server(v, keys) for k, v in values.items()}
                if question.kind == QuestionType.RATING and any(k in RANGE_KEYS for k in values):
                    branch.mode = "ranges"
        return branch

    # ------------------------------------------------------------------ question operations

    def index_of(self, key: str) -> int:
        for i, q in enumerate(self.questions):
            if q.key == key:
                return i
        raise KeyError(key)

    def question(self, key: str) -> QuestionDraft:
        return self.questions[self.index_of(key)]

    def add_question(self, kind: str, after: str | None = None) -> QuestionDraft:
        data = new_question_data(kind)
        q = QuestionDraft(key=self._next_key(), data=data, base_keys=frozenset(data))
        position = self.index_of(after) + 1 if after is not None else len(self.questions)
        self.questions.insert(position, q)
        return q

    def duplicate_question(self, key: str) -> QuestionDraft:
        """A copy placed right after the original; without ``id`` so the server makes a new one."""
        source = self.question(key)
        data = copy.deepcopy(source.data)
        data.pop("id", None)
        copy_ = QuestionDraft(key=self._next_key(), data=data, base_keys=source.base_keys - {"id"},
                              branch=copy.deepcopy(source.branch), kept=dict(source.kept))
        self.questions.insert(self.index_of(key) + 1, copy_)
        return copy_

    def delete_question(self, key: str) -> QuestionDraft:
        """Remove a question; branches that pointed at it are marked, never silently retargeted."""
        gone = self.questions.pop(self.index_of(key))
        marker = DELETED + (gone.text or "(untitled)")
        for q in self.questions:
            b = q.branch
            if b is None:
                continue
            if b.target == key:
                b.target = marker
            b.responses = {k: (marker if v == key else v) for k, v in b.responses.items()}
        return gone

    def move_question(self, key: str, delta: int) -> bool:
        i = self.index_of(key)
        j = i + delta
        if not 0 <= j < len(self.questions):
            return False
        self.questions[i], self.questions[j] = self.questions[j], self.questions[i]
        return True

    def add_choice(self, key: str, text: str = "") -> None:
        q = self.question(key)
        q.set("choices", [*q.choices, text])

    def remove_choice(self, key: str, index: int) -> None:
        """Remove a choice; response rows keyed by choice index follow their choice."""
        q = self.question(key)
        choices = q.choices
        if not 0 <= index < len(choices):
            return
        del choices[index]
        q.set("choices", choices)
        self._renumber_choice_responses(q, lambda i: None if i == index else (i - 1 if i > index else i))

    def move_choice(self, key: str, index: int, delta: int) -> bool:
        q = self.question(key)
        choices = q.choices
        j = index + delta
        if not (0 <= index < len(choices) and 0 <= j < len(choices)):
            return False
        choices[index], choices[j] = choices[j], choices[index]
        q.set("choices", choices)
        self._renumber_choice_responses(q, lambda i: j if i == index else (index if i == j else i))
        return True

    @staticmethod
    def _renumber_choice_responses(q: QuestionDraft, remap: Any) -> None:
        b = q.branch
        if b is None or b.type != "response_based" or q.kind != QuestionType.SINGLE_CHOICE:
            return
        moved: dict[str, str] = {}
        for k, v in b.responses.items():
            if k.isdigit():
                new = remap(int(k))
                if new is not None:
                    moved[str(new)] = v
            else:
                moved[k] = v
        b.responses = dict(sorted(moved.items(), key=lambda kv: (not kv[0].isdigit(), int(kv[0]) if kv[0].isdigit()
                                                                  else 0, kv[0])))

    def set_branch_type(self, key: str, btype: str) -> None:
        q = self.question(key)
        if q.branch is not None and q.branch.type == btype:
            return
        raw = q.branch.raw if q.branch is not None else {}
        q.branch = BranchDraft(type=btype, raw=raw)
        if btype == "response_based" and q.kind == QuestionType.RATING:
            q.branch.mode = "values"

    def targets_for(self, key: str) -> list[tuple[str, str]]:
        """(key, label) of the questions a branch of question ``key`` may point at: every other one."""
        return [(q.key, f"{i + 1}. {q.text or '(untitled)'}") for i, q in enumerate(self.questions) if q.key != key]

    # ------------------------------------------------------------------ serialising

    def _resolve(self, target: str, positions: dict[str, int]) -> Any:
        if target == END:
            return END
        if target in positions:
            return positions[target]
        if target.startswith(MISSING):
            with contextlib.suppress(ValueError):
                return json.loads(target[len(MISSING):])
        return -1

    def _branch_json(self, q: QuestionDraft, positions: dict[str, int]) -> dict[str, Any]:
        b = q.branch
        assert b is not None
        out: dict[str, Any] = copy.deepcopy(b.raw) if b.raw.get("type") == b.type else {"type": b.type}
        if b.type == "specific_question":
            out["index"] = self._resolve(b.target, positions)
        elif b.type == "response_based":
            out["responseValues"] = {k: self._resolve(v, positions) for k, v in b.responses.items()}
        return out

    def question_payload(self, q: QuestionDraft, positions: dict[str, int]) -> dict[str, Any]:
        out = q.saved_data()
        if q.branch is None:
            out.pop("branching", None)
        else:
            out["branching"] = self._branch_json(q, positions)
        return out

    def questions_payload(self) -> list[dict[str, Any]]:
        positions = {q.key: i for i, q in enumerate(self.questions)}
        return [self.question_payload(q, positions) for q in self.questions]

    def field_problems(self) -> dict[str, str]:
        """Problems check_survey_write cannot see: unparseable text in the survey fields."""
        problems: dict[str, str] = {}
        for name in INT_FIELDS:
            text = str(self.form_value(name) or "").strip()
            if text and not (text.isdigit() or (text.startswith("-") and text[1:].isdigit())):
                problems[name] = "must be a whole number"
            elif text and int(text) > INT32_MAX:
                problems[name] = f"must be at most {INT32_MAX}"
        for name in DATE_FIELDS:
            text = str(self.form_value(name) or "").strip()
            if text and parse_datetime(text) is None:
                problems[name] = "must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z"
        for name in JSON_FIELDS:
            value, error = json_error(str(self.form_value(name) or ""))
            if error:
                problems[name] = error
            elif name in OBJECT_JSON_FIELDS and value is not None and not isinstance(value, dict):
                problems[name] = "must be a JSON object"
        return problems

    def form_value(self, name: str) -> Any:
        """A form field's value as it is sent (:func:`as_saved`): the form holds what the field shows."""
        return as_saved(self.form.get(name), self.kept.get(name))

    def _value(self, name: str) -> Any:
        raw = self.form_value(name)
        if name in INT_FIELDS:
            text = str(raw or "").strip()
            try:
                return int(text) if text else None
            except ValueError:
                return text
        if name in DATE_FIELDS:
            text = str(raw or "").strip()
            parsed = parse_datetime(text)
            return iso(parsed) if parsed else (text or None)
        if name in JSON_FIELDS:
            value, error = json_error(str(raw or ""))
            if error:
                return raw
            return self._with_typed(name, value) if name in TYPED_PARENTS else value
        if name in BOOL_FIELDS:
            return bool(raw)
        if name == "base_language":
            return str(raw or "").strip() or None
        return raw

    def _with_typed(self, parent: str, value: Any) -> Any:
        """The JSON field's object with the typed keys laid over it; an empty typed field leaves its key out."""
        typed: dict[str, Any] = {}
        for path, kind in TYPED_SETTINGS.items():
            head, _, key = path.partition(".")
            text = self.form_value(path)
            if head != parent or not isinstance(text, str) or not text.strip():
                continue
            typed[key] = _typed_value(text, kind)
        if not typed:
            return value
        if value is None:
            return typed
        return {**value, **typed} if isinstance(value, dict) else value

    def typed_conflicts(self) -> dict[str, str]:
        """Keys of the JSON fields (``appearance``, ``conditions``) that a typed field also sets: the typed field
        wins, said at the JSON field before saving."""
        out: dict[str, str] = {}
        for parent in TYPED_PARENTS:
            value, error = json_error(str(self.form_value(parent) or ""))
            if error or not isinstance(value, dict):
                continue
            said = []
            for path in TYPED_SETTINGS:
                head, _, key = path.partition(".")
                text = self.form_value(path)
                if head == parent and key in value and isinstance(text, str) and text.strip():
                    said.append(f"{json.dumps(key)} is also set by the {path} field, whose "
                                f"{json.dumps(text.strip())} is saved (this key's {json.dumps(value[key])} is not)")
            if said:
                out[parent] = "; ".join(said)
        return out

    def notes(self) -> dict[str, str]:
        """What is said beside the fields without stopping a save: texts the service will store cleaned of HTML,
        unknown keys, watchdeck's own checks (:func:`tui.api.writes.survey_notes`) and typed fields that win over
        a JSON key."""
        body = self.payload()
        notes = survey_notes(body, creating=self.creating, existing=self.existing or None)
        for path, message in self.typed_conflicts().items():
            notes[path] = f"{notes[path]}; {message}" if path in notes else message
        return notes

    def payload(self) -> dict[str, Any]:
        """Every field the editor owns, as it would be sent."""
        body = {name: self._value(name) for name in EDITED_SURVEY_FIELDS}
        body["questions"] = self.questions_payload()
        return body

    def changes(self) -> dict[str, Any]:
        """What to send: the whole body when creating (empty fields left out), else only changed keys."""
        body = self.payload()
        if self.creating:
            return {k: v for k, v in body.items()
                    if k in ("name", "type", "questions") or (v not in (None, "", False))}
        return with_companions({k: v for k, v in body.items() if k not in self.baseline or self.baseline[k] != v},
                               body)

    @property
    def dirty(self) -> bool:
        if self.creating:
            empty = SurveyDraft(None)
            return bool(self.questions) or any(self.form.get(k) != empty.form.get(k) for k in self.form)
        return bool(self.changes())

    def problems(self) -> dict[str, str]:
        """Every problem, keyed by payload path (``name``, ``questions[2].branching.index``)."""
        problems: dict[str, str] = {}
        body = self.payload()
        try:
            check_survey_write(body, creating=self.creating, existing=self.existing)
        except WriteValidationError as err:
            problems.update(err.problems)
        problems.update(self.field_problems())
        for i, q in enumerate(self.questions):
            path = f"questions[{i}]"
            link = q.saved("link")
            if q.kind == QuestionType.LINK and valid_link(link) and str(link).strip().startswith("http:"):
                problems[f"{path}.link"] = "must be https:// or mailto: (the real service refuses http)"
            b = q.branch
            if b is None:
                continue
            if b.type == "specific_question":
                message = self._target_problem(b.target, q.key)
                if message:
                    problems[f"{path}.branching.index"] = message
            elif b.type == "response_based" and q.kind in RESPONSE_BASED_KINDS:
                for k, v in b.responses.items():
                    message = self._target_problem(v, q.key, allow_end=True)
                    if message:
                        problems[f"{path}.branching.responseValues.{k}"] = message
        for path, message in self._loop_problems().items():
            problems.setdefault(path, message)
        return problems

    def _branch_edges(self, i: int) -> list[tuple[int, str]]:
        """Where question ``i`` can lead: (question index, problem path) pairs; the end is no edge."""
        q, n = self.questions[i], len(self.questions)
        index = {other.key: k for k, other in enumerate(self.questions)}
        path = f"questions[{i}].branching"
        nxt = [(i + 1, f"{path}.type")] if i + 1 < n else []
        b = q.branch
        if b is None or b.type == "next_question":
            return nxt
        if b.type == "end":
            return []
        if b.type == "specific_question":
            return [(index[b.target], f"{path}.index")] if b.target in index else []
        if b.type == "response_based":  # only the answers' own targets, as the real editor's check counts them
            return [(index[v], f"{path}.responseValues.{k}") for k, v in b.responses.items() if v in index]
        return nxt

    def _loop_problems(self) -> dict[str, str]:
        """Branching that can go round forever; refused as the real service's own editor refuses it.

        The edges are those of its check: a specific question, the targets of response-based answers, and
        the next question where a question has no branching; a cycle anywhere counts.
        """
        state: dict[int, int] = {}  # 1 on the path being walked, 2 done
        found: dict[str, str] = {}

        def walk(i: int) -> None:
            state[i] = 1
            for target, path in self._branch_edges(i):
                if state.get(target) == 1:
                    found.setdefault(path, BRANCHING_LOOP)
                elif target not in state:
                    walk(target)
            state[i] = 2

        for start in range(len(self.questions)):
            if start not in state:
                walk(start)
        return found

    def _target_problem(self, target: str, own_key: str, *, allow_end: bool = False) -> str | None:
        if allow_end and target == END:
            return None
        if target.startswith(DELETED):
            return f"pointed at deleted question {target[len(DELETED):]!r}: choose another"
        if target.startswith(MISSING):
            return f"pointed at no question ({target[len(MISSING):]}): choose another"
        if target == own_key:
            return "a question cannot branch to itself"
        if not target:
            return "choose a question"
        if target not in {q.key for q in self.questions}:
            return "choose a question"
        return None

    def reworded_live_questions(self, now: datetime) -> list[int]:
        """1-based numbers of questions of a running survey whose wording or choices changed.

        Responses already collected answered the old wording; the editor says so before a save.
        """
        survey = self.survey
        if survey is None or survey.status_at(now) is not SurveyStatus.RUNNING:
            return []
        before = {q.get("id"): q for q in self.baseline.get("questions") or [] if isinstance(q, dict) and q.get("id")}
        changed = []
        for i, q in enumerate(self.questions):
            old = before.get(q.data.get("id"))
            if old is not None and any(old.get(k) != q.saved(k) for k in ("question", "choices")):
                changed.append(i + 1)
        return changed

    def blocking_problems(self) -> dict[str, str]:
        """Problems that stop a save: all when creating, else only those in keys that would be sent."""
        problems = self.problems()
        if self.creating:
            return problems
        sent = set(self.changes())
        return {path: msg for path, msg in problems.items() if top_level(path) in sent}

    # ------------------------------------------------------------------ drafts

    def to_json(self, saved_at: datetime) -> dict[str, Any]:
        return {
            "version": DRAFT_VERSION,
            "draft_id": self.draft_id,
            "survey_id": self.survey.id if self.survey is not None else None,
            "saved_at": iso(saved_at),
            "form": {name: self.form_value(name) for name in self.form},
            "counter": self._counter,
            "questions": [q.to_json() for q in self.questions],
        }

    def carried_onto(self, fresh: SurveyDraft, fields: Iterable[str]) -> SurveyDraft:
        """``fresh`` (a draft of the survey as the server holds it now) with this draft's values of ``fields``
        (top-level payload fields: the operator's edits); every other field stays the server's. ``fresh`` takes
        this draft's id; its baseline is the server's survey, so its :meth:`changes` are the carried fields that
        differ from what the server holds."""
        keep = set(fields)
        mine_questions = {q.key for q in self.questions}
        for name, value in self.form.items():
            if top_level(name) not in keep:
                continue
            fresh.form[name] = copy.deepcopy(value)
            if name in self.kept:
                fresh.kept[name] = self.kept[name]
            else:
                fresh.kept.pop(name, None)
            if name in self.cleaned:
                fresh.cleaned.add(name)
            else:
                fresh.cleaned.discard(name)
        if "questions" in keep:
            theirs_questions = {q.key for q in fresh.questions}
            fresh.cleaned = {path for path in fresh.cleaned if path.split(".")[0] not in theirs_questions}
            fresh.cleaned |= {path for path in self.cleaned if path.split(".")[0] in mine_questions}
            fresh.questions = copy.deepcopy(self.questions)
            fresh._counter = max(fresh._counter, self._counter)
        fresh.draft_id = self.draft_id
        return fresh

    def restore(self, data: Mapping[str, Any]) -> None:
        """Take the edits of a saved draft; the baseline stays the survey as loaded now."""
        form = data.get("form")
        if isinstance(form, Mapping):
            self.form.update({k: v for k, v in form.items() if k in self.form})
        self.questions = [QuestionDraft.from_json(q) for q in data.get("questions") or [] if isinstance(q, Mapping)]
        counter = data.get("counter")
        used = [int(q.key[1:]) for q in self.questions if q.key[1:].isdigit()]
        self._counter = max([counter if isinstance(counter, int) else 0, *used, self._counter])


def stored(survey: Survey) -> dict[str, Any]:
    """A survey as the server sent it (unknown keys included): what the real service's rules compare with."""
    return survey.model_dump(mode="json", exclude_unset=True, by_alias=True)


def top_level(path: str) -> str:
    """``questions[2].branching.index`` -> ``questions``; ``destination__config`` -> ``destination``."""
    for sep in ("[", ".", "__"):
        path = path.split(sep, 1)[0]
    return path


def question_path(path: str) -> tuple[int, str] | None:
    """``questions[2].branching.index`` -> (2, ``branching.index``); None for survey-level paths."""
    if not path.startswith("questions["):
        return None
    close = path.find("]")
    try:
        index = int(path[len("questions["):close])
    except ValueError:
        return None
    return index, path[close + 1:].lstrip(".")
