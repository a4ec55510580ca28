"""The monitor's status line and the survey header are one status line (tui.look.status_line.status_line): the same
badges, the same age, the project kept as long on both."""

from __future__ import annotations

import pytest

from tui.look.monitor_status import StatusFacts, monitor_status
from tui.look.palette import Tone
from tui.look.status_line import STATUS_POLL, status_line
from tui.state.freshness import Freshness, load_freshness

PROJECT = "Acme · a project whose name is long enough to be cut"


@pytest.mark.parametrize(("loaded", "failed", "expected"), [
    (False, False, Freshness.CONNECTING), (False, True, Freshness.OFFLINE),
    (True, True, Freshness.STALE), (True, False, Freshness.LIVE),
])
def test_a_screen_that_loads_on_demand_says_its_freshness(loaded: bool, failed: bool, expected: Freshness) -> None:
    assert load_freshness(loaded=loaded, failed=failed) is expected


@pytest.mark.parametrize("width", [160, 80, 50])
def test_both_screens_start_their_line_alike(width: int) -> None:
    monitor = monitor_status(StatusFacts(freshness=Freshness.LIVE, age=7.0, interval=10.0, project=PROJECT,
                                         read_only=True), width).plain
    surveys = status_line(Freshness.LIVE, [(STATUS_POLL, "surveys · ctrl+r reloads", Tone.MUTED.style)], width,
                          project=PROJECT, age=7.0, read_only=True).plain
    badges = monitor[:monitor.index("READ-ONLY ") + len("READ-ONLY ")]
    assert badges.startswith(" ● LIVE  Acme")
    assert surveys.startswith(badges), (monitor, surveys)
    assert ("updated 7s ago" in monitor) == ("updated 7s ago" in surveys), (monitor, surveys)


def test_an_error_drops_the_age_before_the_project_on_both() -> None:
    error = (0, "the server refused the key (403): check its scopes, then press ctrl+r", Tone.ERROR.style)
    line = status_line(Freshness.STALE, [(STATUS_POLL, "surveys · ctrl+r reloads", ""), error], 100,
                       project="Acme · production", age=3.0).plain
    assert "Acme · production" in line and "updated" not in line and "ctrl+r reloads" not in line, line
    assert line.startswith(" ▲ STALE  Acme · production ")


@pytest.mark.parametrize(("age", "words"), [
    (0.007, "updated 0s ago"), (0.6, "updated 1s ago"), (7.4, "updated 7s ago"),
])
def test_the_age_is_in_whole_seconds(age: float, words: str) -> None:
    line = status_line(Freshness.LIVE, [], 160, project="Acme", age=age).plain
    assert words in line, line
