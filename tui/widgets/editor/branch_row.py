"""One response's branch on one line: the response, and the question it leads to.

A question branching by response has a row per response (eleven for a 0-10 rating, one per choice). Each row is one
focusable widget that draws its response and its target. Enter (or Space, Up, Down, the keys that open a Select)
runs its screen's ``pick_target`` action: the editor drops the list of targets over the form at once, so keys sent
with the Enter go to the list, and the target picked becomes the row's ``value``. A Label and a Select per row made
six widgets, each styled more than once, and a rating's form slow to show.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.look.render import plain

LABEL_WIDTH = 20  # cells of the response's label, its last one a space
PROMPT = "Choose"  # what a row shows with no target (the question it led to was deleted)
ARROW = " ▼ "


class BranchRow(Widget, can_focus=True):
    """A response (``label``) and its target (``value``, one of ``options``' values; None: none chosen yet).

    Setting ``value`` to another value posts :class:`BranchRow.Changed`, as a Select does.
    """

    DEFAULT_CSS = """
    BranchRow {
        height: 1;
        width: 1fr;
    }
    BranchRow > .branch-row--target {
        background: $surface;
    }
    BranchRow > .branch-row--prompt {
        background: $surface;
        color: $foreground 50%;
    }
    BranchRow > .branch-row--arrow {
        background: $surface;
        color: $foreground 50%;
    }
    BranchRow:focus > .branch-row--target, BranchRow:focus > .branch-row--prompt,
    BranchRow:focus > .branch-row--arrow {
        background: $surface-lighten-1;
    }
    BranchRow:focus > .branch-row--label {
        text-style: bold;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"branch-row--label", "branch-row--target", "branch-row--prompt",
                                             "branch-row--arrow"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,down,space,up", "screen.pick_target", "Choose where it leads", show=False),
    ]

    value: reactive[str | None] = reactive(None, init=False, layout=False)

    class Changed(Message):
        """The row's target changed (``value``)."""

        def __init__(self, row: BranchRow, value: str | None) -> None:
            super().__init__()
            self.row = row
            self.value = value

        @property
        def control(self) -> BranchRow:
            return self.row

    def __init__(self, label: str, options: list[tuple[Text, str]], value: str | None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._label = label
        self.options = options
        self.set_reactive(BranchRow.value, value if value in {v for _, v in options} else None)

    @property
    def label(self) -> str:
        return self._label

    @label.setter
    def label(self, label: str) -> None:
        self._label = label
        self.refresh()

    def target_label(self) -> Text | None:
        """The chosen target's words, or None when none is chosen."""
        return next((text for text, value in self.options if value == self.value), None)

    def watch_value(self, value: str | None) -> None:
        self.post_message(self.Changed(self, value))

    def render(self) -> Text:
        width = max(self.content_size.width, LABEL_WIDTH + cell_len(ARROW) + 1)
        label = Text(style=self.get_component_rich_style("branch-row--label", partial=True), no_wrap=True, end="")
        label.append_text(plain(self._label, limit=200))
        label.truncate(LABEL_WIDTH - 1, overflow="ellipsis", pad=True)
        label.append(" ")
        chosen = self.target_label()
        component = "branch-row--target" if chosen is not None else "branch-row--prompt"
        target = Text(style=self.get_component_rich_style(component), no_wrap=True, end="")
        target.append_text(chosen if chosen is not None else Text(PROMPT))
        target.truncate(width - LABEL_WIDTH - cell_len(ARROW), overflow="ellipsis", pad=True)
        target.append_text(Text(ARROW, style=self.get_component_rich_style("branch-row--arrow")))
        return Text.assemble(label, target, no_wrap=True, end="")
