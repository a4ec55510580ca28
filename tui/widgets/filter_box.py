"""The filter line of the monitor, the survey list and the logs: hidden until asked for, its text applied once
typing pauses.

A :class:`FilterBox` shows itself and takes the focus at once when opened (keys typed straight after must not reach
the screen's actions; ``focus()`` would wait). Each change of its text starts the wait again (``wait()`` seconds,
read as each wait starts, so that the tests' shorter waits apply; no wait applies each key at once); ``enter``
applies at once, and :meth:`FilterBox.close` empties, hides and applies the empty filter. What applying does is
the screen's (``apply``, called with the text stripped); the screen compares it with what it shows.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.timer import Timer
from textual.widgets import Input

from tui.widgets.text_field import TextField


class FilterBox(TextField):
    """A one-line filter, hidden until :meth:`open`."""

    def __init__(self, placeholder: str, *, apply: Callable[[str], object], wait: Callable[[], float] = lambda: 0.0,
                 id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.display = False
        self._apply = apply
        self._wait = wait
        self._timer: Timer | None = None

    @property
    def shown(self) -> bool:
        return self.display

    def open(self) -> None:
        self.display = True
        self.screen.set_focus(self)

    def hide(self) -> None:
        """Hide the box, its text kept."""
        self.display = False

    def close(self) -> None:
        """Empty and hide the box, and apply the empty filter now."""
        self._stop()
        with self.prevent(Input.Changed):  # applied here, once
            self.value = ""
        self.display = False
        self._apply("")

    def apply_now(self) -> None:
        self._stop()
        self._apply(self.value.strip())

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if event.input is not self:
            return
        self._stop()
        wait = self._wait()
        if wait > 0:
            self._timer = self.set_timer(wait, self.apply_now)
        else:
            self._apply(event.value.strip())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input is self:
            self.apply_now()
