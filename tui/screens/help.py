"""``?``: every key of the current screen, grouped by purpose, derived from the live bindings.

Derived rather than written by hand so that it can never disagree with what
the keys do (dolphie's single command table, textual's active bindings): a
key disabled for the current selection shows dimmed, a key hidden by
``--read-only`` does not show at all.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

# Binding id suffix -> purpose. Anything not listed lands in "Other".
PURPOSES: dict[str, str] = {
    "pause": "Act on the export", "unpause": "Act on the export", "backfill": "Act on the export",
    "edit": "Act on the export", "delete": "Act on the export", "ack": "Act on the export",
    "retry": "Runs and logs", "run_logs": "Runs and logs", "export_logs": "Runs and logs",
    "run_error": "Runs and logs", "follow": "Runs and logs", "level": "Runs and logs",
    "refresh": "View", "filter": "View", "freeze": "View", "slower": "View", "faster": "View",
    "search": "View", "reload": "View", "status_filter": "View", "sort": "View",
    "surveys": "Navigate", "monitor": "Navigate", "quit": "Navigate", "help": "Navigate", "back": "Navigate",
    "palette": "Navigate", "projects": "Navigate",
}
GROUP_ORDER = ("Act on the export", "Act on a survey", "Runs and logs", "View", "Navigate", "Other")
STATUS_LEGEND = ("C completed · F failed · T timed out · X terminated · B billing · E failed, will retry · "
                 "R running · S starting · N continued as new · - cancelled")


def _purpose(binding: Binding) -> str:
    if binding.id:
        area, _, name = binding.id.partition(".")
        if area == "surveys" and name not in ("monitor", "search", "reload", "status_filter", "sort", "filter"):
            return "Act on a survey"
        return PURPOSES.get(name, "Other")
    return "Other"


def _key_label(screen: Screen[object], binding: Binding) -> str:
    return ", ".join(screen.app.get_key_display(Binding(key, binding.action)) for key in binding.key.split(","))


def keys_table(screen: Screen[object]) -> Table:
    groups: dict[str, list[tuple[str, str, bool]]] = {}
    seen: set[str] = set()
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description or binding.action in seen:
            continue
        seen.add(binding.action)
        groups.setdefault(_purpose(binding), []).append((_key_label(screen, binding), binding.description,
                                                          active.enabled))
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold cyan", no_wrap=True)
    table.add_column()
    for group in GROUP_ORDER:
        rows = groups.get(group)
        if not rows:
            continue
        table.add_row(Text(group, style="bold underline"), "")
        for key, description, enabled in rows:
            table.add_row(Text(key), Text(description, style="" if enabled else "dim"))
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__(classes="help-modal")
        self._for = screen

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog"):
            yield Static(Text("Keys", style="bold"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(keys_table(self._for))
                yield Static(Text.assemble(("Run statuses  ", "bold"), STATUS_LEGEND))
                yield Static(Text("Dimmed keys do not apply to the current selection. ctrl+p opens the command "
                                  "palette with every action.", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
