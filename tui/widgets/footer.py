"""The footer: the screen's keys on one line, drawn by one widget.

It shows what Textual's ``Footer`` shows (for each action with a shown binding, in order, its first one, dimmed
when the action does not apply now; the command palette's key on the right) and looks the same, but it is one
widget that draws a line of text rather than a container of one widget per key. A screen's restyle, layout and
each change of its keys then handle one widget instead of twenty, and nothing is mounted or removed when the keys
change. Keys that do not fit whole are left out (help and quit never are); a click on a key presses it; the
pointer over a key lights it and shows its tooltip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

ALWAYS_SHOWN: frozenset[str] = frozenset({"question_mark", "q"})
"""Keys never dropped for width: help (which lists the rest) and quit."""
BORDER = "\u258f"
"""The thin line left of the palette's key (Textual's ``vkey`` border)."""


@dataclass(frozen=True)
class FooterEntry:
    """One key as the footer shows it."""

    key: str
    """The binding's key, as a press of it is simulated (``question_mark``)."""
    label: str
    """The key as drawn (``?``)."""
    description: str
    action: str
    enabled: bool
    """False: drawn dimmed, and a click rings the bell instead of pressing it."""
    tooltip: str

    def parts(self, *, palette: bool = False) -> tuple[str, str, str, str]:
        """What it draws, as (border, key, description, padding): `` key `` then ``description `` (the key alone
        when it has no description); the palette's key compact, after a border and with a cell of padding."""
        if palette:
            return BORDER, self.label, f" {self.description}", " "
        if self.description:
            return "", f" {self.label} ", f"{self.description} ", ""
        return "", self.label, "", ""

    def width(self, *, palette: bool = False) -> int:
        """The cells it takes."""
        return cell_len("".join(self.parts(palette=palette)))


@dataclass(frozen=True)
class FooterKeys:
    """What the footer draws: the keys in order, and the palette's key (drawn on the right), if any."""

    entries: tuple[FooterEntry, ...] = ()
    palette: FooterEntry | None = None


def footer_keys(screen: Screen[Any], show_palette: bool = True) -> FooterKeys:
    """The keys a footer on ``screen`` shows now, as Textual's ``Footer.compose`` picks them."""
    active = screen.active_bindings
    first: dict[str, FooterEntry] = {}
    app = screen.app
    for _node, binding, enabled, tooltip in active.values():
        if binding.show and binding.action not in first:
            first[binding.action] = FooterEntry(binding.key, app.get_key_display(binding), binding.description,
                                                binding.action, enabled, tooltip)
    palette = None
    if show_palette and app.ENABLE_COMMAND_PALETTE and (found := active.get(app.COMMAND_PALETTE_BINDING)):
        _node, binding, enabled, _tooltip = found
        palette = FooterEntry(binding.key, app.get_key_display(binding), binding.description, binding.action,
                              enabled, binding.tooltip or binding.description)
    return FooterKeys(tuple(first.values()), palette)


def fit(entries: tuple[FooterEntry, ...], room: int) -> tuple[FooterEntry, ...]:
    """The entries drawn in ``room`` cells: help and quit always; the others in order while they fit, and none
    after the first that does not (a cut key read ``q Qu``). Every key stays in ``?`` help and the palette."""
    room -= sum(entry.width() for entry in entries if entry.key in ALWAYS_SHOWN)
    shown = []
    dropping = False
    for entry in entries:
        if entry.key not in ALWAYS_SHOWN:
            if dropping or entry.width() > room:
                dropping = True
                continue
            room -= entry.width()
        shown.append(entry)
    return tuple(shown)


class KeyFooter(Widget):
    """The screen's keys at the bottom, following its bindings (``Screen.bindings_updated_signal``)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--item",
        "footer-key--hover",
        "footer-key--disabled",
        "footer-key--key",
        "footer-key--description",
        "footer-key--border",
    }
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .footer-key--item {
            background: $footer-item-background;
        }
        .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .footer-key--disabled {
            text-style: dim;
        }
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-key--border {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, show_command_palette: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.show_command_palette = show_command_palette
        self.keys = FooterKeys()
        """The keys as the screen's bindings last gave them (``shown`` is those drawn at this width)."""
        self._spans: tuple[tuple[int, int, FooterEntry], ...] = ()
        self._hovered: str | None = None
        """The key under the pointer."""
        self._read_pending = False

    @property
    def shown(self) -> tuple[FooterEntry, ...]:
        """The keys drawn at the footer's width, left to right, the palette's key last."""
        return tuple(entry for _start, _end, entry in self._spans)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._read_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        """Read the keys once after a burst of signals (a focus change and a highlight send one each)."""
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._read_pending:
            return
        self._read_pending = True
        self.call_after_refresh(self._read_keys)

    def _read_keys(self) -> None:
        self._read_pending = False
        if not self.is_attached:
            return
        keys = footer_keys(self.screen, self.show_command_palette)
        if keys != self.keys:
            self.keys = keys
            self.refresh()

    def _lay_out(self, width: int) -> None:
        """Where each drawn key sits at ``width``."""
        palette = self.keys.palette
        palette_width = palette.width(palette=True) if palette is not None else 0
        right = max(width - palette_width, 0)
        # A key's last cell is padding: it may sit under the palette key's border.
        spans: list[tuple[int, int, FooterEntry]] = []
        x = 0
        for entry in fit(self.keys.entries, right + 1):
            if x < right:  # help and quit may not fit left of the palette's key, which is drawn over them
                spans.append((x, min(x + entry.width(), right), entry))
            x += entry.width()
        if palette is not None:
            spans.append((right, width, palette))
        self._spans = tuple(spans)

    def _entry_text(self, entry: FooterEntry, *, palette: bool = False) -> Text:
        names = ["footer-key--item"]
        if entry.key == self._hovered:
            names.append("footer-key--hover")
        if not entry.enabled:
            names.append("footer-key--disabled")
        base = self.get_component_rich_style(*names)
        key_style = self.get_component_rich_style("footer-key--key", partial=True)
        description_style = self.get_component_rich_style("footer-key--description", partial=True)
        border, key, description, padding = entry.parts(palette=palette)
        text = Text.assemble((border, self.get_component_rich_style(*names, "footer-key--border")), (key, key_style),
                             (description, description_style), padding)
        text.stylize_before(base)
        return text

    def render(self) -> Text:
        width = self.size.width
        self._lay_out(width)
        line = Text(no_wrap=True, overflow="crop", end="")
        for start, end, entry in self._spans:
            if entry is self.keys.palette:
                line.truncate(start, pad=True)
                line.append_text(self._entry_text(entry, palette=True))
            else:
                text = self._entry_text(entry)
                text.truncate(end - start)
                line.append_text(text)
        line.truncate(width, pad=True)
        return line

    def _entry_at(self, x: int) -> FooterEntry | None:
        return next((entry for start, end, entry in self._spans if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._entry_at(event.x)
        key = entry.key if entry is not None else None
        if key != self._hovered:
            self._hovered = key
            self.tooltip = (entry.tooltip or None) if entry is not None else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()
