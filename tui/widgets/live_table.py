"""A DataTable keyed by row id that updates rows in place, and draws one-line text cells straight to segments.

``apply`` diffs the rows shown against the rows wanted: vanished rows are
removed, new ones added, changed cells set with Textual's ``update_cell``, all
inside one ``batch_update``, keeping cursor and scroll where they are. Any
``update_cell`` invalidates every render cache, so the next frame draws every
visible cell again; each one-line text cell is drawn by :meth:`LiveTable._render_cell`
without Rich's layout (``make bench`` prints what a poll costs either way).

Two DataTable internals are overridden (``_render_cell``, ``_update_dimensions``);
they and the members they read are listed in :mod:`tui.widgets.textual_private`.

DataTable's render caches key every entry by its update counter, which every
``update_cell`` moves on, so an entry drawn before the latest update is never
read again; left at Textual's fixed sizes (10,000 cells, 1,000 rows and lines per
table) a table updated every poll fills them over hours. :meth:`LiveTable.fit_render_caches`
sizes them to a couple of screens of this table and empties them on resize.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowKey

from tui.widgets.textual_private import SegmentLines

Cells = Mapping[str, Text | str]

RENDER_CACHE_SCREENS = 2
"""How many screens of drawn cells, rows and lines a table keeps: the frame on screen and the one being drawn
(cursor and hover rows are drawn twice)."""
MIN_CACHED_LINES = 8


def _is_plain_line(cell: object) -> bool:
    """A Text that Rich would draw as one left-aligned line without tabs (what every monitor cell is)."""
    return (isinstance(cell, Text) and cell.justify in (None, "default")
            and cell.overflow in (None, "fold", "crop", "ellipsis")
            and "\n" not in cell.plain and "\t" not in cell.plain and cell.end in ("", "\n"))


def one_line_cell(console: Console, text: Text, width: int, padding: int, pre_style: Style,
                  post_style: Style | None) -> list[Segment]:
    """The segments Rich renders for ``Styled(Padding(text, (0, padding)), pre_style, post_style)`` in one line.

    A text too long for the cell is cut the way its own ``overflow`` says, as Rich cuts it: LiveTable sets
    ``"ellipsis"`` on its cells, so a cut name or error ends with ``…`` in both renderers alike.
    """
    inner = max(0, width - 2 * padding)
    if text.cell_len > inner:
        text = text.copy()
        text.truncate(inner, overflow="crop" if inner == 0 else None)  # Rich draws no "…" in a cell with no room
    blank = Style.null()  # what Rich's Padding pads with
    segments = [Segment(" " * padding, blank)] if padding else []
    drawn = text.render(console, end="")
    # Text.render leaves out the text's own style when it has no spans; Rich's console path adds it under them.
    segments.extend(Segment.apply_style(drawn, console.get_style(text.style)) if text.style else drawn)
    gap = inner - text.cell_len
    if gap > 0:
        segments.append(Segment(" " * gap, blank))
    if padding:
        segments.append(Segment(" " * padding, blank))
    return list(Segment.apply_style(segments, pre_style, post_style))


def fit_columns(columns: Sequence[tuple[str, str, int | None]], priority: Sequence[str], available: int,
                padding: int = 1, grow: tuple[str, int] | None = None) -> list[tuple[str, str, int | None]]:
    """The columns to draw in ``available`` cells: whole ones, the most important first, in their own order.

    Columns are taken in ``priority`` order while they fit (a narrower, less important one may still fit
    where a wider one did not; a column not named in ``priority`` is never drawn); the others are dropped
    whole rather than drawn cut off at the screen's edge behind a scroll bar. ``grow`` names a column that
    takes the width left over, up to a most: a long name or error shows more where there is room.
    """
    drawn_width = {key: (width or 0) + 2 * padding for key, _, width in columns}
    kept: set[str] = set()
    used = 0
    for key in priority:
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


def with_ellipsis(cell: Text | str) -> Text | str:
    """The cell, cut with ``…`` where its column is too narrow (never silently mid-word).

    Set on the Text itself, before any renderer sees it, so the fast path and stock DataTable draw the same
    thing. A Text that chose its own overflow keeps it. Numbers are not meant to be cut at all: their cells
    are abbreviated (``tui.look.render.short_count``) to fit their columns.
    """
    if isinstance(cell, Text) and cell.overflow is None:
        cell.overflow = "ellipsis"
    return cell


class LiveTable(DataTable[Any]):
    """DataTable keyed by row id with a diffing ``apply``; text cut to fit a column ends with ``…``."""

    # Home and End move the cursor to the first and last row (the stock table only scrolls the view).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._column_order: list[str] = []

    def set_columns(self, columns: Sequence[tuple[str, str, int | None]]) -> None:
        """(key, label, width) for each column; fixed widths avoid re-measuring on updates."""
        self._column_order = [key for key, _, _ in columns]
        for key, label, width in columns:
            self.add_column(label, key=key, width=width)
        self.fit_render_caches()

    def on_resize(self, _: events.Resize) -> None:
        self.fit_render_caches()

    def fit_render_caches(self) -> None:
        """Bound DataTable's render caches by what this table shows, and empty them.

        Each entry's key holds the table's update counter, which a resize or a new column moves on, so nothing
        emptied here could have been read again.
        """
        lines = RENDER_CACHE_SCREENS * max(MIN_CACHED_LINES, self.size.height)
        for cache, size in ((self._cell_render_cache, lines * max(1, len(self.columns))),
                            (self._row_render_cache, lines), (self._line_cache, lines),
                            (self._row_renderable_cache, lines)):
            cache.maxsize = size
            cache.clear()

    def add_row(self, *cells: Any, height: int | None = 1, key: str | None = None,
                label: Text | str | None = None) -> RowKey:
        """Stock ``add_row``, its text cells set to end with ``…`` when cut."""
        return super().add_row(*(with_ellipsis(cell) for cell in cells), height=height, key=key, label=label)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """With every column a fixed width, only the virtual size is needed.

        Stock DataTable measures every cell of every new row with Rich to widen
        auto-width columns, even when no column is one: for 200 exports, thousands
        of measures before the first frame with data can be drawn.
        """
        rows = self.rows
        fixed = not any(column.auto_width for column in self.columns.values())
        plain_rows = all(row.label is None and not row.auto_height
                         for row in (rows.get(key) for key in new_rows) if row is not None)
        if not (fixed and plain_rows):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values()) + self._row_label_column_width
        header_height = self.header_height if self.show_header else 0
        self.virtual_size = Size(width, self._total_row_height + header_height)

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> SegmentLines:
        """A one-line Text cell drawn straight to segments, the rest by DataTable.

        Stock DataTable renders each cell through Rich's ``render_lines`` of a
        ``Styled(Padding(Text))``, for every cell of the first frame with data.
        The same segments are built here directly
        (``tests/monitor/test_live_table.py`` compares the two on many cells).
        """
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None or row_index < self.fixed_rows or column_index < self.fixed_columns:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cache_key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor, self._update_count,
                     self._pseudo_class_state)
        cached = self._cell_render_cache.get(cache_key)
        if cached is not None:
            return cached
        row = self.rows.get(row_key)
        cell = self._get_row_renderables(row_index).cells[column_index]
        if row is None or row.height != 1 or width < 2 * self.cell_padding or not _is_plain_line(cell):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        assert isinstance(cell, Text)
        component_style, post_style = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css",
        )
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        lines = [one_line_cell(self.app.console, cell, width, self.cell_padding, pre_style, post_style)]
        self._cell_render_cache[cache_key] = lines
        return lines

    def apply(self, rows: Sequence[tuple[str, Cells]], changed: Mapping[str, Iterable[str]] | None = None) -> None:
        """Make the table show ``rows`` (in that order for new rows).

        ``changed`` maps a row key to the column keys whose value changed; rows
        not named there keep their cells. New rows are added, vanished rows removed.
        """
        wanted = {key for key, _ in rows}
        existing = {key.value for key in self.rows}
        with self.app.batch_update():
            for stale in existing - wanted:
                if stale is not None:
                    self.remove_row(stale)
            updates: dict[str, dict[str, Text | str]] = {}
            for key, cells in rows:
                if key not in existing:
                    self.add_row(*(cells.get(col, "") for col in self._column_order), key=key)
                elif changed and key in changed:
                    updates[key] = {col: cells[col] for col in changed[key] if col in cells}
            if updates:
                self.update_rows(updates)

    def update_rows(self, updates: Mapping[str, Mapping[str, Text | str]]) -> None:
        """Set cells of existing rows (Textual's ``update_cell``: the next frame draws the visible cells again, each
        through :meth:`_render_cell`)."""
        with self.app.batch_update():
            for row, cells in updates.items():
                for col, value in cells.items():
                    try:
                        self.update_cell(row, col, with_ellipsis(value))
                    except CellDoesNotExist:
                        continue
