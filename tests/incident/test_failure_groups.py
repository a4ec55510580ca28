"""Error signatures and failure groups."""

from __future__ import annotations

import pytest

from tui.state.failure_groups import error_signature, group_failures

from .runs import HOUR, run

ACCESS = ("ClientError: An error occurred (AccessDenied) when calling the PutObject operation: "
          "Access Denied for bucket '{}'")


@pytest.mark.parametrize(("one", "other"), [
    (ACCESS.format("acme-prod-1"), ACCESS.format("globex-eu")),
    ("timed out after 300s at 2026-11-22T09:10:00Z", "timed out after 45s at 2026-11-21 23:59:59+00:00"),
    ("request 0193a5b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b failed", "request 11111111-2222-3333-4444-555555555555 failed"),
    ("worker 8f3a2b1c9d0e lost", "worker deadbeef0042 lost"),
    ('table "EVENTS" missing', "table `events_v2` missing"),
    ("quota 93.5% used (req AbCdEf1234567890)", "quota 100% used (req ZZ99yy88xx77ww)"),
])
def test_signature_strips_what_varies(one: str, other: str) -> None:
    assert error_signature(one) == error_signature(other)


def test_signature_keeps_what_names_the_cause() -> None:
    access = error_signature(ACCESS.format("x"))
    assert access == ("ClientError: An error occurred (AccessDenied) when calling the PutObject operation: "
                      "Access Denied for bucket …")
    assert error_signature("NoSuchBucket: bucket 'x'") != error_signature("AccessDenied: bucket 'x'")
    assert "insert_into_s3_activity" in error_signature("timed out: insert_into_s3_activity (StartToClose 300s)")
    assert error_signature(None) == error_signature("") == "no error message"
    assert error_signature("first line 12\nsecond line") == "first line …"


def test_groups_count_runs_and_exports_and_leave_repaired_intervals_out() -> None:
    runs = {
        "1:a": [run("a1", 3, "Failed", error=ACCESS.format("a")), run("a2", 2, "Failed", error=ACCESS.format("a")),
                run("a3", 1, "Completed")],
        "1:b": [run("b1", 2, "Failed", error=ACCESS.format("b")),
                # retried and completed: no longer failing
                run("b2", 1, "Failed", error=ACCESS.format("b")), run("b2r", 1, "Completed", created_after=0.5)],
        "1:c": [run("c1", 1, "FailedRetryable", error="Connection reset by peer 10.0.0.3:5432")],
        "1:d": [run("d1", 1, "Cancelled")],
    }
    groups = group_failures(runs, order=["1:a", "1:b", "1:c", "1:d"])
    assert [g.run_count for g in groups] == [1, 3], "newest first: c failed an hour after the others"
    access = groups[1]
    assert access.export_keys == ["1:a", "1:b"]
    assert [r.id for r in access.runs_of("1:a")] == ["a1", "a2"]
    assert access.summary() == "3 runs in 2 exports, first 09:11, last 10:11"
    assert "'a'" in access.sample_error  # the sample is a real message, unstripped (the widget cleans it)
    assert groups[0].summary().startswith("1 run in 1 export")


def test_summary_names_the_day_when_a_group_spans_midnight() -> None:
    from .runs import NOW

    runs = {"1:a": [run("a1", 14, "Failed", error="boom 1"), run("a2", 2, "Failed", error="boom 2")]}
    group = group_failures(runs)[0]
    assert group.summary(NOW.date()) == "2 runs in 1 export, first 11-21 22:11, last 10:11"


def test_the_live_cause_ranks_above_an_older_larger_one_and_since_keeps_only_the_incident() -> None:
    """Issue 27 item 15: a big group from last night's failures must not push the live outage down the list."""
    from tui.state.failure_groups import failing_since

    from .runs import NOW

    runs = {
        "1:a": [run(f"a{h}", h, "Failed", error=f"disk full on node {h}") for h in range(10, 20)],
        "1:b": [run("b1", 1, "Failed", error="Connection refused 10.0.0.9:5432"),
                run("b2", 2, "Failed", error="Connection refused 10.0.0.9:5432")],
    }
    groups = group_failures(runs, order=["1:a", "1:b"])
    assert [(g.run_count, g.export_keys) for g in groups] == [(2, ["1:b"]), (10, ["1:a"])]
    recent = failing_since(groups, NOW - 3 * HOUR)
    assert [(g.run_count, g.export_keys) for g in recent] == [(2, ["1:b"])]
    partly = failing_since(groups, NOW - 12 * HOUR)
    assert [g.run_count for g in partly] == [2, 3]  # the runs of 10, 11 and 12 hours ago
    assert partly[1].first is not None and partly[1].first >= NOW - 12 * HOUR


def test_a_signature_is_cleaned_before_its_digits_are_stripped() -> None:
    """``ESC[2J`` with its digit stripped showed as ``[…J``; C1 CSI and bidi go too."""
    from tui.state.failure_groups import _compute_signature

    assert _compute_signature("\x1b[2JConnection \x9b5mrefused\u202e to host 10.0.0.12\x1b]0;t\x07") == \
        "Connection refused to host …"
