"""What a dashboard shares with the other viewers of its key through the cache's store.

Who is watching (each viewer renews its entry every poll; it lapses after
three intervals without one) and the key's combined request count, which the
monitor plans its interval by (:func:`tui.state.budget.shared_stretch`). The
facts for the status line are said here, so the screen only shows them.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.api.cache_context import key_id
from tui.state.budget import shared_stretch

if TYPE_CHECKING:
    from tui.api.cache import SharedCache

#: A viewer that has not renewed its entry for this many intervals is no longer counted.
VIEWER_LAPSE_INTERVALS = 3.0
MIN_VIEWER_LAPSE_SECONDS = 30.0
#: The shared count covers the last minute: a new stretch is judged only once it has had a minute to show.
RESTRETCH_AFTER_SECONDS = 60.0


class SharedViewers:
    """This process's view of the others using its cache; inert (one viewer, no stretch) without a cache."""

    def __init__(self, cache: SharedCache | None, base_url: str, api_key: str, *,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.cache = cache
        self._owner = key_id(base_url, api_key)
        self._viewer = uuid.uuid4().hex
        self._wall = wall
        self._monotonic = monotonic
        self._stretched_at = -math.inf
        self.viewers = 1
        self.stretch = 1.0
        self.combined_last_minute = 0

    async def sync(self, interval: float) -> None:
        """After each poll: publish what this process sent, renew its viewer entry, read the shared figures."""
        cache = self.cache
        if cache is None:
            return
        cache.poll_interval_is(interval)
        coordinator = cache.coordinator
        now = self._wall()
        sent = cache.take_sent()
        if sent:
            await cache.guarded(coordinator.add_requests(self._owner, sent, now))
        lapse = max(MIN_VIEWER_LAPSE_SECONDS, VIEWER_LAPSE_INTERVALS * interval)
        viewers = await cache.guarded(coordinator.heartbeat(self._owner, self._viewer, now + lapse, now))
        if isinstance(viewers, int):
            self.viewers = max(1, viewers)
        combined = await cache.guarded(coordinator.requests_since(self._owner, now - 60.0))
        if isinstance(combined, int):
            self.combined_last_minute = combined
            if self._monotonic() - self._stretched_at >= RESTRETCH_AFTER_SECONDS:
                stretch = shared_stretch(self.stretch, combined)
                if stretch != self.stretch:
                    self.stretch = stretch
                    self._stretched_at = self._monotonic()

    def interval(self, asked: float, planned: float) -> float:
        """The interval to poll at: this process's own plan, or longer when the viewers together need it."""
        if self.stretch <= 1.0:
            return planned
        return max(planned, float(math.ceil(asked * self.stretch)))

    def cache_problem(self) -> str | None:
        """Why the shared store is off (the dashboard then asks the server itself); None while it works."""
        return self.cache.problem if self.cache is not None and self.cache.problem else None

    def sharing_viewers(self) -> int:
        """How many dashboards share the store's answers (1: this one alone, or no store)."""
        return self.viewers if self.cache is not None and not self.cache.problem else 1

    async def leave(self) -> None:
        if self.cache is not None:
            await self.cache.guarded(self.cache.coordinator.leave(self._owner, self._viewer))
