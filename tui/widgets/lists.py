"""Textual's table and list as watchdeck uses them: ``j``/``k`` move the cursor as the arrows do (k9s, lazygit and
less habits), and in a table of rows Home and End go to the first and the last row.

The ``j``/``k`` bindings are the key registry's ``list`` entries, shared with :class:`~tui.widgets.virtual_table.
VirtualTable`; a text field keeps the letters (it takes them before any binding is looked at).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable, OptionList

from tui.key_registry import bindings

CellType = TypeVar("CellType")


class RowTable(DataTable[CellType]):
    """A ``DataTable`` of rows: ``j``/``k`` as Down/Up, Home/End to the first and last row (not the left and right
    edges, which a row cursor does not need)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings("list"),
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]


class ItemList(OptionList):
    """An ``OptionList``: ``j``/``k`` as Down/Up (Home and End are its own)."""

    BINDINGS: ClassVar[list[BindingType]] = list(bindings("list"))
