"""A branch to a question that does not exist is said in words, whatever shape the server sent it in."""

from __future__ import annotations

from typing import Any

import pytest

from tui.api.models.surveys import Survey
from tui.screens.survey_preview import next_step
from tui.widgets.survey_detail import branching_arrows


def _question(branching: dict[str, Any]) -> Any:
    survey = Survey.model_validate({"id": "s", "name": "n", "type": "popover", "questions": [
        {"type": "single_choice", "question": "q", "choices": ["a", "b"], "branching": branching}]})
    return survey.questions[0]


@pytest.mark.parametrize(("branching", "expected"), [
    ({"type": "specific_question", "index": 99}, "→ question 100 (index 99), which does not exist"),
    # a question the models cannot read keeps its branching raw; it must still be read, not "unknown ''"
    ({"type": "specific_question", "index": 99.5}, "→ question 99.5, which does not exist"),
    ({"type": "specific_question"}, "→ no question (the target is missing)"),
])
def test_a_branch_to_a_missing_question_says_so(branching: dict[str, Any], expected: str) -> None:
    assert branching_arrows(_question(branching), 0, 1) == [expected]


def test_response_branches_to_a_missing_question_say_so() -> None:
    arrows = branching_arrows(_question({"type": "response_based", "responseValues": {"0": 99}}), 0, 1)
    assert arrows == ["'a' → question 100 (index 99), which does not exist"]


def test_the_preview_says_where_a_broken_branch_goes() -> None:
    questions = [{"type": "open", "question": "q", "branching": {"type": "specific_question", "index": 99}}]
    target, _ = next_step(questions, 0)
    assert target == "question 100 (index 99), which does not exist"
