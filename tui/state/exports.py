"""Which exports are watched: the poll's answer as data (snapshots, routes found missing, what a poll learned).

The poll itself is :mod:`tui.state.io.export_source`'s. Whether an export is healthy is decided in
:mod:`tui.state.health`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.api.models.common import ItemError
from tui.state.health import latest_run as health_latest_run
from tui.state.health import runs_newest_first

LIST_RECHECK_SECONDS = 600.0


class MissingRoutes:
    """Routes that answered 404/405, asked again after ``LIST_RECHECK_SECONDS`` or when told to (ctrl+r).

    A 404 can be a blip or a deploy: a route is never taken as missing for the rest of a session. One rule for
    the export list (per project) and the runs list.
    """

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._since: dict[str, float] = {}

    def not_offered(self, key: str) -> None:
        self._since[key] = self._monotonic()

    def missing(self, key: str) -> bool:
        since = self._since.get(key)
        if since is None:
            return False
        if self._monotonic() - since >= LIST_RECHECK_SECONDS:
            del self._since[key]
            return False
        return True

    def look_again(self) -> None:
        self._since.clear()


@dataclass(frozen=True)
class WatchedExport:
    project_id: str
    export: BatchExport

    @property
    def key(self) -> str:
        """Row key: unique across projects."""
        return f"{self.project_id}:{self.export.id}"


@dataclass
class ExportsSnapshot:
    """One successful poll: the exports, in a stable order, and what could not be read."""

    exports: list[WatchedExport] = field(default_factory=list)
    item_errors: list[ItemError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)  # why an export answer was not shown (its last good was)
    # Seconds the oldest answer in it had already aged when the poll ended (answers shared through the cache).
    answer_age: float = 0.0

    def by_key(self) -> dict[str, WatchedExport]:
        return {w.key: w for w in self.exports}


@dataclass
class Learned:
    """What a source learned from its polls: the first poll (:class:`FirstPoll`) hands it over to the monitor's."""

    requests_sent: dict[str, int] = field(default_factory=dict)  # per project
    list_answered: set[str] = field(default_factory=set)
    lists_missing: set[str] = field(default_factory=set)  # projects whose list route answered 404/405
    last_good: dict[str, ExportsSnapshot] = field(default_factory=dict)
    last_complete: dict[str, BatchExport] = field(default_factory=dict)



def runs_oldest_first(export: BatchExport) -> list[BatchExportRun]:
    """``latest_runs`` in the one ordering of :mod:`tui.state.health`, oldest first (for strips and charts)."""
    return list(reversed(runs_newest_first(export.latest_runs)))


def latest_run(export: BatchExport) -> BatchExportRun | None:
    """The export's latest run by the one ordering of :mod:`tui.state.health`."""
    return health_latest_run(export.latest_runs)
