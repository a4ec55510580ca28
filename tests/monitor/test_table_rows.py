"""The monitor's tables (VirtualTable with styled cells): a poll redraws only the rows it changed, what they show
equals a table built fresh, and a styled cell is drawn as Rich and a stock DataTable draw it."""

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

from tui.widgets.virtual_table import STRIP_CACHE_MIN, Cell, Column, VirtualTable, fit_styled

COLUMNS = [Column("name", "Name", 10), Column("status", "Status", 10), Column("n", "N", 6)]


def rows(n: int, bump: set[int] | None = None) -> list[tuple[str, dict[str, Cell]]]:
    bump = bump or set()
    return [
        (f"r{i}", {"name": Text(f"export {i}"), "status": Text("Failed" if i in bump else "Completed", style="red"),
                   "n": Text(str(i * (2 if i in bump else 1)))})
        for i in range(n)
    ]


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, id="live")
        yield VirtualTable(COLUMNS, id="fresh")


def visible_lines(table: VirtualTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_apply_updates_in_place_and_matches_a_fresh_table() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        fresh = app.query_one("#fresh", VirtualTable)
        live.apply(rows(30))
        await pilot.pause()
        live.move_cursor(5)
        before = visible_lines(live)
        live.apply(rows(30, bump={1, 3, 7}))
        fresh.apply(rows(30, bump={1, 3, 7}))
        fresh.move_cursor(5)
        await pilot.pause()
        after = visible_lines(live)
        assert after != before
        assert after == visible_lines(fresh)
        assert live.cursor_row == 5, "the operator's place is kept"


async def test_a_poll_redraws_the_lines_of_changed_rows_only() -> None:
    """Rows whose cells are equal keep their drawn line (the same Strip); the changed ones are drawn anew."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        live.apply(rows(30))
        await pilot.pause()
        before = [live.render_line(y) for y in range(1, 20)]
        live.apply(rows(30, bump={1, 3, 7}))
        await pilot.pause()
        after = [live.render_line(y) for y in range(1, 20)]
        redrawn = [row for row, (old, new) in enumerate(zip(before, after, strict=True)) if old is not new]
        assert redrawn == [1, 3, 7]
        assert "Failed" in after[3].text and "Completed" in before[3].text


async def test_apply_keeps_the_cursor_on_its_row_when_rows_come_and_go() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        live.apply(rows(5))
        live.move_cursor(3)
        await pilot.pause()
        live.apply([row for row in rows(5) if row[0] != "r1"])
        await pilot.pause()
        assert live.keys() == ["r0", "r2", "r3", "r4"] and live.cursor_key == "r3"
        live.apply(rows(3))
        await pilot.pause()
        assert live.keys() == ["r0", "r1", "r2"] and live.cursor_row == 2, "clamped when its row is gone"
        live.apply(rows(4))
        await pilot.pause()
        assert live.row_count == 4


async def test_cut_text_ends_with_an_ellipsis() -> None:
    """A cell longer than its column ends with ``…``; one that fits is left whole."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        live.apply([("a", {"name": Text("Postgres replica - product events"), "status": Text("Completed"),
                           "n": Text("12")})])
        await pilot.pause()
        first = live.render_line(1).text
        assert " Postgres … " in first and " Completed " in first
        live.apply([("a", {"name": Text("short"), "status": Text("terminated by a signal"), "n": Text("12")})])
        await pilot.pause()
        updated = live.render_line(1).text
        assert " short " in updated and " terminate… " in updated


async def test_the_line_cache_holds_a_couple_of_screens_however_many_updates() -> None:
    """Lines are kept by row key: a changed row replaces its own entry, so a table updated every poll for days
    keeps at most a couple of screens of lines."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        fresh = app.query_one("#fresh", VirtualTable)
        live.apply(rows(30))
        await pilot.pause()
        for poll in range(40):
            bump = {poll % 30, (poll * 7) % 30}
            live.apply(rows(30, bump=bump))
            await pilot.pause()
            assert visible_lines(live)  # a frame drawn after each update, as the screen draws it
        assert 0 < len(live._strips) <= max(STRIP_CACHE_MIN, 2 * live.size.height)
        fresh.apply(rows(30, bump=bump))
        await pilot.pause()
        assert visible_lines(live) == visible_lines(fresh)



async def test_the_line_cache_keeps_only_rows_still_shown_when_rows_come_and_go() -> None:
    """As the runs pane: each poll shows the newest runs, new keys replacing old ones. The lines of rows no longer
    shown are dropped, so the cache holds what is on screen, not the last rows of a slowly filling cache."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        for poll in range(40):
            shown = [(f"run-{poll}-{i}", {"name": Text(f"run {poll}.{i}"), "status": Text("Running")})
                     for i in range(5)]
            live.apply(shown)
            await pilot.pause()
            assert visible_lines(live)
            drawn = live._strips.keys()
            held = {key[0] for key in drawn}
            assert held <= {key for key, _ in shown}, f"poll {poll}: lines of rows gone are kept"
        assert len(live._strips) == 5


async def test_a_sorted_table_cleared_and_refilled_shows_each_row_once() -> None:
    """The survey browser sorted by name, then searched and cleared: it clears the table and adds the new query's
    pages. Each row is shown once (the view of a sorted table is not the list of rows)."""
    app = TableApp()
    async with app.run_test(size=(60, 40)) as pilot:
        live = app.query_one("#live", VirtualTable)
        live.apply(rows(6))
        live.sort(lambda row: str(row[1][0]), reverse=True)
        live.clear()
        live.add_rows([(f"r{i}", (f"export {i}", "Completed", str(i)), ()) for i in range(4)])
        live.add_rows([(f"r{i}", (f"export {i}", "Completed", str(i)), ()) for i in range(4, 7)])
        await pilot.pause()
        assert live.row_count == 7
        assert [line.split()[1] for line in visible_lines(live)[1:8]] == ["6", "5", "4", "3", "2", "1", "0"]

# --------------------------------------------------------------------------- a styled cell, as Rich draws it

CELL_TEXT = st.text(alphabet=st.sampled_from([*"ab xyz-·…▶⏸█░", "界", "漢", "😀", "é"]), max_size=40)
STYLES = st.sampled_from(["", "bold", "dim", "red", "bold red reverse", "on blue", "underline green", "italic"])


@st.composite
def cell_texts(draw: st.DrawFn) -> Text:
    text = Text(draw(CELL_TEXT), style=draw(STYLES), end=draw(st.sampled_from(["", "\n"])), overflow="ellipsis")
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, max(0, len(text.plain))))
        text.stylize(draw(STYLES.filter(bool)), start, start + draw(st.integers(0, 10)))
    if draw(st.booleans()):
        text.append(draw(CELL_TEXT), style=draw(STYLES))
    return text


def looks(segments: Iterable[Segment]) -> list[tuple[str, str]]:
    """What reaches the screen: runs of text per look, however they were split (click meta left out)."""
    runs: list[tuple[str, str]] = []
    for segment in segments:
        style = segment.style or Style.null()
        look = str(Style(color=style.color, bgcolor=style.bgcolor, bold=style.bold, dim=style.dim,
                         italic=style.italic, underline=style.underline, reverse=style.reverse,
                         strike=style.strike))
        if runs and runs[-1][1] == look:
            runs[-1] = (runs[-1][0] + segment.text, look)
        elif segment.text:
            runs.append((segment.text, look))
    return runs


@given(text=cell_texts(), width=st.integers(0, 30), pre=STYLES, post=st.sampled_from([None, "reverse", "on red"]))
@settings(max_examples=400, deadline=None)
def test_a_styled_cell_is_drawn_as_rich_draws_it(text: Text, width: int, pre: str, post: str | None) -> None:
    """A ``Text`` cell of a column ``width`` wide, padded by one cell each side, equals Rich's rendering of the
    stock DataTable's cell (``Styled(Padding(text, (0, 1)))``, one line), cut with ``…`` alike."""
    console = Console(width=80, legacy_windows=False, force_terminal=True, color_system="truecolor")
    pre_style, post_style = Style.parse(pre), Style.parse(post) if post else Style.null()
    options = console.options.update_dimensions(width + 2, 1).update(no_wrap=True)
    expected = console.render_lines(Styled(Padding(text, (0, 1)), pre_style=pre_style, post_style=post_style),
                                    options)
    ours = Segment.apply_style([Segment(" "), *fit_styled(console, text, width), Segment(" ")], pre_style, post_style)
    assert len(expected) == 1
    assert looks(ours) == looks(expected[0])


class StockVsVirtual(App[None]):
    CSS = "VirtualTable, DataTable { height: 14; }"

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, id="virtual")
        yield DataTable(id="stock", cursor_type="row")

    def on_mount(self) -> None:
        stock = self.query_one(DataTable)
        for key, label, width, _ in COLUMNS:
            stock.add_column(label, key=key, width=width)


async def test_virtual_table_lines_equal_a_stock_datatable() -> None:
    """Whole lines (header, cursor row, focused or not, cut text, wide characters) look as a stock DataTable's,
    which the monitor's tables were: the same cells, the same looks on screen."""
    cells = [Text("export 界界界 with a long name", style="bold"), Text.assemble(("▶", "green"), " active"),
             Text("😀x"), Text(""), Text("12345678901", style="on red"), Text("—", style="dim"),
             Text("cut with an ellipsis")]
    for cell in cells:
        cell.overflow = "ellipsis"  # the stock table cuts with "…" only when told; the virtual table always does
    app = StockVsVirtual()
    async with app.run_test(size=(80, 30)) as pilot:
        virtual = app.query_one("#virtual", VirtualTable)
        stock = app.query_one("#stock", DataTable)
        table_rows = [(f"r{i}", (cells[i % 7], cells[(i + 1) % 7], cells[(i + 2) % 7])) for i in range(20)]
        for key, row in table_rows:
            stock.add_row(*row, key=key)
        virtual.apply([(key, dict(zip(("name", "status", "n"), row, strict=True))) for key, row in table_rows])
        stock.move_cursor(row=3)
        virtual.move_cursor(3)
        app.set_focus(None)
        await pilot.pause()
        assert virtual.size == stock.size
        lines = range(virtual.size.height)
        assert [looks(virtual.render_line(y)) for y in lines] == [looks(stock.render_line(y)) for y in lines]
        virtual.focus()
        await pilot.pause()
        focused = [looks(virtual.render_line(y)) for y in lines]
        stock.focus()
        await pilot.pause()
        assert focused == [looks(stock.render_line(y)) for y in lines]


def test_a_styled_cell_with_a_control_character_is_drawn_cleaned() -> None:
    """A Segment reaches the terminal as is: a ``Text`` cell a caller forgot to clean is cleaned when drawn."""
    console = Console(width=80, force_terminal=True, color_system="truecolor")
    hostile = Text.assemble(("ok", "green"), " \x1b[2Jtail\x00\u202e")
    drawn = "".join(segment.text for segment in fit_styled(console, hostile, 20))
    assert drawn.rstrip() == "ok tail" and len(drawn) == 20
    assert drawn.isprintable()
