"""The verdict's small parts, each pinned where a slip would read as a plausible but wrong figure: when the next
run is due, which freshness target an export has, how the rule is worded, and the service's status groups."""

from __future__ import annotations

from datetime import timedelta

from tui.state.health import _rule_words, due_at, status_group, target_for
from tui.text.words import duration

from .test_health import HOUR, NOW, export


def test_due_at_takes_the_anchor_or_the_next_boundary_of_the_step_and_stops_at_the_end() -> None:
    anchor = NOW + timedelta(minutes=10)
    assert due_at(anchor, 3600, False, None, NOW) == anchor
    assert due_at(None, 3600, False, None, NOW + timedelta(minutes=20)) == NOW + HOUR
    assert due_at(None, 3600, False, None, NOW) == NOW + HOUR, "on a boundary: the next one"
    assert due_at(None, 3600, False, None, NOW).tzinfo == NOW.tzinfo
    assert due_at(anchor, 3600, True, None, NOW) is None and due_at(anchor, None, False, None, NOW) is None
    assert due_at(anchor, 3600, False, NOW, NOW) is None, "the export ended at this very moment"
    end = NOW + timedelta(minutes=5)
    assert due_at(end + HOUR, 3600, False, end, NOW) == end + HOUR, "the run of the last interval, after the end"
    assert due_at(end + HOUR + timedelta(seconds=1), 3600, False, end, NOW) is None


def test_a_target_is_found_by_id_before_name_and_none_without_targets() -> None:
    item = export([])  # id "e1", name "Events to S3"
    assert target_for(item, None) is None and target_for(item, {}) is None
    assert target_for(item, {"Events to S3": 600.0}) == 600.0
    assert target_for(item, {"e1": 300.0, "Events to S3": 600.0}) == 300.0
    assert target_for(item, {"e1": 0.0, "Events to S3": 600.0}) == 0.0, "a target of 0 is a target"
    assert target_for(item, {"other": 1.0}) is None


def test_the_rule_is_worded_from_the_target_or_the_intervals_and_grace() -> None:
    assert _rule_words(5400.0, 2.0, 600.0, 3600) == "freshness target 1h30m"
    assert _rule_words(None, 2.0, 600.0, None) == "interval unknown: no overdue rule"
    assert _rule_words(None, 2.0, 600.0, 3600) == "2 intervals + 10m grace (2h10m)"
    assert _rule_words(None, 1.5, 90.0, 300) == "1.5 intervals + 1m grace (9m)"
    assert duration(90061) == "1d01h" and duration(0) == "0s" and duration(-5) == "0s"


def test_the_status_groups_are_the_services_own() -> None:
    """As the service's UI groups them: Terminated and TimedOut count as cancelled, ContinuedAsNew as running."""
    groups = {status: status_group(status) for status in (
        "Starting", "Running", "ContinuedAsNew", "Completed", "Failed", "FailedRetryable", "FailedBilling",
        "Cancelled", "Terminated", "TimedOut", "SomethingNew")}
    assert groups == {
        "Starting": "running", "Running": "running", "ContinuedAsNew": "running", "Completed": "completed",
        "Failed": "failed", "FailedRetryable": "failed", "FailedBilling": "failed", "Cancelled": "cancelled",
        "Terminated": "cancelled", "TimedOut": "cancelled", "SomethingNew": "unknown",
    }
