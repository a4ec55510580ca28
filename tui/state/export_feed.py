"""Where the exporter takes its verdicts and its alert counts: the one place to point at the models.

The verdicts are :func:`tui.state.health.judge`'s (the monitor's cells and
``status`` ask it too); the open alerts are the alert book's, fed through the
incident desk exactly as the monitor feeds it each poll. Nothing here decides
anything: it calls the models and counts what they say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from tui.state.alert_book import AlertBook, AlertKind
from tui.state.exports import WatchedExport
from tui.state.health import DEFAULT_GRACE_SECONDS, DEFAULT_LAG_INTERVALS, Verdict, judge, target_for
from tui.state.incident import IncidentDesk

ALERT_KINDS: tuple[str, ...] = tuple(str(kind) for kind in AlertKind)


def judge_exports(exports: Sequence[WatchedExport], now: datetime, *,
                  lag_intervals: float = DEFAULT_LAG_INTERVALS,
                  grace_seconds: float = DEFAULT_GRACE_SECONDS,
                  freshness: Mapping[str, float] | None = None) -> dict[str, Verdict]:
    """Each export's verdict at ``now`` (server time), by row key; ``freshness``: the profile's targets."""
    return {w.key: judge(w.export, now, lag_intervals=lag_intervals, grace_seconds=grace_seconds,
                         target_seconds=target_for(w.export, freshness))
            for w in exports}


class AlertFeed:
    """The monitor's alert model, fed one poll at a time; says how many alerts are open, by kind."""

    def __init__(self) -> None:
        self.desk = IncidentDesk(AlertBook())

    def observe(self, exports: Sequence[WatchedExport], verdicts: dict[str, Verdict], now: datetime) -> None:
        self.desk.observe(exports, verdicts, now)

    def open_by_kind(self) -> dict[str, int]:
        counts = dict.fromkeys(ALERT_KINDS, 0)
        for alert in self.desk.book.open_alerts:
            counts[str(alert.kind)] = counts.get(str(alert.kind), 0) + 1
        return counts
