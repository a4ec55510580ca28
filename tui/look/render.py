"""What a widget is given of untrusted text, and the bar of a run's progress.

Server text becomes a ``rich.text.Text`` (never parsed as markup) through
:func:`plain`, after :func:`tui.text.clean.clean` has removed escape sequences
and control characters.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.look.palette import Tone
from tui.text.clean import clean


def plain(value: Any, style: str = "", *, oneline: bool = True, limit: int | None = 2000) -> Text:
    """A ``Text`` of untrusted content: cleaned and never interpreted as markup. A one-line text cut to the width
    it is drawn in (a table's column) ends in an ellipsis, so a cut never reads as the whole text."""
    return Text(clean(value, oneline=oneline, limit=limit), style=style, no_wrap=oneline, end="",
                overflow="ellipsis" if oneline else None)


def progress_bar(done: int | None, total: int | None, width: int = 10) -> Text:
    """``▇▇▇▇▁▁▁▁ 52%``: records completed of total as a bar that also reads without colour."""
    if not total or done is None:
        return Text("—", style=Tone.MUTED.style)
    ratio = max(0.0, min(1.0, done / total))
    filled = round(ratio * width)
    return Text.assemble(("█" * filled, Tone.ACCENT.style), ("░" * (width - filled), Tone.MUTED.style),
                         f" {ratio:4.0%}")
