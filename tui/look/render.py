"""The one door through which server text reaches a widget, and how times, sizes and counts are written.

Every string from the server (names, questions, log lines, errors, creator
names) is untrusted. Textual parses markup in plain ``str`` cells and labels,
and neither ``Text`` nor ``markup=False`` removes terminal escape sequences
(``\\x1b[2J`` in a string clears the terminal). So untrusted text
goes through :func:`clean` (control characters removed) and becomes a
``rich.text.Text`` (never parsed as markup) via :func:`plain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import humanize
from rich.text import Text

from tui.look.palette import Tone

# ESC-introduced sequences (CSI, OSC, DCS, ...) first, so their parameters go too,
# then any remaining C0/C1 control character except tab and newline.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC
    r"|\x1b[@-Z\\-_]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|\x9d[^\x07\x9c]*(?:\x07|\x9c)?"  # 8-bit OSC
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


CLEANED_NOTE = "contained control characters; saving removes them"


def editable(value: Any, *, multiline: bool = False) -> Editable:
    """The one door for server text going into an Input, TextArea or Select value.

    Unlike :func:`clean` nothing is cut (the operator edits and saves the whole
    value), and a multi-line field keeps its newlines and tabs. Escape sequences
    go whole (an OSC 52 would otherwise still write the clipboard), then C0/C1
    controls and bidi overrides/isolates; in a one-line field a newline or tab
    becomes a space. ``cleaned`` says the field must be marked, and saved, as
    cleaned.
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


def plain(value: Any, style: str = "", *, oneline: bool = True, limit: int | None = 2000) -> Text:
    """A ``Text`` of untrusted content: cleaned and never interpreted as markup. A one-line text cut to the width
    it is drawn in (a table's column) ends in an ellipsis, so a cut never reads as the whole text."""
    return Text(clean(value, oneline=oneline, limit=limit), style=style, no_wrap=oneline, end="",
                overflow="ellipsis" if oneline else None)


def counted(count: int, noun: str) -> str:
    """``1 line``, ``1,234 lines``: a count and its noun, in the plural unless the count is one."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


# --------------------------------------------------------------------------- times and sizes


def ago(when: datetime | None, now: datetime, *, coarse: bool = False) -> str:
    """"3 minutes ago" (or "in 5 minutes"); an em dash for no time.

    ``coarse`` says nothing finer than a minute, for cells refreshed once a minute.
    """
    if when is None:
        return "—"
    delta = now - when
    if coarse and abs(delta) < timedelta(minutes=1):
        return "in <1 min" if delta < timedelta(0) else "<1 min ago"
    if delta < timedelta(0):
        return "in " + humanize.naturaldelta(-delta)
    if delta < timedelta(seconds=2):
        return "just now"
    return humanize.naturaltime(delta)


def past_ago(when: datetime, now: datetime, *, coarse: bool = False) -> str:
    """:func:`ago` for something that has happened (a run finished, an export was created): never "in …".

    Server stamps are read against an estimate of the server's clock; one a moment ahead of it (or any stamp under
    skew the estimate has not caught yet) is "just now", not a time in the future.
    """
    return ago(min(when, now), now, coarse=coarse)


def when_text(when: datetime, now: datetime) -> str:
    """An instant as a person says it: ``now, Tue 24 Nov 04:26 UTC``, ``in 3 days, Fri 27 Nov 09:00 UTC``."""
    relative = "now" if abs((when - now).total_seconds()) < 60 else ago(when, now)
    return f"{relative}, {date_text(when, now.year)}"


def date_text(when: datetime, this_year: int | None = None) -> str:
    """``Tue 24 Nov 04:26 UTC`` (the year too when it is not ``this_year``)."""
    utc = when.astimezone(UTC)
    return f"{utc:%a} {utc.day} {utc:%b %H:%M} UTC" + (f" {utc.year}" if utc.year != this_year else "")


def duration(seconds: float | None) -> str:
    """Compact durations for tables: ``45s``, ``3m12s``, ``2h05m``, ``3d04h``."""
    if seconds is None:
        return "—"
    s = int(max(0, seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600:02d}h"


def coarse_duration(seconds: float | None) -> str:
    """Minute resolution for figures that age (lag, health reasons): ``<1m``, ``35m``, ``2h05m``, ``3d04h``.

    Second resolution would change every row's cell at every poll, and each
    changed row costs a repaint; a lag figure does not need seconds.
    """
    if seconds is None:
        return "—"
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{int(seconds) // 60}m"
    return duration(seconds)


def count(value: int | None) -> str:
    return "—" if value is None else humanize.intcomma(value)


def short_count(value: int | None) -> str:
    """A count that fits a narrow cell whole: ``987``, ``12.3k``, ``1.55M``, ``2.1B`` (three significant digits)."""
    if value is None:
        return "—"
    if abs(value) < 1000:
        return str(value)
    for limit, suffix in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "B")):
        text = f"{value / limit:.3g}"
        if suffix == "B" or ("e" not in text and abs(float(text)) < 1000):
            return text + suffix
    raise AssertionError("unreachable")


def progress_bar(done: int | None, total: int | None, width: int = 10) -> Text:
    """``▇▇▇▇▁▁▁▁ 52%``: records completed of total as a bar that also reads without colour."""
    if not total or done is None:
        return Text("—", style=Tone.MUTED.style)
    ratio = max(0.0, min(1.0, done / total))
    filled = round(ratio * width)
    return Text.assemble(("█" * filled, Tone.ACCENT.style), ("░" * (width - filled), Tone.MUTED.style),
                         f" {ratio:4.0%}")
