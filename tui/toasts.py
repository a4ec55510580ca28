"""How many toasts show, for how long, and when they wait: never over a dialog, a few at a time.

A toast covers what is under it (the bottom right of the screen), so over a dialog it covered the
dialog's buttons and the repair preview. While a dialog is open, a toast waits and shows when the
dialog closes (a minute at most: older news is dropped, the views say it anyway); at most
:data:`MAX_SHOWN` show at once, the rest wait their turn. Information leaves within
:data:`INFO_SECONDS`, whatever the caller asked; warnings and errors stay a little longer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MAX_SHOWN = 3
HELD_MAX = 20
HELD_SECONDS = 60.0
INFO_SECONDS = 4.0
LONGEST = {"information": INFO_SECONDS, "warning": 8.0, "error": 10.0}


@dataclass(frozen=True)
class Toast:
    message: str
    title: str
    severity: str
    timeout: float
    markup: bool
    asked_at: float


def toast_seconds(severity: str, asked: float | None) -> float:
    """How long a toast of this severity shows: what was asked, within the severity's longest."""
    longest = LONGEST.get(severity, INFO_SECONDS)
    return longest if asked is None else max(1.0, min(asked, longest))


class ToastQueue:
    """Which toasts show now and which wait; time from ``monotonic``."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self._monotonic = monotonic
        self._until: list[float] = []  # when each toast on screen leaves
        self.held: deque[Toast] = deque(maxlen=HELD_MAX)

    def _shown(self) -> int:
        now = self._monotonic()
        self._until = [until for until in self._until if until > now]
        return len(self._until)

    def offer(self, toast: Toast, *, blocked: bool) -> bool:
        """True: show it now. False: it waits (a dialog is open, or enough toasts are on screen)."""
        if blocked or self.held or self._shown() >= MAX_SHOWN:
            self.held.append(toast)
            return False
        self._until.append(self._monotonic() + toast.timeout)
        return True

    def release(self, *, blocked: bool) -> list[Toast]:
        """The waiting toasts that may show now, oldest first; those waiting too long are dropped."""
        if blocked:
            return []
        now = self._monotonic()
        while self.held and now - self.held[0].asked_at > HELD_SECONDS:
            self.held.popleft()
        ready: list[Toast] = []
        while self.held and self._shown() < MAX_SHOWN:
            toast = self.held.popleft()
            self._until.append(now + toast.timeout)
            ready.append(toast)
        return ready
