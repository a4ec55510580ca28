"""Textual's private members that watchdeck uses: each still there, and none used without being listed.

When this fails after a Textual upgrade, the message names the member that
moved; ``tui/widgets/textual_private.py`` says what it is needed for.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import DataTable, Footer

from tui.widgets.textual_private import PRIVATE_USES, PrivateUse

ROOT = Path(__file__).resolve().parents[1]
UI_CODE = [*(ROOT / "tui" / "screens").glob("*.py"), *(ROOT / "tui" / "widgets").rglob("*.py"),
           ROOT / "tui" / "app.py", ROOT / "tui" / "safe_app.py"]


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
        except Exception:  # a class that cannot be made bare: only its class attributes count
            return False
    return False


@pytest.mark.parametrize("use", PRIVATE_USES, ids=lambda u: f"{u.owner}.{u.member}")
def test_each_private_member_still_exists(use: PrivateUse) -> None:
    assert _has(_owner(use), use.member), (
        f"the installed Textual no longer has {use.owner}.{use.member}, which watchdeck uses to {use.why}")


def _ours() -> set[str]:
    """Private names watchdeck defines itself (methods, assigned attributes)."""
    names: set[str] = set()
    for path in (ROOT / "tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("_"):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_no_private_textual_member_is_used_without_being_listed() -> None:
    """Any ``x._name`` in the UI code that a Textual app, widget or table has, and watchdeck does not define."""
    textual_objects = [App(), Widget(), DataTable(), Footer(), DOMNode()]
    ours = _ours()
    listed = {use.member for use in PRIVATE_USES}
    unlisted = set()
    for path in UI_CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                name = node.attr
                textual_has = any(hasattr(obj, name) for obj in textual_objects)
                # overriding a private method is still using it
                if textual_has and name not in listed and (name not in ours or _overrides(name)):
                    unlisted.add(f"{path.relative_to(ROOT)}: {name}")
    assert unlisted == set(), f"private Textual members used but not listed in textual_private.py: {unlisted}"


def _overrides(name: str) -> bool:
    return any(callable(getattr(obj, name, None)) for obj in (App, Widget, DataTable, Footer, DOMNode))


def test_the_scan_finds_a_private_use() -> None:
    """The scan above can fail: a private member of Textual's is seen on a widget."""
    assert hasattr(Widget(), "_styles_cache") and "_styles_cache" not in _ours()
