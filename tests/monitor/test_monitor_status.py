"""The monitor's status line as a function of plain facts (tui.look.monitor_status), without an app."""

from __future__ import annotations

from tui.look.monitor_status import ExportCounts, StatusFacts, alert_words, is_stale, monitor_status
from tui.look.palette import Tone
from tui.state.freshness import Freshness

WIDE = 400


def line(facts: StatusFacts, width: int = WIDE) -> str:
    return monitor_status(facts, width).plain


def test_before_the_first_answer_it_says_connecting_and_no_data() -> None:
    facts = StatusFacts(freshness=Freshness.CONNECTING, age=None, interval=30.0)
    assert line(facts) == " ◌ CONNECTING   no data yet · every 30s"


def test_a_live_board_says_its_age_interval_counts_failing_and_alerts() -> None:
    facts = StatusFacts(freshness=Freshness.LIVE, age=4.4, interval=30.0, project="Acme · production",
                        exports=ExportCounts(total=12, failing=2, alerts=1))
    assert line(facts) == (" ● LIVE  Acme · production   updated 4s ago · every 30s · 12 exports · 2 failing"
                           " · 1 alert")
    one = StatusFacts(freshness=Freshness.LIVE, age=0.0, interval=2.0, exports=ExportCounts(total=1, alerts=3))
    assert line(one) == " ● LIVE   updated 0s ago · every 2s · 1 export · 3 alerts"


def test_failing_polls_say_why_and_when_the_next_try_is_unless_one_is_in_flight() -> None:
    failing = StatusFacts(freshness=Freshness.OFFLINE, age=400.0, interval=30.0, failures=5, reason="network",
                          next_poll_in=59.6)
    assert line(failing) == " ✖ OFFLINE   updated 6m40s ago · every 30s · network, retry in 1m"
    asking = StatusFacts(freshness=Freshness.STALE, age=70.0, interval=30.0, failures=2, reason="503 server error",
                         next_poll_in=0.0, in_flight=True)
    assert line(asking) == " ▲ STALE   updated 1m10s ago · every 30s · 503 server error · ⟳ refreshing"
    assert is_stale(Freshness.STALE) and is_stale(Freshness.OFFLINE)
    assert not is_stale(Freshness.LIVE) and not is_stale(Freshness.CONNECTING)


def test_a_stretched_interval_says_why_in_the_note_tone() -> None:
    facts = StatusFacts(freshness=Freshness.LIVE, age=1.0, interval=45.0,
                        stretch_note="stretched from 2s for the rate limit")
    text = monitor_status(facts, WIDE)
    assert text.plain == " ● LIVE   updated 1s ago · every 45s (stretched from 2s for the rate limit)"
    start = text.plain.index("every 45s")
    assert any(span.start == start and span.style == Tone.NOTE.style for span in text.spans)


def test_frozen_and_read_only_are_badges() -> None:
    facts = StatusFacts(freshness=Freshness.LIVE, age=12.0, interval=30.0, frozen=True, read_only=True)
    assert line(facts) == " ● LIVE  FROZEN  READ-ONLY   updated 12s ago · every 30s"


def test_filters_notes_and_the_shared_cache_follow_the_counts() -> None:
    facts = StatusFacts(
        freshness=Freshness.LIVE, age=0.0, interval=30.0, skew="server clock 15m ahead",
        exports=ExportCounts(total=12, shown=3, note="export list truncated", unreadable=2, incomplete=1),
        filter="s3", group="Timeout at S3", viewers=2,
    )
    assert line(facts) == (" ● LIVE   updated 0s ago · every 30s · server clock 15m ahead · 3 of 12 exports"
                           " · export list truncated · 2 unreadable · 1 export answer incomplete · filter: s3"
                           " · group: Timeout at S3 (esc shows all) · shared cache: 2 viewers")
    two = StatusFacts(freshness=Freshness.LIVE, age=0.0, interval=30.0, exports=ExportCounts(total=2, incomplete=2))
    assert line(two).endswith("2 exports · 2 export answers incomplete")


def test_server_text_is_cleaned_and_bounded() -> None:
    facts = StatusFacts(freshness=Freshness.LIVE, age=0.0, interval=30.0, project="Acme\x1b[2J" + "x" * 100,
                        exports=ExportCounts(total=1, note="[bold]n\x07ote[/bold]"), filter="\x1b]8;;evil\x07f")
    text = line(facts)
    assert "\x1b" not in text and "\x07" not in text
    assert "[bold]n ote[/bold]" in text  # shown as written, never read as markup; the bell is a space
    assert " Acme" + "x" * 55 + "…   updated" in text  # the escape sequence gone, the name bounded to 60
    assert text.endswith("filter: f")


def test_a_failure_reason_naming_a_scope_from_the_server_is_cleaned() -> None:
    facts = StatusFacts(freshness=Freshness.STALE, age=70.0, interval=30.0, failures=2,
                        reason="403 needs \x1b]52;c;ZXZpbA==\x07batch_export:read", next_poll_in=10.0)
    assert line(facts).endswith("every 30s · 403 needs batch_export:read, retry in 10s")


def test_a_narrow_line_drops_the_least_needed_parts_first() -> None:
    facts = StatusFacts(freshness=Freshness.LIVE, age=3.0, interval=30.0, project="Acme · production",
                        in_flight=True, exports=ExportCounts(total=12, failing=1))
    assert line(facts, 70) == " ● LIVE  Acme · production   updated 3s ago · 12 exports · 1 failing"
    # The project outlasts the data's age (the freshness badge says whether it is current): 80x24 keeps it.
    assert line(facts, 60) == " ● LIVE  Acme · production   12 exports · 1 failing"
    assert line(facts, 40) == " ● LIVE   12 exports · 1 failing"


def test_alert_words() -> None:
    assert (alert_words(0), alert_words(1), alert_words(2)) == ("", "1 alert", "2 alerts")
