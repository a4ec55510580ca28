"""The alert book's smaller promises: an alert's detail in words and numbers, what a hook is sent of it, an
operator's pause that takes a poll to show, acknowledging the one alert asked for, the toasts of a mixed poll,
and the history's count, each checked exactly."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from tui.state.alert_book import HISTORY_KEEP, SUMMARY_LIMIT, Alert, AlertBook, AlertKind, Observation, detail_of
from tui.state.journal_entry import wall_clock

from .runs import NOW
from .test_alert_book_edges import Written

MINUTE = timedelta(minutes=1)


def seen(key: str, state: str, reason: str = "", *, streak: int = 0, latest: str | None = None,
         since: datetime | None = None, name: str | None = None,
         since_of: Callable[[], datetime | None] | None = None, streak_is_lower_bound: bool = False) -> Observation:
    return Observation(key, "1", key, name or f"export {key}", state, reason, failure_streak=streak,
                       latest_status=latest, since=since, since_of=since_of,
                       streak_is_lower_bound=streak_is_lower_bound)


def test_the_detail_counts_failed_runs_where_the_state_does_not_say_it() -> None:
    assert detail_of(seen("a", "failing", "latest run Failed", streak=1)) == "latest run Failed"
    assert detail_of(seen("a", "failing", "latest run Failed", streak=2)) == "2 failed runs in a row"
    assert detail_of(seen("a", "overdue", "no completed data for 3h", streak=2)) == "no completed data for 3h"
    assert detail_of(seen("a", "overdue", "no completed data for 3h", streak=1)) == "no completed data for 3h"
    assert detail_of(seen("a", "running", "latest run Running", streak=1)) == (
        "1 failed run in a row; latest run Running")
    assert detail_of(seen("a", "running", "latest run Running", streak=3,
                          streak_is_lower_bound=True)) == "3+ failed runs in a row; latest run Running"
    assert detail_of(seen("a", "running", "", streak=2)) == "2 failed runs in a row"
    assert detail_of(seen("a", "running", "latest run Running")) == "latest run Running"


def test_an_alert_keeps_the_start_the_verdict_knows_and_its_detail_follows_the_streak() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    began = NOW - 3 * timedelta(hours=1)
    [alert] = book.observe([seen("a", "failing", streak=2, since=began)], NOW + MINUTE).opened
    assert alert.since == began and alert.id == 1
    book.observe([seen("a", "failing", streak=3, since=began)], NOW + 2 * MINUTE)
    assert alert.detail == "3 failed runs in a row"


def test_an_alert_open_at_the_first_look_whose_start_is_not_found_keeps_its_start() -> None:
    book = AlertBook()
    [alert] = book.observe([seen("a", "failing", streak=2, since_of=lambda: None)], NOW).opened
    assert alert.since == NOW and not alert.new
    book.observe([seen("a", "failing", streak=2, since_of=lambda: None)], NOW + MINUTE)
    assert alert.since == NOW


def test_a_hook_is_sent_the_cleaned_name_and_the_times_and_resolution_of_the_episode() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    [alert] = book.observe([seen("a", "failing", streak=2, name="n" * 3000)], NOW + MINUTE).opened
    sent = alert.to_json("opened")
    assert len(sent["export"]) == SUMMARY_LIMIT and sent["export"].endswith("…")
    assert (sent["acknowledged_at"], sent["resolved_at"], sent["resolution"]) == (None, None, None)
    book.acknowledge(alert.id, NOW + 2 * MINUTE)
    book.observe([seen("a", "ok", latest="Completed")], NOW + 3 * MINUTE)
    ended = alert.to_json("resolved")
    assert ended["acknowledged_at"] == (NOW + 2 * MINUTE).isoformat()
    assert ended["resolved_at"] == (NOW + 3 * MINUTE).isoformat()
    assert ended["resolution"] == "a run completed"


def test_an_export_no_longer_watched_resolves_at_that_poll() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    [alert] = book.observe([seen("a", "failing")], NOW + MINUTE).opened
    book.observe([], NOW + 2 * MINUTE)
    assert (alert.resolved_at, alert.resolution, alert.state) == (NOW + 2 * MINUTE, "no longer watched", "resolved")


def test_the_operators_pause_is_expected_until_a_poll_shows_it_and_no_longer() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    book.expect_pause_change("a", True)
    assert book.observe([seen("a", "ok")], NOW + MINUTE).opened == [], "the pause has not reached the server yet"
    assert book.observe([seen("a", "paused")], NOW + 2 * MINUTE).opened == [], "the operator's pause: no alert"
    book.observe([seen("a", "ok")], NOW + 3 * MINUTE)  # resumed elsewhere
    again = book.observe([seen("a", "paused")], NOW + 4 * MINUTE).opened
    assert [a.kind for a in again] == [AlertKind.AUTO_PAUSED], "this pause the operator did not ask for here"


def test_acknowledging_one_alert_leaves_the_others_open_and_tells_the_listeners_which() -> None:
    written = Written()
    book = AlertBook(written)
    told: list[Alert] = []
    book.acknowledged.append(told.append)
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    first, second = sorted(book.observe([seen("a", "failing"), seen("b", "failing")], NOW + MINUTE).opened,
                           key=lambda a: a.key)
    assert book.acknowledge(second.id, NOW + 2 * MINUTE) is second
    assert told == [second] and first.is_open and not second.is_open
    assert book.acknowledge(999, NOW) is None
    assert book.acknowledge(first.id, NOW + 3 * MINUTE, here=False) is first
    assert told == [second], "one made elsewhere is applied, not told again"
    assert [e.action for e in written.entries] == ["alert acknowledged", "alert acknowledged elsewhere"]


def test_the_toasts_of_a_poll_skip_old_and_recent_alerts_but_not_the_rest() -> None:
    book = AlertBook(toast_every=60.0)
    [old] = book.observe([seen("o", "failing"), seen("a", "ok"), seen("b", "ok")], NOW).opened
    opened = book.observe([seen("o", "failing"), seen("a", "failing"), seen("b", "ok")], NOW + MINUTE).opened
    assert [a.key for a in book.toasts([old, *opened], 10.0)] == ["a"], "an alert from the first look: no toast"
    book.observe([seen("o", "failing"), seen("a", "ok", latest="Completed"), seen("b", "ok")], NOW + 2 * MINUTE)
    reopened = book.observe([seen("o", "failing"), seen("a", "failing"), seen("b", "failing")],
                            NOW + 3 * MINUTE).opened
    assert [a.key for a in book.toasts(sorted(reopened, key=lambda a: a.key), 20.0)] == ["b"], (
        "a toasted ten seconds ago stays quiet; b still gets its toast")


def test_a_resolved_episode_is_counted_once_in_the_history_and_dated() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok")], NOW)
    [alert] = book.observe([seen("a", "failing")], NOW + MINUTE).opened
    before = wall_clock().timestamp()
    book.observe([seen("a", "ok", latest="Completed")], NOW + 2 * MINUTE)
    assert book.history == [alert] and book.history_total == 1
    assert before <= alert.noted <= wall_clock().timestamp(), "dated by the wall clock: the history's age bound"


def test_alerts_are_found_by_id_in_course_or_in_the_history_and_restored_history_is_bounded() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    first, second = sorted(book.observe([seen("a", "failing"), seen("b", "failing")], NOW + MINUTE).opened,
                           key=lambda a: a.key)
    book.acknowledge(first.id, NOW + 2 * MINUTE)
    assert book.get(first.id) is first and book.get(second.id) is second and book.get(999) is None
    assert book.new_id() == 3, "ids go on from the alerts' own"
    kept = [Alert(100 + i, "old", "1", "old", "old", AlertKind.FAILING, "", NOW, NOW) for i in range(HISTORY_KEEP)]
    book.restore(kept)
    assert len(book.history) == HISTORY_KEEP and book.history[0] is first and book.history[1] is kept[0]
