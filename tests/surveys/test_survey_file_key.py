"""``E``: the survey opened in $VISUAL as JSON, checked on return, diffed, and PATCHed only after a yes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
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


# An editor that types HTML-like text into the first question, adds an unknown appearance key and a
# "startswith" match type the SDK does not know.
TYPES_HTML = '''
import json, sys
path = sys.argv[1]
doc = json.loads(open(path).read())
doc["questions"][0]["question"] = "Would you use <Feature X> if it cost < $5 & took >2 min?"
doc["appearance"] = {**(doc.get("appearance") or {}), "fontFamily2": "serif"}
doc["conditions"] = {**(doc.get("conditions") or {}), "urlMatchType": "startswith"}
open(path, "w").write(json.dumps(doc, indent=2))
'''


async def test_edit_as_file_diff_says_what_will_be_stored_before_applying(
        sandbox: Any, clock: FrozenClock, editor: Path) -> None:
    """The diff dialog lists, before ``a``, the text the service will store (cleaned of HTML by nh3, as the real
    serializer cleans question texts), the unknown key with the closest known one, and the value only the SDK
    cannot use; none of them stops the apply, and the sandbox stores exactly the text announced."""
    editor.write_text(TYPES_HTML)
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = browser(app)
        survey_id = screen.selected_id
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, SurveyDiffScreen)
        notes = str(app.screen.query_one("#survey-diff-notes").render()).splitlines()
        stored = "Would you use  if it cost &lt; $5 &amp; took &gt;2 min?"
        assert notes[0] == f'note: questions[0].question: the service cleans HTML here; stored as: "{stored}"'
        assert "note: appearance.fontFamily2: not a key the service knows; did you mean fontFamily?" in notes
        assert any(line.startswith("note: conditions.urlMatchType: the SDK knows") for line in notes)
        assert survey_writes(sandbox) == []
        await pilot.press("a")
        await settle(pilot)
    [write] = survey_writes(sandbox)
    assert write["method"] == "PATCH" and write["path"].rsplit("/", 2)[-2] == survey_id
    saved = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{survey_id}/",
                      headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False).json()
    assert saved["questions"][0]["question"] == stored
    assert saved["appearance"]["fontFamily2"] == "serif" and saved["conditions"]["urlMatchType"] == "startswith"
