"""``E``: a survey opened as a file in the operator's ``$VISUAL``/``$EDITOR``, checked and diffed before it is sent.

The app steps aside while the editor runs (as with ctrl+z) and comes back when
it exits. The file is read back with the editor's rules; a file that breaks them
opens again with its problems as comments at the top, and an emptied file gives
up. What would change is shown as a diff, and only a yes sends the PATCH.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.base import WatchdeckModal
from tui.state.survey_file import yaml_available
from tui.text.clean import clean

FORMAT_VARIABLE = "WATCHDECK_SURVEY_FORMAT"


def file_format(env: Mapping[str, str] | None = None) -> str:
    """JSON, or YAML when ``WATCHDECK_SURVEY_FORMAT=yaml`` and PyYAML is installed."""
    wanted = (env if env is not None else os.environ).get(FORMAT_VARIABLE, "").strip().lower()
    return "yaml" if wanted in ("yaml", "yml") and yaml_available() else "json"


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    environ = env if env is not None else os.environ
    command = environ.get("VISUAL") or environ.get("EDITOR") or "vi"
    return shlex.split(command)


def edit_text(app: App[object], text: str, suffix: str) -> str | None:
    """Run the editor on ``text`` in a private temporary file; the edited text, or None when it could not run."""
    handle, name = tempfile.mkstemp(prefix="watchdeck-survey-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        argv = [*editor_command(), str(path)]
        try:
            with app.suspend():
                done = subprocess.run(argv, check=False)
        except SuspendNotSupported:
            if not app.is_headless:
                raise
            done = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True)
        except FileNotFoundError:
            return None
        if done.returncode != 0:
            return None
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


class SurveyDiffScreen(WatchdeckModal[bool]):
    """The diff of the edited file against the server's survey; ``a`` sends it, escape does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer(True)", "Apply", id="survey_diff.apply"),
        Binding("escape,n,q", "answer(False)", "Cancel", id="survey_diff.cancel"),
    ]

    def __init__(self, name: str, diff: list[str], fields: list[str], notes: list[str] | None = None) -> None:
        super().__init__(classes="survey-modal")
        self.survey_name = name
        self._diff = diff
        self._fields = fields
        self._notes = notes or []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="survey-diff-dialog"):
            yield Static(Text.assemble(("Apply the edited file to ", "bold"),
                                       plain(self.survey_name, "bold", limit=120), ("?", "bold")),
                         classes="dialog-title")
            yield Static(Text("Changes " + ", ".join(self._fields) + ". Nothing is sent until you apply."))
            if self._notes:
                yield Static(notes_text(self._notes), id="survey-diff-notes")
            with VerticalScroll(id="survey-diff-body"):
                yield Static(diff_text(self._diff), id="survey-diff")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="survey-diff-cancel", variant="primary")
                yield Button("Apply (a)", id="survey-diff-apply", variant="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "survey-diff-apply")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


def diff_text(lines: list[str]) -> Text:
    """A unified diff: removed lines red, added green, headers dim; the lines are server text, so cleaned."""
    text = Text(end="")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        style = (Tone.MUTED.style if line.startswith(("---", "+++", "@@"))
                 else Tone.REMOVED.style if line.startswith("-") else Tone.ADDED.style if line.startswith("+") else "")
        text.append(clean(line, limit=2000), style=style)
    return text


def notes_text(lines: list[str]) -> Text:
    """The plan's notes (``note: path: …``: what the service will store instead, unknown keys, values kept), as
    notes: they never stop the apply. Their paths and texts come from the file and the server, so cleaned."""
    text = Text(end="")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        text.append(clean(line, limit=600), style=Tone.NOTE.style)
    return text
