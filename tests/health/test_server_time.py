"""The server's clock from the Date header of its answers: a median, noise ignored, words for the skew."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from tui.clock import FrozenClock
from tui.state.server_time import ServerClock, describe_skew

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def header(at: datetime) -> str:
    return format_datetime(at, usegmt=True)


def test_no_answers_no_offset() -> None:
    server = ServerClock(FrozenClock(NOW))
    assert server.offset_seconds == 0.0 and server.now() == NOW and server.skew_words() is None


def test_median_of_recent_answers_ignores_one_odd_one() -> None:
    server = ServerClock(FrozenClock(NOW))
    for _ in range(3):
        server.record(header(NOW + timedelta(minutes=15)))
    server.record(header(NOW - timedelta(hours=5)))  # a proxy with its own clock
    assert server.offset_seconds == 900
    assert server.now() == NOW + timedelta(minutes=15)
    assert server.skew_words() == "server clock 15m ahead"


def test_one_second_resolution_and_wire_time_are_not_skew() -> None:
    server = ServerClock(FrozenClock(NOW + timedelta(seconds=1.4)))
    server.record(header(NOW))
    assert server.offset_seconds == 0.0


def test_old_answers_leave_the_window() -> None:
    server = ServerClock(FrozenClock(NOW), samples=3)
    for _ in range(3):
        server.record(header(NOW))
    for _ in range(2):
        server.record(header(NOW - timedelta(minutes=10)))
    assert server.skew_words() == "server clock 10m behind"


def test_unreadable_header_is_ignored() -> None:
    server = ServerClock(FrozenClock(NOW))
    server.record("yesterday-ish")
    server.record("")
    assert server.samples == 0


def test_words_past_thirty_seconds_only() -> None:
    assert describe_skew(30) is None and describe_skew(-29) is None
    assert describe_skew(45) == "server clock 45s ahead"
    assert describe_skew(-7200) == "server clock 2h behind"
    assert describe_skew(3 * 86400) == "server clock 3d ahead"
