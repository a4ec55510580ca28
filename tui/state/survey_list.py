"""The survey browser's data: a lazy, offset-paged list, its filters and sort, and the responses counts.

No Textual here, so the paging rules can be tested without a screen.

Why it looks the way it does:

* 10,000 surveys must not be loaded before the first page shows, so the list
  is fetched one ``limit``/``offset`` page at a time as the operator scrolls.
* A parsed :class:`~tui.api.models.Survey` is many Python objects: 10,000 of
  them alone would break the memory budget (``make bench`` prints it). A
  loaded survey is therefore kept as a small :class:`SurveyRow` (the columns)
  plus its JSON, zlib-compressed; the detail pane decompresses and parses the
  one it shows.
* The name filter is the server's ``search``; the status is derived from
  dates (there is no server field), so the status filter runs here, on the
  pages loaded so far, and the screen keeps loading while too few rows match.
* Offsets shift when surveys are deleted under us; rows are de-duplicated by
  id, and a local delete moves the next offset back by one so no survey is
  skipped.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from tui.api.models.common import Page
from tui.api.models.surveys import Survey, SurveyStatus, survey_status

PAGE_SIZE = 100
PACK_CHUNK = 20  # surveys packed per event-loop step (see SurveyPager.fetch_next)
COUNTS_MAX_AGE = 60.0  # seconds of elapsed time
REFRESH_PAGES = 3  # the most pages one refresh of the list reads again

#: Held so pydantic's cache of parametrized models (a WeakValueDictionary) keeps ``Page[Survey]``:
#: unreferenced, the class would be collected and rebuilt for every page (with its cyclic garbage).
SURVEY_PAGE: type[Page[Survey]] = Page[Survey]

#: ``f`` cycles through these; None means every status.
STATUS_CYCLE: tuple[SurveyStatus | None, ...] = (
    None,
    SurveyStatus.DRAFT,
    SurveyStatus.RUNNING,
    SurveyStatus.COMPLETE,
    SurveyStatus.ARCHIVED,
)


class SurveyLister(Protocol):
    """What the pager needs from ``ApiClient.surveys``; a protocol so tests can pass a fake."""

    async def list(self, limit: int | None = None, offset: int | None = None,
                   search: str | None = None) -> Page[Survey]: ...


@dataclass(slots=True)
class SurveyRow:
    """One loaded survey: the values the table shows and sorts on, and the survey as JSON."""

    id: str
    name: str
    type: str
    archived: bool
    start_date: datetime | None
    end_date: datetime | None
    responses_limit: int | None
    question_count: int
    creator: str
    created_at: datetime | None
    packed: bytes

    @classmethod
    def from_survey(cls, survey: Survey) -> SurveyRow:
        return cls(
            id=survey.id,
            name=survey.name,
            type=survey.type or "",
            archived=survey.archived,
            start_date=survey.start_date,
            end_date=survey.end_date,
            responses_limit=survey.responses_limit,
            question_count=len(survey.questions or []),
            creator=survey.created_by.display_name if survey.created_by else "",
            created_at=survey.created_at,
            packed=zlib.compress(survey.model_dump_json(exclude_unset=True, by_alias=True).encode(), 1),
        )

    def survey(self) -> Survey:
        """The full survey, parsed again when the detail pane needs it."""
        return Survey.model_validate_json(zlib.decompress(self.packed))

    def status_at(self, now: datetime) -> SurveyStatus:
        """Same rule as :meth:`Survey.status_at`, without parsing the whole survey."""
        return survey_status(self.archived, self.start_date, self.end_date, now)

    def limit_reached(self, responses: int | None) -> bool:
        """A running survey whose responses reached its ``responses_limit`` (the server stops it on its next sweep)."""
        return bool(self.responses_limit) and responses is not None and responses >= (self.responses_limit or 0)


@dataclass
class PageResult:
    """What one fetch brought back, tagged with the query generation it was asked for."""

    generation: int
    offset: int
    page: Page[Survey]
    rows: list[SurveyRow] | None = None  # page.results packed ahead (fetch_next), else packed by accept


@dataclass
class Refresh:
    """Pages read again, ``(offset, rows)`` each, for the query generation they were asked for."""

    generation: int
    pages: list[tuple[int, list[SurveyRow]]]


@dataclass
class SurveyPager:
    """Offset paging state of one query (one ``search`` text)."""

    page_size: int = PAGE_SIZE
    search: str = ""
    rows: list[SurveyRow] = field(default_factory=list)
    total: int | None = None
    next_offset: int = 0
    exhausted: bool = False
    generation: int = 0
    skipped: int = 0  # items the server sent that did not parse
    by_id: dict[str, SurveyRow] = field(default_factory=dict)

    def reset(self, search: str = "") -> None:
        """Start over for a new search text; results of older fetches are then ignored."""
        self.search = search
        self.rows = []
        self.by_id = {}
        self.total = None
        self.next_offset = 0
        self.exhausted = False
        self.skipped = 0
        self.generation += 1

    @property
    def loaded(self) -> int:
        return len(self.rows)

    async def fetch_next(self, lister: SurveyLister) -> PageResult:
        """Fetch the next page and pack its surveys; does not change state (apply it with :meth:`accept`).

        Packing (JSON dump + zlib) is done here in steps of PACK_CHUNK surveys so the UI never waits
        for a whole page of it in one go (a garbage collection landing in that step would add to it).
        """
        generation, offset = self.generation, self.next_offset
        page = await lister.list(limit=self.page_size, offset=offset, search=self.search or None)
        rows: list[SurveyRow] = []
        for start in range(0, len(page.results), PACK_CHUNK):
            await asyncio.sleep(0)
            rows.extend(SurveyRow.from_survey(survey) for survey in page.results[start:start + PACK_CHUNK])
        return PageResult(generation, offset, page, rows)

    def accept(self, result: PageResult) -> list[SurveyRow] | None:
        """Add a fetched page; returns the new rows, or None when the page belongs to an older query."""
        if result.generation != self.generation or result.offset != self.next_offset:
            return None
        page = result.page
        packed = result.rows if result.rows is not None else [SurveyRow.from_survey(s) for s in page.results]
        new: list[SurveyRow] = []
        for row in packed:
            if row.id not in self.by_id:
                self.by_id[row.id] = row
                new.append(row)
        self.rows.extend(new)
        received = len(page.results) + len(page.errors)
        self.skipped += len(page.errors)
        self.next_offset += received
        if page.count is not None:
            self.total = page.count
        if received == 0 or not page.next or (self.total is not None and self.next_offset >= self.total):
            self.exhausted = True
            self.total = self.loaded + self.skipped if self.total is None else self.total
        return new

    def replace(self, survey: Survey) -> SurveyRow | None:
        """Swap in the server's answer to an edit; returns the new row (None when not loaded)."""
        if survey.id not in self.by_id:
            return None
        row = SurveyRow.from_survey(survey)
        self.rows[self.rows.index(self.by_id[survey.id])] = row
        self.by_id[row.id] = row
        return row

    def insert_first(self, survey: Survey) -> SurveyRow:
        """A survey created here: shown first (the server orders newest first) and counted."""
        row = SurveyRow.from_survey(survey)
        if row.id in self.by_id:
            self.rows.remove(self.by_id[row.id])
        else:
            self.next_offset += 1
            if self.total is not None:
                self.total += 1
        self.rows.insert(0, row)
        self.by_id[row.id] = row
        return row

    def remove(self, survey_id: str) -> bool:
        """A survey deleted here: dropped, and the next offset moves back so no survey is skipped."""
        row = self.by_id.pop(survey_id, None)
        if row is None:
            return False
        self.rows.remove(row)
        self.next_offset = max(0, self.next_offset - 1)
        if self.total is not None:
            self.total = max(0, self.total - 1)
        return True

    def get(self, survey_id: str) -> SurveyRow | None:
        return self.by_id.get(survey_id)

    # ------------------------------------------------------------------ refresh

    def refresh_offsets(self, survey_ids: Iterable[str], most: int = REFRESH_PAGES) -> list[int]:
        """The offsets of the pages to read again so these rows are current: the first page (where surveys created
        elsewhere appear) and the pages that hold them, in the server's order, at most ``most``."""
        wanted = set(survey_ids)
        pages = {0} | {index // self.page_size for index, row in enumerate(self.rows) if row.id in wanted}
        return [page * self.page_size for page in sorted(pages)[:most]]

    async def fetch_refresh(self, lister: SurveyLister, offsets: Iterable[int]) -> Refresh:
        """Read the pages at ``offsets`` again (does not change state: apply the answer with :meth:`merge`)."""
        generation = self.generation
        pages: list[tuple[int, list[SurveyRow]]] = []
        for offset in offsets:
            page = await lister.list(limit=self.page_size, offset=offset, search=self.search or None)
            rows: list[SurveyRow] = []
            for start in range(0, len(page.results), PACK_CHUNK):
                await asyncio.sleep(0)
                rows.extend(SurveyRow.from_survey(survey) for survey in page.results[start:start + PACK_CHUNK])
            pages.append((offset, rows))
        return Refresh(generation, pages)

    def merge(self, refresh: Refresh) -> tuple[list[SurveyRow], list[SurveyRow]]:
        """Take what a refresh read: ``(changed, added)``. A loaded survey whose answer differs is replaced; one not
        loaded that the first page holds was created elsewhere and comes first. An identical answer changes
        nothing (both lists empty). A refresh of an older query changes nothing either."""
        if refresh.generation != self.generation:
            return [], []
        changed: list[SurveyRow] = []
        added: list[SurveyRow] = []
        for offset, rows in refresh.pages:
            for row in rows:
                old = self.by_id.get(row.id)
                if old is None:
                    if offset == 0:
                        added.append(row)
                elif old.packed != row.packed:
                    self.rows[self.rows.index(old)] = row
                    self.by_id[row.id] = row
                    changed.append(row)
        for row in reversed(added):
            self.rows.insert(0, row)
            self.by_id[row.id] = row
            self.next_offset += 1
            if self.total is not None:
                self.total += 1
        return changed, added


# --------------------------------------------------------------------------- status filter and sort


def matches(row: SurveyRow, status: SurveyStatus | None, now: datetime) -> bool:
    return status is None or row.status_at(now) is status


_STATUS_ORDER = {status: index for index, status in enumerate(STATUS_CYCLE[1:])}


@dataclass(frozen=True)
class SortColumn:
    key: str
    label: str
    value: Callable[[SurveyRow, datetime, dict[str, int]], Any]


def _created(row: SurveyRow, now: datetime, counts: dict[str, int]) -> Any:
    return row.created_at.timestamp() if row.created_at else 0.0


SORT_COLUMNS: tuple[SortColumn, ...] = (
    SortColumn("name", "name", lambda r, n, c: r.name.casefold()),
    SortColumn("type", "type", lambda r, n, c: r.type.casefold()),
    SortColumn("status", "status", lambda r, n, c: _STATUS_ORDER.get(r.status_at(n), 9)),
    SortColumn("questions", "questions", lambda r, n, c: r.question_count),
    SortColumn("responses", "responses", lambda r, n, c: c.get(r.id, 0)),
    SortColumn("creator", "creator", lambda r, n, c: r.creator.casefold()),
    SortColumn("created", "created", _created),
)
SORT_BY_KEY = {column.key: column for column in SORT_COLUMNS}


# --------------------------------------------------------------------------- responses counts


class ResponsesCounts:
    """The responses_count map, fetched at most once a minute.

    The real endpoint is a live ClickHouse query on every call with no server
    cache, so the browser must not ask for it per page or
    per key press.
    """

    def __init__(self, monotonic: Callable[[], float], max_age: float = COUNTS_MAX_AGE) -> None:
        self._monotonic = monotonic  # elapsed time: a minute is the operator's, also where the app's clock runs faster
        self.max_age = max_age
        self.counts: dict[str, int] = {}
        self.fetched_at: float | None = None
        self.error: str | None = None

    def due(self) -> bool:
        return self.fetched_at is None or self._monotonic() - self.fetched_at >= self.max_age

    def store(self, counts: dict[str, int]) -> set[str]:
        """Keep a fresh map; returns the survey ids whose count changed."""
        changed = {key for key in set(counts) | set(self.counts) if counts.get(key, 0) != self.counts.get(key, 0)}
        self.counts = dict(counts)
        self.fetched_at = self._monotonic()
        self.error = None
        return changed

    def failed(self, message: str) -> None:
        """Remember the failure but also the time, so a broken endpoint is not hammered."""
        self.fetched_at = self._monotonic()
        self.error = message

    def get(self, survey_id: str) -> int | None:
        if self.fetched_at is None or (self.error is not None and not self.counts):
            return None
        return self.counts.get(survey_id, 0)
