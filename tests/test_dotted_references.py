"""Every dotted name a docstring or comment under ``tui/`` gives (``tui.state.health.judge``) is there.

A module, class or function that moved leaves its old name in the prose that points at it; a reader who follows
it finds nothing. This resolves each ``tui.…`` name written anywhere but in an import statement (in backquotes, a
reST role such as ``:func:`~tui.x.y``` or plain prose): the longest prefix that imports as a module, then each
attribute after it.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"(?<![\w./-])(tui(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
IMPORT = re.compile(r"^\s*(from|import)\s")


def references(root: Path = ROOT / "tui") -> dict[str, list[str]]:
    """Each reference, with the files (relative to the repository) that give it."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if IMPORT.match(line):
                continue
            for name in REFERENCE.findall(line):
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            annotations = getattr(target, "__annotations__", {}) if isinstance(target, type) else {}
            if not hasattr(target, attribute):
                # a dataclass or model field is declared, with no class attribute to get
                return attribute in annotations or attribute in getattr(target, "model_fields", {})
            target = getattr(target, attribute)
        return True
    return False


def test_every_dotted_reference_resolves() -> None:
    found = references()
    assert len(found) > 50, "the scan sees the references"
    assert {name: files for name, files in found.items() if not resolves(name)} == {}


def test_a_reference_that_moved_is_caught() -> None:
    """Guard against a vacuous pass: names that do not exist (a moved module, a renamed function) are caught."""
    assert resolves("tui.text.clean.clean") and resolves("tui.state.health")
    assert not resolves("tui.look.render.counted")
    assert not resolves("tui.state.exports.FirstPoll")
    assert not resolves("tui.nowhere.at_all")
