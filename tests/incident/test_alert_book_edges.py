"""The alert book's edges, each a rule a wrong comparison would break without a screen showing it at once:
an export already paused at the first look, an auto-pause that a completed run ends, the operator's own pause,
the newest completed interval moving on, and an export that stops being watched."""

from __future__ import annotations

from datetime import timedelta

from tui.state.alert_book import HISTORY_KEEP, AlertBook, AlertKind, Observation
from tui.state.journal_entry import JournalEntry

from .runs import NOW


def seen(key: str, state: str, latest: str | None = None, *, end_hours: int | None = None,
         streak: int = 0) -> Observation:
    end = NOW - timedelta(hours=end_hours) if end_hours is not None else None
    return Observation(key, "1", key, f"export {key}", state, f"{state} reason", failure_streak=streak,
                       latest_status=latest, completed_end=end)


def test_an_export_paused_at_the_first_look_is_no_alert_then_or_later() -> None:
    book = AlertBook()
    assert book.observe([seen("a", "paused", "Failed")], NOW).opened == []
    assert book.observe([seen("a", "paused", "Failed")], NOW + timedelta(minutes=1)).opened == []
    assert book.open_count == 0 and book.history == []


def test_an_auto_pause_opens_stays_while_paused_and_a_completed_run_ends_it() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok", "Completed", end_hours=2)], NOW)
    opened = book.observe([seen("a", "paused", "Failed", end_hours=2)], NOW + timedelta(minutes=1)).opened
    assert [(a.kind, a.new) for a in opened] == [(AlertKind.AUTO_PAUSED, True)]
    still = book.observe([seen("a", "paused", "Completed", end_hours=0)], NOW + timedelta(minutes=2))
    assert still.resolved == [] and book.open_count == 1, "a paused export's completed run does not end the pause"
    ended = book.observe([seen("a", "ok", "Completed", end_hours=0)], NOW + timedelta(minutes=3)).resolved
    assert [(a.kind, a.resolution) for a in ended] == [(AlertKind.AUTO_PAUSED, "a run completed")]
    assert book.open_count == 0 and book.history == ended


def test_the_operators_own_pause_is_no_alert_and_ends_an_episode() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok", "Completed")], NOW)
    failing = book.observe([seen("a", "failing", "Failed", streak=2)], NOW + timedelta(minutes=1)).opened
    assert [a.detail for a in failing] == ["2 failed runs in a row"]
    book.expect_pause_change("a", True)
    changes = book.observe([seen("a", "paused", "Failed")], NOW + timedelta(minutes=2))
    assert changes.opened == [] and [a.resolution for a in changes.resolved] == ["paused by the operator"]
    assert book.observe([seen("a", "paused", "Failed")], NOW + timedelta(minutes=3)).opened == []


def test_a_running_retry_is_no_completion_but_a_newer_completed_interval_is() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok", "Completed", end_hours=3)], NOW)
    book.observe([seen("a", "overdue", "Running", end_hours=3)], NOW + timedelta(minutes=1))
    same = book.observe([seen("a", "ok", "Running", end_hours=3)], NOW + timedelta(minutes=2))
    assert same.resolved == [], "the newest completed interval did not move"
    moved = book.observe([seen("a", "ok", "Running", end_hours=1)], NOW + timedelta(minutes=3))
    assert [a.resolution for a in moved.resolved] == ["a run completed"]


def test_a_kind_change_is_an_update_and_an_export_no_longer_watched_resolves() -> None:
    book = AlertBook()
    book.observe([seen("a", "ok", "Completed"), seen("b", "ok", "Completed")], NOW)
    book.observe([seen("a", "failing", "Failed", streak=1), seen("b", "ok", "Completed")], NOW + timedelta(minutes=1))
    changes = book.observe([seen("a", "overdue", "Running"), seen("b", "ok", "Completed")], NOW + timedelta(minutes=2))
    assert changes.opened == [] and [a.kind for a in changes.updated] == [AlertKind.OVERDUE]
    assert changes.announced() == [], "an update is no page"
    gone = book.observe([seen("b", "ok", "Completed")], NOW + timedelta(minutes=3))
    assert [(a.key, a.resolution) for a in gone.resolved] == [("a", "no longer watched")]
    assert [event for event, _ in gone.announced()] == ["resolved"]


class Written:
    """A journal writer that keeps its entries (the book is given a writer, never a file)."""

    def __init__(self) -> None:
        self.entries: list[JournalEntry] = []

    def append(self, entry: JournalEntry) -> None:
        self.entries.append(entry)


def test_the_journal_names_the_export_the_state_and_the_episode_and_a_resolution_only_when_there_is_one() -> None:
    written = Written()
    book = AlertBook(written, profile="prod")
    book.observe([seen("a", "ok", "Completed")], NOW)
    [alert] = book.observe([seen("a", "failing", "Failed", streak=3)], NOW + timedelta(minutes=1)).opened
    book.acknowledge(alert.id, NOW + timedelta(minutes=2))
    book.observe([seen("a", "ok", "Completed", end_hours=0)], NOW + timedelta(minutes=3))
    acknowledged, resolved = written.entries
    assert (acknowledged.action, acknowledged.result, acknowledged.export, acknowledged.project,
            acknowledged.name, acknowledged.profile) == ("alert acknowledged", "acknowledged", "a", "1", "export a",
                                                         "prod")
    assert acknowledged.detail == {"kind": "failing", "detail": "3 failed runs in a row",
                                   "since": alert.since.isoformat(), "episode_id": alert.episode_id}
    assert (resolved.action, resolved.result) == ("alert resolved", "resolved")
    assert resolved.detail is not None and resolved.detail["resolution"] == "a run completed"
    assert resolved.server_time == NOW + timedelta(minutes=3)


def test_the_history_is_newest_first_counts_each_episode_once_and_keeps_its_bound() -> None:
    book = AlertBook()
    book.observe([seen(k, "ok", "Completed") for k in "abc"], NOW)
    opened = book.observe([seen(k, "failing", "Failed") for k in "abc"], NOW + timedelta(minutes=1)).opened
    first, second, third = sorted(opened, key=lambda a: a.key)
    book.acknowledge(first.id, NOW + timedelta(minutes=2))
    book.acknowledge(second.id, NOW + timedelta(minutes=3))
    assert book.history == [second, first] and book.history_total == 2
    book.observe([seen("a", "ok", "Completed", end_hours=0), seen("b", "failing", "Failed"),
                  seen("c", "failing", "Failed")], NOW + timedelta(minutes=4))
    assert book.history == [first, second], "resolved after it was acknowledged: moved up, not counted again"
    assert book.history_total == 2
    assert book.acknowledge_export("c", NOW + timedelta(minutes=5)) == 1 and book.history[0] is third
    assert book.history_total == 3 and book.open_for("c") == [] and book.acknowledge_export("c", NOW) == 0
    many = AlertBook()
    many.observe([seen(f"e{i}", "ok", "Completed") for i in range(HISTORY_KEEP + 5)], NOW)
    for alert in many.observe([seen(f"e{i}", "failing", "Failed") for i in range(HISTORY_KEEP + 5)],
                              NOW + timedelta(minutes=1)).opened:
        many.acknowledge(alert.id, NOW + timedelta(minutes=2))
    assert len(many.history) == HISTORY_KEEP and many.history_total == HISTORY_KEEP + 5


def test_toasts_are_one_per_export_per_interval_of_the_operators_time() -> None:
    book = AlertBook(toast_every=60.0)
    book.observe([seen("a", "ok", "Completed"), seen("b", "ok", "Completed")], NOW)
    opened = book.observe([seen("a", "failing", "Failed"), seen("b", "failing", "Failed")],
                          NOW + timedelta(minutes=1)).opened
    assert [a.key for a in book.toasts(opened, 100.0)] == ["a", "b"]
    assert book.toasts(opened, 159.9) == [], "within the minute: no second toast for the same exports"
    assert [a.key for a in book.toasts(opened, 160.0)] == ["a", "b"]
