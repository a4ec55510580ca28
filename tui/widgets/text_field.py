"""The one-line text field of every form: Textual's ``Input``, its own keys acting in the order they were typed.

An ``Input`` inserts a printable key as the key reaches it, but runs its own bindings (ctrl+u, backspace, End, the
arrows) only once the key has gone on up to the app unhandled: by then it has taken the letters queued behind the
key, and ``End`` ctrl+u ``#ffffff`` sent together left the field empty. A ``TextField`` runs its own binding of a
key when the key reaches it, between the letters before and after it. (A priority binding would run too early: the
app reads the keys of one write faster than the field takes the letters it was handed.) The app's own priority keys
(ctrl+c) never reach a field.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.widgets import Input

#: Input's own keys and their actions (ctrl+u deletes left, End, the arrows, backspace, enter submits, ...).
OWN_KEYS: dict[str, str] = {key.strip(): binding.action for binding in Input.BINDINGS if isinstance(binding, Binding)
                            for key in binding.key.split(",")}


class TextField(Input):
    async def on_key(self, event: events.Key) -> None:
        """A key this field binds itself is handled now, in its place among the keys typed."""
        action = OWN_KEYS.get(event.key)
        if action is not None and await self.app.run_action(action, self):
            event.stop()
            event.prevent_default()  # not again once it reaches the app, nor by Input's own key handler
