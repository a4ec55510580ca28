"""LiveTable repaints only changed rows, and what it shows equals a table built fresh."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from tui.widgets.live_table import LiveTable

COLUMNS = [("name", "Name", 10), ("status", "Status", 10), ("n", "N", 6)]


def rows(n: int, bump: set[int] | None = None) -> list[tuple[str, dict[str, Text | str]]]:
    bump = bump or set()
    return [
        (f"r{i}", {"name": Text(f"export {i}"), "status": Text("Failed" if i in bump else "Completed"),
                   "n": Text(str(i * (2 if i in bump else 1)))})
        for i in range(n)
    ]


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LiveTable(id="live")
        yield LiveTable(id="fresh")

    def on_mount(self) -> None:
        for table in self.query(LiveTable):
            table.set_columns(COLUMNS)


def visible_lines(table: LiveTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_apply_updates_in_place_and_matches_a_fresh_table() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", LiveTable)
        fresh = app.query_one("#fresh", LiveTable)
        live.apply(rows(30))
        await pilot.pause()
        live.move_cursor(row=5)
        before = visible_lines(live)
        changed = {f"r{i}": ["status", "n"] for i in (1, 3, 7)}
        live.apply(rows(30, bump={1, 3, 7}), changed)
        fresh.apply(rows(30, bump={1, 3, 7}))
        fresh.move_cursor(row=5)
        await pilot.pause()
        assert live.fast_path_used == 1 and live.slow_path_used == 0
        after = visible_lines(live)
        assert after != before
        assert after == visible_lines(fresh)
        assert live.cursor_row == 5, "the operator's place is kept"


async def test_rows_added_and_removed() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", LiveTable)
        live.apply(rows(5))
        await pilot.pause()
        live.apply(rows(3))
        await pilot.pause()
        assert [k.value for k in live.rows] == ["r0", "r1", "r2"]
        live.apply(rows(4))
        await pilot.pause()
        assert live.row_count == 4
