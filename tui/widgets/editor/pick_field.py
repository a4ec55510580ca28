"""A value picked from a list, on one line: the question form's fields of a few values, and a branch's rows.

A ``Select`` is six widgets, styled several times as it mounts; a question form had up to five, and a rating's
branching a Select per response, which made its form slow to show. A :class:`PickField` is one focusable widget that
draws its value (after its label, for a branch row). Enter (or Space, Up, Down, the keys that open a Select), or a
click, runs its screen's ``pick_target`` action: the editor drops the list of values over the form at once, so keys
sent with the Enter go to the list, and the value picked becomes the field's ``value``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.look.render import plain

LABEL_WIDTH = 20  # cells of a branch row's label, its last one a space
ARROW = " ▼ "


class PickField(Widget, can_focus=True):
    """``value`` is one of ``options``' values, or None: none chosen, when ``prompt`` (shown then, and listed first
    to clear the field) allows it. A ``label`` is drawn in a column before the value.

    Setting ``value`` to another value posts :class:`PickField.Changed`, as a Select does.
    """

    DEFAULT_CSS = """
    PickField {
        height: 1;
        width: 1fr;
    }
    PickField > .pick-field--value, PickField > .pick-field--prompt, PickField > .pick-field--arrow {
        background: $surface;
    }
    PickField > .pick-field--prompt, PickField > .pick-field--arrow {
        color: $foreground 50%;
    }
    PickField:focus > .pick-field--value, PickField:focus > .pick-field--prompt,
    PickField:focus > .pick-field--arrow {
        background: $surface-lighten-1;
    }
    PickField:focus > .pick-field--label {
        text-style: bold;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"pick-field--label", "pick-field--value", "pick-field--prompt",
                                             "pick-field--arrow"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,down,space,up", "screen.pick_target", "Choose", show=False),
    ]

    value: reactive[Any] = reactive(None, init=False, layout=False)

    class Changed(Message):
        """The field's value changed (None: cleared)."""

        def __init__(self, field: PickField, value: Any) -> None:
            super().__init__()
            self.field = field
            self.value = value

        @property
        def control(self) -> PickField:
            return self.field

    def __init__(self, options: list[tuple[Text, Any]], value: Any, *, prompt: str | None = None,
                 label: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.options = options
        self.prompt = prompt
        self._label = label
        known = [v for _, v in options]
        if value not in known:
            value = None if prompt is not None or not known else known[0]
        self.set_reactive(PickField.value, value)

    @property
    def label(self) -> str | None:
        return self._label

    @label.setter
    def label(self, label: str | None) -> None:
        self._label = label
        self.refresh()

    def listed(self) -> list[tuple[Text, Any]]:
        """What the list of values shows: the prompt first (it clears the field) where the field may be empty."""
        blank = [(Text(self.prompt), None)] if self.prompt is not None else []
        return blank + self.options

    def value_label(self) -> Text | None:
        """The value's words, or None when none is chosen."""
        return next((text for text, value in self.options if value == self.value), None)

    def watch_value(self, value: Any) -> None:
        self.post_message(self.Changed(self, value))

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        self.screen.set_focus(self)
        await self.run_action("screen.pick_target")

    def render(self) -> Text:
        label_width = LABEL_WIDTH if self._label is not None else 0
        width = max(self.content_size.width, label_width + cell_len(ARROW) + 1)
        parts = []
        if self._label is not None:
            label = Text(style=self.get_component_rich_style("pick-field--label", partial=True), no_wrap=True, end="")
            label.append_text(plain(self._label, limit=200))
            label.truncate(LABEL_WIDTH - 1, overflow="ellipsis", pad=True)
            label.append(" ")
            parts.append(label)
        chosen = self.value_label()
        component = "pick-field--value" if chosen is not None else "pick-field--prompt"
        shown = Text(style=self.get_component_rich_style(component), no_wrap=True, end="")
        shown.append_text(chosen if chosen is not None else Text(self.prompt or ""))
        shown.truncate(width - label_width - cell_len(ARROW), overflow="ellipsis", pad=True)
        parts.append(shown)
        parts.append(Text(ARROW, style=self.get_component_rich_style("pick-field--arrow")))
        return Text.assemble(*parts, no_wrap=True, end="")


class BranchRow(PickField):
    """A response (``label``) and where it leads (``value``: a question's key, next, or end; None: the question it
    led to was deleted, and the row asks for another)."""

    def __init__(self, label: str, options: list[tuple[Text, Any]], value: str | None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(options, value, prompt="Choose", label=label, id=id, classes=classes)

    def listed(self) -> list[tuple[Text, Any]]:
        return self.options  # a response always leads somewhere: no blank to pick
