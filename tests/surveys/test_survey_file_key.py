"""``E``: the survey opened in $VISUAL as JSON, checked on return, diffed, and PATCHed only after a yes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pilot import settle
from tests.surveys.conftest import make_app, pictured, survey_writes
from tests.surveys.test_browser import browser
from tui.clock import FrozenClock
from tui.screens.survey_file_edit import SurveyDiffScreen

# An editor that renames the survey; the first time it also empties the name, which the rules refuse, so the
# file comes back with the problem on top, and then it writes a good name.
EDITOR = '''
import json, sys
path = sys.argv[1]
text = open(path).read()
body = "\\n".join(line for line in text.splitlines() if not line.startswith("//"))
doc = json.loads(body)
doc["name"] = "Edited in vim" if text.startswith("// watchdeck") else ""
open(path, "w").write(json.dumps(doc, indent=2))
with open(sys.argv[0] + ".log", "a") as log:
    log.write(text.splitlines()[0] + "\\n")
'''


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "fake_editor.py"
    script.write_text(EDITOR)
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    monkeypatch.delenv("WATCHDECK_SURVEY_FORMAT", raising=False)
    return script


RENAMES = EDITOR.replace('"Edited in vim" if text.startswith("// watchdeck") else ""', '"Renamed"')


async def test_edit_as_file_cancelled_sends_nothing_and_reopens_on_errors_then_diffs_then_patches(
        sandbox: Any, clock: FrozenClock, editor: Path) -> None:
    """One session: a diff cancelled with escape sends nothing; then a file that breaks the rules comes back to
    the editor with the problem on top, and its fixed version is diffed and PATCHed (only the name) after ``a``."""
    editor.write_text(RENAMES)
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        survey_id = screen.selected_id

        # -- cancelled: nothing sent
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, SurveyDiffScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        assert survey_writes(sandbox) == []

        # -- reopened on errors, then diffed, then patched
        editor.write_text(EDITOR)
        opened = len(Path(str(editor) + ".log").read_text().splitlines())
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, SurveyDiffScreen)
        first_lines = Path(str(editor) + ".log").read_text().splitlines()[opened:]
        assert first_lines[0] == "{"  # the survey as JSON
        assert first_lines[1] == "// watchdeck: fix these and save, or empty the file to give up:"
        diff = str(app.screen.query_one("#survey-diff").render())
        assert '+  "name": "Edited in vim",' in diff
        assert survey_writes(sandbox) == []  # nothing before the yes
        await pilot.press("a")
        await settle(pilot)
    writes = survey_writes(sandbox)
    assert [(w["method"], w["path"].rsplit("/", 2)[-2], w["body"]) for w in writes] == [
        ("PATCH", survey_id, {"name": "Edited in vim"})]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_edit_as_file_diff_dialog(snap_compare: Any, sandbox: Any, clock: FrozenClock, editor: Path,
                                  size: tuple[int, int]) -> None:
    editor.write_text(RENAMES)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)

    assert snap_compare(pictured(make_app(sandbox, clock)), terminal_size=size, run_before=run_before)
