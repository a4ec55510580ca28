"""Batch exports: list, read, write, pause; their runs, backfills and logs.

Where the spec and the real service differ (the backfill route) the spec's form is tried first and the
fallback that worked is remembered for the server, by every client of it in the process
(:mod:`tui.api.route_memory`).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

from tui.api.client_core import ClientCore
from tui.api.errors import ApiError, BadResponse, LogsUnavailable, MethodNotAllowed, NotFound, ValidationFailed
from tui.api.models.batch_exports import (
    BackfillResult,
    BatchExport,
    BatchExportBackfill,
    BatchExportRun,
    CancelResult,
    LogEntry,
    PauseResult,
)
from tui.api.models.common import Page, parse_items
from tui.api.urls import EXPORT_LIST_PAGE_SIZE, Id, batch_exports_path, next_query
from tui.api.writes import check_export_write, iso


def _is_date_input(value: datetime | date) -> bool:
    return not isinstance(value, datetime)


def _bound(value: datetime | date, as_dates: bool) -> str:
    """A backfill bound on the wire: ``YYYY-MM-DD`` where dates are wanted, else an ISO datetime with offset."""
    if isinstance(value, datetime):
        return iso(value)
    if as_dates:
        return value.isoformat()
    return iso(datetime(value.year, value.month, value.day, tzinfo=UTC))


BACKFILL_FORMS = ("backfill/", "backfills/")  # the spec's, then the real service's


class BatchExportsApi:
    def __init__(self, client: ClientCore) -> None:
        self._c = client
        self.logs_refused: LogsUnavailable | None = None  # logs refused to this key: not asked again

    @property
    def base(self) -> str:
        return batch_exports_path(self._c.project_id)

    def _path(self, export_id: str, *rest: str | Id) -> str:
        """A path under one export: ``.../batch_exports/<export>/<rest>/``."""
        return batch_exports_path(self._c.project_id, Id("export", export_id), *rest)

    async def list(self, page_size: int = EXPORT_LIST_PAGE_SIZE, max_pages: int = 50) -> Page[BatchExport]:
        """Every export of the project (the real service's list endpoint; the spec has none)."""
        merged = Page[BatchExport]()
        async for page in self._c.iterate(self.base, BatchExport, {"limit": page_size}, max_pages=max_pages):
            merged.results.extend(page.results)
            merged.errors.extend(page.errors)
            merged.count = page.count
        return merged

    async def get(self, export_id: str) -> BatchExport:
        path = self._path(export_id)
        return self._c._one(await self._c.request("GET", path), BatchExport, "GET", path)

    async def update(self, export_id: str, changes: Mapping[str, Any]) -> BatchExport:
        body = check_export_write(changes)
        path = self._path(export_id)
        return self._c._one(await self._c.request("PATCH", path, json_body=body), BatchExport, "PATCH", path)

    async def delete(self, export_id: str) -> None:
        await self._c.request("DELETE", self._path(export_id))

    async def runs(self, export_id: str, *, after: datetime | str | None = None,
                   before: datetime | str | None = None, ordering: str | None = None,
                   status: Iterable[str] = (), next_url: str | None = None) -> Page[BatchExportRun]:
        """One page of runs (cursor pagination); pass ``next_url`` from a page to get the following one.

        ``status`` (repeatable) is the newest service's filter; a server without it answers every status,
        so callers keep only the statuses they asked for. A ``next_url`` gives the page's query only.
        """
        path = self._path(export_id, "runs")
        if next_url:
            return await self._c.get_page(path, BatchExportRun, next_query(next_url))
        params: list[tuple[str, Any]] = []
        for key, value in (("after", after), ("before", before)):
            if value is not None:
                params.append((key, iso(value) if isinstance(value, datetime) else value))
        if ordering:
            params.append(("ordering", ordering))
        params.extend(("status", value) for value in status)
        return await self._c.get_page(path, BatchExportRun, params or None)

    async def backfill(self, export_id: str, start_at: datetime | date, end_at: datetime | date) -> BackfillResult:
        """Spec's ``backfill/`` first; on 404/405 the real ``backfills/``; the form that worked is kept for the server.

        Dates (a day or week export's bounds) are what the newest service's ``backfills/`` takes, as
        ``YYYY-MM-DD``; ``backfill/`` (older servers only) wants datetimes with an offset, so there a date
        goes as midnight UTC, and so it does on ``backfills/`` once a server has called a date naive.
        A remembered form that stops answering (the server changed generation) is learned again; when no
        form answers, the error is the remembered form's (an export that is gone), else the last one's.
        """
        route = self._c.routes.backfill(self._c.base_url)
        known = route.path
        forms = [known, *(f for f in BACKFILL_FORMS if f != known)] if known else list(BACKFILL_FORMS)
        errors: builtins.list[ApiError] = []
        paths = {form: self._path(export_id, form.rstrip("/")) for form in forms}
        for form in forms:
            as_dates = form == "backfills/" and route.dates
            try:
                data = await self._post_bounds(paths[form], start_at, end_at, as_dates)
            except (NotFound, MethodNotAllowed) as err:
                errors.append(err)
                continue
            except ValidationFailed as err:
                if not (as_dates and _is_date_input(start_at) and "naive" in (err.detail or "")):
                    raise
                route.dates = False  # an older server: its backfills/ wants datetimes too
                data = await self._post_bounds(paths[form], start_at, end_at, False)
            route.path = form
            return self._backfill_result(data, paths[form])
        raise errors[0] if known else errors[-1]

    async def _post_bounds(self, path: str, start_at: datetime | date, end_at: datetime | date,
                           as_dates: bool) -> Any:
        body = {"start_at": _bound(start_at, as_dates), "end_at": _bound(end_at, as_dates)}
        return await self._c.request("POST", path, json_body=body)

    def _backfill_result(self, data: Any, path: str) -> BackfillResult:
        if isinstance(data, Mapping):
            result = self._c._one(data, BackfillResult, "POST", path)
            if result.backfill_id is None and isinstance(data.get("id"), str):
                result.backfill_id = data["id"]
            return result
        return BackfillResult()

    async def pause(self, export_id: str) -> PauseResult:
        path = self._path(export_id, "pause")
        data = await self._c.request("POST", path, json_body={})
        return self._c._one(data, PauseResult, "POST", path) if data is not None else PauseResult(paused=True)

    async def unpause(self, export_id: str) -> PauseResult:
        path = self._path(export_id, "unpause")
        data = await self._c.request("POST", path, json_body={})
        return self._c._one(data, PauseResult, "POST", path) if data is not None else PauseResult(paused=False)

    async def retry_run(self, export_id: str, run_id: str) -> BackfillResult:
        path = self._path(export_id, "runs", Id("run", run_id), "retry")
        return self._backfill_result(await self._c.request("POST", path, json_body={}), path)

    async def backfills(self, export_id: str, *, next_url: str | None = None) -> Page[BatchExportBackfill]:
        """One page of the export's backfills, newest first (the real service's list; the spec has none)."""
        path = self._path(export_id, "backfills")
        return await self._c.get_page(path, BatchExportBackfill, next_query(next_url) if next_url else None)

    async def cancel_backfill(self, export_id: str, backfill_id: str) -> CancelResult:
        path = self._path(export_id, "backfills", Id("backfill", backfill_id), "cancel")
        data = await self._c.request("POST", path, json_body={})
        return CancelResult.model_validate(data) if isinstance(data, Mapping) else CancelResult(cancelled=True)

    async def cancel_run(self, export_id: str, run_id: str) -> CancelResult:
        """Cancel a Running or Starting run (the real service answers 400 for any other status)."""
        path = self._path(export_id, "runs", Id("run", run_id), "cancel")
        data = await self._c.request("POST", path, json_body={})
        return CancelResult.model_validate(data) if isinstance(data, Mapping) else CancelResult(cancelled=True)

    @staticmethod
    def _log_params(level: str | Iterable[str] | None, search: str | None, after: datetime | str | None,
                    before: datetime | str | None, limit: int | None) -> builtins.list[tuple[str, Any]]:
        params: builtins.list[tuple[str, Any]] = []
        levels = [level] if isinstance(level, str) else builtins.list(level or [])
        for name in levels:
            params.append(("level", name.upper()))
            if name.upper() == "WARN":  # Python writers emit WARNING
                params.append(("level", "WARNING"))
        if search:
            params.append(("search", search))
        for key, value in (("after", after), ("before", before)):
            if value is not None:
                params.append((key, iso(value) if isinstance(value, datetime) else value))
        if limit is not None:
            params.append(("limit", max(1, min(500, limit))))
        return params

    async def _logs(self, path: str, params: builtins.list[tuple[str, Any]]) -> builtins.list[LogEntry]:
        if self.logs_refused is not None:
            raise self.logs_refused  # said once by the server; asking again would only be refused again
        try:
            data = await self._c.request("GET", path, params=params or None)
        except LogsUnavailable as err:
            self.logs_refused = err
            raise
        raw = data.get("results") if isinstance(data, Mapping) else data
        if not isinstance(raw, list):
            raise BadResponse(f"Unexpected answer to GET {path}: no results list.", method="GET", path=path)
        entries, _ = parse_items(raw, LogEntry)
        return entries

    async def logs(self, export_id: str, level: str | Iterable[str] | None = None, search: str | None = None,
                   after: datetime | str | None = None, before: datetime | str | None = None,
                   limit: int | None = None) -> builtins.list[LogEntry]:
        """The export's log entries, newest first. Raises LogsUnavailable where keys may not read logs."""
        return await self._logs(self._path(export_id, "logs"), self._log_params(level, search, after, before, limit))

    async def run_logs(self, export_id: str, run_id: str, level: str | Iterable[str] | None = None,
                       search: str | None = None, after: datetime | str | None = None,
                       before: datetime | str | None = None, limit: int | None = None) -> builtins.list[LogEntry]:
        path = self._path(export_id, "runs", Id("run", run_id), "logs")
        return await self._logs(path, self._log_params(level, search, after, before, limit))
