"""Compact fields styled once, as they mount.

Textual's ``Input``, ``TextArea`` and ``Select`` take ``compact=True`` by setting their ``compact`` reactive in their
constructor, which adds the ``-textual-compact`` class, and adding a class to a widget restyles it at once: every
compact field was styled once in its constructor (before it had a parent) and again as it mounted. A form of
twenty fields paid for twenty stylings it threw away. Here a compact field is given its class with its other
classes, and its ``compact`` starts from that class, so the constructor changes nothing and the mount styles it once.
"""

from __future__ import annotations

from typing import Any

from textual.dom import DOMNode
from textual.reactive import Initialize, reactive
from textual.widgets import Select

COMPACT_CLASS = "-textual-compact"


def _has_compact_class(node: DOMNode) -> bool:
    return node.has_class(COMPACT_CLASS)


def compact_reactive() -> reactive[bool]:
    """A ``compact`` reactive that starts as the widget's classes say (given by :func:`with_compact_class`)."""
    return reactive(Initialize(_has_compact_class), toggle_class=COMPACT_CLASS)


def with_compact_class(classes: str | None, compact: bool) -> str | None:
    """A field's classes, with the compact class when it is compact."""
    if not compact:
        return classes
    return f"{classes} {COMPACT_CLASS}" if classes else COMPACT_CLASS


class FormSelect(Select[Any]):
    """A ``Select`` of a form: a compact one is styled once (see the module's docstring)."""

    compact = compact_reactive()

    def __init__(self, *args: Any, compact: bool = False, classes: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, compact=compact, classes=with_compact_class(classes, compact), **kwargs)
