"""What the incident views share: the desk they read, what repair needs to send, a screen that follows the desk.

The views are screens pushed over the monitor, which keeps polling under them
and feeds the desk; each view redraws when the desk changes. They reach the
server only through ``client_for`` and only inside the operator's budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from rich.text import Text
from textual.screen import Screen

from tui.api.client import ApiClient
from tui.clock import Clock
from tui.render import ago
from tui.state.action_budget import ActionBudget
from tui.state.incident import IncidentDesk
from tui.state.journal import ActionJournal

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

    def now(self) -> datetime:
        return self.desk.now or self.clock.now()


def when(moment: datetime | None, now: datetime) -> Text:
    """``09:10 (2 hours ago)``: the clock time on-call says out loud, and how long ago."""
    if moment is None:
        return Text("—", style="dim")
    return Text.assemble(f"{moment:%H:%M}", (f" ({ago(moment, now, coarse=True)})", "dim"))


class IncidentScreen(Screen[R]):
    """A screen that redraws from the desk after every poll while it is shown."""

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

    def _desk_changed(self) -> None:
        if self.is_attached:
            self.redraw()

    def redraw(self) -> None:
        """Show the desk as it is now (each view draws its own)."""
