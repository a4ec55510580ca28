"""The one door for untrusted text: what a terminal may be given of a server's (or a file's) string.

Every string from the server (names, questions, log lines, errors, creator
names) is untrusted. Neither a ``rich.text.Text`` nor ``markup=False`` removes
terminal escape sequences (``\\x1b[2J`` in a string clears the terminal), so
untrusted text goes through :func:`clean` (escape sequences and control
characters removed) before it is drawn or printed, and through
:func:`editable` before it goes into a field the operator edits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# ESC-introduced sequences (CSI, OSC, DCS, ...) first, so their parameters go too,
# then any remaining C0/C1 control character except tab and newline.
# A string sequence (OSC, DCS, SOS, PM, APC) goes whole only up to its terminator (BEL or ST), across text without
# control characters; one that is not terminated there loses only its introducer (the two-character escape below,
# or the 8-bit control itself), never the text after it.
_STRING_BODY = r"[^\x00-\x07\x0e-\x1f\x7f-\x9f]*+"
_STRING_END = r"(?:\x07|\x1b\\|\x9c)"
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    rf"|\x1b\]{_STRING_BODY}{_STRING_END}"  # OSC ... BEL or ST
    rf"|\x1b[PX^_]{_STRING_BODY}{_STRING_END}"  # DCS, SOS, PM, APC ... ST
    r"|\x1b[@-Z\\-_]"  # other two-character escapes, and the introducer of an unterminated string
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    rf"|[\x90\x98\x9d\x9e\x9f]{_STRING_BODY}{_STRING_END}"  # 8-bit OSC, DCS, SOS, PM, APC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
_CONTROL_ONELINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def clean(value: Any, *, oneline: bool = True, limit: int | None = 2000) -> str:
    """Text safe for a terminal: escape sequences and control characters removed.

    ``oneline`` also turns newlines and tabs into spaces (table cells, titles);
    ``limit`` cuts very long strings with an ellipsis so one hostile field
    cannot blow up a layout or a frame's cost. Bidi overrides are removed too,
    so right-to-left text cannot reorder the columns around it.
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = _ESCAPE_SEQUENCE.sub("", text)
    if oneline:
        text = _CONTROL_ONELINE.sub(" ", text.replace("\r\n", " "))
    else:
        text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


@dataclass(frozen=True)
class Editable:
    """Server text made safe to put in an editable widget, and whether anything had to go."""

    text: str
    cleaned: bool


@dataclass(frozen=True)
class Shown:
    """A server value a field shows cleaned: ``shown`` in the field, ``original`` kept for the server."""

    original: Any
    shown: Any

    @classmethod
    def of(cls, original: str, *, multiline: bool = False) -> Shown:
        return cls(original, editable(original, multiline=multiline).text)

    def saved(self, value: Any) -> Any:
        """What the field saves holding ``value``: the server's own value while the field still shows it as it was
        cleaned (the operator did not touch it), else what the field holds."""
        return self.original if value == self.shown else value


CLEANED_NOTE = "control characters hidden; kept unless you edit it"


def editable(value: Any, *, multiline: bool = False) -> Editable:
    """The one door for server text going into an Input, TextArea or Select value.

    Unlike :func:`clean` nothing is cut (the operator edits and saves the whole
    value), and a multi-line field keeps its newlines and tabs. Escape sequences
    go whole (an OSC 52 would otherwise still write the clipboard), then C0/C1
    controls and bidi overrides/isolates; in a one-line field a newline or tab
    becomes a space. ``cleaned`` says the field must be marked: what it shows is
    not what the server holds, which is kept until the operator edits the field.
    """
    if value is None:
        return Editable("", False)
    original = value if isinstance(value, str) else str(value)
    text = _ESCAPE_SEQUENCE.sub("", original)
    if multiline:
        text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    else:
        text = _CONTROL.sub("", re.sub(r"\r\n|[\r\n\t]", " ", text))
    return Editable(text, text != original)
