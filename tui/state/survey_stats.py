"""A survey's results as a product manager reads them: rates, respondents, and responses per week (pure).

The real service answers ``surveys/:id/stats/`` with a live query each time, optionally within ``date_from`` and
``date_to``. The trend is eight weekly windows ending at the next UTC midnight on the server's clock: the seven
whole weeks before the current one never change once read, so they are read once; only the current week and the
survey's total are read again, at most once per :data:`MAX_AGE` seconds. :class:`StatsBook` keeps what was read,
bounded.

The survey list shows each visible survey's response rate from the total alone (:meth:`StatsBook.due_totals`): one
read per survey, again only once older than ``max_age``; a read that failed is not asked again before then either.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tui.api.models.surveys import SurveyStats

WEEKS = 8
MAX_AGE = 60.0
"""Seconds before the total and the current week are read again (a live query on the real service)."""
MAX_ENTRIES = 4096
"""Windows kept at most (nine per survey looked at): the oldest read are forgotten first."""
SENT = "survey sent"
BARS = "▁▂▃▄▅▆▇█"

Window = tuple[datetime | None, datetime | None]
TOTAL: Window = (None, None)


def weekly_windows(now: datetime, weeks: int = WEEKS) -> list[Window]:
    """``weeks`` windows of seven days, oldest first, the last ending at the UTC midnight after ``now``."""
    today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    end = today + timedelta(days=1)
    return [(end - timedelta(days=7 * (k + 1)), end - timedelta(days=7 * k)) for k in reversed(range(weeks))]


@dataclass
class _Entry:
    read_at: float  # monotonic seconds
    stats: SurveyStats


class StatsBook:
    """What was read of each survey's stats, by window; says which reads are due."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_age: float = MAX_AGE) -> None:
        self.max_entries = max_entries
        self.max_age = max_age
        self._entries: dict[tuple[str, Window], _Entry] = {}
        self._failed: dict[str, float] = {}  # survey id -> when reading its total failed (monotonic seconds)
        self._asking: set[tuple[str, Window]] = set()  # windows being read now: not due to anyone else meanwhile

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, survey_id: str, window: Window, stats: SurveyStats, read_at: float) -> None:
        key = (survey_id, window)
        self._entries.pop(key, None)
        self._entries[key] = _Entry(read_at, stats)
        while len(self._entries) > self.max_entries:
            del self._entries[next(iter(self._entries))]
        if window == TOTAL:
            self._failed.pop(survey_id, None)

    @contextmanager
    def reading(self, survey_id: str, window: Window) -> Iterator[None]:
        """While the window is being read it is not due (the list and the detail never read it twice at once)."""
        key = (survey_id, window)
        self._asking.add(key)
        try:
            yield
        finally:
            self._asking.discard(key)

    def fail(self, survey_id: str, mono: float) -> None:
        """Reading the survey's total failed: not asked again for ``max_age`` seconds (what was read stays)."""
        self._failed.pop(survey_id, None)
        self._failed[survey_id] = mono
        while len(self._failed) > self.max_entries:
            del self._failed[next(iter(self._failed))]

    def failed(self, survey_id: str) -> bool:
        """The last read of the survey's total failed (and none succeeded since)."""
        return survey_id in self._failed

    def get(self, survey_id: str, window: Window = TOTAL) -> SurveyStats | None:
        entry = self._entries.get((survey_id, window))
        return entry.stats if entry is not None else None

    def due(self, survey_id: str, now: datetime, mono: float, *, trend: bool = True) -> list[Window]:
        """The windows to read now: the total and (with ``trend``) the weeks, each unless already read; the total
        and a week that is not over yet again once older than ``max_age``."""
        wanted = [TOTAL, *(weekly_windows(now) if trend else [])]
        out = []
        for window in wanted:
            entry = self._entries.get((survey_id, window))
            settled = window[1] is not None and window[1] <= now
            if (survey_id, window) in self._asking:
                continue
            if entry is None or (not settled and mono - entry.read_at > self.max_age):
                out.append(window)
        failed_at = self._failed.get(survey_id)
        if failed_at is not None and mono - failed_at <= self.max_age and TOTAL in out:
            out.remove(TOTAL)
        return out

    def due_totals(self, survey_ids: Iterable[str], now: datetime, mono: float) -> Iterator[str]:
        """The surveys of ``survey_ids`` whose total is due (never read, or older than ``max_age``), in order."""
        return (survey_id for survey_id in survey_ids if self.due(survey_id, now, mono, trend=False))

    def trend(self, survey_id: str, now: datetime) -> list[int | None]:
        """Responses per week, oldest first (None for a week not read)."""
        out: list[int | None] = []
        for window in weekly_windows(now):
            stats = self.get(survey_id, window)
            out.append(stats.count(SENT) if stats is not None else None)
        return out


def trend_text(counts: Sequence[int | None]) -> str | None:
    """``▁▃█▅▂▁▁▄  2 5 14 9 3 1 1 6 a week`` (oldest first); ``·`` for a week not read; None when none was."""
    known = [c for c in counts if c is not None]
    if not known:
        return None
    top = max(known)
    bars = "".join("·" if c is None else BARS[0] if top == 0 else BARS[min(len(BARS) - 1, c * len(BARS) // (top + 1))]
                   for c in counts)
    numbers = " ".join("?" if c is None else f"{c:,}" for c in counts)
    return f"{bars}  {numbers} a week"


def rates_text(stats: SurveyStats) -> str | None:
    """``33.4 % responded · 12.1 % dismissed · 321 respondents``; None when the server sent none of them."""
    parts = []
    for value, words in ((stats.response_rate, "responded"), (stats.dismissal_rate, "dismissed")):
        if value is not None:
            parts.append(f"{value:g} % {words}")
    respondents = stats.unique_respondents
    if respondents is not None:
        parts.append(f"{respondents:,} respondent" + ("" if respondents == 1 else "s"))
    return " · ".join(parts) or None


def rate_text(stats: SurveyStats) -> str:
    """The list's Rate cell: ``33.4 %`` of those shown the survey responded; ``—`` while nobody was shown it (the
    service then answers a rate of 0, which would read as nobody answering)."""
    shown, rate = stats.count("survey shown"), stats.response_rate
    if not shown or rate is None:
        return "—"
    return f"{rate:.1f} %"
