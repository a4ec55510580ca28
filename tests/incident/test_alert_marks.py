"""The rules of acknowledgements, silences and the kept history (tui.state.alert_marks), and their file."""

from __future__ import annotations

import json
import math
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tui.state.alert_book import HISTORY_KEEP, AlertBook
from tui.state.alert_marks import (
    HISTORY_MAX_AGE_SECONDS,
    MAX_SILENCE_SECONDS,
    AlertMarks,
    HeldEvents,
    Mark,
    Silence,
    history_from_json,
    history_to_json,
    mark_from_json,
    parse_duration,
    prune_history,
)
from tui.state.alert_outlets import announce
from tui.state.io.alert_marks_store import MarksKeeper

from .runs import NOW
from .test_alert_book import seen

WALL = 1_800_000_000.0


def opened_book() -> AlertBook:
    """Two exports watched from before, then both failing: two new episodes."""
    book = AlertBook()
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW)
    return book


def test_a_silenced_exports_bell_toast_and_hook_wait_and_an_episode_inside_the_silence_is_never_sent() -> None:
    book, held, marks = opened_book(), HeldEvents(), AlertMarks()
    marks.silence(("1", "a"), 3600.0, "warehouse maintenance", "ops", WALL)
    later = NOW + timedelta(minutes=1)
    changes = book.observe([seen("a", "failing", "x", 1), seen("b", "ok")], later)
    said = announce(changes, book, 0.0, bell=True, may_toast=True, hook=True, silenced=marks.silenced(WALL),
                    held=held)
    assert not said.bell and said.toasts == [] and said.hook_events == [] and len(held) == 1
    # It ends inside the silence: nothing is ever sent for it.
    changes = book.observe([seen("a", "ok"), seen("b", "ok")], later + timedelta(minutes=5))
    said = announce(changes, book, 100.0, bell=True, may_toast=True, hook=True, silenced=marks.silenced(WALL),
                    held=held)
    assert said.hook_events == [] and len(held) == 0
    # Another opens inside the silence and is still open when it ends: "opened" goes out then.
    changes = book.observe([seen("a", "failing", "x", 1), seen("b", "failing", "y", 1)], later + timedelta(minutes=9))
    said = announce(changes, book, 200.0, bell=True, may_toast=True, hook=True, silenced=marks.silenced(WALL),
                    held=held)
    assert said.bell and [(e, a.key) for e, a in said.hook_events] == [("opened", "b")] and len(said.toasts) == 1
    changes = book.observe([seen("a", "failing", "x", 2), seen("b", "failing", "y", 2)], later + timedelta(minutes=10))
    said = announce(changes, book, 300.0, bell=True, may_toast=True, hook=True,
                    silenced=marks.silenced(WALL + 3601), held=held)
    assert [(e, a.key) for e, a in said.hook_events] == [("opened", "a")] and not said.bell


def test_a_project_silence_covers_its_exports_and_the_longest_silence_wins() -> None:
    marks = AlertMarks()
    marks.silence(("1", ""), 600.0, "deploy", "ops", WALL)
    marks.silence(("1", "a"), 7200.0, "warehouse maintenance", "ops", WALL)
    assert marks.silence_for("1", "b", WALL + 10) == Silence(WALL + 600.0, WALL, "deploy", "ops")
    found = marks.silence_for("1", "a", WALL + 10)
    assert found is not None and found.words() == "silenced 2h by ops: warehouse maintenance"
    assert marks.silence_for("2", "a", WALL) is None and marks.silence_for("1", "b", WALL + 600) is None
    marks.silence(("1", "a"), 60.0, "shorter", "ops", WALL)  # merged: the longer one stays
    assert marks.silence_for("1", "a", WALL + 61) == found


def test_an_acknowledgement_holds_for_its_episode_or_one_open_when_it_was_made() -> None:
    book, marks = opened_book(), AlertMarks()
    later = NOW + timedelta(minutes=1)
    [alert] = book.observe([seen("a", "failing", "x", 1), seen("b", "ok")], later).opened
    marks.acknowledge(alert, later + timedelta(minutes=2), "ops", WALL)
    assert marks.ack_for(alert) is not None
    book.observe([seen("a", "ok"), seen("b", "ok")], later + timedelta(minutes=5))
    [again] = book.observe([seen("a", "failing", "x", 1), seen("b", "ok")], later + timedelta(minutes=9)).opened
    assert marks.ack_for(again) is None  # a new episode, after the acknowledgement


@pytest.mark.parametrize("value", [
    {"silence": {"until": WALL + 60, "at": WALL, "reason": "x", "by": "ops", "extra": 1}},
    {"silence": {"until": WALL + 60, "at": WALL, "reason": "x" * 201, "by": "ops"}},
    {"silence": {"until": WALL + MAX_SILENCE_SECONDS + 3600, "at": WALL, "reason": "x", "by": "ops"}},
    {"silence": {"until": math.inf, "at": WALL, "reason": "x", "by": "ops"}},
    {"silence": {"until": True, "at": WALL, "reason": "x", "by": "ops"}},
    {"silence": {"until": WALL - 60, "at": WALL, "reason": "x", "by": "ops"}},
    {"ack": {"episode": "e", "since": 1.0, "at": 2.0, "by": "ops", "noted": WALL + 86400}},
    {"ack": {"episode": 5, "since": 1.0, "at": 2.0, "by": "ops", "noted": WALL}},
    {}, [], "w1", 10**400,
])
def test_a_malformed_or_implausible_mark_is_not_believed(value: object) -> None:
    assert mark_from_json(value, WALL) is None


def test_a_mark_goes_through_json_unchanged() -> None:
    marks = AlertMarks()
    marks.silence(("1", "a"), 7200.0, "warehouse maintenance", "ops", WALL)
    [item] = marks.to_json()
    assert mark_from_json({"silence": item["silence"]}, WALL) == marks.marks[("1", "a")]
    assert Mark().merged(marks.marks[("1", "a")]) == marks.marks[("1", "a")]


SHAPE = "a number and m, h, d or w: 30m, 2h, 1d"


@pytest.mark.parametrize(("text", "seconds", "problem"), [
    ("2h", 7200.0, ""), (" 30m ", 1800.0, ""), ("1W", 7 * 86400.0, ""), ("0m", None, "at least 1m"),
    ("31d", None, "at most 30d"), ("2 hours", None, SHAPE), ("", None, SHAPE),
])
def test_a_silence_length_is_a_number_and_a_unit(text: str, seconds: float | None, problem: str) -> None:
    assert parse_duration(text) == (seconds, problem)


def test_the_history_keeps_the_last_thousand_episodes_of_the_last_seven_days(tmp_path: Path) -> None:
    book = opened_book()
    now = time.time()
    for n in range(HISTORY_KEEP + 5):
        [alert] = book.observe([seen("a", "failing", "x", 1), seen("b", "ok")],
                               NOW + timedelta(minutes=2 * n + 1)).opened
        book.observe([seen("a", "ok"), seen("b", "ok")], NOW + timedelta(minutes=2 * n + 2))
        alert.noted = now - n  # the newest first
    assert len(book.history) == HISTORY_KEEP
    book.history[-1].noted = now - HISTORY_MAX_AGE_SECONDS - 1
    kept = list(book.history)
    prune_history(kept, now)
    assert len(kept) == HISTORY_KEEP - 1

    keeper = MarksKeeper(tmp_path / "alerts" / "k.json", None, "http://x", "key")
    keeper.save(book.history)
    assert oct(keeper.path.stat().st_mode & 0o777) == "0o600"
    again = AlertBook()
    fresh = MarksKeeper(keeper.path, None, "http://x", "key")
    fresh.load(iter(again.new_id, 0))
    again.restore(fresh.history)
    assert [(a.episode_id, a.state, a.resolution) for a in again.history] == \
        [(a.episode_id, a.state, a.resolution) for a in kept]
    assert len({a.id for a in again.history}) == len(again.history)


def test_a_damaged_history_entry_is_dropped_and_the_rest_kept() -> None:
    book = opened_book()
    book.observe([seen("a", "failing", "x", 1), seen("b", "failing", "y", 1)], NOW + timedelta(minutes=1))
    book.observe([seen("a", "ok"), seen("b", "ok")], NOW + timedelta(minutes=2))
    items = history_to_json(book.history)
    items[0]["kind"] = "on fire"
    items.append({"key": "\x1b[31m"})
    loaded = history_from_json(json.loads(json.dumps(items)), time.time(), iter(range(1, 10)))
    assert [a.key for a in loaded] == [book.history[1].key]
