"""Every key of every screen, against a server whose every export, run error, log line and survey is hostile.

Each view is entered, and each key bound on it (by the screen or the app, as ``active_bindings`` lists
them) is pressed; whatever it opens (a dialog, another view, a toast) is rendered whole and checked for
a control byte: OSC 52 (writes the clipboard), OSC 0/2 (terminal title), CSI (``ESC[5m`` blinks,
``ESC[2J`` clears), the 8-bit introducers U+009B (CSI) and U+009D (OSC), NUL, and bidi overrides and
isolates. Markup in the text must show as text (``[@click=app.quit]`` would be a clickable action).
A view a key opens is swept the same way; a dialog is only looked at and closed (its own keys would
answer it). Keys are read from the screens, so a key added later is swept without changing this test.
Help, the palette and the project picker are opened once per distinct content (see ``_dialog_content``).
The terminal is 120x36: each view that shows server text must show the hostile text whole (``SHOWN``).
The monitor's mode and the surveys' mode are swept by one test each, side by side under xdist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen

from tests.pilot import workers_done
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.key_registry import KEYS
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.help import screen_keys

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
SEQUENCES = ("\x1b]52;c;aGk=\x07 \x1b]0;TITLE\x07 \x1b]2;TITLE2\x1b\\ \x1b[5mblink\x1b[0m \x1b[2J "
             "\x9b5m \x00nul \u202eevil \u2067iso\u2069 \x9d0;osc8\x9c")
MARKUP = "[@click=app.quit]Q[/]"
HOSTILE = f"{MARKUP} [bold]b {SEQUENCES} [/"
FORBIDDEN = {chr(c) for c in range(0x20) if chr(c) not in "\n"} | {chr(c) for c in range(0x7f, 0xa0)} | {
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}
SHOWN = re.compile(r"nul(?:&#160;)+evil(?:&#160;)+iso")
"""The hostile text as the cleaning leaves it, from NUL to the bidi isolates (the 8-bit OSC is next, then its end):
a view showing it shows every sequence where it was, and its check is not passed by a column cut too short."""
SKIPPED_ACTIONS = {"quit", "interrupt", "suspend_process", "app.quit", "app.interrupt", "app.suspend_process"}
"""Keys that end or suspend the app: nothing is shown to check."""
ENDING_KEYS = frozenset(key for entry in KEYS if entry.priority and entry.action in SKIPPED_ACTIONS
                        for key in entry.keys.split(","))
"""Keys the app takes before any screen to end it (``ctrl+c``), whatever a screen also lists them for (copy)."""


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    for name in ("VISUAL", "EDITOR"):
        monkeypatch.setenv(name, "true")  # "edit as file" opens the file and leaves it as it was
    return tmp_path


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), summary_delay=(0.0, 0.0))
    with start_sandbox(options) as handle:
        _plant(handle)
        yield handle


def _plant(handle: SandboxHandle) -> None:
    """Hostile text in every export's name and interval, every run's error, some log lines, every survey.

    Written into the sandbox's database, as a server of another version (or a hostile editor of the
    project) would hand it out; the interval is one the real service refuses.
    """
    with handle.state.db.transaction() as c:
        c.execute("UPDATE exports SET interval = ?, data = json_set(data, '$.name', ? || id)",
                  (f"hour{SEQUENCES}", HOSTILE))
        c.execute("UPDATE runs SET status = 'Failed', latest_error = ? || id WHERE active = 0",
                  (f"Error 12 {HOSTILE} 34",))
        runs = c.execute("SELECT id, export_id FROM runs ORDER BY created_at DESC LIMIT 40").fetchall()
        start = FROZEN_AT - timedelta(hours=1)
        c.executemany("INSERT INTO logs(export_id, run_id, instance_id, timestamp, level, message) "
                      "VALUES(?,?,?,?,?,?)",
                      [(export_id, run_id, "i", (start + timedelta(seconds=i)).isoformat(), "ERROR", HOSTILE)
                       for i, (run_id, export_id) in enumerate(runs)])
        c.execute("UPDATE surveys SET name = ? || id, data = json_set(data, '$.name', ? || id, "
                  "'$.description', ?)", (HOSTILE, HOSTILE, HOSTILE))


async def settle(pilot: Pilot[Any]) -> None:
    """Every worker done, also those started as others finished (the footer's catching up is not waited for)."""
    for _ in range(100):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if workers_done(pilot.app):
            return
    raise AssertionError("the app did not settle: a worker kept running")


def _screen(app: Any) -> tuple[list[str], bool]:
    """The forbidden characters on screen, and whether the hostile text is there whole through its last visible
    word: from an SVG export whose contiguous cells of one style are merged (the same text in fewer pieces)."""
    shot = str(app.export_screenshot(simplify=True))
    return sorted({f"U+{ord(ch):04X}" for ch in shot if ch in FORBIDDEN}), bool(SHOWN.search(shot))


def _keys(screen: Screen[Any]) -> list[tuple[str, str]]:
    """The keys the screen and the app bind now, one per action (the first key of each), with the action."""
    seen: set[str] = set()
    keys: list[tuple[str, str]] = []
    for key, (node, binding, enabled, _tooltip) in screen.active_bindings.items():
        if not isinstance(node, Screen) and node is not screen.app and key != "enter":
            continue  # a widget's own keys (cursor moves, typing) open nothing; Enter opens what is selected
        if not enabled or binding.action in SKIPPED_ACTIONS or key in ENDING_KEYS or binding.action in seen:
            continue
        seen.add(binding.action)
        keys.append((key, binding.action))
    return keys


def _dialog_content(view: Screen[Any], action: str) -> tuple[Any, ...] | None:
    """What the app-wide dialog ``action`` opens shows over ``view``, for the dialogs that show the same from
    every view given this (None for any other key).

    Help draws ``keys_table(view)``, which is built from ``screen_keys(view)`` alone, and a fixed legend; the
    palette lists ``get_system_commands(view)`` (the registry's titles and sentences of the view's keys, and
    Textual's theme and screenshot commands); the project picker lists the server's projects, whatever the view.
    Each is opened over a view this sweep has just checked, so the same content over another view puts nothing
    new on the terminal."""
    app = view.app
    if action == "help":
        return tuple(screen_keys(view))
    if action == "command_palette":
        return tuple((command.title, command.help) for command in app.get_system_commands(view))
    if action == "pick_project":
        return ()
    return None


class Sweep:
    def __init__(self, pilot: Pilot[Any], mode: str) -> None:
        self.pilot = pilot
        self.mode = mode
        """The mode swept: a key that switches to another is checked where it lands, and that mode is left to its
        own sweep (the two run side by side under xdist)."""
        self.swept: set[tuple[str, str]] = set()
        """Views swept, as (class, the key that left the mode's first screen on the way to it): the editor of a new
        survey (n), of a hostile one (e) and of its copy (D) are three; the editor again after its preview is not."""
        self.opened: set[str] = set()
        self.shown: set[str] = set()
        """The screens on which the hostile text was seen whole (``SHOWN``)."""
        self.leaks: list[str] = []
        self.dialogs: set[tuple[str, tuple[Any, ...]]] = set()
        """App-wide dialogs looked at, as (action, content): one showing what another showed is not opened again."""
        self.reached: dict[tuple[str, tuple[str, ...]], Screen[Any]] = {}
        """The screen each path of keys last reached from a mode's first screen."""

    def check(self, where: str) -> None:
        app = self.pilot.app
        assert app.is_running, f"{where}: the app ended"
        bad, shown = _screen(app)
        if bad:
            self.leaks.append(f"{where}: {', '.join(bad)}")
        self.opened.add(type(app.screen).__name__)
        if shown:
            self.shown.add(type(app.screen).__name__)

    async def enter(self, mode: str, keys: tuple[str, ...]) -> Screen[Any]:
        """The view reached from ``mode``'s first screen by ``keys`` (again, when a key closed it)."""
        app = self.pilot.app
        if app.current_mode != mode:
            await app.switch_mode(mode)
            await settle(self.pilot)  # its list read: the keys that need a row are enabled by it
        while len(app.screen_stack) > 1:
            app.pop_screen()
            await settle(self.pilot)
        for at, key in enumerate(keys, 1):
            await self.pilot.press(key)
            await settle(self.pilot)
            self.reached[(mode, keys[:at])] = app.screen
        return app.screen

    async def view(self, mode: str, keys: tuple[str, ...] = (), opened: Screen[Any] | None = None) -> None:
        """Press each key of the view; sweep each new view a key opens, look at each dialog it opens.

        ``opened``: the view, when the last of ``keys`` has just opened it (it is swept as it is, not closed and
        opened again)."""
        app = self.pilot.app
        view = opened if opened is not None and app.screen is opened else await self.enter(mode, keys)
        if keys:
            self.reached[(mode, keys)] = view
        path = " ".join((mode, *keys))
        self.swept.add((type(view).__name__, keys[0] if keys else ""))
        self.check(path)
        kind = type(view)
        focused = view.focused
        for key, action in _keys(view):
            view.set_focus(focused)  # a key that focused a search box would take the next keys as typing
            content = _dialog_content(view, action)
            if content is not None:
                if (action, content) in self.dialogs:
                    continue
                self.dialogs.add((action, content))
            await self.pilot.press(key)
            await settle(self.pilot)
            opened = app.screen
            where = f"{path} {key} -> {type(opened).__name__}"
            self.check(where)
            if (opened is not view and not isinstance(opened, ModalScreen) and app.current_mode == self.mode
                    and (type(opened).__name__, keys[0] if keys else key) not in self.swept
                    and (type(opened).__name__, "") not in self.swept):
                # A view is swept as the key opened it, but for a survey editor opened from the survey list: that one
                # is closed and opened again first, as the second opening finds the draft the first left, and that
                # is the state swept (an editor opened from that draft's question is already it).
                reopen = mode == "surveys" and not keys
                await self.view(mode, (*keys, key), None if reopen else opened)
            again = self.reached.get((mode, keys))
            if app.current_mode == mode and view not in app.screen_stack and again in app.screen_stack:
                # The view a sweep of what the key opened entered again on its way (by these same keys): this one.
                assert again is not None
                view, focused = again, again.focused
            if app.current_mode == mode and view in app.screen_stack:
                while app.screen is not view:
                    app.pop_screen()
                    await settle(self.pilot)
            else:
                view = await self.enter(mode, keys)
                if type(view) is not kind:
                    return  # the keys now reach another view (a draft saved meanwhile is no longer offered back)
                focused = view.focused  # the view entered again focuses a widget of its own: the old one left with it
            assert type(app.screen) is type(view), where


OPENED = {"monitor": {"MonitorScreen", "BackfillScreen", "RepairScreen", "LogsScreen", "FailureGroupsScreen",
                      "TimelineScreen", "AlertsScreen", "EditExportScreen", "DeleteExportScreen"},
          "surveys": {"SurveyBrowserScreen", "SurveyEditorScreen", "SummaryScreen", "ActivityScreen"}}
"""The views and dialogs that show server text, by the mode whose keys reach them (a renamed screen fails here)."""
SHOWN_WHOLE = {"monitor": {"ConfirmScreen", "AlertsScreen", "FailureGroupsScreen", "TimelineScreen", "BackfillsScreen",
                           "BackfillScreen", "RepairScreen", "EditExportScreen", "LogsScreen"},
               "surveys": {"SurveyBrowserScreen", "SurveyEditorScreen", "SurveyPreviewScreen", "ConfirmScreen",
                           "SummaryScreen", "ActivityScreen"}}
"""The views that showed the hostile text whole, its sequences' places included: a view whose column cut the text
before them would pass its checks without their having seen anything."""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["monitor", "surveys"])
async def test_every_key_of_every_screen_keeps_control_bytes_off_the_terminal(sandbox: SandboxHandle,
                                                                            mode: str) -> None:
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        poll_seconds=300.0, bell=False)
    app = WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        sweep = Sweep(pilot, mode)
        await sweep.view(mode)
        assert sweep.leaks == []
        opened, shown = sweep.opened, sweep.shown
    assert OPENED[mode] <= opened, opened
    assert SHOWN_WHOLE[mode] <= shown, shown
