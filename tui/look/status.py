"""How a run status looks: its letter, its label, its explanation and its tone, with and without colour.

The one place that decides it: the monitor's cells, the runs table, the run
dialog and the help legend all ask here, so a status cannot look like one thing
in a table and another in the legend. The styles of the tones, and the choice
between colour and ``NO_COLOR``, are the palette's (:mod:`tui.look.palette`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tui.look.palette import Tone, no_color
from tui.text.clean import clean


@dataclass(frozen=True)
class StatusLook:
    """A letter (never colour alone: letters are distinct in upper case), a short label, a sentence and a tone."""

    letter: str
    label: str
    meaning: str
    tone: Tone

    @property
    def style(self) -> str:
        return self.tone.style

    @property
    def cell_style(self) -> str:
        """The letter's cell: reversed in colour for every status; without colour, only for failures."""
        if no_color():
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
