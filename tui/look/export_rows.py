"""The exports table's rows: cells for each row the board shows, and a section row above each project's exports
when several projects are watched. A pure function of the board's row facts and of the cells shown now: the
table compares the cells and draws again only the rows that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.text import Text

from tui.look.export_cells import EXPORT_COLUMNS, export_cells, time_cells
from tui.look.render import plain
from tui.state.export_board import RowsDiff
from tui.text.clean import clean

SECTION_PREFIX = "section:"

Cells = Mapping[str, Text | str]


def section_row(project_id: str, label: str) -> tuple[str, Cells]:
    """With several projects, a row naming each project above its exports (no export: no keys act on it)."""
    return f"{SECTION_PREFIX}{project_id}", {"name": Text(f"▾ {clean(label, limit=60)}", style="bold")}


def export_rows(diff: RowsDiff, shown: Callable[[str], Cells | None], *, sections: bool,
                section_label: Callable[[str], str]) -> list[tuple[str, Cells]]:
    """Every visible row's cells, in order. A row the board did not change keeps the cells ``shown`` (the
    table's); a new minute rebuilds its time cells only; a new or changed row is built whole."""
    rows: list[tuple[str, Cells]] = []
    section_of: str | None = None
    for facts in diff.rows:
        if sections and facts.watched.project_id != section_of:
            section_of = facts.watched.project_id
            rows.append(section_row(section_of, section_label(section_of)))
        key = facts.key
        old = shown(key)
        if old is None or key in diff.rebuilt:
            cells: Cells = export_cells(facts)
        elif key in diff.retimed:
            cells = {**old, **time_cells(facts.verdict)}
        else:
            cells = old
        rows.append((key, cells))
    return rows


NARROW_WIDTH = 120
NARROW_NAME_WIDTH = 24


def export_columns(width: int, several_projects: bool) -> list[tuple[str, str, int | None]]:
    """The exports table's columns at this width, before fitting: the project column only when several projects
    are watched; below ``NARROW_WIDTH`` the name starts narrower, so that the verdict columns fit."""
    narrow = width < NARROW_WIDTH
    return [(key, label, NARROW_NAME_WIDTH if narrow and key == "name" else column_width)
            for key, label, column_width in EXPORT_COLUMNS if several_projects or key != "project"]


def empty_message(*, polled: bool, failure: str | None, name_filter: str) -> Text | None:
    """What the exports table says when it shows no row; None when it says nothing (no answer yet, no failure).
    ``failure`` is why the polls fail while none answered (server text)."""
    if not polled:
        if failure is None:
            return None
        return Text.assemble("Cannot show this project's exports: ", plain(failure, "bold"), ".")
    if name_filter:
        return Text.assemble("No export matches ", plain(name_filter, "bold"), ". Esc clears the filter.")
    return Text("This project has no batch exports yet. Exports created in the web app appear here "
                "at the next poll; --export ID watches one by id.")
