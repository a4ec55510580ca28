"""Unit tests of the virtual table (no server): rendering, cursor, scrolling, sorting, literal text, messages."""

from __future__ import annotations

import gc
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from textual.app import App, ComposeResult

from tui.api.models.surveys import SurveyStatus
from tui.widgets.survey_table import STATUS_CLASSES, SurveyTable, status_style
from tui.widgets.virtual_table import Column, Row, VirtualTable, fit, make_row

COLUMNS = (Column("name", "Name", 12), Column("n", "N", 4, "right"))
SIZE = (40, 12)  # 12 lines: a header and 11 rows


def rows(count: int, start: int = 0) -> list[Row]:
    return [make_row(f"k{i}", (f"row {i}", str(i))) for i in range(start, start + count)]


class Host(App[None]):
    CSS_PATH = "../../styles/surveys.tcss"

    def __init__(self, table: VirtualTable) -> None:
        super().__init__()
        self.table = table
        self.messages: list[Any] = []

    def compose(self) -> ComposeResult:
        yield self.table

    def on_mount(self) -> None:
        self.table.focus()

    def on_virtual_table_row_highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self.messages.append(("highlighted", event.cursor_row, event.row_key))

    def on_virtual_table_row_selected(self, event: VirtualTable.RowSelected) -> None:
        self.messages.append(("selected", event.cursor_row, event.row_key))

    def on_virtual_table_header_selected(self, event: VirtualTable.HeaderSelected) -> None:
        self.messages.append(("header", event.column_key))


def screen_lines(table: VirtualTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


def test_fit_cuts_with_an_ellipsis_pads_and_justifies() -> None:
    assert fit("abc", 5) == "abc  "
    assert fit("abc", 5, "right") == "  abc"
    assert fit("abcdefgh", 5) == "abcd…"
    assert fit("日本語テキスト", 6) == "日本 …"  # wide characters count two cells (as rich's ellipsis does)
    assert cell_len(fit("日本語テキスト", 7)) == 7
    assert fit("a\x1b[2Jb", 4) == "ab  "  # a control sequence never reaches the terminal


async def test_draws_only_the_visible_rows_with_a_fixed_header() -> None:
    table = VirtualTable(COLUMNS)
    app = Host(table)
    async with app.run_test(size=SIZE) as pilot:
        table.add_rows(rows(10_000))
        await pilot.pause()
        lines = screen_lines(table)
        assert lines[0].startswith(" Name          N")
        assert lines[1].startswith(" row 0            0")
        assert lines[11].startswith(" row 10          10")
        assert table.virtual_size.height == 10_001
        # only the visible lines were rendered into the cache, not 10,000 rows
        assert len(table._strips) <= 2 * table.size.height + 1
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 9_999 and table.cursor_key == "k9999"
        lines = screen_lines(table)
        assert lines[0].startswith(" Name")  # the header stays put
        assert lines[-1].startswith(" row 9999      9999")


async def test_cursor_keys_scroll_and_messages() -> None:
    table = VirtualTable(COLUMNS)
    app = Host(table)
    async with app.run_test(size=SIZE) as pilot:
        table.add_rows(rows(100))
        await pilot.pause()
        assert app.messages == [("highlighted", 0, "k0")]
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and app.messages[-1] == ("highlighted", 2, "k2")
        await pilot.press("up")
        assert table.cursor_row == 1
        await pilot.press("up", "up")  # clamped at the top
        assert table.cursor_row == 0 and table.scroll_y == 0
        await pilot.press("pagedown")
        assert table.cursor_row == 11 and table.scroll_y == 11
        await pilot.press("pageup")
        assert table.cursor_row == 0 and table.scroll_y == 0
        for _ in range(12):
            await pilot.press("down")
        assert table.cursor_row == 12 and table.scroll_y == 2  # scrolled just enough to show the cursor
        await pilot.press("end")
        assert table.cursor_row == 99 and table.scroll_y == table.max_scroll_y == 89
        await pilot.press("home")
        assert table.cursor_row == 0 and table.scroll_y == 0
        await pilot.press("enter")
        await pilot.pause()
        assert app.messages[-1] == ("selected", 0, "k0")


async def test_mouse_click_moves_selects_and_sorts_by_header() -> None:
    table = VirtualTable(COLUMNS)
    app = Host(table)
    async with app.run_test(size=SIZE) as pilot:
        table.add_rows(rows(30))
        await pilot.pause()
        await pilot.click(VirtualTable, offset=(2, 3))  # line 3 = row 2
        await pilot.pause()
        assert table.cursor_row == 2
        await pilot.click(VirtualTable, offset=(2, 3))  # a click on the cursor row selects it
        await pilot.pause()
        assert app.messages[-1] == ("selected", 2, "k2")
        await pilot.click(VirtualTable, offset=(15, 0))  # "N" header: name is 12 + 2 cells wide
        await pilot.pause()
        assert app.messages[-1] == ("header", "n")
        await pilot.click(VirtualTable, offset=(30, 0))  # past the last column: nothing
        await pilot.pause()
        assert app.messages[-1] == ("header", "n")
        await pilot.click(VirtualTable, offset=(2, 0))
        await pilot.pause()
        assert app.messages[-1] == ("header", "name")


async def test_sort_is_stable_merges_appended_rows_and_restores_insertion_order() -> None:
    table = VirtualTable(COLUMNS)
    app = Host(table)
    async with app.run_test(size=SIZE):
        table.add_rows([make_row("a", ("b", "2")), make_row("b", ("a", "1")), make_row("c", ("b", "0"))])
        table.sort(lambda row: row[1][0])
        assert [table.key_at(i) for i in range(3)] == ["b", "a", "c"]  # ties keep insertion order
        table.add_rows([make_row("d", ("a", "9")), make_row("e", ("c", "5"))])  # merged into the order
        assert [table.key_at(i) for i in range(5)] == ["b", "d", "a", "c", "e"]
        assert table.index_of("e") == 4 and "d" in table and "zz" not in table
        table.sort(lambda row: row[1][0], reverse=True)
        assert [table.key_at(i) for i in range(5)] == ["e", "a", "c", "b", "d"]
        assert sorted(table.key_at(i) for i in range(5)) == ["a", "b", "c", "d", "e"]
        table.update_row(make_row("b", ("z", "1")))  # re-sorted
        assert table.key_at(0) == "b"
        table.sort(None)
        assert [table.key_at(i) for i in range(5)] == ["a", "b", "c", "d", "e"]
        table.remove_row("c")
        assert [table.key_at(i) for i in range(4)] == ["a", "b", "d", "e"]
        table.update_cells("n", [("d", "42", ""), ("missing", "x", "")])
        assert table.cell(table.index_of("d") or 0, "n") == "42"
        table.set_rows(rows(3))
        assert table.row_count == 3 and table.column_texts("name") == ["row 0", "row 1", "row 2"]
        table.clear()
        assert table.row_count == 0 and table.cursor_key is None


async def test_server_text_is_shown_literally_never_as_markup() -> None:
    table = VirtualTable((Column("name", "Name", 40),))
    app = Host(table)
    async with app.run_test(size=(60, 6)) as pilot:
        table.add_rows([make_row("x", ("[bold]x[/bold] [@click=app.quit]Quit",)),
                        make_row("y", ("red \x1b[31malert\x07",))])
        await pilot.pause()
        first, second = table.render_line(1), table.render_line(2)
        # one segment, one style: nothing in the text was read as markup (no bold span, no click action)
        assert any("[bold]x[/bold] [@click=app.quit]Quit" in segment.text for segment in first)
        assert all(segment.style is None or not segment.style.meta for segment in first)
        assert "\x1b" not in second.text and "\x07" not in second.text and "red alert" in second.text
        await pilot.click(VirtualTable, offset=(10, 1))
        await pilot.pause()
        assert app.is_running


def test_rows_are_plain_tuples_the_collector_stops_tracking() -> None:
    """The point of the row store: 10,000 rows add no objects for a full collection to walk."""
    stored = rows(1000)
    gc.collect()
    gc.collect()  # a tuple is untracked once the tuples in it are: within two collections
    assert not any(gc.is_tracked(row) or gc.is_tracked(row[1]) for row in stored)


async def test_survey_status_looks_match_the_detail_pane() -> None:
    """The list styles statuses from surveys.tcss, the detail pane from the palette: they must agree (in colour)."""
    table = SurveyTable()
    app = Host(table)
    async with app.run_test(size=SIZE):
        for status in SurveyStatus:
            look = table.get_component_rich_style(STATUS_CLASSES[status], partial=True)
            expected = Style.parse(status_style(status))
            assert (look.color.number if look.color else None) == (expected.color.number if expected.color else None)
            assert (look.bold, look.dim, look.italic) == (expected.bold, expected.dim, expected.italic), status


async def test_hidden_columns_are_not_drawn_and_clicks_skip_them() -> None:
    table = VirtualTable((*COLUMNS, Column("extra", "Extra", 6)))
    app = Host(table)
    async with app.run_test(size=SIZE) as pilot:
        table.add_rows([make_row("k0", ("row 0", "0", "x"))])
        await pilot.pause()
        assert "N" in screen_lines(table)[0]
        table.hide_columns(["n"])
        await pilot.pause()
        header, first = screen_lines(table)[:2]
        assert "N " not in header and "Extra" in header
        assert first.split() == ["row", "0", "x"]
        assert table.column_at(15) == 2, "past the name column comes the extra one, not the hidden one"
        table.hide_columns([])
        await pilot.pause()
        assert screen_lines(table)[1].split() == ["row", "0", "0", "x"]
