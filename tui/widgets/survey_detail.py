"""Every field of one survey, and its questions as an outline with branching drawn as arrows.

Everything here is built from rich ``Text`` pieces of cleaned server strings
(tui.text.clean and tui.look.render), never from markup, because survey names, questions, choices and
flag keys are written by whoever can edit a survey.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static, Tree

from tui.api.models.questions import (
    BranchingAdapter,
    ChoiceQuestion,
    EndBranching,
    LinkQuestion,
    NextQuestionBranching,
    QuestionBase,
    RatingQuestion,
    ResponseBasedBranching,
    SpecificQuestionBranching,
)
from tui.api.models.surveys import Flag, Survey, SurveyStats, survey_notes
from tui.look.palette import Tone
from tui.look.render import plain
from tui.state.survey_stats import rates_text, trend_text
from tui.text.clean import clean
from tui.text.words import ago
from tui.widgets.survey_table import status_style

# Named response buckets the real service uses for rating branching, as value ranges per scale.
_BUCKETS: dict[int, dict[str, tuple[int, int]]] = {
    3: {"negative": (1, 1), "neutral": (2, 2), "positive": (3, 3)},
    5: {"negative": (1, 2), "neutral": (3, 3), "positive": (4, 5)},
    7: {"negative": (1, 3), "neutral": (4, 4), "positive": (5, 7)},
    10: {"detractors": (0, 6), "passives": (7, 8), "promoters": (9, 10)},
}


def target_label(target: Any, count: int) -> str:
    """``end``, ``Q3`` (1-based), or where it points and that no such question exists."""
    if target == "end":
        return "end"
    if isinstance(target, int) and not isinstance(target, bool):
        if 0 <= target < count:
            return f"Q{target + 1}"
        return f"question {target + 1} (index {target}), which does not exist"
    if isinstance(target, str) and target.isdigit():
        return target_label(int(target), count)
    if target is None:
        return "no question (the target is missing)"
    return f"question {clean(repr(target), limit=40)}, which does not exist"


def _read_branching(raw: Mapping[str, Any]) -> Any:
    """A question that could not be read keeps its branching raw: read it alone, or keep the mapping."""
    try:
        return BranchingAdapter.validate_python(raw)
    except ValidationError:
        return raw


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def _rating_arrows(question: RatingQuestion, values: Mapping[str, Any], count: int) -> list[str]:
    """Numeric keys with the same target merge into ranges (``1–3 → Q4``); named buckets show their range."""
    numeric: list[tuple[int, Any]] = []
    other: list[str] = []
    buckets = _BUCKETS.get(question.scale or 0, {})
    for key, target in values.items():
        if key.lstrip("-").isdigit():
            numeric.append((int(key), target))
        elif key in buckets:
            low, high = buckets[key]
            other.append(f"{_span(low, high)} ({key}) → {target_label(target, count)}")
        else:
            other.append(f"{clean(repr(key), limit=40)} → {target_label(target, count)}")
    numeric.sort(key=lambda item: item[0])
    arrows: list[str] = []
    start = 0
    while start < len(numeric):
        end = start
        while (end + 1 < len(numeric) and numeric[end + 1][0] == numeric[end][0] + 1
               and numeric[end + 1][1] == numeric[start][1]):
            end += 1
        arrows.append(f"{_span(numeric[start][0], numeric[end][0])} → {target_label(numeric[start][1], count)}")
        start = end + 1
    return arrows + other


def _choice_arrows(question: ChoiceQuestion, values: Mapping[str, Any], count: int) -> list[str]:
    """``'Yes' → Q2``: keys are choice indexes (or the choice text itself)."""
    arrows: list[str] = []
    for key, target in values.items():
        label = key
        if key.isdigit() and int(key) < len(question.choices):
            label = question.choices[int(key)]
        arrows.append(f"{clean(repr(label), limit=60)} → {target_label(target, count)}")
    return arrows


def branching_arrows(question: QuestionBase, index: int, count: int) -> list[str]:
    """The arrows of one question's branching, in words an operator reads at a glance."""
    branching = question.branching
    if branching is None:
        return []
    if isinstance(branching, Mapping):
        branching = _read_branching(branching)
    if isinstance(branching, Mapping):
        kind = branching.get("type")
        if kind == "specific_question":
            return [f"→ {target_label(branching.get('index'), count)}"]
        if kind == "response_based" and isinstance(branching.get("responseValues"), Mapping):
            return [f"{clean(repr(k), limit=40)} → {target_label(v, count)}"
                    for k, v in branching["responseValues"].items()]
        return [f"→ ? (branching {clean(repr(kind), limit=40)} this version cannot read)"]
    if isinstance(branching, EndBranching):
        return ["→ end"]
    if isinstance(branching, NextQuestionBranching):
        return [f"→ next ({target_label(index + 1, count)})" if index + 1 < count else "→ next (end)"]
    if isinstance(branching, SpecificQuestionBranching):
        return [f"→ {target_label(branching.index, count)}"]
    if isinstance(branching, ResponseBasedBranching):
        values = {str(k): v for k, v in branching.responseValues.items()}
        if isinstance(question, RatingQuestion):
            return _rating_arrows(question, values, count)
        if isinstance(question, ChoiceQuestion):
            return _choice_arrows(question, values, count)
        return [f"{clean(repr(k), limit=40)} → {target_label(v, count)}" for k, v in values.items()]
    return [f"→ ? (unknown branching {clean(repr(getattr(branching, 'type', None)), limit=40)})"]


def question_kind(question: QuestionBase) -> str:
    if isinstance(question, RatingQuestion):
        scale = question.scale
        low = 0 if scale == 10 else 1
        rng = f" {low}–{scale}" if scale else ""
        return f"rating{rng}{' ' + clean(question.display, limit=20) if question.display else ''}"
    return clean(question.type, limit=40)


def _cleaned(value: Any) -> Any:
    """Control characters removed from every string (keys too) before JSON would escape them as ``\\u001b``."""
    if isinstance(value, str):
        return clean(value, oneline=False, limit=2000)
    if isinstance(value, Mapping):
        return {clean(str(k), limit=200): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(v) for v in value]
    return value


def pretty_json(value: Any) -> str:
    """Readable JSON of an arbitrary server object (shown as plain text, not highlighted markup)."""
    if value is None:
        return "null"
    try:
        return json.dumps(_cleaned(value), indent=2, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _field(text: Text, label: str, value: Any, style: str = "") -> None:
    text.append(f"{label:<22}", style="bold")
    text.append_text(plain(value if value not in (None, "") else "—", style, limit=500))
    text.append("\n")


def _when(value: datetime | None, now: datetime) -> str:
    return f"{value.isoformat(timespec='seconds')} ({ago(value, now)})" if value else "—"


def _flag(text: Text, label: str, flag: Flag | None) -> None:
    text.append(f"{label}\n", style="bold underline")
    if flag is None:
        text.append("  none\n", style=Tone.MUTED.style)
        return
    _field(text, "  key", flag.key)
    _field(text, "  name", flag.name)
    _field(text, "  id", flag.id)
    active = "active" if flag.active else "inactive" if flag.active is False else "unknown"
    _field(text, "  state", active + (" (deleted)" if flag.deleted else ""),
           Tone.DONE.style if flag.active else Tone.NOTE.style)
    text.append("  filters\n", style="bold")
    text.append_text(plain(_indent(pretty_json(flag.filters), 4), oneline=False, limit=8000))
    text.append("\n")


def _indent(block: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line for line in block.splitlines())


def stats_line(stats: SurveyStats) -> str | None:
    """``shown 1,204 · dismissed 310 · sent 402``; None when the server sent no counts (the rates have their own
    line: :func:`tui.state.survey_stats.rates_text`)."""
    parts = [f"{label} {n:,}" for label, n in (("shown", stats.count("survey shown")),
                                                  ("dismissed", stats.count("survey dismissed")),
                                                  ("sent", stats.count("survey sent"))) if n is not None]
    return " · ".join(parts) if parts else None


def survey_text(survey: Survey, now: datetime, responses: int | None, stats: SurveyStats | None = None,
                trend: list[int | None] | None = None) -> Text:
    """The survey's identity and schedule (the questions and settings follow in their own widgets)."""
    text = Text(end="")
    status = survey.status_at(now)
    text.append_text(plain(survey.name or "(no name)", "bold", limit=300))
    text.append("  ")
    text.append(status.value, style=status_style(status))
    text.append("\n")
    for note in survey_notes(survey.start_date, survey.end_date, survey.responses_limit, responses, now):
        text.append(f"! {note}\n", style=Tone.NOTE.style)
    if survey.description:
        text.append_text(plain(survey.description, "italic", oneline=False, limit=2000))
        text.append("\n")
    text.append("\n")
    _field(text, "id", survey.id)
    _field(text, "type", survey.type)
    _field(text, "questions", len(survey.questions or []))
    _field(text, "responses", "—" if responses is None else f"{responses:,}")
    if stats is not None:
        _field(text, "stats", stats_line(stats))
        _field(text, "rates", rates_text(stats))
    weekly = trend_text(trend) if trend is not None else None
    if weekly is not None:
        _field(text, "responses per week", weekly)
    _field(text, "created", _when(survey.created_at, now))
    _field(text, "created by", f"{survey.created_by.display_name} <{survey.created_by.email or '—'}>"
           if survey.created_by else None)
    _field(text, "archived", "yes" if survey.archived else "no")
    text.append("\nSchedule\n", style="bold underline")
    _field(text, "schedule", survey.schedule)
    _field(text, "start", _when(survey.start_date, now))
    _field(text, "end", _when(survey.end_date, now))
    _field(text, "responses limit", survey.responses_limit)
    _field(text, "iteration count", survey.iteration_count)
    _field(text, "every (days)", survey.iteration_frequency_days)
    _field(text, "current iteration", survey.current_iteration)
    _field(text, "iteration started", _when(survey.current_iteration_start_date, now))
    dates = ", ".join(clean(d, limit=40) for d in survey.iteration_start_dates or [])
    _field(text, "iteration starts", dates or None)
    if survey.response_sampling_limit or survey.response_sampling_start_date:
        _field(text, "sampling", f"{survey.response_sampling_limit or '—'} responses per "
               f"{survey.response_sampling_interval or 1} {survey.response_sampling_interval_type or 'week'}(s) "
               f"from {_when(survey.response_sampling_start_date, now)}")
    _field(text, "partial responses", None if survey.enable_partial_responses is None
           else "kept" if survey.enable_partial_responses else "not kept")
    _field(text, "iframe embedding", None if survey.enable_iframe_embedding is None
           else "on" if survey.enable_iframe_embedding else "off")
    _field(text, "linked insight", survey.linked_insight_id)
    languages = sorted(survey.translations) if isinstance(survey.translations, dict) else []
    _field(text, "languages", ", ".join([survey.base_language or "en", *(clean(k, limit=20) for k in languages)])
           if languages else survey.base_language)
    return text


def survey_settings_text(survey: Survey) -> Text:
    """Flags, appearance, conditions and any field this version does not know, as readable JSON."""
    text = Text(end="")
    text.append("Flags\n", style="bold underline")
    _flag(text, "linked flag", survey.linked_flag)
    _flag(text, "targeting flag", survey.targeting_flag)
    _flag(text, "internal targeting flag", survey.internal_targeting_flag)
    if survey.targeting_flag_filters is not None:
        text.append("targeting flag filters\n", style="bold")
        text.append_text(plain(_indent(pretty_json(survey.targeting_flag_filters), 2), oneline=False, limit=8000))
        text.append("\n")
    text.append("\nAppearance\n", style="bold underline")
    text.append_text(plain(pretty_json(survey.appearance), oneline=False, limit=8000))
    text.append("\n\nConditions\n", style="bold underline")
    text.append_text(plain(pretty_json(survey.conditions), oneline=False, limit=8000))
    extras = survey.extra_fields
    if extras:
        text.append("\n\nOther fields\n", style="bold underline")
        text.append_text(plain(pretty_json(extras), oneline=False, limit=8000))
    return text


def fill_question_tree(tree: Tree[int], survey: Survey) -> None:
    """Questions as nodes (``Q1 rating 1–5 · How likely…``) with choices, links and branching arrows."""
    tree.clear()
    root = tree.root
    tree.root.set_label(Text(f"Questions ({len(survey.questions or [])})", style="bold"))
    questions = survey.questions or []
    count = len(questions)
    for index, question in enumerate(questions):
        label = Text.assemble((f"Q{index + 1} ", "bold"), (question_kind(question), Tone.ACCENT.style), " · ")
        label.append_text(plain(question.question or "(no text)", limit=300))
        if question.optional:
            label.append(" (optional)", style=Tone.MUTED.style)
        node = root.add(label, data=index, expand=True)
        if question.description:
            node.add_leaf(plain(question.description, "italic", limit=300))
        if isinstance(question, ChoiceQuestion):
            for choice in question.choices:
                node.add_leaf(Text.assemble("• ", plain(choice, limit=200)))
            if question.hasOpenChoice:
                node.add_leaf(Text("• (open choice)", style=Tone.MUTED.style))
        elif isinstance(question, LinkQuestion):
            node.add_leaf(Text.assemble("link ", plain(question.link, "underline", limit=300)))
        elif isinstance(question, RatingQuestion) and (question.lowerBoundLabel or question.upperBoundLabel):
            node.add_leaf(Text.assemble(plain(question.lowerBoundLabel or "—", limit=80), " … ",
                                        plain(question.upperBoundLabel or "—", limit=80)))
        for arrow in branching_arrows(question, index, count):
            node.add_leaf(Text(arrow, style=Tone.BRANCH.style))
    root.expand()


class SurveyDetail(VerticalScroll):
    """The pane under the list: shows the highlighted survey."""

    def compose(self) -> ComposeResult:
        yield Static(Text("No survey selected.", style=Tone.MUTED.style), id="survey-detail-fields")
        tree: Tree[int] = Tree(Text("Questions"), id="survey-detail-questions")
        tree.show_root = True
        tree.auto_expand = False
        tree.display = False
        yield tree
        yield Static("", id="survey-detail-settings")

    def show(self, survey: Survey | None, now: datetime, responses: int | None,
             stats: SurveyStats | None = None, trend: list[int | None] | None = None) -> None:
        fields = self.query_one("#survey-detail-fields", Static)
        tree = self.query_one("#survey-detail-questions", Tree)
        settings = self.query_one("#survey-detail-settings", Static)
        if survey is None:
            fields.update(Text("No survey selected.", style=Tone.MUTED.style))
            settings.update("")
            tree.clear()
            tree.display = False
            return
        fields.update(survey_text(survey, now, responses, stats, trend))
        fill_question_tree(tree, survey)
        tree.display = True
        settings.update(survey_settings_text(survey))
