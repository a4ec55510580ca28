"""Every private member of Textual that watchdeck relies on, with why, and the doors to the simple ones.

Textual may rename any of these in a minor release. They are listed here so
that one test (``tests/test_textual_private.py``) can name the one that moved
when the installed Textual changes, instead of a table drawing garbage at
3 a.m. Where a use is a one-liner, the code calls the function below; the
DataTable internals stay inside :class:`~tui.widgets.live_table.LiveTable`
(its cell renderer, for the first frame with data), and are listed here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App
from textual.widget import Widget
from textual.widgets._data_table import SegmentLines


@dataclass(frozen=True)
class PrivateUse:
    owner: str
    """The Textual class that has the member (dotted path)."""
    member: str
    why: str


PRIVATE_USES: tuple[PrivateUse, ...] = (
    PrivateUse("textual.app.App", "_handle_exception",
               "the only hook where an unhandled exception can become one line instead of a traceback with locals"),
    PrivateUse("textual.app.App", "_driver",
               "the terminal title (alert count) has no public writer; only on a real terminal"),
    PrivateUse("textual.widget.Widget", "_styles_cache",
               "a removed footer key's rendered lines stay alive in an lru_cache until this is emptied"),
    PrivateUse("textual.widgets._data_table", "SegmentLines", "the return type of DataTable's row renderer"),
    # LiveTable: one-line Text cells drawn straight to segments, and no measuring of fixed-width columns.
    PrivateUse("textual.widgets.DataTable", "_render_cell", "draw one-line Text cells straight to segments"),
    PrivateUse("textual.widgets.DataTable", "_update_dimensions", "skip measuring cells when every column is fixed"),
    PrivateUse("textual.widgets.DataTable", "_get_row_renderables", "the row's cells as the stock table draws them"),
    PrivateUse("textual.widgets.DataTable", "_get_styles_to_render_cell", "cell styles as the stock table has them"),
    PrivateUse("textual.widgets.DataTable", "_show_hover_cursor", "draw the hover row as the stock table does"),
    PrivateUse("textual.widgets.DataTable", "_total_row_height", "the table's virtual height after fixed columns"),
    PrivateUse("textual.widgets.DataTable", "_row_label_column_width", "the left edge of the first column"),
    PrivateUse("textual.widgets.DataTable", "_pseudo_class_state", "a cell's cache key, as the stock table keys it"),
    PrivateUse("textual.widgets.DataTable", "_update_count", "a cell's cache key, as the stock table keys it"),
    PrivateUse("textual.widgets.DataTable", "_cell_render_cache",
               "the stock table's cache of drawn cells; LiveTable bounds it by the cells on screen"),
    PrivateUse("textual.widgets.DataTable", "_row_render_cache", "bounded by LiveTable by the rows on screen"),
    PrivateUse("textual.widgets.DataTable", "_line_cache", "bounded by LiveTable by the lines on screen"),
    PrivateUse("textual.widgets.DataTable", "_row_renderable_cache", "bounded by LiveTable by the rows on screen"),
    PrivateUse("textual.widgets.DataTable", "_row_locations", "a drawn cell's row key"),
    PrivateUse("textual.widgets.DataTable", "_column_locations", "a drawn cell's column key"),
)


def write_terminal_title(app: App[object] | App[int], title: str) -> None:
    """Set the terminal's window title (OSC 2); nothing in a headless run or before the driver exists."""
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(f"\x1b]2;{title}\x07")


def forget_rendered_lines(widget: Widget) -> None:
    """Empty a widget's line cache, so a removed widget's lines are not kept alive by Textual's lru_cache."""
    widget._styles_cache.clear()


__all__ = ["PRIVATE_USES", "PrivateUse", "SegmentLines", "forget_rendered_lines", "write_terminal_title"]
