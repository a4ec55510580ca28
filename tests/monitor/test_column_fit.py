"""At 80x24 and 160x48 the monitor's tables show whole columns only, and text cut to fit ends with ``…``.

Read from what the tables draw (``render_line``), cell by cell, against the full text of each cell.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle, until
from tui.look.status_line import STATUS_AGE, STATUS_POLL, fit_status, project_badge
from tui.sandbox.runner import SandboxHandle
from tui.widgets.virtual_table import CELL_PADDING, VirtualTable, fit_columns


def cut_cells(table: VirtualTable) -> list[str]:
    """Check every drawn cell of ``table`` and return those cut to fit; fails on a cell cut without ``…``."""
    region = table.scrollable_content_region
    pad = CELL_PADDING
    assert table.scroll_x == 0
    assert table.virtual_size.width <= region.width, "columns run past the table's right edge"
    assert not table.show_horizontal_scrollbar
    cut: list[str] = []
    top = int(table.scroll_y)  # the first row drawn under the header
    for y in range(min(table.row_count - top + 1, region.height)):
        line = table.render_line(y)
        x = 0
        for column in table.shown_columns:
            inner = column.width
            drawn = line.crop(x + pad, x + pad + inner).text.rstrip()  # cells, not characters: wide ones count 2
            text = column.label if y == 0 else table.cell(top + y - 1, column.key)
            if y == 0:
                assert drawn == text.rstrip(), f"header {text!r} drawn as {drawn!r}"
            elif Text(text).cell_len > inner:
                assert drawn.endswith("…"), f"{column.key}: {text!r} cut without an ellipsis: {drawn!r}"
                assert text.startswith(drawn[:-1].rstrip()), (text, drawn)
                cut.append(text)
            else:
                assert drawn == text.rstrip(), f"{column.key}: {text!r} drawn as {drawn!r}"
            x += inner + 2 * pad
    return cut


def every_column_fits_whole_and_cut_text_ends_with_an_ellipsis(screen: Any, size: str) -> None:
    exports = screen.query_one("#exports", VirtualTable)
    runs = screen.query_one("#runs", VirtualTable)
    assert exports.row_count and runs.row_count, size
    cut = cut_cells(exports) + cut_cells(runs)
    assert cut, f"{size}: nothing was long enough to be cut: the test would prove nothing"
    for key in ("name", "state", "latest", "lag"):
        assert key in {c.key for c in exports.shown_columns}, f"{size}: {key} must show at any width"
    for key in ("status", "interval", "error"):
        assert key in {c.key for c in runs.shown_columns}, f"{size}: {key} must show at any width"
    status = screen.query_one("#monitor-status").render_line(0).text
    assert "12 exports · 1 failing" in status, f"{size}: {status}"


async def test_every_column_fits_whole_at_80x24_and_160x48_and_columns_come_back_when_the_terminal_widens(
        sandbox: SandboxHandle) -> None:
    """At 80x24, then widened to 160x48, with the cursor on an export whose runs carry long errors: the tables show
    whole columns only, text cut to fit ends with an ellipsis; the columns dropped at 80 columns come back on the
    wider screen, with their rows (cells kept, cursor kept)."""
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        select_export(app, "Snowflake warehouse (hourly)")  # its runs carry long errors
        await settle(pilot)
        screen: Any = app.screen
        every_column_fits_whole_and_cut_text_ends_with_an_ellipsis(screen, "80x24")
        exports = screen.query_one("#exports", VirtualTable)
        row = exports.cursor_row
        assert row > 0, "the cursor is off the first row: it is kept where it was put, not reset"
        narrow = [c.key for c in exports.shown_columns]
        await pilot.resize_terminal(160, 48)
        await until(pilot, lambda: "progress" in {c.key for c in exports.shown_columns})
        wide = [c.key for c in exports.shown_columns]
        assert set(narrow) < set(wide) and {"progress", "due"} <= set(wide)
        assert exports.row_count == 12 and exports.cursor_row == row
        every_column_fits_whole_and_cut_text_ends_with_an_ellipsis(screen, "160x48")


def test_fit_columns_drops_whole_columns_least_needed_first_and_grows_one() -> None:
    columns: list[tuple[str, str, int | None]] = [("a", "A", 10), ("b", "B", 20), ("c", "C", 4), ("d", "D", 8)]
    # Each column is drawn with one cell of padding either side.
    assert fit_columns(columns, ("a", "b", "c", "d"), 49) == [("a", "A", 10), ("b", "B", 20), ("c", "C", 4)]
    # b does not fit after a and d; c still does; a takes what is left, up to its most.
    assert fit_columns(columns, ("a", "d", "b", "c"), 33, grow=("a", 13)) == [("a", "A", 13), ("c", "C", 4),
                                                                            ("d", "D", 8)]
    assert fit_columns(columns, ("a",), 5) == []


def test_the_status_line_drops_whole_parts_before_the_counts() -> None:
    phrases = [(STATUS_AGE, "updated 0s ago", ""), (STATUS_POLL, "every 30s", ""), (0, "12 exports", ""),
               (0, "1 failing", "red")]

    def line(width: int) -> str:
        badges = [(0, " ● LIVE ", "bold"), project_badge("Acme · Demo project", width)]
        return fit_status(badges, phrases, width).plain

    assert line(160) == " ● LIVE  Acme · Demo project   updated 0s ago · every 30s · 12 exports · 1 failing"
    assert line(75) == " ● LIVE  Acme · Demo project   updated 0s ago · 12 exports · 1 failing"
    # The project outlasts the data's age (issue 42: 80x24 lost it), cut to a third of a narrow line.
    assert line(60) == " ● LIVE  Acme · Demo project   12 exports · 1 failing"
    assert line(50) == " ● LIVE  Acme · Demo pro…   12 exports · 1 failing"
    assert line(40) == " ● LIVE   12 exports · 1 failing"
