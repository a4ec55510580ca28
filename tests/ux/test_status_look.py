"""How run statuses look, with and without colour: one table, failures the most visible thing without colour."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rich.style import Style
from rich.table import Table
from textual.widgets import Static

from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle, until
from tui.look.palette import Tone, use_no_color
from tui.look.status import LOOKS, UNKNOWN, legend, status_strip, status_text
from tui.sandbox.runner import SandboxHandle
from tui.screens.help import HelpScreen

SnapCompare = Any


@pytest.fixture
def no_color() -> Iterator[None]:
    use_no_color(True)
    yield
    use_no_color(False)


def test_without_colour_a_failure_is_reversed_and_nothing_else_is(no_color: None) -> None:
    for name, look in LOOKS.items():
        style = Style.parse(look.style)
        assert not style.dim, name
        assert style.color is None, name
        assert bool(style.reverse) == (look.tone is Tone.FAILURE), name


def test_without_colour_the_strip_reverses_only_failures(no_color: None) -> None:
    strip = status_strip(["Completed", "Failed", "Running", "Terminated"])
    reversed_letters = [strip.plain[span.start:span.end] for span in strip.spans
                        if Style.parse(str(span.style)).reverse]
    assert reversed_letters == ["F", "X"]


def test_continued_has_its_own_look_in_both_modes() -> None:
    continued = LOOKS["ContinuedAsNew"]
    for mode in (False, True):
        use_no_color(mode)
        assert continued.style != Tone.FAILURE.style
        assert continued.style != LOOKS["Failed"].style
    use_no_color(False)


def test_with_colour_failures_are_red_and_bold() -> None:
    for name in ("Failed", "TimedOut", "Terminated", "FailedBilling"):
        style = Style.parse(LOOKS[name].style)
        assert style.bold and style.color is not None and style.color.name == "red", name


def test_legend_explains_every_letter() -> None:
    letters = [row[0].plain.split()[0] for row in legend()]
    assert letters == [look.letter for look in LOOKS.values()] + [UNKNOWN.letter]
    assert {"R", "S", "N", "-", "?"} <= set(letters)
    assert all(meaning for _, meaning in legend())


def test_unknown_status_shows_its_raw_name() -> None:
    assert status_text("Exploded").plain == "? exploded"
    assert "\x1b" not in status_text("Paused\x1b[2J").plain


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_failing_runs_without_colour(snap_compare: SnapCompare, sandbox: SandboxHandle,
                                     monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """NO_COLOR: the terminated run and the failures in the strip are reversed, the continued runs italic."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(sandbox)
    app.monotonic = lambda: 1000.0
    app.jitter = lambda: 0.5

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        select_export(pilot.app, "Realtime webhook relay")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("no_colour", [False, True], ids=["colour", "NO_COLOR"])
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_help_legend(snap_compare: SnapCompare, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch,
                     size: tuple[int, int], no_colour: bool) -> None:
    """The help scrolled to its end: the status legend, one status a line, wrapped at any width; the legend lists
    every status with its meaning."""
    if no_colour:
        monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(sandbox)
    app.monotonic = lambda: 1000.0
    app.jitter = lambda: 0.5

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(pilot.app.screen, HelpScreen)
        table = pilot.app.screen.query_one("#help-legend", Static).content
        assert isinstance(table, Table)
        meanings = [str(cell) for cell in table.columns[1].cells]
        for look in [*LOOKS.values(), UNKNOWN]:
            assert look.meaning in meanings, look.letter
        body = pilot.app.screen.query_one("#help-body")

        def at_end() -> bool:
            """Scrolled to the end of the body as laid out now (its height is known only after a layout or two)."""
            laid_out = body.virtual_size.height > 0 and body.size.height > 0
            if laid_out and body.scroll_y != body.max_scroll_y:
                body.scroll_end(animate=False, immediate=True)
                return False
            return laid_out

        await until(pilot, at_end)
        assert at_end(), "the help did not scroll to its end"

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize(("value", "text"), [(None, "—"), (987, "987"), (12_345, "12.3k"), (1_550_533, "1.55M"),
                                             (99_999, "100k"), (999_999, "1M"), (2_100_000_000, "2.1B")])
def test_short_counts_are_never_cut(value: int | None, text: str) -> None:
    from tui.text.words import short_count

    assert short_count(value) == text


def test_run_records_are_abbreviated_not_cut() -> None:
    from datetime import UTC, datetime

    from tui.api.models.batch_exports import BatchExportRun
    from tui.look.export_cells import run_cells

    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    run = BatchExportRun.model_validate({"id": "r1", "status": "Completed", "records_completed": 1_550_533,
                                         "records_total_count": 1_550_533, "created_at": now.isoformat()})
    assert run_cells(run, now)["records"].plain.endswith(" 1.55M/1.55M")
    small = BatchExportRun.model_validate({"id": "r2", "status": "Completed", "records_completed": 232_626,
                                           "records_total_count": 232_626, "created_at": now.isoformat()})
    assert run_cells(small, now)["records"].plain.endswith(" 232,626/232,626")
