"""How a run status looks: its letter, its label, its explanation and its style, with and without colour.

The one place that decides it: the monitor's cells, the runs table, the run
dialog and the help legend all ask here, so a status cannot look like one thing
in a table and another in the legend.

Two sets of styles. With colour, a failure is bold red. Under ``NO_COLOR``
Textual turns every colour into a grey of the same luminance, and red is dark:
a failure became the faintest text on screen. So without colour a status is
told apart by attributes only (reverse for failures: the most visible thing,
bold for running, italic for continued), never by a dim grey. The app says
which set applies once, when it starts (:func:`use_no_color`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rich.text import Text

from tui.render import clean


class Tone(Enum):
    """What a status means to an operator; each tone has one colour style and one colourless style."""

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
}

#: Attributes only: reverse marks a failure (and nothing else), so it outshines everything else on screen.
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
}


@dataclass(frozen=True)
class StatusLook:
    """A letter (never colour alone: letters are distinct in upper case), a short label, a sentence and a tone."""

    letter: str
    label: str
    meaning: str
    tone: Tone

    @property
    def style(self) -> str:
        return tone_style(self.tone)

    @property
    def cell_style(self) -> str:
        """The letter's cell: reversed in colour for every status; without colour, only for failures."""
        if _no_color:
            return self.style
        return self.style + " reverse"


LOOKS: dict[str, StatusLook] = {
    "Completed": StatusLook("C", "completed", "the run finished and its data arrived", Tone.SUCCESS),
    "Failed": StatusLook("F", "failed", "the run stopped with an error", Tone.FAILURE),
    "TimedOut": StatusLook("T", "timed out", "the run took longer than allowed and was stopped", Tone.FAILURE),
    "Terminated": StatusLook("X", "terminated", "the run was killed before it finished", Tone.FAILURE),
    "FailedBilling": StatusLook("B", "billing", "refused: the organisation's billing does not allow it",
                                Tone.FAILURE),
    "FailedRetryable": StatusLook("E", "retryable", "failed, and the service will try it again", Tone.RETRYING),
    "Running": StatusLook("R", "running", "the run is moving data now", Tone.RUNNING),
    "Starting": StatusLook("S", "starting", "the run is queued and about to start", Tone.STARTING),
    "ContinuedAsNew": StatusLook("N", "continued", "the run handed its work on to a new run", Tone.CONTINUED),
    "Cancelled": StatusLook("-", "cancelled", "the run was cancelled (by a person or a newer run)", Tone.QUIET),
}
UNKNOWN = StatusLook("?", "unknown", "a status this version of watchdeck does not know", Tone.UNKNOWN)

_no_color = False


def use_no_color(no_color: bool) -> None:
    """Choose the colourless styles (``NO_COLOR``) or the coloured ones, for the whole process."""
    global _no_color
    _no_color = no_color


def no_color() -> bool:
    return _no_color


def tone_style(tone: Tone) -> str:
    """The style of a tone in the current mode; also for things that are not run statuses (an overdue lag)."""
    return (NO_COLOUR_STYLES if _no_color else COLOUR_STYLES)[tone]


def error_text_style() -> str:
    """An error message's text: red with colour, bold without (a reversed paragraph would be hard to read)."""
    return "bold" if _no_color else "red"


def status_look(status: str | None) -> StatusLook:
    if status in LOOKS:
        return LOOKS[status]
    return StatusLook("?", clean(status or "unknown", limit=24).lower(), UNKNOWN.meaning, Tone.UNKNOWN)


def status_text(status: str | None) -> Text:
    """``C completed`` in the status's style; unknown statuses show their raw name."""
    look = status_look(status)
    return Text.assemble((look.letter, look.cell_style), " ", (look.label, look.style), end="")


def status_strip(statuses: list[str], width: int = 10) -> Text:
    """The last runs as one cell with a letter each, oldest left, newest right."""
    cells = Text(no_wrap=True, end="")
    for status in statuses[-width:]:
        look = status_look(status)
        cells.append(look.letter, style=look.cell_style)
    return cells


def legend() -> list[tuple[Text, str]]:
    """Every status as (letter and label in its look, what it means), the unknown one last, for the help screen."""
    rows = []
    for look in [*LOOKS.values(), UNKNOWN]:
        rows.append((Text.assemble((look.letter, look.cell_style), " ", (look.label, look.style)), look.meaning))
    return rows
