"""The monitor's exports table as the operator and the incident views move it: which rows it shows (the filter
box's text, a failure group's exports), where its cursor goes (an export, a run), and what it says when empty.

A plain object the :class:`~tui.screens.monitor.MonitorScreen` makes and holds, with the table and filter box it
composes. The filters themselves are the board's (:class:`~tui.state.export_board.ExportBoard`); the rows are
drawn by the screen (:class:`TableView`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from textual.screen import Screen
from textual.widgets import Static

from tui.look.export_cells import EXPORT_COLUMNS
from tui.look.export_rows import empty_message
from tui.state.export_board import ExportBoard
from tui.widgets.filter_box import FilterBox
from tui.widgets.virtual_table import Column, VirtualTable


class TableView(Protocol):
    """What draws the table: the monitor screen."""

    @property
    def board(self) -> ExportBoard:
        ...

    def now(self) -> datetime:
        ...

    def render_exports(self, now: datetime) -> None:
        ...

    def refresh_status(self) -> None:
        ...

    def highlight_run(self, run_id: str) -> None:
        """Put the runs pane's cursor on this run (nothing when it is not among the rows)."""
        ...


class MonitorTable:
    """The exports table, its filter box and its empty line, and the moves the keys and the incident views make."""

    def __init__(self, host: Screen[Any], view: TableView) -> None:
        self._host = host
        self._view = view
        self.rows = VirtualTable([Column(key, label, width or 0) for key, label, width in EXPORT_COLUMNS], id="exports",
                                 enter_selects=False)  # Enter is the screen's: down to the runs at once
        self.filter_box = FilterBox("filter by name or status (esc clears)", apply=self._apply_filter,
                                    id="monitor-filter")
        self.empty = Static(id="exports-empty", classes="hidden")

    def show_empty(self, shown: int, *, failure: str | None) -> None:
        """Say why the table shows no row (``shown``), or nothing: ``failure`` is why the polls fail (server text)."""
        board = self._view.board
        message = None if shown else empty_message(polled=board.snapshot is not None, name_filter=board.filter,
                                                   failure=failure)
        if message is not None:
            self.empty.update(message)
        self.empty.set_class(message is None, "hidden")

    def open_filter(self) -> None:
        self.filter_box.open()

    def clear_filter(self) -> None:
        """A failure group's filter first, else the typed one (and back to the rows)."""
        board = self._view.board
        if board.key_filter is not None:
            board.key_filter = None
            self._redraw()
        elif board.filter or self.filter_box.shown:
            self.filter_box.close()
            self.rows.screen.set_focus(self.rows)  # at once: the keys typed after Escape act on the rows

    def _apply_filter(self, text: str) -> None:
        if self._view.board.set_filter(text):
            self.rows.clear()
            self._view.render_exports(self._view.now())
            self._view.refresh_status()

    def _redraw(self) -> None:
        """The rows shown changed (a filter): draw the table afresh."""
        self.rows.clear()
        self._view.board.selected_key = None
        self._view.render_exports(self._view.now())
        self._view.refresh_status()

    # ------------------------------------------------------------------ what the incident views ask

    def show_export(self, key: str) -> None:
        """Put the cursor on this export, clearing a filter that hides it."""
        board = self._view.board
        if key not in self.rows and (board.filter or board.key_filter is not None):
            board.key_filter = None
            board.set_filter("")
            self.filter_box.close()
            self._redraw()
        self.rows.move_to_key(key)
        self.rows.focus()

    def show_only(self, keys: Sequence[str], label: str) -> None:
        """Show these exports only (a failure group's, named ``label`` on the status line)."""
        self._view.board.key_filter = (tuple(keys), label)
        self._redraw()
        self.rows.focus()

    def show_run(self, key: str, run_id: str) -> None:
        """Select this export and put the runs pane's cursor on this run."""
        self.show_export(key)
        self._host.call_after_refresh(self._view.highlight_run, run_id)
