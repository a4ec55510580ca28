"""The palette: every colour the app draws text with, named by what it means, with and without colour.

The one place that decides how a meaning looks, so that a failure, a warning or a muted line looks
the same on every screen, and so that ``NO_COLOR`` applies everywhere at once. Screens and widgets
name a :class:`Tone` and take its Rich style (``Tone.WARNING.style``) when they draw, not when they
are imported: the app chooses the set when it starts. A test fails on a colour written anywhere
else under ``tui/``.

Two sets of styles. With colour, a failure is bold red. Under ``NO_COLOR`` the app draws in the
terminal's own foreground and background only (:class:`tui.safe_app.SafeApp` starts Textual in its
ANSI mode, where NO_COLOR removes every colour rather than turning each into a grey). So without
colour a tone is told apart by attributes only (reverse for failures: the most visible thing, bold
or underline for what needs attention, italic for continued runs). The app says which set applies
once, when it starts (:func:`use_no_color`). Muted text is dim with colour; without colour it is drawn as any
other text, since a terminal draws dim as a grey: it is secondary, never a meaning.
"""

from __future__ import annotations

from enum import Enum


class Tone(Enum):
    """What a piece of text means to an operator; each tone has one colour style and one colourless style."""

    # Run statuses (tui.look.status), and the health and alerts that reuse their looks.
    FAILURE = "failure"
    RETRYING = "retrying"
    SUCCESS = "success"
    RUNNING = "running"
    STARTING = "starting"
    CONTINUED = "continued"
    QUIET = "quiet"
    UNKNOWN = "unknown"
    WARNING = "warning"
    PAUSED = "paused"  # not a run status: an export the service paused by itself (an alert kind)
    # Everything else on screen.
    ERROR = "error"  # something went wrong or is refused, or an action cannot be undone: read it first
    ERROR_TEXT = "error_text"  # the words of an error (a server's message, a run's error): a paragraph
    NOTE = "note"  # worth a look, not alarming: a stretched poll interval, records skipped
    LIVE = "live"  # data arriving: the connection's dot, logs following, a running survey
    DONE = "done"  # something finished well: a backfill cancelled, an alert resolved, a flag active
    ACCENT = "accent"  # a value picked out of its line: a filter, a log level, a question's kind
    KEY = "key"  # a key to press, in the help
    BRANCH = "branch"  # where a survey question leads next
    ADDED = "added"  # the new side of a change (its line or arrow says which side, too)
    REMOVED = "removed"  # the old side of a change
    MUTED = "muted"  # secondary text: hints, ids, placeholders, "none"
    STALE = "stale"  # the status-line badge: the data on screen is getting old
    OFFLINE = "offline"  # the status-line badge: the server cannot be reached
    FROZEN = "frozen"  # the status-line badge: the table stopped following the polls
    READ_ONLY = "read_only"  # the status-line badge: nothing can be changed from here
    CURSOR = "cursor"  # the timeline's cell cursor

    @property
    def style(self) -> str:
        """The Rich style of this tone in the current mode (colour, or ``NO_COLOR``)."""
        return (NO_COLOUR_STYLES if _no_color else COLOUR_STYLES)[self]


COLOUR_STYLES: dict[Tone, str] = {
    Tone.FAILURE: "bold red",
    Tone.RETRYING: "bold dark_orange",
    Tone.SUCCESS: "bold green",
    Tone.RUNNING: "bold cyan",
    Tone.STARTING: "cyan",
    Tone.CONTINUED: "bold medium_purple1",
    Tone.QUIET: "dim",
    Tone.UNKNOWN: "bold yellow",
    Tone.WARNING: "bold yellow",
    Tone.PAUSED: "bold magenta",
    Tone.ERROR: "bold red",
    Tone.ERROR_TEXT: "red",
    Tone.NOTE: "yellow",
    Tone.LIVE: "bold green",
    Tone.DONE: "green",
    Tone.ACCENT: "cyan",
    Tone.KEY: "bold cyan",
    Tone.BRANCH: "magenta",
    Tone.ADDED: "green",
    Tone.REMOVED: "red",
    Tone.MUTED: "dim",
    Tone.STALE: "bold black on yellow",
    Tone.OFFLINE: "bold white on red",
    Tone.FROZEN: "bold black on cyan",
    Tone.READ_ONLY: "bold black on white",
    Tone.CURSOR: "bold underline black on yellow",
}

#: Attributes only: reverse marks a failure (and, being a cursor's usual look, the timeline's cursor),
#: so it outshines everything else on screen.
NO_COLOUR_STYLES: dict[Tone, str] = {
    Tone.FAILURE: "bold reverse",
    Tone.RETRYING: "bold underline",
    Tone.SUCCESS: "",
    Tone.RUNNING: "bold",
    Tone.STARTING: "",
    Tone.CONTINUED: "italic",
    Tone.QUIET: "",
    Tone.UNKNOWN: "bold underline",
    Tone.WARNING: "bold underline",
    Tone.PAUSED: "bold",
    Tone.ERROR: "bold",  # not reversed: a reversed paragraph would be hard to read
    Tone.ERROR_TEXT: "bold",
    Tone.NOTE: "",
    Tone.LIVE: "bold",
    Tone.DONE: "",
    Tone.ACCENT: "",
    Tone.KEY: "bold",
    Tone.BRANCH: "",
    Tone.ADDED: "",
    Tone.REMOVED: "",
    Tone.MUTED: "",  # no dim either: a terminal draws it as a grey
    Tone.STALE: "bold underline",
    Tone.OFFLINE: "bold reverse",
    Tone.FROZEN: "bold",
    Tone.READ_ONLY: "bold",
    Tone.CURSOR: "bold underline reverse",
}

_no_color = False


def use_no_color(no_color: bool) -> None:
    """Choose the colourless styles (``NO_COLOR``) or the coloured ones, for the whole process."""
    global _no_color
    _no_color = no_color


def no_color() -> bool:
    return _no_color
