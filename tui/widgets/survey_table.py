"""The survey list table: a :class:`VirtualTable` of compact survey rows, and a "near the end" signal.

A survey becomes a :class:`~tui.widgets.virtual_table.Row` of eight plain strings, every server
string cleaned first (:func:`tui.text.clean.clean`), plus a style key per cell naming a component
class (``survey-table--running`` ...) styled in ``styles/surveys.tcss``. Nothing else per row
lives in the widget: 10,000 rows cost a few MB and almost nothing for the garbage collector
(the DataTable this replaces held ~70,000 rich ``Text`` cells; see virtual_table.py).

Sorting is not by the cell text ("1,204", "3d ago" sort wrong as text): the screen passes
:meth:`VirtualTable.sort` a key function that reads the survey's own values
(:data:`tui.state.survey_list.SORT_COLUMNS`).

:class:`SurveyTable` posts :class:`SurveyTable.NearEnd` when the cursor or the viewport comes
within :attr:`SurveyTable.lookahead` rows of the last loaded row, and the screen appends the
next page.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, ClassVar

from textual.binding import BindingType
from textual.message import Message

from tui.api.models.surveys import SurveyStatus, SurveyType
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.state.survey_list import SurveyRow
from tui.state.survey_stats import StatsBook, rate_text
from tui.text.clean import clean
from tui.text.words import ago
from tui.widgets.virtual_table import Column, Row, VirtualTable

#: The Type column holds the longest type the service knows whole (``external_survey``), never ``external…``.
TYPE_WIDTH = max(len(kind.value) for kind in SurveyType)
#: Widths are fixed so appending rows never re-measures a column.
COLUMNS: tuple[Column, ...] = (
    Column("name", "Name", 30),
    Column("type", "Type", TYPE_WIDTH),
    Column("status", "Status", 13),
    Column("questions", "Qs", 3, "right"),
    Column("responses", "Responses", 9, "right"),
    Column("rate", "Rate", 7, "right"),
    Column("creator", "Creator", 16),
    Column("created", "Created", 15),
)

#: Tones of the statuses for the detail pane (a Static), archived ones also in italics. The list draws
#: the same looks from the ``survey-table--<status>`` component classes in styles/surveys.tcss; a test
#: keeps them equal.
STATUS_TONES: dict[SurveyStatus, Tone] = {
    SurveyStatus.DRAFT: Tone.MUTED,
    SurveyStatus.RUNNING: Tone.LIVE,
    SurveyStatus.COMPLETE: Tone.ACCENT,
    SurveyStatus.ARCHIVED: Tone.MUTED,
}


def status_style(status: SurveyStatus) -> str:
    """The detail pane's style of a status, in the current mode."""
    style = STATUS_TONES[status].style
    return f"{style} italic" if status is SurveyStatus.ARCHIVED else style


MUTED = "survey-table--muted"
LIMIT = "survey-table--limit"
LIMIT_REACHED = "limit reached"
STATUS_CLASSES: dict[SurveyStatus, str] = {status: f"survey-table--{status.value}" for status in SurveyStatus}

_STYLE_POOL: dict[tuple[str, ...], tuple[str, ...]] = {}


def _styles(*keys: str) -> tuple[str, ...]:
    """One shared tuple per combination of cell styles (a handful), not one per row."""
    return _STYLE_POOL.setdefault(keys, keys)


def responses_text(responses: int | None) -> tuple[str, str]:
    """The responses cell and its style key: ``—`` (muted) while the count is unknown (not fetched, or failed)."""
    if responses is None:
        return "—", MUTED
    return sys.intern(f"{responses:,}"), ""


UNREAD = "…"
FAILED = "?"


def rate_cell(survey_id: str, status: SurveyStatus, book: StatsBook | None) -> tuple[str, str]:
    """The Rate cell and its style key: ``…`` until the survey's stats are read, ``?`` when reading them failed,
    ``—`` for a draft (nobody was shown it: it is not asked) or a survey nobody was shown yet."""
    if status is SurveyStatus.DRAFT:
        return "—", MUTED
    stats = book.get(survey_id) if book is not None else None
    if stats is None:
        return (FAILED, MUTED) if book is not None and book.failed(survey_id) else (UNREAD, MUTED)
    text = rate_text(stats)
    return sys.intern(text), MUTED if text == "—" else ""


def survey_row(row: SurveyRow, now: datetime, counts: dict[str, int] | None, book: StatsBook | None = None) -> Row:
    """The table row of a survey (its rate from ``book``). Short, repetitive texts are interned so 10,000 rows
    share them."""
    status = row.status_at(now)
    count = None if counts is None else counts.get(row.id, 0)
    responses, responses_style = responses_text(count)
    rate, rate_style = rate_cell(row.id, status, book)
    limited = status is SurveyStatus.RUNNING and row.limit_reached(count)
    name = clean(row.name, limit=200) or "(no name)"
    cells = (
        name,
        sys.intern(clean(row.type, limit=40) or "—"),
        LIMIT_REACHED if limited else status.value,
        sys.intern(str(row.question_count)),
        responses,
        rate,
        sys.intern(clean(row.creator, limit=80) or "—"),
        sys.intern(ago(row.created_at, now)),
    )
    status_class = LIMIT if limited else STATUS_CLASSES[status]
    styles = _styles("" if row.name else MUTED, "", status_class, "", responses_style, rate_style, "", "")
    return (row.id, cells, styles)


class SurveyTable(VirtualTable):
    """The survey list; asks for more rows before the operator reaches the last loaded one."""

    lookahead = 40

    COMPONENT_CLASSES: ClassVar[set[str]] = {MUTED, LIMIT, *STATUS_CLASSES.values()}

    # The survey ids of the keymap (home/end go to the first/last loaded row).
    KEY_IDS = ("surveys.first", "surveys.last")
    BINDINGS: ClassVar[list[BindingType]] = list(bindings(*KEY_IDS))

    class NearEnd(Message):
        """The cursor or the viewport is within ``lookahead`` rows of the end."""

    class ViewChanged(Message):
        """The cursor row or the first row on screen changed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(COLUMNS, **kwargs)

    def near_end(self) -> bool:
        rows = self.row_count
        if rows == 0:
            return True
        bottom = max(self.cursor_row, int(self.scroll_y) + self.scrollable_content_region.height)
        return bottom >= rows - self.lookahead

    def _view_changed(self) -> None:
        self.post_message(self.ViewChanged())
        if self.near_end():
            self.post_message(self.NearEnd())
