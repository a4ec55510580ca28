"""LiveTable repaints only changed rows, and what it shows equals a table built fresh."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from tui.widgets.live_table import LiveTable, one_line_cell, with_ellipsis

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


# --------------------------------------------------------------------------- the one-line cell fast path

CELL_TEXT = st.text(alphabet=st.sampled_from([*"ab xyz-·…▶⏸█░", "界", "漢", "😀", "é"]), max_size=40)
STYLES = st.sampled_from(["", "bold", "dim", "red", "bold red reverse", "on blue", "underline green", "italic"])


@st.composite
def cell_texts(draw: st.DrawFn) -> Text:
    text = Text(draw(CELL_TEXT), style=draw(STYLES), end=draw(st.sampled_from(["", "\n"])),
                overflow=draw(st.sampled_from([None, "crop", "fold", "ellipsis"])))
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, max(0, len(text.plain))))
        text.stylize(draw(STYLES.filter(bool)), start, start + draw(st.integers(0, 10)))
    if draw(st.booleans()):
        text.append(draw(CELL_TEXT), style=draw(STYLES))
    return text


def drawn(segments: Iterable[Segment]) -> list[tuple[str, str, object]]:
    """What reaches the screen: runs of text per look (style and click meta), however they were split."""
    runs: list[tuple[str, str, object]] = []
    for segment in segments:
        style = segment.style or Style.null()
        look, meta = str(style), style.meta or None
        if runs and runs[-1][1:] == (look, meta):
            runs[-1] = (runs[-1][0] + segment.text, look, meta)
        elif segment.text:
            runs.append((segment.text, look, meta))
    return runs


@given(text=cell_texts(), width=st.integers(0, 30), padding=st.integers(0, 2),
       pre=STYLES, post=st.sampled_from([None, "reverse", "on red"]))
@settings(max_examples=400, deadline=None)
def test_one_line_cell_equals_rich(text: Text, width: int, padding: int, pre: str, post: str | None) -> None:
    """The fast path draws exactly what Rich draws for a DataTable cell of height 1."""
    console = Console(width=80, legacy_windows=False, force_terminal=True, color_system="truecolor")
    width += 2 * padding  # a DataTable cell is its column's width plus the padding on both sides
    pre_style, post_style = Style.parse(pre), Style.parse(post) if post else Style.null()
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    expected = console.render_lines(
        Styled(Padding(text, (0, padding)), pre_style=pre_style, post_style=post_style), options)
    fast = one_line_cell(console, text, width, padding, pre_style, post_style)
    assert len(expected) == 1
    assert drawn(fast) == drawn(expected[0])


class StockVsLive(App[None]):
    def compose(self) -> ComposeResult:
        yield LiveTable(id="live")
        yield DataTable(id="stock")

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            for key, label, width in COLUMNS:
                table.add_column(label, key=key, width=width)


async def test_live_table_lines_equal_a_stock_datatable() -> None:
    """Whole rows (cursor, hover, zebra-free default styles, truncation, wide characters) match stock.

    Both tables get the same cells, set (as LiveTable sets its own) to end with ``…`` when cut.
    """
    cells = [with_ellipsis(cell) for cell in (
        Text("export 界界界 with a long name", style="bold"), Text.assemble(("▶", "green"), " active"),
        Text("😀x"), Text(""), Text("12345678901", style="on red"), Text("—", style="dim"))]
    cells.append(Text("cut silently, as the caller asked", overflow="crop"))
    app = StockVsLive()
    async with app.run_test(size=(80, 30)) as pilot:
        live = app.query_one("#live", LiveTable)
        stock = app.query_one("#stock", DataTable)
        for i in range(12):
            row = (cells[i % 7], cells[(i + 1) % 7], cells[(i + 2) % 7])
            live.add_row(*row, key=f"r{i}")
            stock.add_row(*row, key=f"r{i}")
        for table in (live, stock):
            table.move_cursor(row=3)
        app.set_focus(None)  # one of the two would have it, and a focused table looks different
        await pilot.pause()
        for y in range(live.size.height):
            assert drawn(live.render_line(y)) == drawn(stock.render_line(y)), y
        for table in (live, stock):
            table.cursor_type = "cell"
            table.move_cursor(row=4, column=1)
        await pilot.pause()
        for y in range(live.size.height):
            assert drawn(live.render_line(y)) == drawn(stock.render_line(y)), y


async def test_cut_text_ends_with_an_ellipsis() -> None:
    """A cell longer than its column ends with ``…`` (whichever path draws it); one that fits is left whole."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", LiveTable)
        live.apply([("a", {"name": Text("Postgres replica - product events"), "status": Text("Completed"),
                           "n": Text("12")})])
        await pilot.pause()
        first = live.render_line(1).text
        assert " Postgres …" in first and " Completed " in first
        live.apply([("a", {"name": Text("short"), "status": Text("terminated by a signal"), "n": Text("12")})],
                   {"a": ["name", "status"]})
        await pilot.pause()
        updated = live.render_line(1).text
        assert " short " in updated and " terminate… " in updated


async def test_render_caches_hold_a_couple_of_screens_however_many_updates() -> None:
    """Every update moves DataTable's update counter, which is in every render cache key: the entries of earlier
    frames are never read again, and without a bound sized to the table they pile up to Textual's 10,000 cells
    (and 1,000 rows and lines) per table over a long watch."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", LiveTable)
        fresh = app.query_one("#fresh", LiveTable)
        live.apply(rows(30))
        await pilot.pause()
        for poll in range(40):
            bump = {poll % 30, (poll * 7) % 30}
            live.apply(rows(30, bump=bump), {f"r{i}": ["status", "n"] for i in range(30)})
            await pilot.pause()
            assert visible_lines(live)  # a frame drawn after each update, as the screen draws it
        lines = 2 * max(8, live.size.height)
        assert 0 < len(live._cell_render_cache) <= lines * len(COLUMNS)
        assert len(live._row_render_cache) <= lines and len(live._line_cache) <= lines
        assert len(live._row_renderable_cache) <= lines
        fresh.apply(rows(30, bump=bump))
        await pilot.pause()
        assert visible_lines(live) == visible_lines(fresh)
