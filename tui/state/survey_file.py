"""A survey as a file: JSON (or YAML) an operator edits in their own editor or keeps in a repository.

The file holds what the question editor edits (its payload: branching by
question index, dates as ISO 8601) plus the survey's ``id`` when it exists. It is
checked with the editor's own rules (``check_survey_write``) and an unknown key is
a problem too, so a typo never disappears silently. Applying a file sends only the
fields that differ from the server's survey (a PATCH), or the whole survey when
the file has no id (a create).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from tui.api.errors import WriteValidationError
from tui.api.models.surveys import Survey
from tui.api.survey_rules import with_companions
from tui.api.writes import check_survey_write, survey_notes
from tui.state.survey_draft import EDITED_SURVEY_FIELDS, SurveyDraft, stored, top_level

FILE_FIELDS = ("id", *EDITED_SURVEY_FIELDS, "questions")
MAX_FILE_CHARS = 8 * 1024 * 1024
MAX_DEPTH = 64
"""Deepest nesting of lists and objects a survey file may have (a survey needs about ten levels)."""
MAX_VALUES = 1_000_000
MAX_TEXT_CHARS = 16 * 1024 * 1024
"""Values and characters of text a file may expand to: YAML aliases repeat a value without copying it in the
file (nine levels of ten aliases are a billion values), and every later step would copy them out."""
ERROR_PREFIX = {"json": "// ", "yaml": "# "}
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"?')
"""A JSON string, to its end (or to the end of the text when it is never closed): its brackets are not nesting."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class SurveyFileError(ValueError):
    """The file cannot be read, or breaks the editor's rules; ``problems`` maps field paths to messages."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        super().__init__("; ".join(f"{path}: {message}" for path, message in self.problems.items()))


def _too_deep() -> SurveyFileError:
    return SurveyFileError({"(file)": f"nested deeper than {MAX_DEPTH} levels"})


def document(survey: Survey) -> dict[str, Any]:
    """The file's content for a survey: its id, then every field the editor edits, as the editor would send it."""
    return {"id": survey.id, **SurveyDraft(survey).payload()}


def yaml_available() -> bool:
    try:
        import yaml  # type: ignore[import-untyped, unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def dumps(doc: Mapping[str, Any], fmt: str = "json") -> str:
    if fmt == "yaml":
        import yaml

        return str(yaml.safe_dump(dict(doc), sort_keys=False, allow_unicode=True))
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def with_errors(text: str, problems: Mapping[str, str], fmt: str = "json") -> str:
    """The file again, with its problems as comment lines at the top (they are dropped when it is read)."""
    prefix = ERROR_PREFIX.get(fmt, "// ")
    lines = [f"{prefix}watchdeck: fix these and save, or empty the file to give up:"]
    lines += [f"{prefix}  {path}: {message}" for path, message in problems.items()]
    body = "\n".join(line for line in text.splitlines() if not line.startswith(prefix.strip()))
    return "\n".join(lines) + "\n" + body + ("\n" if not body.endswith("\n") else "")


def _json_nests_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON text opens more than ``limit`` arrays and objects inside one another (brackets in strings not
    counted), found without parsing it: the parser would first recurse that deep, up to the interpreter's limit."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) > limit


def _yaml_nests_deeper_than(text: str, limit: int) -> bool:
    """Whether YAML text opens more than ``limit`` sequences and mappings inside one another, found from the
    parser's events (made without recursion) before the document is built: building recurses once per level, up to
    the interpreter's limit. Raises ``yaml.YAMLError`` for text that is not YAML."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


def loads(text: str, fmt: str = "json") -> dict[str, Any]:
    """Parse a survey file; SurveyFileError names what is wrong (with the line, for a syntax error).

    Size, nesting and what YAML aliases expand to are bounded: a hostile file is bad input, like any other.
    """
    if len(text) > MAX_FILE_CHARS:
        raise SurveyFileError({"(file)": f"larger than {MAX_FILE_CHARS // (1024 * 1024)} MB"})
    comment = ERROR_PREFIX.get(fmt, "// ").strip()
    body = "\n".join("" if line.lstrip().startswith(comment) else line for line in text.splitlines())
    if fmt == "yaml":
        import yaml

        try:
            if _yaml_nests_deeper_than(body, MAX_DEPTH):
                raise _too_deep()
            value = yaml.safe_load(body)
        except yaml.YAMLError as err:
            raise SurveyFileError({"(file)": f"not valid YAML: {err}"}) from None
    else:
        if _json_nests_deeper_than(body, MAX_DEPTH):
            raise _too_deep()
        try:
            value = json.loads(body)
        except json.JSONDecodeError as err:
            raise SurveyFileError({"(file)": f"not valid JSON: {err.msg} at line {err.lineno}, "
                                             f"column {err.colno}"}) from None
    check_bounds(value)
    if not isinstance(value, dict):
        raise SurveyFileError({"(file)": "must be one object (a survey)"})
    return value


def check_bounds(value: Any) -> None:
    """SurveyFileError when ``value`` nests deeper than ``MAX_DEPTH`` or expands past ``MAX_VALUES``/``MAX_TEXT_CHARS``.

    Walked without recursion, counting a value each time it is reached (an alias's target each time it is used),
    and stopped at the first limit passed.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    values = chars = 0
    while stack:
        item, depth = stack.pop()
        values += 1
        if depth > MAX_DEPTH and isinstance(item, dict | list):
            raise _too_deep()
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, dict):
            stack.extend((key, depth + 1) for key in item)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        if values > MAX_VALUES or chars > MAX_TEXT_CHARS:
            raise SurveyFileError({"(file)": "expands to more than a survey can hold (YAML aliases?)"})


def validate(doc: Mapping[str, Any], existing: Mapping[str, Any] | None = None,
             unchanged: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The editor's rules on a file's survey; returns the body to send (without the id) or raises SurveyFileError.

    ``existing`` is the server's survey where it has been read (the rules that depend on it are skipped before).
    ``unchanged`` holds the fields whose value the server already has: the rules judge what the file changes, so
    a problem there is not a refusal (see :func:`check`).
    """
    return check(doc, existing, unchanged)[0]


def check(doc: Mapping[str, Any], existing: Mapping[str, Any] | None = None,
          unchanged: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The body to send and the notes to show first, or SurveyFileError for what the file changes that breaks a rule.

    A problem in a field the server already holds as the file has it is kept, as a note ("kept as the server
    holds it"): a survey stored through another client (a ``startswith`` match type) can still have its name
    changed from a file. The notes also say where the service will store other text than the file's, unknown
    keys, and watchdeck's own checks (:func:`tui.api.writes.survey_notes`).
    """
    problems: dict[str, str] = {}
    unknown = [key for key in doc if key not in FILE_FIELDS]
    for key in unknown:
        problems[key] = "unknown field (a typo? the fields are: " + ", ".join(FILE_FIELDS) + ")"
    survey_id = doc.get("id")
    if survey_id is not None and (not isinstance(survey_id, str) or not survey_id.strip()):
        problems["id"] = "must be the survey's id (text), or left out to create a survey"
    body = {key: value for key, value in doc.items() if key in FILE_FIELDS and key != "id"}
    creating = survey_id is None
    try:
        check_survey_write(body, creating=creating, existing=existing)
    except WriteValidationError as err:
        problems.update(err.problems)
    notes = survey_notes(body, creating=creating, existing=existing)
    held = unchanged or {}
    for path in list(problems):
        field_name = top_level(path)
        if field_name in held and field_name in body and held[field_name] == body[field_name]:
            notes[path] = f"kept as the server holds it, though it breaks a rule: {problems.pop(path)}"
    if problems:
        raise SurveyFileError(problems)
    return body, notes


@dataclass
class Plan:
    """What applying a file does: create or PATCH, the fields sent, a diff to show first, and notes to say."""

    survey_id: str | None
    send: dict[str, Any]
    diff: list[str] = field(default_factory=list)
    existing: dict[str, Any] | None = None  # the server's survey, for the rules checked again before sending
    notes: dict[str, str] = field(default_factory=dict)  # path -> what is said before sending (never refused)

    @property
    def creating(self) -> bool:
        return self.survey_id is None

    @property
    def empty(self) -> bool:
        return not self.creating and not self.send

    def note_lines(self) -> list[str]:
        """``note: path: message`` for each note, those of the fields the file changes first."""
        ordered = sorted(self.notes.items(), key=lambda item: top_level(item[0]) not in self.send)
        return [f"note: {path}: {message}" for path, message in ordered]


def plan(doc: Mapping[str, Any], current: Survey | None) -> Plan:
    """The fields that differ from ``current`` (all of them when creating) and the diff of the two files."""
    existing = stored(current) if current is not None else None
    if current is None:
        body, notes = check(doc, existing)
        return Plan(None, body, unified_diff({}, dict(doc), "(new survey)"), notes=notes)
    before = document(current)
    body, notes = check(doc, existing, before)
    changed = with_companions({key: value for key, value in body.items() if before.get(key) != value}, body)
    after = {**before, **changed}
    return Plan(current.id, changed, unified_diff(before, after, current.name or current.id), existing, notes)


def unified_diff(before: Mapping[str, Any], after: Mapping[str, Any], name: str) -> list[str]:
    """``-``/``+`` lines of the two files as JSON, three lines of context (empty when nothing differs)."""
    old = dumps(before).splitlines() if before else []
    new = dumps(after).splitlines()
    return list(difflib.unified_diff(old, new, fromfile=f"server: {name}", tofile=f"file: {name}", lineterm=""))
