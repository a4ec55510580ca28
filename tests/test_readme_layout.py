"""The README's layout table ("Where things live") names every module under tui/, each with its role, and no
module that is gone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE_HEADER = "| Path | What it holds |"
ROW = re.compile(r"^\| `([^`]+)` \| (.*) \|$")


def layout_rows(readme: str) -> dict[str, str]:
    """The layout table's rows: each path in its first cell, with its role."""
    lines = readme[readme.index(TABLE_HEADER):].splitlines()[2:]
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        found = ROW.match(line)
        assert found, f"a row of the layout table without a path in its first cell: {line}"
        rows[found.group(1)] = found.group(2).strip()
    return rows


def modules(root: Path) -> set[str]:
    """Every module under ``root``/tui (a package's ``__init__.py`` is the package's row, not a module's)."""
    return {p.relative_to(root).as_posix() for p in (root / "tui").rglob("*.py") if p.name != "__init__.py"}


def layout_gaps(readme: str, root: Path) -> tuple[list[str], list[str]]:
    """(modules the table misses, modules the table names that do not exist)."""
    named = {path for path in layout_rows(readme) if path.endswith(".py")}
    present = modules(root)
    return sorted(present - named), sorted(named - present)


def test_the_layout_table_names_every_module_and_only_those() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert layout_gaps(readme, ROOT) == ([], [])


def test_each_module_row_says_its_role() -> None:
    rows = layout_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(rows) > 150, "the check reads the whole table"
    assert {path: role for path, role in rows.items() if len(role) < 10} == {}


def test_the_check_sees_a_missing_and_a_stale_module(tmp_path: Path) -> None:
    (tmp_path / "tui" / "state").mkdir(parents=True)
    for name in ("tui/__init__.py", "tui/app.py", "tui/state/__init__.py", "tui/state/health.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    readme = "\n".join([
        "# x", "", TABLE_HEADER, "| --- | --- |", "| `tui/` | the app |", "| `tui/app.py` | the app itself |",
        "| `tui/state/gone.py` | moved away |", "", "| `tui/state/health.py` | not in the table: after its end |",
    ])
    assert layout_gaps(readme, tmp_path) == (["tui/state/health.py"], ["tui/state/gone.py"])
