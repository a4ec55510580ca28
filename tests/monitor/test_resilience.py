"""Crash safety, resizes mid-update, and secrets kept out of every snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.monitor.conftest import make_app, select_export
from tests.pilot import notifications, settle, until
from tui.sandbox.runner import SandboxHandle
from tui.state.export_board import ExportBoard
from tui.widgets.virtual_table import VirtualTable

ROOT = Path(__file__).resolve().parents[2]


async def test_a_bug_in_a_worker_is_logged_and_toasted_and_the_app_keeps_running(
    sandbox: SandboxHandle, user_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)

        def broken(self: ExportBoard, *args: object) -> None:
            raise RuntimeError("a bug in rendering")

        monkeypatch.setattr(ExportBoard, "rows", broken)  # what the rows are drawn from
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.is_running
        log = (user_dirs / "state" / "errors.log").read_text()
        assert "a bug in rendering" in log and sandbox.api_key not in log
        assert any("went wrong" in str(n.message) for n in notifications(app))
        monkeypatch.undo()
        screen: Any = app.screen
        assert screen.work.next_poll_armed, "the next poll is still armed after the crash"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.query_one("#exports", VirtualTable).row_count == 12


async def test_resize_in_the_middle_of_updates_keeps_the_screen_intact(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for size in ((80, 24), (200, 60), (100, 30), (160, 48)):
            await pilot.press("ctrl+r")
            await pilot.resize_terminal(*size)
            table = app.screen.query_one("#exports", VirtualTable)
            narrow = size[0] < 120
            await until(pilot, lambda: ("dest" in [c.key for c in table.shown_columns]) is not narrow)  # noqa: B023
            assert table.row_count == 12
            assert ("dest" in [c.key for c in table.shown_columns]) is not narrow
        assert app.is_running


def test_no_snapshot_or_screenshot_holds_a_key() -> None:
    """Every committed SVG is scanned for the keys the tests and screenshots use."""
    svgs = list(ROOT.glob("tests/**/__snapshots__/**/*.svg")) + list(ROOT.glob("screenshots/*.svg"))
    assert svgs, "no snapshots found: the scan would prove nothing"
    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        for secret in ("sandbox-demo-key", "fake-key", "Bearer "):
            assert secret not in text, f"{secret!r} in {svg}"


async def test_footer_changes_do_not_keep_widgets_alive(sandbox: SandboxHandle) -> None:
    """A cursor move between an export that can be paused and one that can be unpaused changes the footer's keys;
    over days that must not accumulate widgets."""
    import gc

    from textual.widget import Widget

    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)

        def alive() -> int:
            gc.collect()
            return sum(1 for o in gc.get_objects() if isinstance(o, Widget))

        screen: Any = app.screen
        exports = screen.board.snapshot.exports
        active = next(w.export.name for w in exports if not w.export.paused)
        paused = next(w.export.name for w in exports if w.export.paused)

        async def there_and_back() -> None:
            for name in (paused, active):
                select_export(app, name)
                await pilot.pause()

        for _ in range(2):
            await there_and_back()
        before = alive()
        for _ in range(3):  # 6 changes: a leak of even one footer's keys each would be a hundred widgets
            await there_and_back()
        assert alive() <= before, "widgets pile up"
