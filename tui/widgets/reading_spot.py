"""Where the operator reads in the focused widget: its cursor's line, or the widget itself.

Toasts stack where they cover less of it (:func:`tui.toasts.toast_side`). A table or a grid with a
cursor reads one line at a time, so only that line is kept clear; an input, a button or a checkbox
is small and kept clear whole; a widget without a cursor is its whole region.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import DataTable


@runtime_checkable
class HasCursorLine(Protocol):
    def cursor_line_region(self) -> Region | None:
        """The cursor's line on screen; None when there is no cursor (an empty table)."""
        ...


def data_table_cursor_line(table: DataTable[object]) -> Region | None:
    """The stock table's cursor row on screen (its header and the rows above counted, as it draws them)."""
    if table.cursor_type == "none" or not table.row_count:
        return None
    rows = table.ordered_rows
    index = min(table.cursor_row, len(rows) - 1)
    top = table.content_region.y + (table.header_height if table.show_header else 0)
    y = top + sum(row.height for row in rows[:index]) - round(table.scroll_y)
    return Region(table.region.x, y, table.region.width, rows[index].height)


def reading_spot(widget: Widget | None) -> Region | None:
    """Where in ``widget`` the operator reads, on screen; None without a focused widget."""
    if widget is None:
        return None
    line: Region | None = None
    if isinstance(widget, HasCursorLine):
        line = widget.cursor_line_region()
    elif isinstance(widget, DataTable):
        line = data_table_cursor_line(widget)
    elif widget.region.height > 3 and hasattr(widget, "cursor_screen_offset"):  # a text editor, not one field
        line = Region(widget.region.x, widget.cursor_screen_offset.y, widget.region.width, 1)
    spot = line.intersection(widget.region) if line is not None else widget.region
    return spot if spot.area else widget.region
