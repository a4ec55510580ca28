"""One registry of keys (tui.key_registry): the bindings, footer, help, palette and README all say what it says,
and read-only mode hides exactly what it marks as writing.

The read-only sweeps press every registered key of a screen (not only the ones marked as writing) and confirm
whatever asks, then read the sandbox's request log: an action whose ``writes`` flag were dropped would send its
POST there, so the flag cannot go missing unnoticed.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.widgets import Static

import tui
from tests.incident.test_monitor_keys import monitor, put_cursor_on_a_running_run, running_export
from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle
from tests.surveys.conftest import make_app as make_survey_app
from tests.surveys.conftest import sandbox_options
from tui.clock import FrozenClock
from tui.key_registry import KEYS, README_TABLES, KeyEntry, entries, readme_table, readme_with_tables, writing_actions
from tui.look.run_rows import RunsView
from tui.sandbox.runner import SandboxHandle, start_sandbox
from tui.screens.help import HelpScreen, screen_keys
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.widgets.footer import KeyFooter

README = Path(__file__).resolve().parents[2] / "README.md"
FAILING = "Snowflake warehouse (hourly)"
# Keys the sweeps leave alone: they leave the screen (quit, suspend, another screen) rather than act on it.
LEAVING = {"app.quit", "app.interrupt", "app.suspend", "app.pick_project", "monitor.surveys", "surveys.monitor"}


def _declared() -> list[tuple[str, Binding]]:
    """Every Binding any class under tui/ declares, with the class's name."""
    found: list[tuple[str, Binding]] = []
    for info in pkgutil.walk_packages(tui.__path__, "tui."):
        if info.name.startswith(("tui.sandbox", "tui.tools")) or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                for binding in value.__dict__.get("BINDINGS", ()):
                    if isinstance(binding, Binding):
                        found.append((f"{module.__name__}.{value.__name__}", binding))
    return found


def test_every_registered_key_is_bound_once_exactly_as_registered() -> None:
    registered = {entry.id: entry for entry in KEYS}
    assert len(registered) == len(KEYS), "binding ids are unique"
    bound: dict[str, list[str]] = {}
    for owner, binding in _declared():
        if binding.id in registered:
            assert binding == registered[binding.id].binding(), owner
            bound.setdefault(binding.id, []).append(owner)
    assert {key: owners for key, owners in bound.items() if len(owners) > 1 and not registered[key].shared} == {}
    assert all(len(bound[key]) > 1 for key, entry in registered.items() if entry.shared), "shared, or bound once"
    assert set(registered) - set(bound) == set(), "registered but bound nowhere"


def test_the_screens_keys_come_from_the_registry() -> None:
    """The screens with a footer declare no key of their own: each one they have is a registry entry."""
    owners = ("tui.screens.monitor.", "tui.screens.monitor_incident.", "tui.screens.surveys.", "tui.screens.editor.",
              "tui.screens.logs.", "tui.screens.alerts.", "tui.screens.failure_groups.", "tui.screens.timeline.",
              "tui.screens.backfills.", "tui.app.")
    strays = [(owner, binding.key) for owner, binding in _declared()
              if owner.startswith(owners) and binding.id not in {entry.id for entry in KEYS}]
    assert strays == []


def test_readme_key_tables_are_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    assert readme_with_tables(text) == text, "run python -m tui.tools.readme_keys"
    for name in README_TABLES:
        assert readme_table(name) in text
    table = readme_table("surveys")
    assert "| `S` | Summarize responses:" in table and table.split("| `S` |")[1].split("\n")[0].endswith("| yes |")


def test_read_only_hides_exactly_the_registry_writes() -> None:
    """The monitor's, the incident keys' and the survey browser's read-only sets are the registry's."""
    from tui.screens import monitor as monitor_module
    from tui.screens import surveys as surveys_module

    assert writing_actions("monitor") == monitor_module.MUTATING_ACTIONS
    assert {"repair", "cancel_run", "pause", "retry"} <= monitor_module.MUTATING_ACTIONS
    assert writing_actions("surveys") == surveys_module.MUTATING_ACTIONS
    assert "summarize" in surveys_module.MUTATING_ACTIONS, "S summarize is a POST"


def _help_titles(screen: Any) -> set[str]:
    return {title for _group, _key, title, _sentence, _applies in screen_keys(screen)}


async def test_monitor_help_footer_and_palette_agree_with_the_registry(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(200, 48)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        await settle(pilot)
        screen = app.screen
        mine = [entry for entry in entries("monitor", "app") if entry.id != "app.interrupt"]
        assert _help_titles(screen) >= {entry.title for entry in mine}
        assert {"Unpause export", "Open", "Clear filter"} <= _help_titles(screen), "u, enter and esc are listed"
        footer = {entry.description for entry in screen.query_one(KeyFooter).keys.entries if entry.description}
        # Unpause and pause share the footer's place: the export is not paused, so Unpause is hidden.
        assert footer == {entry.label for entry in mine if entry.show and entry.id != "monitor.unpause"}
        palette = {command.title for command in app.get_system_commands(screen)}
        enabled = {b.binding.id for b in screen.active_bindings.values() if b.enabled}
        assert {entry.title for entry in mine if entry.id in enabled} <= palette
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


@pytest.fixture
def survey_sandbox(clock: FrozenClock) -> Any:
    with start_sandbox(sandbox_options(clock)) as handle:
        yield handle


@pytest.fixture
def clock() -> FrozenClock:
    from tests.surveys.conftest import FROZEN_AT

    return FrozenClock(FROZEN_AT)


async def _sweep(pilot: Any, home: Any, ids: list[str],
                 prepare: Callable[[KeyEntry], Awaitable[None]] | None = None) -> None:
    """For each key: ``prepare`` the selection, press the key; when it opened a dialog or a view, whatever confirms
    there (y, enter); then go home. Every dialog is a screen of its own, so a key that left the home screen on top
    asked nothing (a filter it focused is cleared by the escape after it)."""
    app = pilot.app
    for entry in entries(*{i.partition(".")[0] for i in ids}):
        if entry.id not in ids:
            continue
        if prepare is not None:
            await prepare(entry)
        await pilot.press(entry.keys.split(",")[0])
        await settle(pilot)
        if app.screen is not home:
            for confirm in ("y", "enter"):
                await pilot.press(confirm)
                await settle(pilot)
        while app.screen is not home:
            await pilot.press("escape")
            await settle(pilot)
            if app.screen is not home and len(app.screen_stack) > 1:
                app.pop_screen()
                await settle(pilot)
        await pilot.press("escape")  # a filter the key (or y typed into it) left: cleared
        await settle(pilot)


def _writes(handle: Any) -> list[tuple[str, str]]:
    return [(r["method"], r["path"]) for r in handle.requests() if r["method"] != "GET"]


@pytest.mark.slow
async def test_read_only_monitor_sends_nothing_whatever_key_is_pressed(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, read_only=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        assert isinstance(screen, MonitorScreen)
        for action in writing_actions("monitor"):
            assert screen.check_action(action, ()) is False, action
        ids = [entry.id for entry in entries("monitor") if entry.id not in LEAVING]
        running = running_export(screen).export.name

        async def prepare(entry: KeyEntry) -> None:
            """`c` (cancel) on a running run in the runs pane; every other key on the failing export."""
            screen.frozen = False
            screen.runs_view_changed(RunsView())
            if entry.action == "cancel_run":
                await settle(pilot)
                await put_cursor_on_a_running_run(pilot, screen, running)
            else:
                select_export(app, FAILING)  # with the reset above: one settle for both
                await settle(pilot)

        await _sweep(pilot, screen, ids, prepare)
        assert _writes(sandbox) == []


@pytest.mark.slow
async def test_read_only_survey_browser_sends_nothing_whatever_key_is_pressed(survey_sandbox: Any,
                                                                              clock: FrozenClock) -> None:
    """Also (before the sweep) what read-only hides in the survey browser, by name: every write is off and none
    of its keys is offered; the writing keys leave the list where it is; the status line says READ-ONLY."""
    app = make_survey_app(survey_sandbox, clock, read_only=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SurveyBrowserScreen)
        for action in writing_actions("surveys"):
            assert screen.check_action(action, ()) is False, action
        for action in ("new", "edit", "delete", "archive", "unarchive", "launch", "stop"):
            assert screen.check_action(action, ()) is False, action
        assert screen.check_action("summarize", ()) is False, "summarize is a POST (issue 25 item 8)"
        shown = {b.binding.action for b in screen.active_bindings.values() if b.enabled}
        assert not shown & {"new", "edit", "delete", "archive", "launch", "stop"}
        for key in ("d", "a", "s", "n", "e"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
        assert _writes(survey_sandbox) == []
        assert "READ-ONLY" in str(screen.query_one("#survey-status", Static).render())
        ids = [entry.id for entry in entries("surveys") if entry.id not in LEAVING]
        await _sweep(pilot, screen, ids)
        assert _writes(survey_sandbox) == []
        assert "Summarize responses" not in _help_titles(screen)
