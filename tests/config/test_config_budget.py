"""The rate-limit budget : 480/minute and 4800/hour per key, 80 % used at most."""

from __future__ import annotations

import pytest

from tui.state.budget import BUDGET_SHARE, PER_HOUR_LIMIT, PER_MINUTE_LIMIT, effective_poll_seconds


@pytest.mark.parametrize("requests", [1, 3, 10, 11, 40, 200, 1000])
@pytest.mark.parametrize("asked", [2.0, 10.0, 60.0])
def test_result_stays_within_both_budgets(asked: float, requests: int) -> None:
    seconds, stretched = effective_poll_seconds(asked, requests)
    assert seconds >= asked
    assert requests * 3600 / seconds <= PER_HOUR_LIMIT * BUDGET_SHARE + 1e-9
    assert requests * 60 / seconds <= PER_MINUTE_LIMIT * BUDGET_SHARE + 1e-9
    assert stretched == (seconds > asked)


def test_small_watch_is_not_stretched() -> None:
    assert effective_poll_seconds(10.0, 10) == (10.0, False)  # 3600/h: under 3840
    assert effective_poll_seconds(10.0, 0) == (10.0, False)


def test_many_exports_stretch_to_whole_seconds() -> None:
    # 11 requests every 10 s = 3960/h > 3840/h: 11 * 3600 / 3840 = 10.3 -> 11 s
    assert effective_poll_seconds(10.0, 11) == (11.0, True)
    # a wall of 5 projects x 40 exports without the list endpoint
    assert effective_poll_seconds(10.0, 200) == (188.0, True)
