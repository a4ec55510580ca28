"""Hostile server text through every screen and dialog: no crash, no escape byte on screen, markup shown literally.

The sandbox stores what a hostile editor of the project could write: markup that is valid
(``[@click=app.quit]`` would be a clickable action), markup that is invalid (``[/``), OSC 52 (writes
the clipboard), OSC 0 (sets the terminal title), ``ESC[2J`` (clears the screen), NUL, a bidi
override, wide characters and 100,000 characters in one field. The interval the real service
refuses is put straight into the sandbox's database, as a server of another version would send it.
Each screen is opened with the keys an operator uses, and its whole rendered output is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.pilot import settle, until
from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.editor import SurveyEditorScreen
from tui.screens.export_modals import BackfillScreen, DeleteExportScreen, EditExportScreen
from tui.screens.logs import LogsScreen
from tui.screens.survey_preview import SurveyPreviewScreen
from tui.widgets.virtual_table import VirtualTable

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
MARKUP = "[@click=app.quit]Q[/]"
HOSTILE = (f"{MARKUP} [bold]b [/ [link=https://evil.example]l[/link] \x1b]52;c;aGk=\x07 \x1b]0;TITLE\x07 "
           "\x1b[2J \x00nul \u202eevil \u2067iso\u2069 全角テキスト")
LONG = "y" * 100_000
INTERVAL = "[red]hourly[/"
FORBIDDEN = ("\x1b", "\x07", "\x00", "\u202e", "\u2067", "\x9b", "\x9d")


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), summary_delay=(0.0, 0.0))
    with start_sandbox(options) as handle:
        yield handle


async def _plant(handle: SandboxHandle) -> tuple[str, str]:
    """A hostile export (renamed over the API, interval set in the database) and a hostile survey."""
    async with ApiClient(handle.base_url, handle.api_key, handle.project_id) as client:
        exports = (await client.batch_exports.list()).results
        target = next(e for e in exports if e.name == "Events to S3 data lake")
        query = f"SELECT event FROM events -- {HOSTILE}\n--{LONG}"  # the sandbox checks queries as the real one
        await client.batch_exports.update(target.id, {"name": HOSTILE, "native_query": query})
        survey = await client.surveys.create({
            "name": HOSTILE, "description": HOSTILE + LONG, "type": "popover",
            "questions": [
                {"type": "open", "question": HOSTILE, "description": HOSTILE + LONG, "buttonText": HOSTILE},
                {"type": "single_choice", "question": HOSTILE, "choices": [HOSTILE, "全角", LONG]},
                {"type": "link", "question": HOSTILE, "link": "https://example.com/\x1b]0;T\x07x"},
                {"type": "rating", "question": HOSTILE, "display": "number", "scale": 5,
                 "lowerBoundLabel": HOSTILE, "upperBoundLabel": HOSTILE},
            ],
        })
    start = FROZEN_AT - timedelta(hours=1)
    with handle.state.db.transaction() as c:
        c.execute("UPDATE exports SET interval = ? WHERE id = ?", (INTERVAL, target.id))
        c.executemany("INSERT INTO logs(export_id, run_id, instance_id, timestamp, level, message) "
                      "VALUES(?,?,?,?,?,?)",
                      [(target.id, "run-h", "i", (start + timedelta(seconds=i)).isoformat(), level, message)
                       for i, (level, message) in enumerate([("ERROR", HOSTILE), (HOSTILE, "level"),
                                                             ("INFO", LONG)])])
    return target.id, survey.id


def _shot(app: Any) -> str:
    """The screen as the SVG export writes it, contiguous cells of one style merged (smaller, same text)."""
    return str(app.export_screenshot(simplify=True)).replace("&#160;", " ")


def _assert_safe(app: Any, where: str, *, literal: bool = True) -> None:
    assert app.is_running, f"{where}: the app ended"
    shot = _shot(app)
    for bad in FORBIDDEN:
        assert bad not in shot, f"{where}: {bad!r} reached the screen"
    if literal:
        assert MARKUP in shot, f"{where}: the markup is not shown literally"
    assert "Traceback" not in shot and "MarkupError" not in shot, where


async def _open(pilot: Pilot[Any], *keys: str, ready: Callable[[], bool] | None = None) -> Any:
    """Press the keys, then wait for what they do: by default another screen on top (or back)."""
    before = pilot.app.screen
    for key in keys:
        await pilot.press(key)
    done = ready or (lambda: pilot.app.screen is not before)
    await until(pilot, done)
    assert done(), f"{keys} did not do what the test waits for"
    return pilot.app.screen


@pytest.mark.slow
async def test_hostile_text_through_every_screen(sandbox: SandboxHandle) -> None:
    export_id, survey_id = await _plant(sandbox)
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        poll_seconds=30.0, bell=False)
    app = WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor: Any = app.screen
        table = monitor.query_one("#exports", VirtualTable)
        key = next(w.key for w in monitor.board.snapshot.exports if w.export.id == export_id)
        table.move_to_key(key)
        await settle(pilot)
        _assert_safe(app, "monitor")
        await pilot.click("#export-details")  # a click on the shown markup must not run its action
        await settle(pilot)
        assert app.is_running

        screen = await _open(pilot, "e")
        assert isinstance(screen, EditExportScreen)
        _assert_safe(app, "export edit")
        assert "[red]hourly[/ (unknown)" in _shot(app), "the unknown interval is shown as text"
        assert {n.id for n in screen.query(".cleaned-note")} == {"edit-name-cleaned", "edit-native_query-cleaned"}
        assert screen.changes() == ({}, {}), "the name and query shown cleaned are no change until edited"
        screen.query_one("#edit-name", Input).value += " (renamed)"
        edited = screen.changes()[0]
        assert edited == {"name": screen.query_one("#edit-name", Input).value} and "\x1b" not in edited["name"]
        await _open(pilot, "escape")
        await _open(pilot, "y")  # discard the edit
        assert app.screen is monitor

        for keys, kind, where in ((("b",), BackfillScreen, "backfill"), (("D",), DeleteExportScreen, "delete")):
            screen = await _open(pilot, *keys)
            assert isinstance(screen, kind), where
            _assert_safe(app, where)
            await _open(pilot, "escape")
            assert app.screen is monitor

        screen = await _open(pilot, "L")
        assert isinstance(screen, LogsScreen)
        await app.workers.wait_for_complete()
        await settle(pilot)
        _assert_safe(app, "logs")
        await _open(pilot, "escape")

        await _open(pilot, "question_mark")
        _assert_safe(app, "help", literal=False)
        await _open(pilot, "escape")
        await _open(pilot, "P")
        _assert_safe(app, "project picker", literal=False)
        await _open(pilot, "escape")
        assert app.screen is monitor

        browser: Any = await _open(pilot, "tab")
        for _ in range(browser.table.row_count):
            if browser.selected_id == survey_id:
                break
            await pilot.press("down")
        assert browser.selected_id == survey_id
        await _open(pilot, "enter", ready=lambda: browser.detail_max)
        _assert_safe(app, "survey detail")
        for keys, where in ((("S",), "summary"), (("h",), "activity"), (("H",), "all activity")):
            await _open(pilot, *keys)
            _assert_safe(app, where, literal=where != "summary")
            await _open(pilot, "escape")
            assert app.screen is browser, where

        editor = await _open(pilot, "e")
        assert isinstance(editor, SurveyEditorScreen)
        _assert_safe(app, "survey editor")
        items = editor.query_one("#editor-items")
        for index in range(1, 5):
            items.focus()
            items.highlighted = index  # type: ignore[attr-defined]
            wanted = items.get_option_at_index(index).id  # type: ignore[attr-defined]
            await until(pilot, lambda wanted=wanted: editor.current == wanted)  # its form, once the cursor rests
            assert editor.current == wanted, f"question {index} was not shown"
            _assert_safe(app, f"editor question {index}", literal=index != 3)
        preview = await _open(pilot, "f5")
        assert isinstance(preview, SurveyPreviewScreen)
        _assert_safe(app, "preview")
        await _open(pilot, "escape")
        assert app.screen is editor
        assert editor.draft.changes() == {}, "shown cleaned, untouched: nothing is sent"
        assert app.is_running
