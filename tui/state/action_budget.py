"""The share of the rate limit left to the operator's own requests, as a sliding window.

Polling is stretched to use at most 80 % of the key's limits (:mod:`tui.state.budget`);
bulk work started by the operator (a repair sending forty retries, the timeline
fetching older runs) must fit in the remaining 20 %, or it would push the key
into 429s and blind the monitor in the middle of an incident.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from tui.state.budget import BUDGET_SHARE, PER_HOUR_LIMIT, PER_MINUTE_LIMIT

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
