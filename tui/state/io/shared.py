"""What a dashboard shares with the other viewers of its key through the cache's store.

Who is watching (each viewer renews its entry every poll; it lapses after
three intervals without one) and the key's combined request count, which the
monitor plans its interval by (:func:`tui.state.budget.shared_stretch`, capped).
Both are signed entries of the key's shared state (:mod:`tui.api.shared_state`):
each process writes its own count per 10-second bucket and its own viewer
entry, and adds up the others' that check. The facts for the status line are
said here, so the screen only shows them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.api.shared_state import MAX_VIEWER_LAPSE_SECONDS, VIEWERS_SLOT, plausible_until
from tui.state.budget import shared_interval, shared_stretch

if TYPE_CHECKING:
    from tui.api.cache import SharedCache
    from tui.api.shared_state import SharedState

#: A viewer that has not renewed its entry for this many intervals is no longer counted.
VIEWER_LAPSE_INTERVALS = 3.0
MIN_VIEWER_LAPSE_SECONDS = 30.0
#: The shared count covers the last minute: a new stretch is judged only once it has had a minute to show.
RESTRETCH_AFTER_SECONDS = 60.0
#: The count is kept per bucket of this many seconds, for an hour.
BUCKET_SECONDS = 10
COUNT_KEEP_SECONDS = 3600.0
#: More requests than this from one process in one bucket is not a process's count (the hour's limit is 4,800).
MAX_REQUESTS_PER_BUCKET = 10_000
IGNORED_NOTE = "shared cache: entries without this key's signature ignored"


def requests_slot(bucket: int) -> str:
    return f"requests:{bucket}"


class SharedViewers:
    """This process's view of the others using its cache; inert (one viewer, no stretch) without a cache."""

    def __init__(self, cache: SharedCache | None, base_url: str, api_key: str, *,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.cache = cache
        self._base_url = base_url
        self._api_key = api_key
        self._wall = wall
        self._monotonic = monotonic
        self._stretched_at = -math.inf
        self.viewers = 1
        self.stretch = 1.0
        self.combined_last_minute = 0
        #: Entries that fail the check or are out of range were read since the sync before (the status line says so).
        self.ignoring = False
        self._ignored_before = 0

    def _state(self) -> SharedState | None:
        return self.cache.state(self._base_url, self._api_key) if self.cache is not None else None

    async def sync(self, interval: float) -> None:
        """After each poll: publish what this process sent, renew its viewer entry, read the shared figures."""
        cache, state = self.cache, self._state()
        if cache is None or state is None:
            return
        cache.poll_interval_is(interval)
        now = self._wall()
        bucket = int(now // BUCKET_SECONDS)
        sent = cache.take_sent()
        if sent:
            await cache.guarded(state.add(requests_slot(bucket), sent, keep=COUNT_KEEP_SECONDS + BUCKET_SECONDS))
        lapse = min(MAX_VIEWER_LAPSE_SECONDS, max(MIN_VIEWER_LAPSE_SECONDS, VIEWER_LAPSE_INTERVALS * interval))
        viewers = await cache.guarded(self._heartbeat(state, now, lapse))
        if isinstance(viewers, int):
            self.viewers = max(1, viewers)
        first = int((now - 60.0) // BUCKET_SECONDS)
        combined = await cache.guarded(state.total([requests_slot(b) for b in range(first, bucket + 1)],
                                                   most=MAX_REQUESTS_PER_BUCKET))
        # Every read of this key's state counts: the answers' generations and leases as well as the figures above.
        self.ignoring, self._ignored_before = state.ignored > self._ignored_before, state.ignored
        if isinstance(combined, int):
            self.combined_last_minute = combined
            if self._monotonic() - self._stretched_at >= RESTRETCH_AFTER_SECONDS:
                stretch = shared_stretch(self.stretch, combined)
                if stretch != self.stretch:
                    self.stretch = stretch
                    self._stretched_at = self._monotonic()

    @staticmethod
    async def _heartbeat(state: SharedState, now: float, lapse: float) -> int:
        """Renew this viewer's entry, let lapsed ones go, and count the live ones (this one included)."""
        await state.put(VIEWERS_SLOT, now + lapse, keep=lapse + 60.0)
        [entries] = await state.entries([VIEWERS_SLOT], plausible_until(now, MAX_VIEWER_LAPSE_SECONDS))
        lapsed = [writer for writer, until in entries.items() if isinstance(until, int | float) and until < now]
        if lapsed:
            await state.store.erase(state.name(VIEWERS_SLOT), lapsed)
        return len(entries) - len(lapsed)

    def interval(self, asked: float, planned: float) -> float:
        """The interval to poll at: this process's own plan, or longer (capped) when the viewers together need it."""
        return shared_interval(asked, planned, self.stretch)

    def cache_problem(self) -> str | None:
        """Why the shared store is off (the dashboard then asks the server itself); None while it works."""
        return self.cache.problem if self.cache is not None and self.cache.problem else None

    def sharing_viewers(self) -> int:
        """How many dashboards share the store's answers (1: this one alone, or no store)."""
        return self.viewers if self.cache is not None and not self.cache.problem else 1

    def ignoring_entries(self) -> bool:
        """Entries in the store that fail this key's check (or are out of range) were ignored since the last poll."""
        return self.ignoring and self.cache is not None and not self.cache.problem

    async def leave(self) -> None:
        state = self._state()
        if self.cache is not None and state is not None:
            await self.cache.guarded(state.remove(VIEWERS_SLOT))
