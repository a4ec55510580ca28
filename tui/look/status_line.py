"""The one-line header of the monitor and the survey browser: badges, then phrases, fitted to the width.

Both screens say the same things the same way: how fresh the data is (a symbol that reads without colour),
the project, and how old the data on screen is.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from tui.look.palette import Tone
from tui.state.freshness import Freshness
from tui.text.clean import clean
from tui.text.words import duration

# The badge of each freshness: a symbol (it reads without colour) and a tone; connecting is bold in both modes.
FRESHNESS_LOOK: dict[Freshness, tuple[str, Tone | None]] = {
    Freshness.CONNECTING: ("◌", None),
    Freshness.LIVE: ("●", Tone.LIVE),
    Freshness.STALE: ("▲", Tone.STALE),
    Freshness.OFFLINE: ("✖", Tone.OFFLINE),
}

# What the status line drops first when it does not fit (fit_status): the counts, failures, alerts and the poll's
# trouble (0) stay; then the filter, the notes (why the interval is stretched), the project, the data's age (the
# freshness badge says whether it is current), the poll interval.
STATUS_FILTER = 1
STATUS_NOTE = 2
STATUS_PROJECT = 3
STATUS_AGE = 4
STATUS_POLL = 5
STATUS_REFRESHING = 6

PROJECT_MOST = 60
"""The most of a project's name the header shows, on a wide screen."""


def project_badge(label: str, width: int) -> tuple[int, str, str]:
    """The project's badge, on both screens: it outlasts the data's age (80 columns keep it), its name cut to a
    third of the line so that the counts beside it still fit."""
    return STATUS_PROJECT, f" {clean(label, limit=min(PROJECT_MOST, max(16, width // 3)))} ", "bold"


def status_line(freshness: Freshness, phrases: Sequence[tuple[int, str, str]], width: int, *, project: str = "",
                age: float | None = None, frozen: bool = False, read_only: bool = False) -> Text:
    """The header of both screens in ``width`` cells: the badges (freshness, project, FROZEN, READ-ONLY), the data's
    age, then the screen's own ``phrases`` (priority, text, style: the lower the number, the longer it stays on a
    narrow line, :func:`fit_status`)."""
    symbol, tone = FRESHNESS_LOOK[freshness]
    look = tone.style if tone is not None else "bold"
    badges: list[tuple[int, str, str]] = [(0, f" {symbol} {freshness.value} ", look)]
    if project:
        badges.append(project_badge(project, width))
    if frozen:
        badges.append((0, " FROZEN ", Tone.FROZEN.style))
    if read_only:
        badges.append((0, " READ-ONLY ", Tone.READ_ONLY.style))
    # whole seconds: the line is drawn every second
    age_phrase = (STATUS_AGE, f"updated {duration(round(age))} ago" if age is not None else "no data yet", "")
    return fit_status(badges, [age_phrase, *phrases], width)


def fit_status(badges: Sequence[tuple[int, str, str]], phrases: Sequence[tuple[int, str, str]], width: int) -> Text:
    """The status line in ``width`` cells: badges, then phrases joined by `` · ``; what does not fit is dropped
    whole, the least needed first (the highest number; the last of equals), and what must stay yet still does
    not fit ends with ``…`` rather than stop mid-word."""
    items = [(priority, index, text, style) for index, (priority, text, style) in enumerate([*badges, *phrases])]

    def assemble(kept: Sequence[tuple[int, int, str, str]]) -> Text:
        shown_badges = [(text, style) for _, index, text, style in kept if index < len(badges)]
        shown_phrases = [(text, style) for _, index, text, style in kept if index >= len(badges)]
        pieces: list[tuple[str, str] | str] = [*shown_badges]
        for number, phrase in enumerate(shown_phrases):
            pieces.append("  " if number == 0 else " · ")
            pieces.append(phrase)
        return Text.assemble(*pieces, no_wrap=True, overflow="ellipsis")

    kept = list(items)
    line = assemble(kept)
    for dropped in sorted((item for item in items if item[0] > 0), key=lambda item: (-item[0], -item[1])):
        if line.cell_len <= width:
            break
        kept.remove(dropped)
        line = assemble(kept)
    return line
