"""One duration format: ``tui.text.words.duration`` writes every duration watchdeck shows, and no other module
writes one itself."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tui.text.words import ago, coarse_duration, duration, past_ago, when_text

TUI = Path(__file__).resolve().parents[2] / "tui"

_UNIT = r"(s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|ms)"
#: A duration written by hand: a placeholder followed by a unit (``{age:.0f} s``, ``{n} min``, ``{x:g}s``), a table
#: of units (``("h", 3600)``), or humanize's own duration words.
HAND_MADE = re.compile(
    r"\{[^{}]*\} " + _UNIT + r"\b"
    r"|\{[^{}]*:[^{}]*\}" + _UNIT + r"\b"
    r"|\(\s*[\"'][dhms][\"']\s*,\s*\d"
    r"|humanize\.(natural|precise)"
)


def hand_made_durations(root: Path) -> list[str]:
    """``path:line: text`` for each line under ``root`` that writes a duration itself (the sandbox, a server of
    its own, and words.py aside)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        if relative.startswith("tui/sandbox/") or relative == "tui/text/words.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if HAND_MADE.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_no_module_writes_a_duration_itself() -> None:
    assert hand_made_durations(TUI) == []


@pytest.mark.parametrize("line", [
    'f"updated {facts.age:.0f} s ago"', 'f"every {interval:g} s"', 'f"{minutes} min"', 'f"{size / 3600:.0f} h"',
    'f"{n} days"', 'f"{wait:.0f}s"', 'for unit, size in (("d", 86400), ("h", 3600)):',
    "humanize.naturaltime(delta)", "humanize.naturaldelta(delta)", "humanize.precisedelta(delta)",
])
def test_the_check_sees_a_hand_made_duration(line: str) -> None:
    assert HAND_MADE.search(line), line


@pytest.mark.parametrize("line", [
    'f"must be a {weekday}: this export runs weekly on {weekday}s"', 'f"{count:,} {noun}s"',
    'f"{PREFIX}_export_lag_seconds"', 'f"updated {duration(age)} ago"',
])
def test_the_check_leaves_other_words_alone(line: str) -> None:
    assert not HAND_MADE.search(line), line


def test_the_check_reads_files(tmp_path: Path) -> None:
    root = tmp_path / "tui"
    (root / "look").mkdir(parents=True)
    (root / "look" / "late.py").write_text('x = f"late by {seconds:.0f} s"\n', encoding="utf-8")
    (root / "sandbox").mkdir()
    (root / "sandbox" / "server.py").write_text('x = f"{seconds} s"\n', encoding="utf-8")
    assert hand_made_durations(root) == ['tui/look/late.py:1: x = f"late by {seconds:.0f} s"']


@pytest.mark.parametrize(("seconds", "shown"), [
    (0, "0s"), (0.007, "0s"), (0.04, "0s"), (0.5, "0.5s"), (0.96, "1s"),
    (1, "1s"), (59, "59s"), (59.4, "59s"), (59.6, "1m"), (60, "1m"), (61, "1m01s"),
    (600, "10m"),
    (3599, "59m59s"), (3600, "1h"), (3660, "1h01m"), (3661, "1h01m"), (7200, "2h"), (86399, "23h59m"),
    (86400, "1d"), (90000, "1d01h"), (3 * 86400 + 4 * 3600 + 59, "3d04h"), (400 * 86400, "400d"),
    (-5, "0s"), (None, "—"), (float("nan"), "—"), (float("inf"), "forever"), (float("-inf"), "0s"),
])
def test_duration_edges(seconds: float | None, shown: str) -> None:
    assert duration(seconds) == shown


def test_one_unit() -> None:
    assert [duration(s, units=1) for s in (59, 192, 7500, 90 * 86400 + 7200)] == ["59s", "3m", "2h", "90d"]
    assert duration(30, coarse=True, units=1) == "<1m"


@pytest.mark.parametrize(("seconds", "shown", "rounded_up"), [
    (0, "<1m", "<1m"), (59, "<1m", "1m"), (60, "1m", "1m"), (61, "1m", "2m"), (655, "10m", "11m"),
    (3599, "59m", "1h"), (3600, "1h", "1h"), (3661, "1h01m", "1h02m"), (86400, "1d", "1d"),
    (86401, "1d", "1d01h"), (-30, "<1m", "<1m"), (None, "—", "—"),
])
def test_coarse_duration_edges(seconds: float | None, shown: str, rounded_up: str) -> None:
    assert coarse_duration(seconds) == shown
    assert coarse_duration(seconds, round_up=True) == rounded_up


NOW = datetime(2026, 11, 24, 4, 26, tzinfo=UTC)


@pytest.mark.parametrize(("back", "shown", "coarse"), [
    (0, "just now", "<1m ago"), (1.5, "just now", "<1m ago"), (45, "45s ago", "<1m ago"), (60, "1m ago", "1m ago"),
    (192, "3m ago", "3m ago"), (7500, "2h ago", "2h ago"), (90 * 86400 + 7200, "90d ago", "90d ago"),
    (-300, "in 5m", "in 5m"), (-30, "in 30s", "in <1m"),
])
def test_ago_writes_durations_the_same_way(back: float, shown: str, coarse: str) -> None:
    when = NOW - timedelta(seconds=back)
    assert ago(when, NOW) == shown
    assert ago(when, NOW, coarse=True) == coarse
    assert ago(None, NOW) == "—"


def test_past_ago_and_when_text() -> None:
    assert past_ago(NOW + timedelta(seconds=5), NOW) == "just now"
    assert when_text(NOW + timedelta(days=3), NOW) == "in 3d, Fri 27 Nov 04:26 UTC"
    assert when_text(NOW, NOW) == "now, Tue 24 Nov 04:26 UTC"
