"""The models read what the real service may send, not only what our sandbox sends.

Objects are generated from the real service's published component schemas
(``shared/spec/real-openapi/``) with hypothesis-jsonschema, including extra keys,
odd but valid date-times, every enum value, and null where the service sends null.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tests.api.openapi_schemas import EXPORTS_FILE, SURVEYS_FILE, component
from tests.ids import uid
from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.api.models.common import parse_page
from tui.api.models.questions import InvalidQuestion
from tui.api.models.surveys import Survey

E = uid("export")

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
FEW = settings(max_examples=12, deadline=None, suppress_health_check=_QUIET)
FEWER = settings(max_examples=4, deadline=None, suppress_health_check=_QUIET)


def _page_of(file: str, name: str, most: int = 2) -> dict[str, Any]:
    """A page schema with at most ``most`` results: the items are what matter, and big pages are slow to make."""
    schema = component(file, name)
    schema["properties"]["results"]["maxItems"] = most
    return schema


def _objects(file: str, name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Objects of the named component, its document read when the test first draws (not when every worker collects)."""
    return st.deferred(lambda: from_schema(component(file, name)))


def _pages(file: str, name: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.deferred(lambda: from_schema(_page_of(file, name)))


def _unchanged_extras(model_extras: dict[str, Any], raw: dict[str, Any]) -> None:
    for key, value in model_extras.items():
        assert raw[key] == value


@FEW
@given(_objects(SURVEYS_FILE, "Survey"))
def test_real_survey_parses(raw: dict[str, Any]) -> None:
    survey = Survey.model_validate(raw)
    assert survey.id == raw["id"]
    assert survey.name == raw["name"]
    # fields the spec does not know (schedule, feature_flag_keys, user_access_level...) are kept
    _unchanged_extras(survey.extra_fields, raw)
    assert "feature_flag_keys" in survey.extra_fields
    if isinstance(raw.get("questions"), list):
        assert survey.questions is not None and len(survey.questions) == len(raw["questions"])
    # a survey read from the real service can be written back field for field
    assert Survey.model_validate(survey.model_dump(mode="json", exclude_unset=True, by_alias=True)).id == survey.id


@pytest.mark.slow
@FEW
@given(_objects(EXPORTS_FILE, "BatchExport"))
def test_real_batch_export_parses(raw: dict[str, Any]) -> None:
    export = BatchExport.model_validate(raw)
    assert export.id == raw["id"]
    assert export.interval == raw["interval"]  # an interval we do not know stays its raw string
    assert len(export.latest_runs) == len(raw["latest_runs"])
    # the real name of the query field is hogql_query on the real service
    if raw.get("hogql_query"):
        assert export.query == raw["hogql_query"]
    _unchanged_extras(export.extra_fields, raw)


@FEW
@given(_objects(EXPORTS_FILE, "BatchExportRun"))
def test_real_batch_export_run_parses(raw: dict[str, Any]) -> None:
    run = BatchExportRun.model_validate(raw)
    assert run.status == raw["status"]  # FailedBilling too: kept as the raw string
    assert run.records_completed == raw.get("records_completed")
    _unchanged_extras(run.extra_fields, raw)


@FEWER
@given(_pages(SURVEYS_FILE, "PaginatedSurveyList"))
def test_real_survey_page_parses(raw: dict[str, Any]) -> None:
    page = parse_page(raw, Survey)
    assert page.errors == []
    assert [s.id for s in page.results] == [s["id"] for s in raw["results"]]
    assert page.count == raw["count"]


@FEWER
@given(_pages(EXPORTS_FILE, "PaginatedBatchExportList"))
def test_real_batch_export_page_parses(raw: dict[str, Any]) -> None:
    page = parse_page(raw, BatchExport)
    assert page.errors == []
    assert len(page.results) == len(raw["results"])
    assert page.next == raw.get("next")


@FEWER
@given(_pages(EXPORTS_FILE, "PaginatedBatchExportRunList"))
def test_real_run_page_parses(raw: dict[str, Any]) -> None:
    page = parse_page(raw, BatchExportRun)
    assert page.errors == []
    assert page.count is None  # cursor pagination: no count
    assert [r.status for r in page.results] == [r["status"] for r in raw["results"]]


def test_real_field_names_are_read() -> None:
    """The shapes the real service answers with where the spec is silent, one by one."""
    older = BatchExport.model_validate({"id": E, "schema": {"fields": [], "hogql_query": "SELECT 1 FROM events"}})
    assert older.query == "SELECT 1 FROM events"
    newest = BatchExport.model_validate({"id": E, "hogql_query": "SELECT 2 FROM events", "schema": None})
    assert newest.query == "SELECT 2 FROM events"
    spec = BatchExport.model_validate({"id": E, "native_query": "SELECT 3", "hogql_query": "SELECT 2"})
    assert spec.query == "SELECT 3"
    run = BatchExportRun.model_validate({"id": uid("run"), "status": "FailedBilling", "data_interval_start": None,
                                         "records_failed": 2, "bytes_exported": 10})
    assert run.status == "FailedBilling" and run.extra_fields == {"records_failed": 2, "bytes_exported": 10}
    odd = BatchExport.model_validate({"id": E, "interval": "every 10 minutes", "model": "hogql",
                                      "destination": {"type": "Databricks", "config": "??", "integration": 4}})
    assert odd.interval == "every 10 minutes" and odd.interval_seconds == 600
    assert odd.model == "hogql" and odd.destination.type == "Databricks" and odd.destination.config is None
    survey = Survey.model_validate({"id": uid("survey"), "type": "full_screen", "linked_flag": None,
                                    "later_field": "kept",
                                    "questions": [{"type": "ranking", "question": "Rank"},
                                                  {"type": "rating", "question": "How?", "scale": "ten"}]})
    assert survey.type == "full_screen" and survey.extra_fields == {"later_field": "kept"}
    assert survey.questions is not None
    assert survey.questions[0].type == "ranking"
    bad = survey.questions[1]
    assert isinstance(bad, InvalidQuestion) and "scale" in bad.problem
