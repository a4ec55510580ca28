"""The text fields of every form: Textual's ``Input`` and ``TextArea``, their own keys acting in the order typed.

An ``Input`` or a ``TextArea`` inserts a printable key as the key reaches it, but runs its own bindings (ctrl+u,
backspace, End, Home, the arrows) only once the key has gone on up to the app unhandled: by then it has taken the
letters queued behind the key, and ``End`` ctrl+u ``#ffffff`` sent together left the field empty. A ``TextField``
(one line) and a ``TextBox`` (several) run their own binding of a key when the key reaches them, between the letters
before and after it. (A priority binding would run too early: the app reads the keys of one write faster than the
field takes the letters it was handed.) The app's own priority keys (ctrl+c) never reach a field.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tui.widgets.compact import compact_reactive, with_compact_class


def own_keys(widget_class: type[Widget], base: type[Widget]) -> dict[str, str]:
    """Each key ``widget_class`` binds itself and its action, from ``base`` down: a subclass's binding of a key
    (a JSON field's F6) replaces its base's."""
    keys: dict[str, str] = {}
    for cls in reversed(widget_class.__mro__[:widget_class.__mro__.index(base) + 1]):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding):
                keys.update({key.strip(): binding.action for key in binding.key.split(",")})
    return keys


class _KeysInOrder:
    """Runs the widget's own binding of a key as the key reaches it (see the module's docstring)."""

    OWN_BASE: ClassVar[type[Widget]]
    _own_keys: ClassVar[dict[type, dict[str, str]]] = {}

    async def on_key(self, event: events.Key) -> None:
        assert isinstance(self, Widget)
        keys = _KeysInOrder._own_keys.get(type(self))
        if keys is None:
            keys = _KeysInOrder._own_keys[type(self)] = own_keys(type(self), self.OWN_BASE)
        action = keys.get(event.key)
        if action is not None and await self.app.run_action(action, self):
            event.stop()
            event.prevent_default()  # not again once it reaches the app, nor by the widget's own key handler


class TextField(_KeysInOrder, Input):
    """A one-line field (a compact one is styled once: :mod:`tui.widgets.compact`)."""

    OWN_BASE = Input
    compact = compact_reactive()

    def __init__(self, *args: Any, compact: bool = False, classes: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, compact=compact, classes=with_compact_class(classes, compact), **kwargs)


class TextBox(_KeysInOrder, TextArea):
    """A multi-line field (a description, JSON, choices one per line; a compact one is styled once:
    :mod:`tui.widgets.compact`)."""

    OWN_BASE = TextArea
    compact = compact_reactive()

    def __init__(self, *args: Any, compact: bool = False, classes: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, compact=compact, classes=with_compact_class(classes, compact), **kwargs)
