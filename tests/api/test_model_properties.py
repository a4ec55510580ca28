"""Property tests of the read models.

* Any JSON object offered as a survey or an export either parses or raises
  pydantic's ValidationError, never anything else (a TypeError from a
  discriminator, a crash in a date parser...): the client turns that one error
  into a per-item problem of a page.
* Every question kind and every branching kind round-trips: what was read is
  what is sent back, unknown keys included, so editing one field of a survey
  never drops what a newer server added.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.ids import uid
from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.api.models.common import parse_items
from tui.api.models.questions import (
    BranchingAdapter,
    ChoiceQuestion,
    EndBranching,
    InvalidQuestion,
    LinkQuestion,
    NextQuestionBranching,
    OpenQuestion,
    QuestionAdapter,
    RatingQuestion,
    ResponseBasedBranching,
    SpecificQuestionBranching,
    UnknownBranching,
    UnknownQuestion,
)
from tui.api.models.surveys import Survey

S = uid("survey")

QUICK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8) | st.floats(
    allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)

SURVEY_KEYS = [*sorted(Survey.model_fields), "schedule", "feature_flag_keys"]
EXPORT_KEYS = [*sorted(BatchExport.model_fields), "schema", "hogql_query", "filters", "timezone"]
RUN_KEYS = sorted(BatchExportRun.model_fields)
QUESTION_KEYS = ["type", "question", "id", "description", "descriptionContentType", "optional", "buttonText",
                 "branching", "link", "display", "scale", "lowerBoundLabel", "upperBoundLabel", "choices",
                 "shuffleOptions", "hasOpenChoice"]
KINDS = ["open", "link", "rating", "single_choice", "multiple_choice", "ranking", 3, None]
BRANCH_KINDS = ["next_question", "end", "response_based", "specific_question", "later", ["x"], None]


def _objects(keys: list[str], special: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts mixing the model's own keys (with any value, or a likely one) and random keys."""
    values = {key: special.get(key, json_values) | json_values for key in keys}
    known = st.fixed_dictionaries({}, optional=values)  # type: ignore[arg-type]
    return st.tuples(known, st.dictionaries(st.text(max_size=6), json_values, max_size=3)).map(
        lambda pair: {**pair[1], **pair[0]}
    )


branchings = _objects(["type", "index", "responseValues"], {
    "type": st.sampled_from(BRANCH_KINDS),
    "index": st.integers(-3, 5),
    "responseValues": st.dictionaries(st.text(max_size=3), st.integers(0, 4) | st.just("end"), max_size=3),
})
questions = _objects(QUESTION_KEYS, {
    "type": st.sampled_from(KINDS),
    "question": st.text(max_size=10),
    "branching": branchings,
    "scale": st.sampled_from([3, 5, 7, 10]),
    "choices": st.lists(st.text(max_size=5), max_size=3),
})
dates = st.datetimes().map(lambda d: d.isoformat()) | st.sampled_from(["2026-01-01T00:00:00Z", "yesterday", ""])
surveys = _objects(SURVEY_KEYS, {
    "id": st.uuids().map(str),
    "questions": st.lists(questions, max_size=4) | json_values,
    "start_date": dates, "end_date": dates, "created_at": dates,
    "linked_flag": st.dictionaries(st.sampled_from(["id", "key", "filters", "active"]), json_values),
    "created_by": st.dictionaries(st.sampled_from(["id", "email", "first_name", "hedgehog_config"]), json_values),
})
runs = _objects(RUN_KEYS, {"id": st.uuids().map(str), "status": st.text(max_size=12), "created_at": dates,
                           "records_completed": st.integers(-(2**31), 2**31)})
exports = _objects(EXPORT_KEYS, {
    "id": st.uuids().map(str),
    "destination": st.dictionaries(st.sampled_from(["type", "config", "integration"]), json_values),
    "latest_runs": st.lists(runs, max_size=2) | json_values,
    "interval": st.sampled_from(["hour", "day", "every 7 minutes", "fortnight"]),
    "start_at": dates, "end_at": dates,
})


@QUICK
@given(surveys)
def test_any_object_as_survey_parses_or_raises_validation_error(raw: dict[str, Any]) -> None:
    try:
        survey = Survey.model_validate(raw)
    except ValidationError:
        return
    # what parsed is usable: questions are models, dumping works
    for question in survey.questions or []:
        assert isinstance(question.type, str) or isinstance(question, InvalidQuestion)
    survey.model_dump(mode="json", exclude_unset=True, by_alias=True)


@QUICK
@given(exports)
def test_any_object_as_export_parses_or_raises_validation_error(raw: dict[str, Any]) -> None:
    try:
        export = BatchExport.model_validate(raw)
    except ValidationError:
        return
    assert export.query is None or isinstance(export.query, str)
    export.model_dump(mode="json", exclude_unset=True, by_alias=True)


@QUICK
@given(st.lists(runs | json_values, max_size=5))
def test_a_bad_item_fails_alone(items: list[Any]) -> None:
    good, bad = parse_items(items, BatchExportRun)
    assert len(good) + len(bad) == len(items)
    assert all(0 <= problem.index < len(items) and problem.message for problem in bad)


# --------------------------------------------------------------------------- round trips

texts = st.text(max_size=12)
KNOWN_KEYS = {*QUESTION_KEYS, "index", "responseValues"}
extra_keys = st.dictionaries(st.text(min_size=1, max_size=8).filter(lambda k: k not in KNOWN_KEYS), json_values,
                             max_size=3)


def _with_extras(base: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(base, extra_keys).map(lambda pair: {**pair[1], **pair[0]})


BRANCHING_STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "next_question": _with_extras(st.just({"type": "next_question"})),
    "end": _with_extras(st.just({"type": "end"})),
    "response_based": _with_extras(st.fixed_dictionaries({
        "type": st.just("response_based"),
        "responseValues": st.dictionaries(texts, st.integers(0, 20) | st.just("end"), max_size=4)})),
    "specific_question": _with_extras(st.fixed_dictionaries({"type": st.just("specific_question"),
                                                             "index": st.integers(0, 20)})),
    "unknown": _with_extras(st.fixed_dictionaries({"type": st.sampled_from(["jump_to_url", "random"])})),
}
BRANCHING_MODELS = {"next_question": NextQuestionBranching, "end": EndBranching,
                    "response_based": ResponseBasedBranching, "specific_question": SpecificQuestionBranching,
                    "unknown": UnknownBranching}
common = {"question": texts, "id": st.uuids().map(str), "description": texts,
          "descriptionContentType": st.sampled_from(["text", "html"]), "optional": st.booleans(),
          "buttonText": texts, "branching": st.one_of(*BRANCHING_STRATEGIES.values())}
QUESTION_STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "open": st.fixed_dictionaries({"type": st.just("open")}, optional=common),
    "link": st.fixed_dictionaries({"type": st.just("link")}, optional={**common, "link": texts}),
    "rating": st.fixed_dictionaries({"type": st.just("rating")}, optional={
        **common, "display": st.sampled_from(["number", "emoji", "stars"]), "scale": st.integers(0, 11),
        "lowerBoundLabel": texts, "upperBoundLabel": texts}),
    "single_choice": st.fixed_dictionaries({"type": st.just("single_choice")}, optional={
        **common, "choices": st.lists(texts, max_size=4), "shuffleOptions": st.booleans(),
        "hasOpenChoice": st.booleans()}),
    "multiple_choice": st.fixed_dictionaries({"type": st.just("multiple_choice")}, optional={
        **common, "choices": st.lists(texts, max_size=4), "shuffleOptions": st.booleans()}),
    "unknown": st.fixed_dictionaries({"type": st.sampled_from(["ranking", "matrix"])}, optional=common),
}
QUESTION_MODELS = {"open": OpenQuestion, "link": LinkQuestion, "rating": RatingQuestion,
                   "single_choice": ChoiceQuestion, "multiple_choice": ChoiceQuestion, "unknown": UnknownQuestion}


@pytest.mark.parametrize("kind", sorted(BRANCHING_STRATEGIES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_branching_kind_round_trips(kind: str, data: st.DataObject) -> None:
    raw = data.draw(BRANCHING_STRATEGIES[kind])
    model = BranchingAdapter.validate_python(raw)
    assert type(model) is BRANCHING_MODELS[kind]
    assert model.model_dump(exclude_unset=True, by_alias=True) == raw


@pytest.mark.parametrize("kind", sorted(QUESTION_STRATEGIES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_question_kind_round_trips(kind: str, data: st.DataObject) -> None:
    raw = data.draw(_with_extras(QUESTION_STRATEGIES[kind]))
    model = QuestionAdapter.validate_python(raw)
    assert type(model) is QUESTION_MODELS[kind]
    assert model.model_dump(exclude_unset=True, by_alias=True) == raw
    # and inside a survey, through JSON, as the client sends it back
    survey = Survey.model_validate({"id": S, "questions": [raw]})
    assert survey.model_dump(mode="json", exclude_unset=True, by_alias=True) == {"id": S, "questions": [raw]}


def test_malformed_question_round_trips_verbatim() -> None:
    raw = {"type": "rating", "question": "How?", "scale": "ten", "branching": {"type": "end"}, "new": [1]}
    survey = Survey.model_validate({"id": S, "questions": [raw, {"type": "open", "question": "Why?"}]})
    assert survey.questions is not None
    bad, good = survey.questions
    assert isinstance(bad, InvalidQuestion) and isinstance(bad, UnknownQuestion) and bad.problem
    assert isinstance(good, OpenQuestion)
    assert survey.model_dump(mode="json", exclude_unset=True, by_alias=True)["questions"][0] == raw


def test_a_malformed_survey_fails_alone_in_its_page() -> None:
    from tui.api.models.common import parse_page

    page = parse_page({"count": 3, "next": None, "results": [{"id": uid("a")}, {"name": "no id"}, {"id": uid("c")}]},
                      Survey)
    assert [s.id for s in page.results] == [uid("a"), uid("c")]
    assert len(page.errors) == 1 and page.errors[0].index == 1 and "id" in page.errors[0].message


@pytest.mark.parametrize(("sent", "read"), [("en", "en"), ("de-CH", "de-CH"), (None, None), ("", None), (7, None),
                                             ({"x": 1}, None)])
def test_base_language_is_read_tolerantly(sent: Any, read: str | None) -> None:
    """Newest servers send base_language ("en" by default); older ones leave it out: no value hides a survey."""
    assert Survey.model_validate({"id": S, "name": "n", "base_language": sent}).base_language == read
    assert Survey.model_validate({"id": S, "name": "n"}).base_language is None
