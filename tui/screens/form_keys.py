"""Tab and shift+tab as every form has them: the editor, the dialogs and the profile form.

Bound with priority (the registry's ``form.*`` entries), so Tab moves on when it is typed. Unbound, a key
a field does not take goes up to the app and is handled there, after the field has taken the keys typed
behind it: ``Alpha`` Tab ``Beta`` typed fast gave ``AlphaBeta`` in one field.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.dom import DOMNode

from tui.key_registry import bindings


class FormKeys(DOMNode):
    """Mixed into a form's screen, before its screen class."""

    BINDINGS: ClassVar[list[BindingType]] = list(bindings("form"))
