"""The server's "now", estimated from the ``Date`` header of its answers.

Run times are stamped by the server's clock; measured against this machine's
they go negative ("last run in an hour") or, worse, look fresh while the
export is hours behind. The client hands every answer's ``Date`` header to
:meth:`ServerClock.record`; the offset is the median of the recent samples, so
one slow answer (or one proxy with its own clock) does not move it.
"""

from __future__ import annotations

import statistics
from collections import deque
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from tui.clock import Clock
from tui.text.words import coarse_duration, duration

SAMPLES = 7
# The header has one-second resolution and the answer spent time on the wire:
# offsets this small are that noise, not a skewed clock.
NOISE_SECONDS = 2.0
SKEW_WORTH_SAYING_SECONDS = 30.0


class ServerClock:
    """A :class:`~tui.clock.Clock` on the server's time: this machine's clock plus the estimated offset."""

    def __init__(self, local: Clock, samples: int = SAMPLES) -> None:
        self.local = local
        self._offsets: deque[float] = deque(maxlen=samples)

    def record(self, date_header: str) -> None:
        """One answer's ``Date`` header (the client's hook); a header that does not parse is ignored."""
        try:
            stamped = parsedate_to_datetime(date_header)
        except (TypeError, ValueError, IndexError):
            return
        if stamped.tzinfo is None:
            stamped = stamped.replace(tzinfo=UTC)
        self._offsets.append((stamped - self.local.now()).total_seconds())

    @property
    def samples(self) -> int:
        return len(self._offsets)

    @property
    def offset_seconds(self) -> float:
        """Server minus local, in seconds: positive when the server's clock is ahead of ours."""
        if not self._offsets:
            return 0.0
        median = statistics.median(self._offsets)
        return 0.0 if abs(median) < NOISE_SECONDS else float(median)

    def now(self) -> datetime:
        return self.local.now() + timedelta(seconds=self.offset_seconds)

    def skew_words(self, threshold: float = SKEW_WORTH_SAYING_SECONDS) -> str | None:
        """``server clock 15m ahead`` once the skew passes ``threshold`` seconds; else None."""
        return describe_skew(self.offset_seconds, threshold)


def describe_skew(offset_seconds: float, threshold: float = SKEW_WORTH_SAYING_SECONDS) -> str | None:
    if abs(offset_seconds) <= threshold:
        return None
    side = "ahead" if offset_seconds > 0 else "behind"
    size = abs(offset_seconds)
    # An estimate: seconds only while it is small, else to the nearest minute.
    amount = duration(size) if size < 120 else coarse_duration(round(size / 60) * 60)
    return f"server clock {amount} {side}"
