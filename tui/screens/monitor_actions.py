"""What the monitor's action keys ask before they act, and the messages an action sends the screen.

The actions themselves are sent by :class:`~tui.state.io.export_actions.ExportActions`, which the
monitor holds; these are the questions (every one confirms the same way, :class:`ConfirmScreen`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.api.models.batch_exports import BatchExportRun
from tui.look.render import plain
from tui.screens.confirm import ConfirmScreen
from tui.state.exports import WatchedExport


class BoardChanged(Message):
    """An action changed the board (an optimistic pause, a deleted row, an acknowledgement): draw it again."""


class PollWanted(Message):
    """An action changed the server's data (an edit): poll now rather than at the next tick."""


def pause_question(watched: WatchedExport, pause: bool) -> ConfirmScreen:
    verb = "Pause" if pause else "Unpause"
    question = Text.assemble(f"{verb} the export ", plain(watched.export.name, "bold"), "?")
    if pause:
        question.append("\nNo new runs will start until it is unpaused.")
    return ConfirmScreen(f"{verb} export", question, yes_label=verb)


def retry_question(watched: WatchedExport, run: BatchExportRun) -> ConfirmScreen:
    interval = ""
    if run.data_interval_start and run.data_interval_end:
        interval = f" for {run.data_interval_start:%Y-%m-%d %H:%M} → {run.data_interval_end:%Y-%m-%d %H:%M}"
    question = Text.assemble(
        "Retry the run", interval, " of ", plain(watched.export.name, "bold"), "?\n",
        "A new run over the same data interval starts later; this one stays as it is.",
    )
    return ConfirmScreen("Retry run", question, yes_label="Retry")


def retry_completed_question() -> ConfirmScreen:
    """Asked after :func:`retry_question` when the run already completed."""
    again = Text("This run already completed. Exporting its interval again may duplicate data "
                 "at the destination. Retry anyway?")
    return ConfirmScreen("Retry a completed run", again, yes_label="Retry", danger=True)


class CancelRunScreen(ConfirmScreen):
    """Cancelling a run: both answers say what they do, "Keep running" and "Cancel run", and so does Escape
    (a footer's "Cancel" beside "Cancel run" would read as two ways to cancel the run)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,n", "answer(False)", "Keep running", id="cancel_run.keep"),
    ]


def cancel_run_question(watched: WatchedExport, run: BatchExportRun) -> ConfirmScreen:
    question = Text.assemble("Cancel the ", (run.status, "bold"), " run of ", plain(watched.export.name, "bold"),
                             "? Its interval stays unexported until retried.")
    return CancelRunScreen("Cancel run", question, yes_label="Cancel run", no_label="Keep running", danger=True)
