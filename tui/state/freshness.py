"""How fresh the data on screen is: one word each screen's status line shows and the poller decides."""

from __future__ import annotations

from enum import StrEnum


class Freshness(StrEnum):
    CONNECTING = "CONNECTING"  # no answer yet
    LIVE = "LIVE"
    STALE = "STALE"  # two cycles missed: the data on screen is old
    OFFLINE = "OFFLINE"  # repeated failures; the next retry is counted down
