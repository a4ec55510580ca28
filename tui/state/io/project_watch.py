"""A project's watch: everything that watching some projects' exports takes, made together and replaced together.

The monitor holds one :class:`ProjectWatch`. When the operator switches project it makes a new one for the new
project and drops the old one whole: the exports' source, its poll schedule, the board that judges the answers,
the actions sent on its exports and the runs pane's reads all start from a clean slate at once, and none of them
keeps a part of the old watch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from tui.clock import Clock
from tui.state.budget import effective_poll_seconds
from tui.state.export_board import ExportBoard
from tui.state.exports import ExportsSnapshot
from tui.state.incident import IncidentDesk
from tui.state.io.board_records import RECORDS_PER_POLL, read_board_records
from tui.state.io.export_actions import Change, ExportActions, Notify
from tui.state.io.export_source import ExportsSource, FirstPoll
from tui.state.io.poller import Poller
from tui.state.io.runs_loads import RunsLoads
from tui.state.journal_entry import JournalWriter
from tui.text.words import duration

if TYPE_CHECKING:
    from tui.api.client import ApiClient


@dataclass(frozen=True)
class WatchParts:
    """What every watch of one monitor is made with: its clients, clocks and settings, the incident desk that
    shares the board's run history, the action journal, and where actions report to the screen."""

    client_for: Callable[[str], ApiClient]
    export_ids: Sequence[str]
    monotonic: Callable[[], float]
    jitter: Callable[[], float]
    lag_intervals: float
    freshness: Mapping[str, float]
    desk: IncidentDesk
    take: Callable[[], bool]  # a request of the operator's share of the rate budget
    journal: JournalWriter
    profile: str | None
    clock: Clock
    server_clock: Clock
    notify: Notify
    changed: Callable[[Change], None]
    unsupported: set[tuple[str, str]]  # server features found missing, shared with the incident views
    paused_here: Callable[[str, bool], None]  # the operator paused or unpaused an export from this screen


class ProjectWatch:
    """The watched projects' exports source, poll schedule, board, actions, runs reads and record reads."""

    def __init__(self, project_ids: Sequence[str], parts: WatchParts, *, interval: float,
                 first_poll: FirstPoll | None) -> None:
        self.project_ids = list(project_ids)
        self._parts = parts
        clients = [parts.client_for(pid) for pid in self.project_ids]
        self.source = ExportsSource(clients, parts.export_ids, monotonic=parts.monotonic, first_poll=first_poll)
        self.poller: Poller[ExportsSnapshot] = Poller(
            self.source.fetch, interval, monotonic=parts.monotonic, jitter=parts.jitter,
            age_of=lambda snapshot: snapshot.answer_age, timeout=clients[0].timeout,
        )
        monotonic = parts.monotonic
        self.board = ExportBoard(lag_intervals=parts.lag_intervals, freshness=parts.freshness,
                                 monotonic=lambda: monotonic())
        self.board.pause_listeners.append(parts.paused_here)
        parts.desk.history = self.board.history  # one run history: the verdicts' and the incident views'
        self.actions = ExportActions(self.board, parts.client_for, parts.journal, profile=parts.profile,
                                     clock=parts.clock, server_clock=parts.server_clock, notify=parts.notify,
                                     changed=parts.changed, unsupported=parts.unsupported)
        self.runs = RunsLoads(self.board, parts.client_for, parts.desk, take=parts.take)

    def pace(self, asked: float, shared: Callable[[float, float], float]) -> str | None:
        """Poll every ``asked`` seconds, or longer when exports x projects would exceed the per-key rate limit
        (480/min, 4,800/h) or the other viewers of the key need it (``shared(asked, planned)``); why the interval
        is longer than asked, None when it is not."""
        per_cycle = self.source.requests_per_cycle + 1  # + the selected export's runs
        seconds, _ = effective_poll_seconds(asked, per_cycle)
        seconds = shared(asked, seconds)
        self.poller.interval = seconds
        return f"stretched from {duration(asked)} for the rate limit" if seconds > asked else None

    async def read_records(self, now: Callable[[], datetime]) -> list[str]:
        """Read the runs list of the exports whose verdict ``latest_runs`` cannot settle (no Completed run among
        them, or a failure streak as long as the list), visible rows first, inside the operator's share of the
        rate budget; the keys whose run history changed (the incident desk is told: its views show the true lag
        and streak too)."""
        board, parts = self.board, self._parts
        if board.snapshot is None:
            return []
        visible = [w.key for w in board.visible()]
        shown = set(visible)
        order = visible + [w.key for w in board.snapshot.exports if w.key not in shown]
        changed = await read_board_records(board, lambda project_id: parts.client_for(project_id).batch_exports,
                                           now, take=parts.take, order=order, limit=RECORDS_PER_POLL)
        for key in changed:
            parts.desk.runs_changed(key)
        return changed
