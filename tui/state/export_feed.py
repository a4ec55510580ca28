"""Where the exporter takes its verdicts and its alert counts: the one place to point at the models.

The verdicts are :func:`tui.state.health.judge`'s on the run history of an
:class:`~tui.state.export_board.ExportBoard` (``latest_runs`` and the runs list
read by :func:`~tui.state.io.board_records.read_board_records`), as the monitor's
cells have them; the open alerts are the alert book's, fed through the incident
desk exactly as the monitor feeds it each poll, on the same run history.
Nothing here decides anything: it calls the models and counts what they say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from tui.state.alert_book import Alert, AlertBook, AlertKind
from tui.state.exports import WatchedExport
from tui.state.health import Verdict
from tui.state.incident import IncidentDesk
from tui.state.run_history import RunHistory

ALERT_KINDS: tuple[str, ...] = tuple(str(kind) for kind in AlertKind)


class AlertFeed:
    """The monitor's alert model, fed one poll at a time; says how many alerts are open, by kind.

    ``history``: the run history the verdicts were judged on (the board's), so a failing export's episode
    begins where its streak does."""

    def __init__(self, history: RunHistory | None = None) -> None:
        self.desk = IncidentDesk(AlertBook(), history)

    def observe(self, exports: Sequence[WatchedExport], verdicts: Mapping[str, Verdict], now: datetime) -> None:
        self.desk.observe(exports, verdicts, now)

    def runs_changed(self, key: str) -> None:
        self.desk.runs_changed(key)

    def episode(self, key: str) -> Alert | None:
        """The export's alert episode in course: what its ``healthy``, ``alert_open`` and ``alert_kind`` say."""
        return self.desk.book.episode(key)

    def open_by_kind(self) -> dict[str, int]:
        counts = dict.fromkeys(ALERT_KINDS, 0)
        for alert in self.desk.book.open_alerts:
            counts[str(alert.kind)] = counts.get(str(alert.kind), 0) + 1
        return counts
