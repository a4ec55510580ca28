"""The survey list table: safe cells that carry their own sort key, and a "near the end" signal.

Cells are :class:`SortCell` (a rich ``Text``, so never parsed as markup) that
also remember the raw value to sort by; ``DataTable.sort`` only hands the key
function the cell values, and sorting "1,204" or "3 days ago" as text would be
wrong.

Core ``DataTable`` has no lazy loading (textual #1892); :class:`SurveyTable`
posts :class:`SurveyTable.NearEnd` when the cursor or the viewport comes within
:attr:`SurveyTable.lookahead` rows of the last loaded row, and the screen
appends the next page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from tui.api.models import SurveyStatus
from tui.render import ago, clean
from tui.state.survey_list import SORT_BY_KEY, SurveyRow

#: (column key, header, width). Widths are fixed so appending rows never re-measures a column.
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("name", "Name", 30),
    ("type", "Type", 9),
    ("status", "Status", 9),
    ("questions", "Qs", 3),
    ("responses", "Responses", 9),
    ("creator", "Creator", 16),
    ("created", "Created", 15),
)

STATUS_STYLES: dict[str, str] = {
    SurveyStatus.DRAFT: "dim",
    SurveyStatus.SCHEDULED: "yellow",
    SurveyStatus.RUNNING: "bold green",
    SurveyStatus.COMPLETE: "cyan",
    SurveyStatus.ARCHIVED: "dim italic",
}


class SortCell(Text):
    """A table cell: cleaned, un-parsed text plus the value the column sorts by."""

    __slots__ = ("sort_key",)

    def __init__(self, text: str, sort_key: Any, style: str = "", justify: Any = None) -> None:
        super().__init__(text, style=style, justify=justify, no_wrap=True, end="", overflow="ellipsis")
        self.sort_key = sort_key


def row_cells(row: SurveyRow, now: datetime, counts: dict[str, int] | None) -> list[SortCell]:
    """The seven cells of a survey, every server string cleaned first (tui.render.clean)."""
    status = row.status_at(now)
    counts_map = counts or {}
    responses = counts_map.get(row.id, 0) if counts is not None else None

    def key(column: str) -> Any:
        return SORT_BY_KEY[column].value(row, now, counts_map)

    return [
        SortCell(clean(row.name, limit=200) or "(no name)", key("name"), style="" if row.name else "dim"),
        SortCell(clean(row.type, limit=40) or "—", key("type")),
        SortCell(status.value, key("status"), style=STATUS_STYLES.get(status, "")),
        SortCell(str(row.question_count), key("questions"), justify="right"),
        responses_cell(responses),
        SortCell(clean(row.creator, limit=80) or "—", key("creator")),
        SortCell(ago(row.created_at, now), key("created")),
    ]


def responses_cell(responses: int | None) -> SortCell:
    """``—`` while the count is unknown (not fetched yet, or the endpoint failed)."""
    if responses is None:
        return SortCell("—", 0, style="dim", justify="right")
    return SortCell(f"{responses:,}", responses, justify="right")


class SurveyTable(DataTable[Any]):
    """A DataTable that asks for more rows before the operator reaches the last loaded one."""

    lookahead = 40

    # A row list: home/end go to the first/last row (core DataTable scrolls sideways on them).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First", show=False, id="surveys.first"),
        Binding("end", "scroll_bottom", "Last", show=False, id="surveys.last"),
    ]

    class NearEnd(Message):
        """The cursor or the viewport is within ``lookahead`` rows of the end."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        for key, label, width in COLUMNS:
            self.add_column(Text(label), key=key, width=width)

    def near_end(self) -> bool:
        rows = self.row_count
        if rows == 0:
            return True
        bottom = max(self.cursor_row, int(self.scroll_y) + self.scrollable_content_region.height)
        return bottom >= rows - self.lookahead

    def _signal_if_near_end(self) -> None:
        if self.near_end():
            self.post_message(self.NearEnd())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self._signal_if_near_end()

    def watch_cursor_coordinate(self, old_coordinate: Any, new_coordinate: Any) -> None:
        super().watch_cursor_coordinate(old_coordinate, new_coordinate)
        if old_coordinate.row != new_coordinate.row:
            self._signal_if_near_end()
