"""How many toasts show, for how long, when they wait and where: never over a dialog or the focused line.

A toast covers what is under it, so over a dialog it covered the dialog's buttons and the repair
preview. While a dialog is open, a toast waits and shows when the dialog closes (a minute at most:
older news is dropped, the views say it anyway); at most :data:`MAX_SHOWN` show at once, the rest
wait their turn. Information leaves within :data:`INFO_SECONDS`, whatever the caller asked; warnings
and errors stay a little longer. Toasts stack in the bottom right corner, or in the top right one
when there they would cover less of where the operator reads in the focused widget (its cursor's
line, or the widget itself): :func:`toast_side`.

Textual takes a toast down with a timer of its own, set when the toast is drawn, a moment after its
notification ends. A toast shown in that moment (or anything else that redraws the toasts) takes the ended
toast off but leaves the holder around it in the screen's toast rack, for good: a wall screen with alerts
arriving all day would pile them up. So a toast that has ended counts as leaving for :data:`LEAVING_SECONDS`,
and nothing new shows while one is leaving: it waits for the next look (a fraction of a second).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len

MAX_SHOWN = 3
HELD_MAX = 20
HELD_SECONDS = 60.0
INFO_SECONDS = 4.0
LEAVING_SECONDS = 1.0  # after its end, until Textual's own timer has taken a toast and its holder down
LONGEST = {"information": INFO_SECONDS, "warning": 8.0, "error": 10.0}
TOAST_WIDTH = 60  # cells, as styles/app.tcss sets it; the text inside is 57 wide (padding and the coloured edge)
TOAST_TEXT_WIDTH = TOAST_WIDTH - 3


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


Fits = Callable[[list["Toast"]], bool]


def _always(stack: list[Toast]) -> bool:
    return True


class ToastQueue:
    """Which toasts show now and which wait; time from ``monotonic``."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self._monotonic = monotonic
        self._until: list[tuple[float, Toast]] = []  # each toast on screen, and when it leaves
        self.held: deque[Toast] = deque(maxlen=HELD_MAX)

    def _shown(self) -> int:
        now = self._monotonic()
        self._until = [(until, toast) for until, toast in self._until if until + LEAVING_SECONDS > now]
        return sum(1 for until, _ in self._until if until > now)

    def _leaving(self) -> bool:
        """A toast has ended and Textual may not have taken it down yet: showing another now would leave its
        holder behind."""
        now = self._monotonic()
        return any(until <= now < until + LEAVING_SECONDS for until, _ in self._until)

    def withdraw(self) -> list[Toast]:
        """The toasts on screen go back to wait, first in line (a dialog opened over them); returns them."""
        shown = self.on_screen()
        self._until = []
        self.held.extendleft(reversed(shown))
        return shown

    def idle(self) -> bool:
        """No toast on screen, leaving or waiting: nothing to look at until the next one is offered."""
        self._shown()
        return not self._until and not self.held

    def on_screen(self) -> list[Toast]:
        """The toasts showing now."""
        self._shown()
        now = self._monotonic()
        return [toast for until, toast in self._until if until > now]

    def offer(self, toast: Toast, *, blocked: bool, fits: Fits = _always) -> bool:
        """True: show it now. False: it waits (a dialog is open, enough toasts are on screen, one is leaving, or
        the stack with it would not fit beside the focused line: ``fits`` says, given the stack)."""
        if (blocked or self.held or self._shown() >= MAX_SHOWN or self._leaving()
                or not fits([*self.on_screen(), toast])):
            self.held.append(toast)
            return False
        self._until.append((self._monotonic() + toast.timeout, toast))
        return True

    def release(self, *, blocked: bool, fits: Fits = _always) -> list[Toast]:
        """The waiting toasts that may show now, oldest first; those waiting too long are dropped."""
        if blocked:
            return []
        now = self._monotonic()
        while self.held and now - self.held[0].asked_at > HELD_SECONDS:
            self.held.popleft()
        ready: list[Toast] = []
        if self._leaving():
            return ready
        while self.held and self._shown() < MAX_SHOWN and fits([*self.on_screen(), self.held[0]]):
            toast = self.held.popleft()
            self._until.append((now + toast.timeout, toast))
            ready.append(toast)
        return ready


# --------------------------------------------------------------------------- where they stack

Box = tuple[int, int, int, int]  # x, y, width, height, in screen cells


def toast_height(toast: Toast) -> int:
    """Rows one toast takes in its stack: the margin above it, its padding, its title and its wrapped text."""
    lines = sum(max(1, math.ceil(cell_len(line) / TOAST_TEXT_WIDTH)) for line in toast.message.splitlines() or [""])
    return 1 + 2 + (1 if toast.title else 0) + lines


def _overlap(a: Box, b: Box) -> int:
    width = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    height = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0, width) * max(0, height)


def toast_side(screen: tuple[int, int], toasts: Sequence[Toast], spot: Box | None) -> str | None:
    """Where this stack of toasts goes: ``"bottom"`` (above the footer) or ``"top"`` (under the status line).

    The corner where it covers none of ``spot``, the bottom one first. None when it would cover some of
    ``spot`` in either and a shorter stack might not: the newest toast waits for one on screen to leave.
    A single toast that covers ``spot`` either way (a widget without a cursor, as tall as the screen) takes
    the corner where it covers less: waiting would not help.
    """
    if spot is None:
        return "bottom"
    width, height = screen
    rows = min(height - 2, sum(toast_height(toast) for toast in toasts))
    stack = min(width, TOAST_WIDTH)
    bottom = _overlap((width - stack, height - 1 - rows, stack, rows), spot)
    top = _overlap((width - stack, 1, stack, rows), spot)
    if not bottom or not top:
        return "bottom" if not bottom else "top"
    if len(toasts) > 1:
        return None
    return "top" if top < bottom else "bottom"
