"""The rate-limit budget of one key: polling's share, and the operator's share (:class:`ActionBudget`).

The real service allows 480 requests a minute and 4800 an hour per personal
API key. A wall screen watching many projects' exports for
days would hit the hourly limit long before the minute one, and a 429 storm
is worse than a slower refresh; so the interval is stretched until one key's
steady rate uses at most ``BUDGET_SHARE`` of both limits, which leaves room
for the operator's own actions (pause, backfill, logs) and a second watcher.

Bulk work started by the operator (a repair sending forty retries, the
timeline fetching older runs) must fit in the remaining share, as a sliding
window, or it would push the key into 429s and blind the monitor in the middle
of an incident.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable

PER_MINUTE_LIMIT = 480
PER_HOUR_LIMIT = 4800
BUDGET_SHARE = 0.8


def min_poll_seconds(requests_per_cycle: int, *, share: float = BUDGET_SHARE) -> float:
    """The shortest interval at which ``requests_per_cycle`` every cycle stays within both budgets."""
    if requests_per_cycle <= 0:
        return 0.0
    per_hour = requests_per_cycle * 3600.0 / (PER_HOUR_LIMIT * share)
    per_minute = requests_per_cycle * 60.0 / (PER_MINUTE_LIMIT * share)
    return max(per_hour, per_minute)


def effective_poll_seconds(poll_seconds: float, requests_per_cycle: int) -> tuple[float, bool]:
    """``(seconds, stretched)``: the asked interval, or a longer one (whole seconds) when it would break the budget.

    ``requests_per_cycle * 3600 / seconds`` stays at or under 80 % of 4800 an
    hour and ``requests_per_cycle * 60 / seconds`` under 80 % of 480 a minute.
    """
    needed = min_poll_seconds(requests_per_cycle)
    if needed <= poll_seconds:
        return poll_seconds, False
    return float(math.ceil(needed)), True


#: The most the viewers of one key stretch their interval together: ten times the asked interval, and never
#: past :data:`MAX_SHARED_SECONDS` (a process's own plan may be longer). Past it, the viewers together may meet
#: the server's 429s, whose Retry-After they honour: slower data, never data stopped by a number in the store.
MAX_SHARED_STRETCH = 10.0
MAX_SHARED_SECONDS = 600.0


def shared_stretch(current: float, combined_last_minute: int, *, share: float = BUDGET_SHARE) -> float:
    """How much every viewer of one key stretches its interval so that together they stay inside the limits.

    ``combined_last_minute`` is what all of them sent (the shared count), while
    stretched by ``current``: unstretched they would send ``current`` times as
    much. 1.0 while that fits in ``share`` of both limits (the hour's is the
    tighter: 80 a minute); else the factor that brings it back inside, at most
    :data:`MAX_SHARED_STRETCH`. Every viewer reads the same count, so they
    stretch together.
    """
    per_minute_budget = min(PER_MINUTE_LIMIT, PER_HOUR_LIMIT / 60.0) * share
    # Past this many requests the answer is the cap whatever the count: a huge number is never made a float.
    enough = math.ceil(per_minute_budget * MAX_SHARED_STRETCH) + 1
    demand = min(max(combined_last_minute, 0), enough) * min(max(current, 1.0), MAX_SHARED_STRETCH) / per_minute_budget
    return 1.0 if demand <= 1.0 else min(MAX_SHARED_STRETCH, round(demand, 2))


def shared_interval(asked: float, planned: float, stretch: float) -> float:
    """The interval to poll at: this process's own ``planned`` one, or the ``asked`` one stretched by the viewers
    together (capped: :data:`MAX_SHARED_STRETCH` times, at most :data:`MAX_SHARED_SECONDS`), whichever is longer."""
    if not stretch > 1.0:
        return planned
    stretched = min(math.ceil(asked * min(stretch, MAX_SHARED_STRETCH)), max(asked, MAX_SHARED_SECONDS))
    return max(planned, float(stretched))


# --------------------------------------------------------------------------- the operator's share

ACTIONS_PER_MINUTE = int(PER_MINUTE_LIMIT * (1 - BUDGET_SHARE))
ACTIONS_PER_HOUR = int(PER_HOUR_LIMIT * (1 - BUDGET_SHARE))


class ActionBudget:
    """At most ``per_minute`` requests in any 60 s and ``per_hour`` in any hour; ``acquire`` waits for room."""

    def __init__(self, monotonic: Callable[[], float], *, per_minute: int = ACTIONS_PER_MINUTE,
                 per_hour: int = ACTIONS_PER_HOUR,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.monotonic = monotonic
        self.per_minute = per_minute
        self.per_hour = per_hour
        self._sleep = sleep
        self._sent: deque[float] = deque()

    def _forget_old(self, now: float) -> None:
        while self._sent and now - self._sent[0] >= 3600.0:
            self._sent.popleft()

    def wait_seconds(self) -> float:
        """How long until one more request fits; 0 when it fits now."""
        now = self.monotonic()
        self._forget_old(now)
        wait = 0.0
        if len(self._sent) >= self.per_hour:
            wait = max(wait, self._sent[-self.per_hour] + 3600.0 - now)
        in_minute = sum(1 for t in self._sent if now - t < 60.0)
        if in_minute >= self.per_minute:
            recent = [t for t in self._sent if now - t < 60.0]
            wait = max(wait, recent[-self.per_minute] + 60.0 - now)
        return max(0.0, wait)

    def try_take(self) -> bool:
        """Take room for one request if there is some now (for work that can simply wait for the next poll)."""
        if self.wait_seconds() > 0:
            return False
        self._sent.append(self.monotonic())
        return True

    async def acquire(self) -> None:
        while (wait := self.wait_seconds()) > 0:
            await self._sleep(wait)
        self._sent.append(self.monotonic())

    @property
    def used_last_minute(self) -> int:
        now = self.monotonic()
        return sum(1 for t in self._sent if now - t < 60.0)


POLL_STEPS = (2.0, 3.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0)
"""The intervals ``+`` and ``-`` step through, in seconds."""


def poll_step(current: float, slower: bool) -> float | None:
    """The next longer (``slower``) or shorter interval of ``POLL_STEPS`` than ``current``; None past the ends."""
    steps = [s for s in POLL_STEPS if (s > current if slower else s < current)]
    if not steps:
        return None
    return steps[0] if slower else steps[-1]
