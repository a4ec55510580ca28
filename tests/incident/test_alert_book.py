"""The alert book: one episode per export, opened, updated, acknowledged, resolved by a completed run; history
journaled, toasts rate-limited."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tui.state.alert_book import AlertBook, AlertKind, Observation
from tui.state.io.journal import ActionJournal

from .runs import NOW


def seen(key: str, state: str, reason: str = "", streak: int = 0, latest: str | None = None) -> Observation:
    if latest is None:
        latest = {"ok": "Completed", "failing": "Failed", "running": "Running"}.get(state)
    return Observation(key, "1", key, f"export {key}", state, reason, failure_streak=streak, latest_status=latest)


def test_what_is_broken_at_first_look_is_open_but_not_new() -> None:
    book = AlertBook()
    changes = book.observe([seen("a", "failing", "latest run Failed", 1), seen("b", "ok")], NOW)
    assert [a.kind for a in changes.opened] == [AlertKind.FAILING]
    assert book.open_count == 1
    assert book.toasts(changes.opened, 1000.0) == []  # no toast (nor hook) for history at start


def test_open_ack_resolve_and_history(tmp_path: Path) -> None:
    journal = ActionJournal(tmp_path / "journal.jsonl")
    book = AlertBook(journal, profile="prod")
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    later = NOW + timedelta(minutes=1)
    changes = book.observe([seen("a", "failing", "x", 3), seen("b", "overdue",
                                                                "no completed data for 4h10m, allowed 2h")], later)
    assert {a.kind: a.detail for a in changes.opened} == {
        AlertKind.FAILING: "3 failed runs in a row",
        AlertKind.OVERDUE: "no completed data for 4h10m, allowed 2h",
    }
    assert all(a.new for a in changes.opened)
    failing = next(a for a in changes.opened if a.kind is AlertKind.FAILING)
    assert book.acknowledge(failing.id, later) is failing
    assert book.open_count == 1 and book.history == [failing]
    # still failing: acknowledged, so not opened again
    assert book.observe([seen("a", "failing", "x", 4), seen("b", "overdue", "y")], later).opened == []
    resolved = book.observe([seen("a", "ok"), seen("b", "ok")], later + timedelta(minutes=5)).resolved
    assert {a.kind for a in resolved} == {AlertKind.FAILING, AlertKind.OVERDUE}
    assert {a.resolution for a in resolved} == {"a run completed"}
    assert book.open_count == 0 and len(book.history) == 2
    lines = [json.loads(line) for line in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [line["action"] for line in lines] == ["alert acknowledged", "alert resolved", "alert resolved"]
    assert lines[0]["profile"] == "prod" and lines[0]["detail"]["kind"] == "failing"
    # Named as the operator saw it, stamped with real time and the server's clock beside it (here days apart).
    assert [(line["name"], line["project"]) for line in lines] == [("export a", "1"), ("export a", "1"),
                                                                   ("export b", "1")]
    assert lines[0]["server_time"] == later.isoformat()
    assert abs(datetime.fromisoformat(lines[0]["time"]) - datetime.now(UTC)) < timedelta(minutes=5)


def test_pauses_alert_only_when_nobody_here_asked() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    book.expect_pause_change("a", True)
    changes = book.observe([seen("a", "paused", "paused for 1m"), seen("b", "paused", "paused for 1m")], NOW)
    assert [(a.key, a.kind) for a in changes.opened] == [("b", AlertKind.AUTO_PAUSED)]
    assert book.observe([seen("a", "paused"), seen("b", "paused")], NOW).resolved == []
    assert book.observe([seen("a", "ok"), seen("b", "running")], NOW).resolved == [], "unpaused, nothing completed"
    assert [a.resolution for a in book.observe([seen("a", "ok"), seen("b", "ok")], NOW).resolved] == [
        "a run completed"]


def test_an_operators_pause_or_the_exports_end_ends_the_episode() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    assert len(book.observe([seen("a", "failing", "x", 1), seen("b", "overdue", "y")], NOW).opened) == 2
    book.expect_pause_change("a", True)
    resolved = book.observe([seen("a", "paused", "paused", latest="Failed"), seen("b", "ended", "ended")], NOW).resolved
    assert sorted((a.key, a.resolution) for a in resolved) == [("a", "paused by the operator"),
                                                               ("b", "the export's end passed")]
    assert book.observe([seen("a", "paused", latest="Failed"), seen("b", "ended")], NOW).opened == []


def test_a_kind_change_updates_the_episode_and_keeps_its_acknowledgement() -> None:
    """failing -> running -> overdue -> failing is one episode; only a completed run ends it."""
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    (alert,) = book.observe([seen("a", "failing", "latest run Failed", 1)], NOW).opened
    assert book.acknowledge(alert.id, NOW) is alert
    running = book.observe([seen("a", "running", "latest run Running")], NOW)
    assert (running.opened, running.updated, running.resolved) == ([], [], [])
    overdue = book.observe([seen("a", "overdue", "no completed run 25m after it started", latest="Running")], NOW)
    assert overdue.opened == [] and overdue.updated == [alert] and alert.kind is AlertKind.OVERDUE
    failing = book.observe([seen("a", "failing", "latest run Failed", 2)], NOW)
    assert failing.opened == [] and failing.updated == [alert] and alert.kind is AlertKind.FAILING
    assert not book.is_marked("a") and book.open_count == 0, "the acknowledgement holds for the episode"
    assert book.observe([seen("a", "ok", latest="Cancelled")], NOW).resolved == [], "a cancelled run is no proof"
    assert book.observe([seen("a", "ok")], NOW).resolved == [alert]
    (again,) = book.observe([seen("a", "failing", "latest run Failed", 1)], NOW).opened
    assert again.id != alert.id and book.is_marked("a"), "a new episode is a new alert"


def test_a_filtered_out_export_is_observed_by_whoever_feeds_the_book_and_a_gone_one_resolves() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    book.observe([seen("a", "failing", "x", 1)], NOW)
    assert [a.resolution for a in book.observe([], NOW).resolved] == ["no longer watched"]


def test_one_toast_per_export_per_minute_of_elapsed_time() -> None:
    """The minute is the operator's (elapsed seconds), whatever the server's clock did meanwhile: under --demo it
    runs sixty times faster, and an hour of it passes between the first two toasts here."""
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    first = book.observe([seen("a", "failing", "x", 1)], NOW).opened
    assert book.toasts(first, 1000.0) == first
    book.observe([seen("a", "ok")], NOW)
    again = book.observe([seen("a", "failing", "x", 1)], NOW + timedelta(hours=1)).opened
    assert again and book.toasts(again, 1030.0) == []
    book.observe([seen("a", "ok")], NOW)
    third = book.observe([seen("a", "failing", "x", 1)], NOW + timedelta(hours=2)).opened
    assert book.toasts(third, 1061.0) == third


def test_hook_object_has_no_secret_fields() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    alert = book.observe([seen("a", "failing", "x", 2)], NOW).opened[0]
    body = alert.to_json("opened")
    assert body["event"] == "opened" and body["kind"] == "failing" and body["export"] == "export a"
    assert set(body) == {"event", "episode_id", "dedup_key", "severity", "summary", "kind", "state", "project",
                         "export_id", "export", "detail", "since", "opened_at", "acknowledged_at", "resolved_at",
                         "resolution"}
    assert body["severity"] == "error" and body["summary"] == "export a: failing, 2 failed runs in a row"
    assert body["dedup_key"] == body["episode_id"] == f"watchdeck:1:a:{NOW:%Y%m%dT%H%M%SZ}"
    book.observe([seen("a", "overdue", "y")], NOW)
    (resolved,) = book.observe([seen("a", "ok")], NOW).resolved
    assert resolved.to_json("resolved")["episode_id"] == body["episode_id"]


def test_the_hook_hears_of_new_episodes_and_of_their_ends_only() -> None:
    """Opened and resolved go to the hook for an episode that opened in this session; an episode already open at
    the first look is heard of neither way, and a kind change inside an episode is not sent."""
    book = AlertBook()
    first = book.observe([seen("a", "failing", "x", 1), seen("b", "ok")], NOW)
    assert first.announced() == []
    opened = book.observe([seen("a", "failing", "x", 2), seen("b", "failing", "x", 1)], NOW)
    (b_alert,) = opened.opened
    assert opened.announced() == [("opened", b_alert)]
    changed = book.observe([seen("a", "failing", "x", 3), seen("b", "overdue", "y")], NOW)
    assert changed.updated and changed.announced() == []
    ended = book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    assert {a.key for a in ended.resolved} == {"a", "b"}
    assert [(event, a.key) for event, a in ended.announced()] == [("resolved", "b")]


def test_an_episode_open_at_the_first_look_begins_where_the_record_read_further_back_shows_it() -> None:
    """The streak's start as far as the runs known reach: it moves back as the runs list is read, for an episode
    that was open at the first look (never announced); an announced episode keeps the start its hook was sent."""
    starts = {"a": NOW - timedelta(hours=10), "b": NOW - timedelta(minutes=5)}

    def failing(key: str, streak: int) -> Observation:
        return Observation(key, "1", key, key, "failing", "latest run Failed", streak, latest_status="Failed",
                           streak_is_lower_bound=streak >= 10, since_of=lambda: starts[key])

    book = AlertBook()
    book.observe([failing("a", 10), seen("b", "ok")], NOW)
    (first,) = book.in_course
    assert first.since == NOW - timedelta(hours=10) and first.detail == "10+ failed runs in a row"
    book.observe([failing("a", 10), failing("b", 1)], NOW + timedelta(minutes=1))
    announced = book.episode("b")
    assert announced is not None and announced.new and announced.since == NOW - timedelta(minutes=5)
    starts |= {"a": NOW - timedelta(hours=14), "b": NOW - timedelta(hours=1)}
    book.observe([failing("a", 14), failing("b", 2)], NOW + timedelta(minutes=2))
    assert first.since == NOW - timedelta(hours=14)
    assert announced.since == NOW - timedelta(minutes=5)
    book.began_earlier("a", NOW - timedelta(hours=12))  # never later than what the record showed
    assert first.since == NOW - timedelta(hours=14)


def test_failed_runs_behind_an_attempt_in_progress_are_an_episode_whenever_it_is_first_seen() -> None:
    """The record decides, not the poll's timing: failed runs in a row whose next attempt is running (or was
    cancelled) are an open failing episode at a first look, and after a poll that missed the failed phase."""
    book = AlertBook()
    first = book.observe([seen("a", "running", "latest run Running", 3), seen("b", "ok")], NOW)
    (a_alert,) = first.opened
    assert (a_alert.kind, a_alert.detail, a_alert.new) == (AlertKind.FAILING,
                                                          "3 failed runs in a row; latest run Running", False)
    missed = book.observe([seen("a", "running", "latest run Running", 3),
                           seen("b", "ok", "latest run Cancelled", 1, latest="Cancelled")], NOW)
    (b_alert,) = missed.opened
    assert b_alert.new and b_alert.kind is AlertKind.FAILING and missed.announced() == [("opened", b_alert)]
    # No runs are scheduled for a paused or ended export: a streak left behind opens nothing.
    quiet = AlertBook()
    assert quiet.observe([seen("c", "paused", "paused", 2, latest="Failed"),
                          seen("d", "ended", "ended", 2, latest="Failed")], NOW).opened == []
