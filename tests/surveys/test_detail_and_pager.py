"""Branching arrows, the question outline, and the pager's offset rules (no server needed)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Tree

from tui.api.models.common import Page
from tui.api.models.surveys import Survey, SurveyStatus
from tui.state.survey_list import PageResult, ResponsesCounts, SurveyPager, SurveyRow
from tui.widgets.survey_detail import SurveyDetail, branching_arrows, survey_settings_text

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def survey(**fields: Any) -> Survey:
    return Survey.model_validate({"id": "s1", "name": "S", **fields})


QUESTIONS = [
    {"type": "rating", "question": "Score?", "scale": 5, "display": "number",
     "branching": {"type": "response_based", "responseValues": {"1": 3, "2": 3, "3": 3, "4": 1, "5": "end"}}},
    {"type": "single_choice", "question": "Why?", "choices": ["Yes", "No"],
     "branching": {"type": "response_based", "responseValues": {"0": 2, "1": "end"}}},
    {"type": "open", "question": "More?", "branching": {"type": "specific_question", "index": 3}},
    {"type": "rating", "question": "NPS", "scale": 10,
     "branching": {"type": "response_based", "responseValues": {"detractors": 1, "promoters": "end"}}},
    {"type": "open", "question": "Bye", "branching": {"type": "end"}},
    {"type": "open", "question": "Next", "branching": {"type": "next_question"}},
]


def test_branching_arrows_read_like_the_issue_says() -> None:
    s = survey(questions=QUESTIONS)
    questions = s.questions or []
    arrows = [branching_arrows(q, i, len(questions)) for i, q in enumerate(questions)]
    assert arrows[0] == ["1–3 → Q4", "4 → Q2", "5 → end"]
    assert arrows[1] == ["'Yes' → Q3", "'No' → end"]
    assert arrows[2] == ["→ Q4"]
    assert arrows[3] == ["0–6 (detractors) → Q2", "9–10 (promoters) → end"]
    assert arrows[4] == ["→ end"]
    assert arrows[5] == ["→ next (end)"]


def test_settings_are_plain_text() -> None:
    hostile = "[bold]x[/bold] [@click=app.quit]"
    s = survey(questions=[{"type": "single_choice", "question": hostile, "choices": [hostile]}],
               appearance={"position": hostile}, conditions={"url": "\x1b[31mred"},
               targeting_flag={"key": "k", "active": True, "filters": {"groups": []}}, form_content="x")

    text = survey_settings_text(s).plain
    assert hostile in text and "\x1b" not in text and '"url": "red"' in text
    assert '"form_content": "x"' in text  # unknown fields are shown too
    assert "key                 k" in text


async def test_detail_widget_renders_hostile_survey() -> None:
    hostile = "[bold]x[/bold] [@click=app.quit]"
    s = survey(questions=[{"type": "single_choice", "question": hostile, "choices": [hostile]}])

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield SurveyDetail()

    async with Host().run_test() as pilot:
        pilot.app.query_one(SurveyDetail).show(s, NOW, 3)
        await pilot.pause()
        tree = pilot.app.query_one(Tree)
        assert [str(n.label) for n in tree.root.children] == [f"Q1 single_choice · {hostile}"]
        assert pilot.app.is_running


def _page(ids: list[str], count: int, more: bool) -> Page[Survey]:
    return Page[Survey](count=count, next="x" if more else None,
                        results=[Survey.model_validate({"id": i, "name": i}) for i in ids])


def test_pager_offsets_dedup_and_local_delete() -> None:
    pager = SurveyPager(page_size=2)
    assert pager.accept(PageResult(0, 0, _page(["a", "b"], 5, True))) is not None
    assert pager.next_offset == 2 and pager.total == 5
    # a stale page (older query) is ignored
    assert pager.accept(PageResult(-1, 2, _page(["x"], 5, True))) is None
    # a survey inserted on the server shifts "b" into the next page: no duplicate row
    new = pager.accept(PageResult(0, 2, _page(["b", "c"], 6, True)))
    assert [r.id for r in new or []] == ["c"]
    assert [r.id for r in pager.rows] == ["a", "b", "c"]
    # deleting here moves the offset back so the next page does not skip a survey
    assert pager.remove("a")
    assert pager.next_offset == 3 and pager.total == 5
    pager.accept(PageResult(0, 3, _page(["d", "e"], 5, False)))
    assert pager.exhausted
    pager.reset("q")
    assert pager.rows == [] and pager.search == "q" and not pager.exhausted


def test_row_status_matches_the_model_and_round_trips() -> None:
    for fields, status in (({}, SurveyStatus.DRAFT), ({"start_date": "2026-02-01T00:00:00Z"}, SurveyStatus.RUNNING),
                           ({"start_date": "2026-01-01T00:00:00Z"}, SurveyStatus.RUNNING),
                           ({"start_date": "2026-01-01T00:00:00Z", "end_date": "2026-01-02T00:00:00Z"},
                            SurveyStatus.COMPLETE), ({"archived": True}, SurveyStatus.ARCHIVED)):
        s = survey(**fields, extra_field={"kept": True})
        row = SurveyRow.from_survey(s)
        assert row.status_at(NOW) is s.status_at(NOW) is status
        assert row.survey().extra_fields == {"extra_field": {"kept": True}}


def test_responses_counts_at_most_once_a_minute() -> None:
    elapsed = [1000.0]
    counts = ResponsesCounts(lambda: elapsed[0])
    assert counts.due() and counts.get("a") is None
    assert counts.store({"a": 3}) == {"a"}
    assert not counts.due() and counts.get("a") == 3 and counts.get("b") == 0
    elapsed[0] += 59
    assert not counts.due()
    elapsed[0] += 1
    assert counts.due()
    assert counts.store({"a": 3, "b": 1}) == {"b"}
