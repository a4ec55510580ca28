"""A DataTable that updates rows in place and repaints only the rows that changed.

Measured on this machine (shared/design/measured-floor.md §3): any stock
``update_cell`` bumps the table's update counter, which invalidates every render
cache, so the next frame re-renders every visible cell: about 45 ms per poll
whether 10 or 200 cells changed. A wall screen polling 200 exports cannot
afford that. ``apply`` instead drops the cached renders of the changed rows
only and refreshes just their lines, keeping cursor and scroll where they are.

It leans on DataTable internals (the caches named below, stable across Textual
8.x); if they are missing it falls back to stock ``update_cell``, which is
slower but correct. Rows added or removed, and sorting, go through the stock
paths, inside one ``batch_update``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, ColumnKey, RowKey

Cells = Mapping[str, Text | str]


class LiveTable(DataTable[Any]):
    """DataTable keyed by row id with a diffing ``apply``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._column_order: list[str] = []
        self.fast_path_used = 0
        self.slow_path_used = 0

    def set_columns(self, columns: Sequence[tuple[str, str, int | None]]) -> None:
        """(key, label, width) for each column; fixed widths avoid re-measuring on updates."""
        self._column_order = [key for key, _, _ in columns]
        for key, label, width in columns:
            self.add_column(label, key=key, width=width)

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
        """Set cells of existing rows and repaint only those rows."""
        try:
            self._fast_update(updates)
            self.fast_path_used += 1
        except (AttributeError, KeyError, TypeError):
            self.slow_path_used += 1
            for row, cells in updates.items():
                for col, value in cells.items():
                    try:
                        self.update_cell(row, col, value)
                    except CellDoesNotExist:
                        continue

    def _fast_update(self, updates: Mapping[str, Mapping[str, Text | str]]) -> None:
        data = self._data
        row_keys: set[RowKey] = set()
        cell_keys: set[tuple[RowKey, ColumnKey]] = set()
        for row, cells in updates.items():
            row_key = RowKey(row)
            if row_key not in data:
                continue
            for col, value in cells.items():
                column_key = ColumnKey(col)
                if column_key in data[row_key]:
                    data[row_key][column_key] = value
                    cell_keys.add((row_key, column_key))
            row_keys.add(row_key)
        if not row_keys:
            return
        update_count = self._update_count
        indexes = {key: self._row_locations.get(key) for key in row_keys}
        positions = [index for index in indexes.values() if index is not None]
        for index in positions:
            self._row_renderable_cache.discard((update_count, index))
        # Only the changed cells are rendered again; the row's other cells come from the cache.
        for cell_key in [k for k in self._cell_render_cache.keys() if (k[0], k[1]) in cell_keys]:  # noqa: SIM118
            self._cell_render_cache.discard(cell_key)
        for row_cache_key in [k for k in self._row_render_cache.keys() if k[0] in row_keys]:  # noqa: SIM118
            self._row_render_cache.discard(row_cache_key)
        regions = [self._get_row_region(index) for index in positions]
        lines = {y for region in regions for y in range(region.y, region.y + region.height)}
        for line_key in [k for k in self._line_cache.keys() if k[0] in lines]:  # noqa: SIM118
            self._line_cache.discard(line_key)
        for region in regions:
            self._refresh_region(region)
