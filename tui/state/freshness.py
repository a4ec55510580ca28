"""How fresh the data on screen is: one word each screen's status line shows and the poller decides."""

from __future__ import annotations

from enum import StrEnum


class Freshness(StrEnum):
    CONNECTING = "CONNECTING"  # no answer yet
    LIVE = "LIVE"
    STALE = "STALE"  # two cycles missed: the data on screen is old
    OFFLINE = "OFFLINE"  # repeated failures; the next retry is counted down


def load_freshness(*, loaded: bool, failed: bool) -> Freshness:
    """The freshness of a screen that loads on demand (the survey list): connecting until its first answer, offline
    when that failed, stale when a later load failed, else live."""
    if not loaded:
        return Freshness.OFFLINE if failed else Freshness.CONNECTING
    return Freshness.STALE if failed else Freshness.LIVE
