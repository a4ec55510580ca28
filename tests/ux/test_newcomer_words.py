"""Issue 42, item 5: what a newcomer reads says what watchdeck does: the README's commands and keys, the palette's
and help's words for q, the monitor's header at 80x24, web mode's columns and its extra."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from textual.widgets import Static

from tests.monitor.conftest import make_app
from tests.pilot import burst, settle
from tests.surveys.conftest import make_app as make_survey_app
from tui.cli.main import build_parser
from tui.clock import FrozenClock
from tui.look.export_cells import EXPORT_COLUMNS, EXPORT_GROW, EXPORT_PRIORITY, EXPORT_REQUIRES
from tui.sandbox.runner import SandboxHandle
from tui.screens.editor import SurveyEditorScreen
from tui.screens.help import screen_keys
from tui.screens.logs import LogsScreen
from tui.screens.monitor import MonitorScreen
from tui.widgets.lists import RowTable
from tui.widgets.virtual_table import CELL_PADDING, VirtualTable, fit_columns

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_WORDS = " ".join(README.split())


def _subcommands(parser: argparse.ArgumentParser, name: str) -> list[str]:
    for action in parser._actions:  # argparse offers no public way to list a subparser's choices
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            inner = action.choices[name]
            return [choice for a in inner._actions if isinstance(a, argparse._SubParsersAction) for choice in a.choices]
    raise AssertionError(f"no {name} command")


def test_the_readme_shows_every_surveys_command() -> None:
    commands = _subcommands(build_parser(), "surveys")
    assert {"get", "apply", "list"} <= set(commands)
    for command in commands:
        assert f"watchdeck surveys {command}" in README, command


def test_the_readme_says_home_and_end_go_to_the_ends_and_the_tables_bind_them() -> None:
    assert "`Home` and `End` go to the first and the last row" in README_WORDS
    for table in (RowTable, VirtualTable):
        keys = {key for binding in table.BINDINGS if hasattr(binding, "key") for key in binding.key.split(",")}
        assert {"home", "end", "j", "k"} <= keys, table


def test_the_readme_lists_ctrl_c_in_the_monitors_keys() -> None:
    table = README[README.index("<!-- keys:monitor -->"):README.index("<!-- /keys -->")]
    assert "| `ctrl+c` | Quit now:" in table


def _palette(app: object) -> dict[str, str]:
    return {command.title: command.help for command in app.get_system_commands(app.screen)}  # type: ignore[attr-defined]


async def test_the_palette_and_help_name_q_as_it_acts(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MonitorScreen)
        palette = _palette(app)
        assert palette["Quit"].endswith("(key: q)")
        assert palette["Quit now"].endswith("(key: ^c)")
        await burst(pilot, "l")
        assert isinstance(app.screen, LogsScreen)
        palette = _palette(app)
        assert "Quit" not in palette, "q closes the logs: the palette does not offer it as Quit"
        assert palette["Close logs"].endswith("(key: q, esc)")
        assert [row[2] for row in screen_keys(app.screen) if row[1].startswith("q")] == ["Close logs"]


async def test_the_editors_help_lists_q_once(survey_sandbox: SandboxHandle) -> None:
    app = make_survey_app(survey_sandbox, FrozenClock(survey_sandbox.clock.now()))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await burst(pilot, "e")
        assert isinstance(app.screen, SurveyEditorScreen)
        rows = screen_keys(app.screen)
        with_q = [title for _group, key, title, _sentence, _applies in rows if "q" in key.split(", ")]
        assert with_q == ["Leave the editor"]
        assert _palette(app)["Leave the editor"].endswith("(key: esc, q)")


async def test_the_monitor_keeps_the_project_in_its_header_at_80x24(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = str(app.screen.query_one("#monitor-status", Static).render())
        assert "Acme · Demo project" in header, header
        assert "exports" in header, header


def test_the_model_column_is_drawn_only_beside_destination() -> None:
    """At 108 to 153 columns Model (7 wide) fitted where Destination (11) did not, and web mode's browser showed
    "Model" where the terminal showed "Destination"."""
    columns = [column for column in EXPORT_COLUMNS if column[0] != "project"]
    for width in range(60, 260):
        keys = [key for key, _label, _width in fit_columns(columns, EXPORT_PRIORITY, width, CELL_PADDING, EXPORT_GROW,
                                                           EXPORT_REQUIRES)]
        assert "model" not in keys or "dest" in keys, (width, keys)
    wide = fit_columns(columns, EXPORT_PRIORITY, 250, CELL_PADDING, EXPORT_GROW, EXPORT_REQUIRES)
    assert {"model", "dest"} <= {key for key, _label, _width in wide}
    assert fit_columns([("a", "A", 4), ("b", "B", 2)], ("a", "b"), 5, requires={"b": "a"}) == []
    assert fit_columns([("a", "A", 4), ("b", "B", 2)], ("a", "b"), 10, requires={"b": "a"}) == [("a", "A", 4),
                                                                                               ("b", "B", 2)]


async def test_the_monitor_at_a_browsers_width_shows_destination_not_model_alone(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        shown = {column.key for column in app.screen.query_one("#exports", VirtualTable).shown_columns}
        assert "model" not in shown or "dest" in shown, shown


def test_web_mode_without_its_extra_says_how_to_add_it() -> None:
    code = ("import sys; sys.modules['textual_serve'] = None\n"  # as if the extra were not installed
            "from tui.cli.main import main\nraise SystemExit(main(['--web', '--demo']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "WATCHDECK_CONFIG_DIR": "/nonexistent-watchdeck"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("watchdeck: --web needs textual-serve: from a clone, .venv/bin/pip install -e "
                                   "'.[web]'; from a package, pip install 'watchdeck[web]'")
    web_mode = README[README.index("## Web mode"):README.index("## `watchdeck status`")]
    assert ".venv/bin/pip install -e '.[web]'" in web_mode
