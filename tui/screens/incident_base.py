"""What the incident views share: the desk they read, what repair needs to send, a screen that follows the desk.

The views are screens pushed over the monitor, which keeps polling under them
and feeds the desk; each view redraws when the desk changes. They reach the
server only through ``client_for`` and only inside the operator's budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from rich.text import Text
from textual.widgets import DataTable

from tui.api.client import ApiClient
from tui.clock import Clock
from tui.look.palette import Tone
from tui.screens.base import WatchdeckScreen
from tui.state.budget import ActionBudget
from tui.state.incident import IncidentDesk
from tui.state.io.hook_outbox import HookOutbox
from tui.state.io.journal import ActionJournal
from tui.text.words import coarse_duration

R = TypeVar("R")


@dataclass
class IncidentContext:
    desk: IncidentDesk
    client_for: Callable[[str], ApiClient]
    budget: ActionBudget
    journal: ActionJournal
    clock: Clock
    profile: str | None = None
    read_only: bool = False
    # Server features found missing (404/405), per project: ("backfills", "1"), ("runs", "1"), ("cancel", "1").
    unsupported: set[tuple[str, str]] = field(default_factory=set)
    hooks: HookOutbox | None = None  # the on_alert hook's events on their way, where a hook is set

    def now(self) -> datetime:
        return self.desk.now or self.clock.now()


WHEN_WIDTH = 17


def when(moment: datetime | None, now: datetime) -> Text:
    """``09:10 (2h05m ago)``: the clock time on-call says out loud, and how long ago."""
    if moment is None:
        return Text("—", style=Tone.MUTED.style)
    return Text.assemble(f"{moment:%H:%M}",
                         (f" ({coarse_duration(max(0.0, (now - moment).total_seconds()))} ago)", Tone.MUTED.style))


def set_columns(table: DataTable[Any], columns: Sequence[tuple[str, str, int | None]], total_width: int) -> None:
    """(Re)create a table's columns; the one without a width takes what is left of ``total_width``.

    Every column has a fixed width so the table never scrolls sideways at 80 columns.
    """
    fixed = sum((width or 0) + 2 for _, _, width in columns)
    rest = max(12, total_width - fixed - 4)  # 2 of padding for the flexible column, 2 for the scrollbar
    table.clear(columns=True)
    for key, label, width in columns:
        table.add_column(label, key=key, width=width if width is not None else rest)


class IncidentScreen(WatchdeckScreen[R]):
    """A screen that redraws from the desk after every poll while it is shown."""

    TAKES_ALERT_TOASTS = True

    def __init__(self, context: IncidentContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.context = context
        self.desk = context.desk
        self._unsubscribe: Callable[[], None] | None = None

    def on_mount(self) -> None:
        self._unsubscribe = self.desk.subscribe(self._desk_changed)
        self.redraw()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.desk.history.hold(type(self).__name__, None)

    def hold_runs(self, since: datetime) -> None:
        """The run history keeps the runs created since ``since`` while this view is open (it shows them)."""
        self.desk.history.hold(type(self).__name__, since)

    def _desk_changed(self) -> None:
        if self.is_attached:
            self.redraw()

    def redraw(self) -> None:
        """Show the desk as it is now (each view draws its own)."""
