"""A virtual table: a large list of rows drawn one visible line at a time (Textual's Line API).

Why not ``DataTable``: it keeps a rich ``Text`` (or a parsed renderable) per cell plus row and key objects per
row. With the survey list's 10,000 rows that is tens of thousands of ``Text`` objects, many more for the cyclic
garbage collector to walk, and a large RSS. Here a row is one small tuple of already-cleaned plain strings plus
a tuple of per-cell style keys (shared between rows); nothing per cell is built until its line is on screen, and
the strips of the lines on screen are kept in a small LRU so moving the cursor re-renders two lines, not the
table. And DataTable's ``update_cell`` forgets every drawn cell; here a changed row redraws its own line only.

A cell is either a plain string, styled by the row's style key for it, or a rich ``Text`` that carries its own
styles (a status in its tone, a strip of coloured letters): the monitor's tables use those. A row's tuple is
never changed in place: a new tuple is a changed row, and only its line is drawn again.

What it does: fixed column widths (appending rows never re-measures anything), columns shown or hidden
whole to fit the width (:meth:`VirtualTable.show_columns`), a header row that
stays put and posts :class:`VirtualTable.HeaderSelected` on click, a row cursor (up/down,
``j``/``k``, pageup/pagedown, home/end, mouse click; a click on the cursor row or ``enter`` posts
:class:`VirtualTable.RowSelected`), :class:`VirtualTable.RowHighlighted` whenever the row under
the cursor changes, horizontal scrolling when the columns are wider than the widget, a stable
:meth:`VirtualTable.sort` by a key function whose values are computed once per row, and
:meth:`VirtualTable.apply`, which shows a list of keyed rows, taking anew only the rows whose cells changed.

The cursor moves at once; its ``RowHighlighted`` is handled later, after any keys that arrived with the move
(``Down p`` in one write). A key acts on the row under the cursor when it is handled: an owner reads
:attr:`VirtualTable.cursor_key` then, never a row remembered from the last ``RowHighlighted``, and answers
``RowSelected`` with the row the message names.

Safety: cells become ``Segment`` text, never markup, so ``[@click=app.quit]`` from a server shows
as those characters; cell text with a control character is cleaned again at render time
(:func:`tui.text.clean.clean`, a ``Text`` then drawn in its base style only) in case a caller forgot,
since a ``Segment`` reaches the terminal as is.

Looks come from component classes (``virtual-table--header``, ``--cursor``, ``--hover``,
``--even-row``) styled in :attr:`VirtualTable.DEFAULT_CSS`, so the table looks right on any screen;
a cell's style key names a component class of the subclass (for example ``survey-table--running``),
which the subclass's screen styles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final, Literal, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.key_registry import bindings
from tui.text.clean import clean

Justify = Literal["left", "right"]


class Column(NamedTuple):
    """A column: its key (used in messages and :meth:`VirtualTable.cell`), header label, width in cells."""

    key: str
    label: str
    width: int
    justify: Justify = "left"


#: A cell: plain text (drawn in the style its row names for it), or a ``Text`` drawn in its own styles.
Cell = str | Text

#: One row: ``(key, cells, style key per cell)``. A plain tuple on purpose: CPython's collector
#: stops tracking an exact tuple of strings (and tuples of strings), so 10,000 rows of plain cells add
#: nothing to the cost of a full garbage collection; a NamedTuple subclass stays tracked. Build the style
#: tuples from a small pool so rows share them (they repeat a lot); "" means no style.
Row = tuple[str, tuple[Cell, ...], tuple[str, ...]]
KEY: Final = 0
CELLS: Final = 1
STYLES: Final = 2


def make_row(key: str, cells: Sequence[Cell], styles: Sequence[str] = ()) -> Row:
    """A row as the table stores it (cells must already be cleaned text)."""
    return (key, tuple(cells), tuple(styles))


def cell_text(cell: Cell) -> str:
    """The characters of a cell, whatever its styles."""
    return cell if isinstance(cell, str) else cell.plain


def same_cells(old: Sequence[Cell], new: Sequence[Cell]) -> bool:
    """Whether two rows' cells draw alike: the same characters in the same styles (``Text``'s own ``==``
    leaves its base style out, so a cell turning red with the same words would not be drawn again)."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if a is b:
            continue
        if isinstance(a, Text) and isinstance(b, Text):
            if a.plain != b.plain or a.style != b.style or a.spans != b.spans:
                return False
        elif a != b:
            return False
    return True


class _Looks(NamedTuple):
    """The rich styles of one frame, read from the component classes (cheap: Textual caches them)."""

    base: Style
    header: Style
    cursor: Style
    hover: Style
    even: Style


CELL_PADDING = 1
STRIP_CACHE_MIN = 64


def fit(text: str, width: int, justify: Justify = "left") -> str:
    """``text`` in exactly ``width`` terminal cells: an ellipsis when cut (as DataTable did), padded otherwise."""
    if not text.isprintable():
        text = clean(text)
    length = cell_len(text)
    if length > width:
        return set_cell_size(text, width - 1) + "…" if width > 0 else ""
    if length == width:
        return text
    pad = " " * (width - length)
    return pad + text if justify == "right" else text + pad


def fit_styled(console: Console, text: Text, width: int, justify: Justify = "left") -> list[Segment]:
    """The segments of ``text`` in exactly ``width`` cells, in its own styles: cut with an ellipsis as :func:`fit`
    cuts, padded (in no style) otherwise. A text with a control character is drawn cleaned, in its base style."""
    if not text.plain.isprintable():
        text = Text(clean(text.plain), style=text.style)
    if text.cell_len > width:
        text = text.copy()
        text.truncate(width, overflow="ellipsis" if width > 0 else "crop")
    segments = list(text.render(console))
    if text.style:  # Text.render leaves its base style out when the text has no spans
        segments = list(Segment.apply_style(segments, console.get_style(text.style)))
    gap = width - text.cell_len
    if gap > 0:
        pad = Segment(" " * gap)
        segments = [pad, *segments] if justify == "right" else [*segments, pad]
    return segments


def fit_columns(columns: Sequence[tuple[str, str, int | None]], priority: Sequence[str], available: int,
                padding: int = CELL_PADDING,
                grow: tuple[str, int] | None = None,
                requires: Mapping[str, str] | None = None) -> list[tuple[str, str, int | None]]:
    """The columns to draw in ``available`` cells: whole ones, the most important first, in their own order.

    Columns are taken in ``priority`` order while they fit (a narrower, less important one may still fit
    where a wider one did not; a column not named in ``priority`` is never drawn); the others are dropped
    whole rather than drawn cut off at the screen's edge behind a scroll bar. ``grow`` names a column that
    takes the width left over, up to a most: a long name or error shows more where there is room.
    ``requires`` maps a column to one it means nothing without: it is drawn only beside that one.
    """
    drawn_width = {key: (width or 0) + 2 * padding for key, _, width in columns}
    needs = requires or {}
    kept: set[str] = set()
    used = 0
    for key in priority:
        if key in needs and needs[key] not in kept:
            continue
        if key in drawn_width and key not in kept and used + drawn_width[key] <= available:
            kept.add(key)
            used += drawn_width[key]
    fitted: list[tuple[str, str, int | None]] = []
    for key, label, width in columns:
        if key not in kept:
            continue
        if grow is not None and key == grow[0] and width is not None:
            width = max(width, min(grow[1], width + available - used))
        fitted.append((key, label, width))
    return fitted


class VirtualTable(ScrollView, can_focus=True):
    """A read-only table of many rows that renders only the visible ones."""

    ALLOW_SELECT = False

    # The looks of Textual's DataTable, so that the survey list reads like every other table of the app.
    DEFAULT_CSS = """
        VirtualTable {
            background: $surface;
            color: $foreground;

            &:focus {
                background-tint: $foreground 5%;
                & > .virtual-table--cursor {
                    background: $block-cursor-background;
                    color: $block-cursor-foreground;
                    text-style: $block-cursor-text-style;
                }
                & > .virtual-table--header {
                    background-tint: $foreground 5%;
                }
            }

            & > .virtual-table--header {
                text-style: bold;
                background: $panel;
                color: $foreground;
            }
            &:ansi > .virtual-table--header {
                background: ansi_bright_blue;
                color: ansi_default;
            }
            & > .virtual-table--cursor {
                background: $block-cursor-blurred-background;
                color: $block-cursor-blurred-foreground;
                text-style: $block-cursor-blurred-text-style;
            }
            & > .virtual-table--hover {
                background: $block-hover-background;
            }
            & > .virtual-table--even-row {
                background: $surface-lighten-1 50%;
            }
            &:dark > .virtual-table--even-row {
                background: $surface-darken-1 40%;
            }
        }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--hover",
        "virtual-table--even-row",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Select", show=False, id="table.select"),
        Binding("up", "cursor_up", "Cursor up", show=False, id="table.up"),
        Binding("down", "cursor_down", "Cursor down", show=False, id="table.down"),
        *bindings("list"),  # j and k
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("home,ctrl+home", "first", "First", show=False, id="table.first"),
        Binding("end,ctrl+end", "last", "Last", show=False, id="table.last"),
    ]

    class RowMessage(Message):
        """A message about the cursor row: which table, which row, its key."""

        def __init__(self, table: VirtualTable, cursor_row: int, row_key: str) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row
            self.row_key = row_key

        @property
        def control(self) -> VirtualTable:
            return self.table

    class RowHighlighted(RowMessage):
        """The row under the cursor changed (moved, or the rows under a still cursor changed)."""

    class RowSelected(RowMessage):
        """``enter`` on the cursor row, or a click on it."""

    class HeaderSelected(Message):
        """A click on a column header (the owner decides what sorting means)."""

        def __init__(self, table: VirtualTable, column_key: str, column_index: int) -> None:
            super().__init__()
            self.table = table
            self.column_key = column_key
            self.column_index = column_index

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, columns: Sequence[Column], *, zebra_stripes: bool = False, enter_selects: bool = True,
                 name: str | None = None, id: str | None = None, classes: str | None = None,
                 disabled: bool = False) -> None:
        """``enter_selects=False`` leaves Enter to the screen's own binding: a key handled there moves the focus as
        it is handled, where ``RowSelected`` is answered after the keys that came with Enter have acted."""
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.columns: tuple[Column, ...] = tuple(columns)
        self.zebra_stripes = zebra_stripes
        self.enter_selects = enter_selects
        self._column_index = {column.key: index for index, column in enumerate(self.columns)}
        self._shown: tuple[int, ...] = tuple(range(len(self.columns)))
        self._table_width = sum(column.width + 2 * CELL_PADDING for column in self.columns)
        self._rows: list[Row] = []  # insertion order
        self._view: list[Row] = self._rows  # display order; the same list while unsorted
        self._positions: dict[str, int] | None = {}  # key -> display index; None = rebuild on demand
        self._sort_fn: Callable[[Row], Any] | None = None
        self._sort_reverse = False
        self._sort_values: dict[str, Any] = {}
        self._cursor = 0
        self._highlighted: tuple[int, str] | None = None
        self._hover: int | None = None  # display index under the mouse, None when the keyboard moved last
        # Each visible row's strip by (row key, cursor, hover, even, width, scroll x), with the row tuple it was
        # drawn from: a new tuple under the same key (a changed row) is drawn again.
        self._strips: LRUCache[tuple[Any, ...], tuple[Row, Strip]] = LRUCache(STRIP_CACHE_MIN)
        self._header: tuple[tuple[int, int], Strip] | None = None
        self._looks: _Looks | None = None
        self._cell_styles: dict[str, Style] = {}
        self._update_virtual_size()

    # ------------------------------------------------------------------ reading

    @property
    def row_count(self) -> int:
        return len(self._view)

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor, None when the table is empty."""
        return self._view[self._cursor][KEY] if self._view else None

    def __contains__(self, key: object) -> bool:
        return key in self._index()

    def index_of(self, key: str) -> int | None:
        """The display index of a row, None when it is not in the table."""
        return self._index().get(key)

    def keys(self) -> list[str]:
        """The rows' keys, in display order."""
        return [row[KEY] for row in self._view]

    def visible_keys(self) -> list[str]:
        """The keys of the rows on screen now (under the header), top to bottom; none before the first layout."""
        if not self.size.height:
            return []
        top = int(self.scroll_y)
        return [row[KEY] for row in self._view[top:top + self._page_rows]]

    def key_at(self, index: int) -> str:
        return self._view[index][KEY]

    def row_at(self, index: int) -> Row:
        return self._view[index]

    def cell(self, index: int, column_key: str) -> str:
        """The text of one cell, as stored (not cut to the column width; a ``Text`` cell's characters)."""
        cells = self._view[index][CELLS]
        column = self._column_index[column_key]
        return cell_text(cells[column]) if column < len(cells) else ""

    def column_texts(self, column_key: str) -> list[str]:
        column = self._column_index[column_key]
        return [cell_text(row[CELLS][column]) if column < len(row[CELLS]) else "" for row in self._view]

    @property
    def shown_columns(self) -> list[Column]:
        """The columns drawn, in their order (the others are hidden to fit the width)."""
        return [self.columns[index] for index in self._shown]

    def _index(self) -> dict[str, int]:
        if self._positions is None:
            self._positions = {row[KEY]: index for index, row in enumerate(self._view)}
        return self._positions

    # ------------------------------------------------------------------ changing rows

    def add_rows(self, rows: Iterable[Row]) -> None:
        """Append rows (merged into the order when sorted). Keys must be new."""
        new = list(rows)
        if not new:
            return
        index = self._index()
        for row in new:
            if row[KEY] in index:
                raise ValueError(f"duplicate row key {row[KEY]!r}")
        start = len(self._view)
        self._rows.extend(new)
        if self._sort_fn is not None:
            self._sort_values.update((row[KEY], self._sort_fn(row)) for row in new)
            # The view is sorted and the new rows come after it, so the stable sort is a cheap merge and
            # equal values keep their insertion order (as a sort from scratch would).
            self._view.extend(new)
            self._resort_view()
        else:
            for offset, row in enumerate(new):
                index[row[KEY]] = start + offset
        self._rows_changed()

    def set_rows(self, rows: Iterable[Row], *, keep: str | None = None) -> None:
        """Replace every row (keeps the sort function). The cursor stays at its index, clamped, or on the row
        with key ``keep`` when that row is among the new ones."""
        self._rows = list(rows)
        self._positions = None
        if self._sort_fn is not None:
            fn = self._sort_fn
            self._sort_values = {row[KEY]: fn(row) for row in self._rows}
            self._view = list(self._rows)
            self._resort_view()
        else:
            self._view = self._rows
        index = self._index()
        if len(index) != len(self._view):
            raise ValueError("duplicate row keys")
        if keep is not None and keep in index:
            self._cursor = index[keep]
        self._forget_strips_of_rows_gone(index)
        self._rows_changed()

    def _forget_strips_of_rows_gone(self, shown: Mapping[str, int]) -> None:
        """Drop the drawn lines of rows no longer shown: a table whose rows come and go (the runs of an export)
        would otherwise keep up to the cache's size of lines nobody will see again."""
        drawn = self._strips.keys()  # a view: copied below before entries are dropped
        for cache_key in [key for key in drawn if key[0] not in shown]:
            self._strips.discard(cache_key)

    def clear(self) -> None:
        """No rows; the cursor and the scroll go back to the top."""
        self._rows = []
        self._view = [] if self._sort_fn is not None else self._rows  # sorted: the view is a list of its own
        self._positions = {}
        self._sort_values = {}
        self._cursor = 0
        self._highlighted = None
        self._hover = None
        self._rows_changed()
        self.scroll_to(0, 0, animate=False, force=True)

    def apply(self, rows: Sequence[tuple[str, Mapping[str, Cell]]]) -> None:
        """Show ``rows`` (key, cells by column key), in this order, in place of the rows shown.

        Callers give every row each time; the table compares each row's cells with the ones it shows and keeps
        the rows whose cells are equal, so only the lines of new and changed rows are drawn again. The cursor
        stays on its row while that row is shown, and the scroll stays put.
        """
        index = self._index()
        order = [column.key for column in self.columns]
        wanted: list[Row] = []
        for key, cells in rows:
            fresh = tuple(cells.get(column, "") for column in order)
            position = index.get(key)
            old = self._view[position] if position is not None else None
            wanted.append(old if old is not None and same_cells(old[CELLS], fresh) else (key, fresh, ()))
        if len(wanted) == len(self._rows) and all(new is old for new, old in zip(wanted, self._rows, strict=True)):
            return  # the same rows in the same order: nothing to draw again (a quiet poll)
        cursor_key = self.cursor_key
        self.set_rows(wanted, keep=cursor_key)

    def cells_of(self, key: str) -> dict[str, Cell] | None:
        """The cells a row shows, by column key (None when the row is not in the table)."""
        position = self._index().get(key)
        if position is None:
            return None
        cells = self._view[position][CELLS]
        return {column.key: cells[number] for number, column in enumerate(self.columns) if number < len(cells)}

    def update_row(self, row: Row) -> None:
        """Replace the row with the same key (re-sorted when a sort is active)."""
        position = self._index()[row[KEY]]
        old = self._view[position]
        self._view[position] = row
        if self._view is not self._rows:
            self._rows[self._rows.index(old)] = row
        if self._sort_fn is not None:
            self._sort_values[row[KEY]] = self._sort_fn(row)
            self._resort_view()
        self._rows_changed()

    def update_cell(self, key: str, column_key: str, text: str, style: str = "") -> None:
        """Replace one cell's text and style key (see :meth:`update_cells`)."""
        self.update_cells(column_key, [(key, text, style)])

    def update_cells(self, column_key: str, changes: Iterable[tuple[str, str, str]]) -> None:
        """Replace cells of one column: ``(row key, text, style key)`` each; unknown keys are skipped.

        The sort is NOT re-applied (call :meth:`sort` after the batch when the column is the sort's).
        """
        column = self._column_index[column_key]
        index = self._index()
        replaced: dict[str, Row] = {}
        for key, text, style in changes:
            position = index.get(key)
            if position is None:
                continue
            old = self._view[position]
            styles = old[STYLES] or ("",) * len(old[CELLS])
            row = (old[KEY], (*old[CELLS][:column], text, *old[CELLS][column + 1:]),
                   (*styles[:column], style, *styles[column + 1:]))
            self._view[position] = replaced[key] = row
        if replaced and self._view is not self._rows:
            self._rows = [replaced.get(row[KEY], row) for row in self._rows]
        if replaced:
            self.refresh()

    def remove_row(self, key: str) -> None:
        position = self._index()[key]
        old = self._view.pop(position)
        if self._view is not self._rows:
            self._rows.remove(old)
        self._sort_values.pop(key, None)
        self._positions = None
        self._rows_changed()

    def sort(self, key: Callable[[Row], Any] | None, *, reverse: bool = False) -> None:
        """Order the rows by ``key(row)`` (stable: ties keep insertion order); None restores insertion order.

        Values are computed once per row and kept, so pages appended later merge in cheaply; call
        ``sort`` again when what the values depend on changes. The cursor keeps its index.
        """
        self._sort_fn, self._sort_reverse = key, reverse
        if key is None:
            self._sort_values = {}
            self._view = self._rows
        else:
            self._sort_values = {row[KEY]: key(row) for row in self._rows}
            self._view = list(self._rows)
            self._resort_view()
        self._positions = None
        self._rows_changed()

    def _resort_view(self) -> None:
        values = self._sort_values
        self._view.sort(key=lambda row: values[row[KEY]], reverse=self._sort_reverse)
        self._positions = None

    def _rows_changed(self) -> None:
        self._cursor = max(0, min(self._cursor, len(self._view) - 1))
        self._update_virtual_size()
        self.refresh()
        self._check_highlight()

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._table_width, len(self._view) + 1)

    # ------------------------------------------------------------------ cursor

    def move_cursor(self, row: int, *, scroll: bool = True) -> None:
        """Put the cursor on display index ``row`` (clamped) and, by default, bring it into view."""
        old = self._cursor
        self._cursor = max(0, min(row, len(self._view) - 1))
        if old != self._cursor:
            self.refresh_line(old + 1)
            self.refresh_line(self._cursor + 1)
        if scroll:
            self.scroll_to_cursor()
        self._check_highlight()
        if old != self._cursor:
            self._view_changed()

    def move_to_key(self, key: str | None, *, scroll: bool = True) -> bool:
        """Put the cursor on the row with ``key``; False when it is not in the table."""
        index = None if key is None else self.index_of(key)
        if index is None:
            return False
        self.move_cursor(index, scroll=scroll)
        return True

    @property
    def _page_rows(self) -> int:
        """Rows visible under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def cursor_line_region(self) -> Region | None:
        """The cursor's row on screen, under the header (what a toast must not cover)."""
        if not self._view:
            return None
        top = self.scrollable_content_region.y + 1
        return Region(self.region.x, top + self._cursor - int(self.scroll_y), self.region.width, 1)

    def scroll_to_cursor(self) -> None:
        top, rows = int(self.scroll_y), self._page_rows
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, force=True)
        elif self._cursor >= top + rows:
            self.scroll_to(y=self._cursor - rows + 1, animate=False, force=True)

    def _check_highlight(self) -> None:
        key = self.cursor_key
        state = None if key is None else (self._cursor, key)
        if state != self._highlighted:
            self._highlighted = state
            if key is not None:
                self.post_message(self.RowHighlighted(self, self._cursor, key))

    def _view_changed(self) -> None:
        """Hook: the cursor row or the first visible row changed (lazy loading listens here)."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self._view_changed()

    def _keyboard(self) -> None:
        if self._hover is not None:
            self.refresh_line(self._hover + 1)
            self._hover = None

    def action_cursor_up(self) -> None:
        self._keyboard()
        self.move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._keyboard()
        self.move_cursor(self._cursor + 1)

    def action_page_down(self) -> None:
        self._keyboard()
        rows = self._page_rows
        self.scroll_to(y=int(self.scroll_y) + rows, animate=False, force=True)
        self.move_cursor(self._cursor + rows)

    def action_page_up(self) -> None:
        self._keyboard()
        rows = self._page_rows
        self.scroll_to(y=int(self.scroll_y) - rows, animate=False, force=True)
        self.move_cursor(self._cursor - rows)

    def action_first(self) -> None:
        self._keyboard()
        self.move_cursor(0)

    def action_last(self) -> None:
        self._keyboard()
        self.move_cursor(len(self._view) - 1)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.enter_selects if action == "select_cursor" else True

    def action_select_cursor(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RowSelected(self, self._cursor, key))

    # ------------------------------------------------------------------ mouse

    def _at(self, event: events.MouseEvent) -> tuple[int, int] | None:
        """(virtual x, line) under the mouse: line 0 is the header, line n is display index n - 1."""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        if offset.y == 0:
            return int(self.scroll_x) + offset.x, 0
        return int(self.scroll_x) + offset.x, int(self.scroll_y) + offset.y

    def hide_columns(self, keys: Iterable[str]) -> None:
        """Draw every column but these (narrow terminals drop secondary columns rather than cut them)."""
        hidden = set(keys)
        shown = tuple(i for i, column in enumerate(self.columns) if column.key not in hidden)
        if shown == self._shown:
            return
        self._shown = shown
        self._table_width = sum(self.columns[i].width + 2 * CELL_PADDING for i in shown)
        self._strips.clear()
        self._header = None
        self._update_virtual_size()
        self.refresh()

    def set_column_width(self, key: str, width: int) -> None:
        """Give one column another width (a column that takes the free width follows the terminal's)."""
        index = self._column_index[key]
        if self.columns[index].width == width:
            return
        columns = list(self.columns)
        columns[index] = columns[index]._replace(width=width)
        self.columns = tuple(columns)
        self._table_width = sum(self.columns[i].width + 2 * CELL_PADDING for i in self._shown)
        self._strips.clear()
        self._header = None
        self._update_virtual_size()
        self.refresh()

    def show_columns(self, shown: Iterable[tuple[str, int]]) -> None:
        """Draw only these columns, ``(key, width)`` each, in the table's own column order; hide the others.

        Rows keep every cell, hidden or not: a column shown again comes back with its cells.
        """
        widths = dict(shown)
        columns = tuple(column._replace(width=widths[column.key]) if column.key in widths else column
                        for column in self.columns)
        indexes = tuple(i for i, column in enumerate(columns) if column.key in widths)
        if columns == self.columns and indexes == self._shown:
            return
        self.columns, self._shown = columns, indexes
        self._table_width = sum(self.columns[i].width + 2 * CELL_PADDING for i in indexes)
        self._strips.clear()
        self._header = None
        self._update_virtual_size()
        self.refresh()

    def fit_to(self, width: int, columns: Sequence[tuple[str, str, int | None]], priority: Sequence[str],
               grow: tuple[str, int], requires: Mapping[str, str] | None = None) -> None:
        """Show the columns that fit whole across ``width`` cells (:func:`fit_columns`), room kept for the
        vertical scroll bar; a table keeps every column's cells, shown or not."""
        available = width - self.styles.scrollbar_size_vertical
        fitted = fit_columns(columns, priority, available, CELL_PADDING, grow, requires)
        self.show_columns((key, column_width or 0) for key, _, column_width in fitted)

    def fixed_width_but(self, key: str) -> int:
        """Cells taken by every shown column except ``key``, padding included."""
        return sum(self.columns[i].width + 2 * CELL_PADDING for i in self._shown if self.columns[i].key != key)

    def column_at(self, x: int) -> int | None:
        """The column drawn at virtual x (its padding included), None past the last column."""
        edge = 0
        for index in self._shown:
            edge += self.columns[index].width + 2 * CELL_PADDING
            if x < edge:
                return index
        return None

    async def _on_click(self, event: events.Click) -> None:
        where = self._at(event)
        if where is None:
            return
        x, line = where
        event.stop()
        if line == 0:
            column = self.column_at(x)
            if column is not None:
                self.post_message(self.HeaderSelected(self, self.columns[column].key, column))
            return
        index = line - 1
        if index >= len(self._view):
            return
        if index == self._cursor:
            self.action_select_cursor()
        else:
            self.move_cursor(index)

    def _on_mouse_move(self, event: events.MouseMove) -> None:
        where = self._at(event)
        hover = None if where is None or where[1] == 0 or where[1] > len(self._view) else where[1] - 1
        if hover != self._hover:
            for index in (self._hover, hover):
                if index is not None:
                    self.refresh_line(index + 1)
            self._hover = hover

    def _on_leave(self, event: events.Leave) -> None:
        self._keyboard()

    # ------------------------------------------------------------------ rendering

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._looks = None
        self._cell_styles.clear()
        self._strips.clear()
        self._header = None

    def _on_focus(self, event: events.Focus) -> None:
        self._looks = None
        self.refresh()

    def _on_blur(self, event: events.Blur) -> None:
        self._looks = None
        self.refresh()

    def _get_looks(self) -> _Looks:
        get = self.get_component_rich_style
        looks = _Looks(self.rich_style, get("virtual-table--header"), get("virtual-table--cursor"),
                       get("virtual-table--hover", partial=True), get("virtual-table--even-row"))
        if looks != self._looks:
            self._looks = looks
            self._strips.clear()
            self._header = None
        return looks

    def _cell_style(self, key: str) -> Style:
        if not key:
            return Style.null()
        style = self._cell_styles.get(key)
        if style is None:
            style = self._cell_styles[key] = self.get_component_rich_style(key, partial=True, default=Style.null())
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._get_looks()  # once per frame: a focus or theme change empties the strip cache
        self._strips.grow(max(STRIP_CACHE_MIN, 2 * self.size.height))  # the visible window and a page
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        looks = self._looks or self._get_looks()
        scroll_x, scroll_y = self.scroll_offset
        if y == 0:
            return self._header_strip(looks, width, scroll_x)
        index = scroll_y + y - 1
        if index >= len(self._view):
            return Strip.blank(width, looks.base)
        return self._row_strip(index, looks, width, scroll_x)

    def _finish(self, segments: list[Segment], looks: _Looks, width: int, scroll_x: int) -> Strip:
        """The visible part of a line; only this one Strip is kept (a Strip carries six small caches)."""
        return Strip(segments).crop(scroll_x, scroll_x + width).adjust_cell_length(width, looks.base).simplify()

    def _header_strip(self, looks: _Looks, width: int, scroll_x: int) -> Strip:
        if self._header is not None and self._header[0] == (width, scroll_x):
            return self._header[1]
        style = looks.header
        pad = " " * CELL_PADDING
        segments = [Segment(pad + fit(self.columns[i].label, self.columns[i].width) + pad, style)
                    for i in self._shown]
        segments.append(Segment(" " * max(0, width - self._table_width), style))
        strip = self._finish(segments, looks, width, scroll_x)
        self._header = ((width, scroll_x), strip)
        return strip

    def _row_strip(self, index: int, looks: _Looks, width: int, scroll_x: int) -> Strip:
        row = self._view[index]
        cursor = index == self._cursor
        hover = index == self._hover
        even = self.zebra_stripes and index % 2 == 0
        cache_key = (row[KEY], cursor, hover, even, width, scroll_x)
        cached = self._strips.get(cache_key)
        if cached is not None and cached[0] is row:
            return cached[1]
        row_style = looks.base + looks.even if even else looks.base
        # As DataTable: the cursor's colours win over a cell's own colour; its bold/dim/italic stay.
        if cursor:
            pre, post = row_style + looks.cursor, Style.from_color(looks.cursor.color)
        elif hover:
            pre, post = row_style + looks.hover, Style.null()
        else:
            pre, post = row_style, Style.null()
        padding = " " * CELL_PADDING
        pad_style = pre + post
        styles = row[STYLES]
        segments: list[Segment] = []
        cells = row[CELLS]
        for number in self._shown:
            column = self.columns[number]
            text = cells[number] if number < len(cells) else ""
            segments.append(Segment(padding, pad_style))
            if isinstance(text, str):
                style_key = styles[number] if number < len(styles) else ""
                style = pre + self._cell_style(style_key) + post if style_key else pad_style
                segments.append(Segment(fit(text, column.width, column.justify), style))
            else:
                segments.extend(Segment.apply_style(fit_styled(self.app.console, text, column.width, column.justify),
                                                    pre, post))
            segments.append(Segment(padding, pad_style))
        segments.append(Segment(" " * max(0, width - self._table_width), pre))
        strip = self._finish(segments, looks, width, scroll_x)
        self._strips.set(cache_key, (row, strip))
        return strip
