"""The incident timeline's grid: one line an export, one character a time bucket, a cell cursor.

Drawn with the line API (a ``ScrollView`` rendering one ``Strip`` per visible
row from a per-row cache), so a poll that changes ten rows of two hundred
rebuilds ten strips and repaints ten lines. Cells use the run strip's letters
and colours (:func:`tui.look.status.status_look`): a cell reads without colour too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.look.palette import Tone
from tui.look.status import status_look
from tui.state.timeline import Axis, TimelineModel
from tui.text.clean import clean

EMPTY_CELL = "·"
NAME_MIN, NAME_MAX = 12, 32
_CURSOR_ROW_NAME = Style(bold=True, reverse=True)


def cells_for(total_width: int) -> int:
    """How many cells fit beside a name column of NAME_MAX (the axis fills the width with them)."""
    return max(1, total_width - NAME_MAX - 2)


def name_width(total_width: int, buckets: int) -> int:
    """The export-name column: what is left after the cells, within NAME_MIN..NAME_MAX."""
    return max(NAME_MIN, min(NAME_MAX, total_width - buckets - 2))


# The times a label may stand at: each a whole number of the axis's cells, the shortest whose labels keep apart.
LABEL_PERIODS = tuple(60 * m for m in (5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440, 2880, 10080))


def label_period(axis: Axis) -> tuple[int, str]:
    """Seconds between two labels, and their format: times, or dates once a label is a day or more apart."""
    for period in LABEL_PERIODS:
        if period % axis.bucket:
            continue
        fmt = "%m-%d" if period >= 86400 else "%H:%M"
        if period // axis.bucket >= len(f"|{axis.start:{fmt}}") + 2:
            return period, fmt
    return LABEL_PERIODS[-1], "%m-%d"


def axis_ruler(axis: Axis, name_w: int) -> Text:
    """Time labels over the cells (``|14:00``), at round times, spaced so they do not collide.

    The latest label is always drawn: where ``|14:00`` would run past the last cell it is drawn before its
    tick (``14:00|``), and a label it would touch gives way.
    """
    width = name_w + 1 + axis.count
    period, fmt = label_period(axis)
    ticks = [index for index in range(axis.count) if (axis.origin + axis.bucket * index) % period == 0]
    chars = [" "] * width
    taken: list[range] = []
    for index in reversed(ticks):
        text = f"{axis.bucket_start(index):{fmt}}"
        at = name_w + 1 + index
        label, start = ("|" + text, at) if at + 1 + len(text) <= width else (text + "|", at - len(text))
        span = range(start - 2, start + len(label) + 2)  # two spaces either side
        if start < name_w + 1 or any(max(span.start, t.start) < min(span.stop, t.stop) for t in taken):
            continue
        chars[start:start + len(label)] = label
        taken.append(range(start, start + len(label)))
    return Text("".join(chars), style=Tone.MUTED.style, no_wrap=True, end="")


class TimelineView(ScrollView, can_focus=True):
    """Rows of cells over the model's axis; arrows move the cell cursor, enter chooses the cell."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(0, -1)", "Up", show=False),
        Binding("down,j", "move(0, 1)", "Down", show=False),
        Binding("left", "move(-1, 0)", "Earlier", show=False),
        Binding("right", "move(1, 0)", "Later", show=False),
        Binding("pageup", "move(0, -10)", show=False),
        Binding("pagedown", "move(0, 10)", show=False),
        Binding("home", "edge(-1)", show=False),
        Binding("end", "edge(1)", show=False),
        Binding("enter", "choose", "Open run", id="timeline.open"),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True, repaint=False)
    cursor_col: reactive[int] = reactive(-1, always_update=True, repaint=False)

    class CursorMoved(Message):
        def __init__(self, row: int, column: int) -> None:
            super().__init__()
            self.row = row
            self.column = column

    class Relaid(Message):
        """The name column changed width (a resize): whatever is drawn over the cells must follow."""

    class CellChosen(Message):
        """Enter on a cell: the export and the time (the middle of the cell, epoch seconds) the cursor was on.

        A place, not a row and column: keys handled before this message (a poll moving the axis, a key
        moving the cursor) may have put another export's row or another time at that row and column.
        """

        def __init__(self, key: str, moment: float) -> None:
            super().__init__()
            self.key = key
            self.moment = moment

    def __init__(self, model: TimelineModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.labels: dict[str, str] = {}
        self._raw_labels: dict[str, str] = {}
        self._strips: dict[str, Strip] = {}
        self._styles: dict[str, Style] = {}
        self._tones: dict[Tone, Style] = {}
        self._name_w = NAME_MIN

    # ------------------------------------------------------------------ data

    def update_rows(self, labels: Mapping[str, str], changed: set[str] | None = None) -> None:
        """The model changed: drop the strips of ``changed`` rows (all when None) and repaint only their lines."""
        raw = self._raw_labels
        for key, label in labels.items():
            if raw.get(key) != label:
                raw[key] = label
                self.labels[key] = clean(label, limit=80)
                if changed is not None:
                    changed = changed | {key}
        axis = self.model.axis
        buckets = axis.count if axis else 0
        name_w = name_width(self.size.width or 80, buckets)
        full = changed is None or name_w != self._name_w
        if name_w != self._name_w:
            self.post_message(self.Relaid())
        self._name_w = name_w
        self.virtual_size = Size(name_w + 1 + buckets, len(self.model.order))
        if self.cursor_col < 0 or self.cursor_col >= buckets:
            self.cursor_col = max(0, buckets - 1)
        if self.cursor_row >= len(self.model.order):
            self.cursor_row = max(0, len(self.model.order) - 1)
        if full:
            self._strips.clear()
            self.refresh()
            return
        assert changed is not None
        top = self.scroll_offset.y
        for key in changed:
            self._strips.pop(key, None)
        for index, key in enumerate(self.model.order[top:top + self.size.height]):
            if key in changed:
                self.refresh_line(index)

    def cursor_line_region(self) -> Region | None:
        """The cursor's row on screen (what a toast must not cover)."""
        if not self.model.order:
            return None
        return Region(self.region.x, self.region.y + self.cursor_row - self.scroll_offset.y, self.region.width, 1)

    @property
    def name_column(self) -> int:
        return self._name_w

    def visible_keys(self) -> list[str]:
        top = self.scroll_offset.y
        return self.model.order[top:top + max(1, self.size.height)]

    def on_resize(self) -> None:
        self.update_rows(self._raw_labels, None)

    # ------------------------------------------------------------------ drawing

    def _style(self, status: str) -> Style:
        style = self._styles.get(status)
        if style is None:
            look = status_look(status)
            style = self._styles[status] = Style.parse(look.cell_style)
        return style

    def _tone(self, tone: Tone) -> Style:
        """A palette tone as a Style, parsed once per view: cells are drawn one segment each."""
        style = self._tones.get(tone)
        if style is None:
            style = self._tones[tone] = Style.parse(tone.style)
        return style

    def _row_strip(self, key: str) -> Strip:
        strip = self._strips.get(key)
        if strip is not None:
            return strip
        row = self.model.rows.get(key)
        name = self.labels.get(key, key)
        name = name if len(name) <= self._name_w else name[: self._name_w - 1] + "…"
        segments = [Segment(name.ljust(self._name_w) + " ")]
        if row is not None:
            for status in row.statuses:
                if status is None:
                    segments.append(Segment(EMPTY_CELL, self._tone(Tone.MUTED)))
                else:
                    segments.append(Segment(status_look(status).letter, self._style(status)))
        strip = Strip(segments, self._name_w + 1 + (len(row.statuses) if row else 0))
        self._strips[key] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if index >= len(self.model.order):
            return Strip.blank(self.size.width)
        key = self.model.order[index]
        strip = self._row_strip(key)
        if index == self.cursor_row:
            strip = self._with_cursor(strip, key)
        return strip.crop(scroll_x, scroll_x + self.size.width).extend_cell_length(self.size.width)

    def _with_cursor(self, strip: Strip, key: str) -> Strip:
        """The cursor's row: its name reversed, its cell marked (the letter kept)."""
        segments = list(strip)
        name = segments[0]
        out = [Segment(name.text[:-1], _CURSOR_ROW_NAME), Segment(" ")]
        cells = segments[1:]
        for column, segment in enumerate(cells):
            if column == self.cursor_col:
                out.append(Segment(segment.text if segment.text != EMPTY_CELL else "▪", self._tone(Tone.CURSOR)))
            else:
                out.append(segment)
        return Strip(out, strip.cell_length)

    # ------------------------------------------------------------------ cursor

    def watch_cursor_row(self, old: int, new: int) -> None:
        top = self.scroll_offset.y
        for index in (old, new):
            if top <= index < top + self.size.height:
                self.refresh_line(index - top)
        self.scroll_to_region_row(new)

    def watch_cursor_col(self) -> None:
        top = self.scroll_offset.y
        if top <= self.cursor_row < top + self.size.height:
            self.refresh_line(self.cursor_row - top)

    def scroll_to_region_row(self, row: int) -> None:
        top = self.scroll_offset.y
        height = max(1, self.size.height)
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False)

    def action_move(self, columns: int, rows: int) -> None:
        buckets = self.model.axis.count if self.model.axis else 0
        if rows:
            self.cursor_row = max(0, min(len(self.model.order) - 1, self.cursor_row + rows))
        if columns:
            self.cursor_col = max(0, min(buckets - 1, self.cursor_col + columns))
        self.post_message(self.CursorMoved(self.cursor_row, self.cursor_col))

    def action_edge(self, direction: int) -> None:
        buckets = self.model.axis.count if self.model.axis else 0
        self.cursor_col = 0 if direction < 0 else max(0, buckets - 1)
        self.post_message(self.CursorMoved(self.cursor_row, self.cursor_col))

    def cursor_place(self) -> tuple[str, float] | None:
        """The export and the time (the middle of its cell, epoch seconds) the cursor is on."""
        row, axis = self.model.row_at(self.cursor_row), self.model.axis
        if row is None or axis is None:
            return None
        return row.key, axis.origin + axis.bucket * (self.cursor_col + 0.5)

    def action_choose(self) -> None:
        place = self.cursor_place()
        if place is not None:
            self.post_message(self.CellChosen(*place))
