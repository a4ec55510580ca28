"""What a poll's alert changes announce, and where: the bell, the toasts and the ``on_alert`` hook's events.

The rules of the one alert model at the screen's edge, kept apart from the screen that carries them out: an
episode that opens (not one already open at the first look) rings the bell when the profile wants a bell, gets a
toast (one per export per minute of the operator's time, at most :data:`TOASTS_PER_POLL` at once, the rest counted
in one line), and goes to the hook as "opened", and as "resolved" when it ends; a kind changing inside an episode
does none of these. While toasts may not show (a dialog or the editor is on top), the alerts worth a toast are
counted as toasted and handed over as ``waiting``: the screen keeps those that opened under a dialog for when it
closes (:func:`toast_lines`, at most :data:`~tui.toasts.MAX_SHOWN`), and drops those under the editor.

A silenced export (:mod:`tui.state.alert_marks`) keeps its alert, but none of this: no bell, no toast, and its
hook events are held until the silence ends (:class:`~tui.state.alert_marks.HeldEvents`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tui.state.alert_book import Alert, AlertBook, AlertChanges
from tui.state.alert_marks import HeldEvents
from tui.text.clean import clean

TOASTS_PER_POLL = 5


@dataclass(frozen=True)
class Announcements:
    """What one poll's changes ask of the screen."""

    bell: bool = False
    toasts: list[str] = field(default_factory=list)  # one line each, cleaned
    more: int = 0  # new alerts past the toasts shown, said in one line
    hook_events: list[tuple[str, Alert]] = field(default_factory=list)
    waiting: list[Alert] = field(default_factory=list)  # worth a toast, but toasts may not show now

    @property
    def more_line(self) -> str:
        return more_line(self.more)


def toast_line(alert: Alert) -> str:
    return clean(f"{alert.export_name}: {alert.kind}, {alert.detail}", limit=300)


def more_line(count: int) -> str:
    return f"{count} more new alerts: ! lists them" if count else ""


def toast_lines(alerts: list[Alert], most: int, more: int = 0) -> tuple[list[str], int]:
    """The toasts for these alerts when at most ``most`` may show: one each, or past that one fewer and a count of
    the rest (and of ``more`` counted before) in the last."""
    if len(alerts) + (1 if more else 0) <= most:
        return [toast_line(alert) for alert in alerts], more
    shown = alerts[:most - 1]
    return [toast_line(alert) for alert in shown], len(alerts) - len(shown) + more


def _never(alert: Alert) -> bool:
    return False


def announce(changes: AlertChanges, book: AlertBook, elapsed: float, *, bell: bool, may_toast: bool,
             hook: bool, silenced: Callable[[Alert], bool] = _never, held: HeldEvents | None = None,
             ) -> Announcements:
    """The announcements of ``changes``; ``elapsed`` is the operator's monotonic clock (the toasts' pace).

    ``silenced`` says which alerts' exports are silenced now; ``held`` keeps their hook events (and gives back
    those whose silence ended), else they are dropped."""
    loud = [alert for alert in changes.opened if not silenced(alert)]
    ring = bell and any(alert.new for alert in loud)
    chosen = book.toasts(loud, elapsed) if loud else []
    lines = [toast_line(alert) for alert in chosen[:TOASTS_PER_POLL]] if may_toast else []
    more = max(0, len(chosen) - TOASTS_PER_POLL) if may_toast else 0
    events = changes.announced() if hook else []
    if held is not None and hook:
        events = held.route(events, silenced)
    else:
        events = [(event, alert) for event, alert in events if not silenced(alert)]
    return Announcements(bell=ring, toasts=lines, more=more, hook_events=events, waiting=[] if may_toast else chosen)
