"""``?``: every key of the current screen, grouped by purpose, derived from the live bindings.

Derived rather than written by hand so that it can never disagree with what
the keys do (dolphie's single command table, textual's active bindings): a
key disabled for the current selection shows dimmed, a key hidden by
``--read-only`` does not show at all.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from tui.palette import Tone
from tui.screens.base import WatchdeckModal
from tui.screens.key_guide import KeyGuide, guide_for
from tui.status_look import legend

# Binding id suffix -> purpose. Anything not listed lands in "Other".
PURPOSES: dict[str, str] = {
    "pause": "Act on the export", "unpause": "Act on the export", "backfill": "Act on the export",
    "edit": "Act on the export", "delete": "Act on the export", "ack": "Act on the export",
    "retry": "Runs and logs", "run_logs": "Runs and logs", "export_logs": "Runs and logs",
    "run_error": "Runs and logs", "follow": "Runs and logs", "level": "Runs and logs",
    "runs_by_interval": "Runs and logs", "runs_filter": "Runs and logs", "cancel_run": "Runs and logs",
    "alerts": "In an incident", "groups": "In an incident", "timeline": "In an incident", "repair": "In an incident",
    "backfills": "In an incident",
    "refresh": "View", "filter": "View", "freeze": "View", "slower": "View", "faster": "View",
    "search": "View", "reload": "View", "status_filter": "View", "sort": "View",
    "surveys": "Navigate", "monitor": "Navigate", "quit": "Navigate", "help": "Navigate", "back": "Navigate",
    "palette": "Navigate", "projects": "Navigate", "pick_project": "Navigate", "suspend": "Navigate",
}
GROUP_ORDER = (
    "Act on the export", "In an incident", "Act on a survey", "Edit the survey", "Runs and logs", "View", "Navigate",
    "Other",
)


def _purpose(binding: Binding) -> str:
    if binding.id:
        area, _, name = binding.id.partition(".")
        if area == "surveys" and name not in ("monitor", "search", "reload", "status_filter", "sort", "filter"):
            return "Act on a survey"
        if area == "editor":
            return "Edit the survey"
        if area == "logs" and name != "back":
            return "Runs and logs"
        return PURPOSES.get(name, "Other")
    return "Other"


def _key_label(screen: Screen[object], binding: Binding) -> str:
    return ", ".join(screen.app.get_key_display(Binding(key, binding.action)) for key in binding.key.split(","))


def keys_table(screen: Screen[object]) -> Group:
    """The screen's keys by purpose, each with what it does in a sentence; Textual's generic keys left out."""
    groups: dict[str, list[tuple[str, KeyGuide, bool]]] = {}
    seen: set[str] = set()
    for active in screen.active_bindings.values():
        binding = active.binding
        guide = guide_for(binding)
        if guide is None or binding.action in seen:
            continue
        seen.add(binding.action)
        groups.setdefault(_purpose(binding), []).append((_key_label(screen, binding), guide, active.enabled))
    parts: list[Text | Table] = []
    for group in GROUP_ORDER:
        rows = groups.get(group)
        if not rows:
            continue
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style=Tone.KEY.style, no_wrap=True, min_width=6)
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for key, guide, enabled in rows:
            table.add_row(Text(key), Text(guide.title, style="" if enabled else Tone.MUTED.style),
                          Text(guide.sentence, style=Tone.MUTED.style))
        parts.extend([Text(group, style="bold underline"), table, Text("")])
    return Group(*parts)


def status_legend_table() -> Table:
    """Every run status, one a line: its letter and label as the tables draw them, and what it means.

    One a line so that it wraps at any width instead of running off the dialog's edge.
    """
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    table.add_row(Text("Run statuses", style="bold underline"), "")
    for look, meaning in legend():
        table.add_row(look, Text(meaning))
    table.add_row("", "")
    return table


class HelpScreen(WatchdeckModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__(classes="help-modal")
        self._for = screen

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog"):
            yield Static(Text("Keys", style="bold"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(keys_table(self._for), id="help-keys")
                yield Static(status_legend_table(), id="help-legend")
                yield Static(Text("Dimmed keys do not apply to the current selection. ctrl+p opens the command "
                                  "palette with every action.", style=Tone.MUTED.style))

    def action_close(self) -> None:
        self.dismiss(None)
