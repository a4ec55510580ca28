"""Textual's private members that watchdeck uses: each still there, and none used without being listed.

When this fails after a Textual upgrade, the message names the member that
moved; ``tui/widgets/textual_private.py`` says what it is needed for.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
from textual.app import App
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import DataTable

from tests.textual_private_uses import TEST_PRIVATE_USES
from tui.widgets.textual_private import PRIVATE_USES, PrivateUse

ROOT = Path(__file__).resolve().parents[1]


def _imports_textual(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == "textual":
            return True
        if isinstance(node, ast.Import) and any(alias.name.partition(".")[0] == "textual" for alias in node.names):
            return True
    return False


def ui_code() -> list[Path]:
    """The screens, widgets, looks and the app, whether or not a module imports Textual itself (a dialog may
    subclass the app's own base screen), and every other module of tui/ that does (the web server, the screenshot
    tool...). Read when a test asks, not when the tests are collected."""
    return sorted({*(ROOT / "tui" / "screens").glob("*.py"), *(ROOT / "tui" / "widgets").rglob("*.py"),
                   *(ROOT / "tui" / "look").glob("*.py"), ROOT / "tui" / "app.py", ROOT / "tui" / "safe_app.py",
                   *(path for path in (ROOT / "tui").rglob("*.py") if _imports_textual(path))})


def _owner(use: PrivateUse) -> object:
    module, _, name = use.owner.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return importlib.import_module(use.owner)


def _has(owner: object, member: str) -> bool:
    if hasattr(owner, member):
        return True
    if isinstance(owner, type):  # an attribute set in __init__
        try:
            return hasattr(owner(), member)
        except Exception:  # a class that cannot be made bare: its __init__ sets the member
            return f"self.{member} =" in inspect.getsource(owner.__init__)
    return False


@pytest.mark.parametrize("use", PRIVATE_USES + TEST_PRIVATE_USES, ids=lambda u: f"{u.owner}.{u.member}")
def test_each_private_member_still_exists(use: PrivateUse) -> None:
    assert _has(_owner(use), use.member), (
        f"the installed Textual no longer has {use.owner}.{use.member}, which watchdeck uses to {use.why}")


def _textual_objects() -> list[object]:
    """The Textual classes watchdeck builds on: the tables' ScrollView, the stock DataTable of the incident views."""
    return [App(), Widget(), ScrollView(), DataTable(), DOMNode(), Screen(), ModalScreen()]


def unlisted_uses(sources: dict[str, str], uses: tuple[PrivateUse, ...] = PRIVATE_USES) -> set[str]:
    """Every ``x._name`` (read, called, assigned or overridden) in ``sources`` whose name a Textual app, widget,
    table or screen has, and that textual_private.py does not list. Assigning one overwrites Textual's
    own (``self._name = ...`` on a screen replaces ``DOMNode._name``), so an assignment counts as a use."""
    objects = _textual_objects()
    listed = {use.member for use in uses}
    unlisted = set()
    for where, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                name = node.attr
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("_") and \
                    not node.name.startswith(("__", "_on_")):
                # Overriding a private method is using it too. ``_on_<event>`` is Textual's documented handler
                # name: it overrides nothing (Textual calls each class's own handler along the MRO).
                name = node.name
            else:
                continue
            if name not in listed and any(hasattr(obj, name) for obj in objects):
                unlisted.add(f"{where}: {name}")
    return unlisted


def test_the_scan_reads_every_module_that_touches_textual() -> None:
    scanned = {str(path.relative_to(ROOT)) for path in ui_code()}
    assert {"tui/app.py", "tui/widgets/virtual_table.py", "tui/screens/survey_modals.py", "tui/widgets/footer.py",
            "tui/key_registry.py", "tui/tools/screenshots.py"} <= scanned
    assert (ROOT / "tui/state/io/project_names.py").is_file()
    assert "tui/state/io/project_names.py" not in scanned, "no Textual there: its own _name is no DOMNode._name"


def test_no_private_textual_member_is_used_without_being_listed() -> None:
    sources = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in ui_code()}
    unlisted = unlisted_uses(sources)
    assert unlisted == set(), f"private Textual members used but not listed in textual_private.py: {unlisted}"


def test_no_test_uses_a_private_textual_member_without_it_being_listed() -> None:
    """The tests too: a Textual upgrade that moves a member a test reads names it here, not as a riddle."""
    sources = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
               for path in sorted((ROOT / "tests").rglob("*.py")) if path.name != "test_textual_private.py"}
    assert "tests/pilot.py" in sources
    unlisted = unlisted_uses(sources, PRIVATE_USES + TEST_PRIVATE_USES)
    assert unlisted == set(), f"private Textual members in tests, not in tests/textual_private_uses.py: {unlisted}"
    assert unlisted_uses({"tests/pilot.py": sources["tests/pilot.py"]}) == {
        "tests/pilot.py: _notifications", "tests/pilot.py: _message_queue", "tests/pilot.py: _next_callbacks"}


def test_the_scan_sees_reads_assignments_and_overrides() -> None:
    """The scan above can fail: a read, an assignment and an override of Textual's private members are seen."""
    assert unlisted_uses({"read": "x = self._compositor"}) == {"read: _compositor"}
    assert unlisted_uses({"set": "self._name = name"}) == {"set: _name"}
    assert unlisted_uses({"set": "self._styles_cache = None"}) == {"set: _styles_cache"}
    assert unlisted_uses({"override": "class F:\n    def _refresh_layout(self): pass"}) == {"override: _refresh_layout"}
    assert unlisted_uses({"ours": "self._survey_rows = []"}) == set()


def test_a_survey_dialog_keeps_the_surveys_name_out_of_its_own() -> None:
    """The survey's name is server text: it is shown, never made the screen's DOM name (``DOMNode._name``)."""
    from tui.screens.survey_file_edit import SurveyDiffScreen
    from tui.screens.survey_modals import SummaryScreen

    summary = SummaryScreen("42", "Evil [b]name")
    diff = SurveyDiffScreen("Evil [b]name", ["- a", "+ b"], ["name"])
    assert summary.name is None and diff.name is None
    assert summary.survey_name == diff.survey_name == "Evil [b]name"
