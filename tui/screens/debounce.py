"""How long a screen waits for the operator to stop (moving the cursor, typing) before it asks the server or redraws.

Each wait starts again at the next move or key, so holding a key through a list, or typing a word, asks once: when
it stops. The times are one value, ``DEBOUNCE``, read each time a wait starts; the tests shorten them all at once
(``tests/conftest.py``), and the tests of the waiting itself keep them as they ship.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEBOUNCE", "Debounce"]


@dataclass(frozen=True)
class Debounce:
    """The waits, in seconds."""

    runs: float = 0.15
    """Monitor: the selected export's run history is asked once the cursor rests this long."""
    stats: float = 0.3
    """Survey list, full-screen detail: the survey's stats (a live query upstream) once the cursor rests this long."""
    search: float = 0.3
    """Survey list and logs: the server is searched once typing pauses this long."""
    rates: float = 0.3
    """Survey list: the response rates of the rows on screen are read once the list stays still this long."""


DEBOUNCE = Debounce()
