"""Injected time.

Every "x ago", lag and due-time calculation asks a clock instead of calling
``datetime.now()`` so that tests and screenshots can freeze time, and so that
``--demo`` can follow the sandbox's accelerated simulation clock: the data the
sandbox serves is stamped in simulated time, and measuring its age against the
wall clock would make every lag figure wrong.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Something that tells the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, for real servers."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenClock:
    """A clock that only moves when told to; for tests and screenshots."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        self._now = at

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> None:
        if not isinstance(delta, timedelta):
            delta = timedelta(seconds=delta)
        self._now += delta

    def set(self, at: datetime) -> None:
        self._now = at if at.tzinfo else at.replace(tzinfo=UTC)


class ScaledClock:
    """Simulated time that runs ``speed`` times faster than the wall clock.

    The mapping is anchored at (``epoch``, monotonic start) so that it never
    jumps backwards when the wall clock is adjusted. Thread-safe: the sandbox
    simulator and the UI read it from different threads.
    """

    def __init__(self, epoch: datetime | None = None, speed: float = 1.0, *, monotonic_at_epoch: float | None = None,
                 ) -> None:
        self._lock = threading.Lock()
        self._epoch = (epoch or datetime.now(UTC)).astimezone(UTC)
        # Given, two processes run one simulated time: the monotonic clock is the machine's, not the process's.
        self._mono = time.monotonic() if monotonic_at_epoch is None else monotonic_at_epoch
        self._speed = float(speed)

    @property
    def anchor(self) -> tuple[datetime, float]:
        """(simulated time, monotonic time) of one instant: enough for another process to share this clock."""
        with self._lock:
            return self._epoch, self._mono

    @property
    def speed(self) -> float:
        return self._speed

    def now(self) -> datetime:
        with self._lock:
            elapsed = (time.monotonic() - self._mono) * self._speed
            return self._epoch + timedelta(seconds=elapsed)

    def set_speed(self, speed: float) -> None:
        """Change the speed without a jump in simulated time."""
        with self._lock:
            elapsed = (time.monotonic() - self._mono) * self._speed
            self._epoch = self._epoch + timedelta(seconds=elapsed)
            self._mono = time.monotonic()
            self._speed = float(speed)

    def jump_to(self, at: datetime) -> None:
        """Re-anchor simulated time (used when a sandbox restarts on a saved database)."""
        with self._lock:
            self._epoch = at.astimezone(UTC)
            self._mono = time.monotonic()
