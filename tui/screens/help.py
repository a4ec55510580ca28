"""``?``: every key of the current screen, grouped by purpose, from the one registry of keys.

Every registered key the screen (or the focused widget) has is listed: one that does not apply to the
current selection shows dimmed, one that writes is left out in read-only mode (it cannot be used at all).
Keys outside the registry (a dialog's own) are listed by their footer label.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from tui.key_registry import GROUP_ORDER, KeyEntry, describe, effective_keys, entries, entry_for
from tui.look.palette import Tone
from tui.look.status import legend
from tui.screens.base import WatchdeckModal, app_handle
from tui.widgets.footer import KeyFooter

OTHER = "Other"


def declared_bindings(node: DOMNode) -> list[Binding]:
    """Every binding a node's classes declare, whether or not ``check_action`` shows it now."""
    found: list[Binding] = []
    for cls in reversed(type(node).__mro__):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding):
                found.append(binding)
    return found


def key_nodes(screen: Screen[object]) -> list[DOMNode]:
    """The focused widget and its containers, the screen, then the app: where a key press looks for a binding."""
    nodes: list[DOMNode] = []
    focused = screen.focused
    if focused is not None:
        nodes.extend([focused, *[a for a in focused.ancestors if a is not screen and a is not screen.app]])
    return [*nodes, screen, screen.app]


def screen_keys(screen: Screen[object]) -> list[tuple[str, str, str, str, bool]]:
    """(group, key, title, sentence, applies now) for each key of the screen, in the registry's order.

    Only the keys a key press can reach: the screen's own, the focused widget's and the app's.
    """
    settings = app_handle(screen.app).settings
    keymap = getattr(settings, "keymap", {}) or {}
    read_only = bool(getattr(settings, "read_only", False))
    active: dict[str, bool] = {}
    for shown in screen.active_bindings.values():
        key = shown.binding.id or f"{shown.binding.action}:{shown.binding.key}"
        active[key] = active.get(key, False) or shown.enabled
    rows: list[tuple[str, str, str, str, bool]] = []
    seen: set[str] = set()
    # Keys a nearer node handles now: a farther binding of only these keys is never reached (the editor's q leaves
    # it, so the app's q, Quit, is not listed there a second time).
    handled: set[str] = set()
    for node in key_nodes(screen):
        handled_here: set[str] = set()
        for binding in declared_bindings(node):
            entry: KeyEntry | None = entry_for(binding)
            ident = binding.id or f"{binding.action}:{binding.key}"
            if ident in seen:
                continue
            keys = set((effective_keys(entry, keymap) if entry is not None else binding.key).split(","))
            if not binding.priority and keys <= handled:
                continue
            if active.get(ident, False):
                handled_here |= keys
            if entry is None:
                words = describe(binding)
                if words is None or ident not in active:
                    continue
                seen.add(ident)
                rows.append((OTHER, _key_label(screen, binding.key), *words, active[ident]))
                continue
            if entry.writes and read_only:
                continue
            seen.add(ident)
            rows.append((entry.group, _key_label(screen, effective_keys(entry, keymap)), entry.title,
                         entry.sentence, active.get(ident, False)))
        handled |= handled_here
    # The rest of the screen's areas: keys of a part not focused now (the editor's choice keys from its list).
    areas = {b.id.partition(".")[0] for b in declared_bindings(screen) if b.id and entry_for(b) is not None}
    for entry in entries(*areas):
        if entry.id not in seen and not (entry.writes and read_only):
            seen.add(entry.id)
            rows.append((entry.group, _key_label(screen, effective_keys(entry, keymap)), entry.title,
                         entry.sentence, False))
    return rows


def _key_label(screen: Screen[object], keys: str) -> str:
    return ", ".join(screen.app.get_key_display(Binding(key, "")) for key in keys.split(","))


def keys_table(screen: Screen[object]) -> Group:
    """The screen's keys by purpose, each with what it does in a sentence; Textual's generic keys left out."""
    groups: dict[str, list[tuple[str, str, str, bool]]] = {}
    for group, key, title, sentence, applies in screen_keys(screen):
        groups.setdefault(group, []).append((key, title, sentence, applies))
    parts: list[Text | Table] = []
    for group in (*GROUP_ORDER, OTHER):
        rows = groups.get(group)
        if not rows:
            continue
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style=Tone.KEY.style, no_wrap=True, min_width=6)
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for key, title, sentence, applies in rows:
            table.add_row(Text(key), Text(title, style="" if applies else Tone.MUTED.style),
                          Text(sentence, style=Tone.MUTED.style))
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


def demo_note(base_url: str) -> Text:
    """Where the demo's sandbox is, and how to start another outage on it (the first one lasts about ten minutes)."""
    body = '{"destination": "S3", "minutes": 600}'
    return Text.assemble(
        ("Demo", "bold underline"), "\nThe sandbox serves on ", (base_url, "bold"),
        " (watchdeck status --demo asks a fresh one). Its outage goes on for about ten minutes; start another:\n",
        (f"curl -X POST {base_url}/_sandbox/outages -H 'Content-Type: application/json' -d '{body}'", "bold"))


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
                settings = app_handle(self._for.app).settings
                if settings.demo:
                    yield Static(demo_note(settings.base_url), id="help-demo")
        yield KeyFooter()  # help's own keys, not those of the screen it describes

    def action_close(self) -> None:
        self.dismiss(None)
