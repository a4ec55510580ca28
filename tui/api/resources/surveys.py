"""Surveys: list, read, write and delete them; their activity, stats, response counts and summaries."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import Any

from tui.api.client_core import ClientCore
from tui.api.models.common import Page
from tui.api.models.surveys import ActivityEntry, ResponseSummary, Survey, SurveyStats
from tui.api.survey_rules import SEARCH_MAX
from tui.api.urls import Id, project_path
from tui.api.writes import check_survey_write, iso


class SurveysApi:
    def __init__(self, client: ClientCore) -> None:
        self._c = client

    @property
    def base(self) -> str:
        return project_path(self._c.project_id, "surveys")

    def _path(self, *rest: str | Id) -> str:
        return project_path(self._c.project_id, "surveys", *rest)

    def _survey(self, survey_id: str, *rest: str) -> str:
        return self._path(Id("survey", survey_id), *rest)

    async def list(self, limit: int | None = None, offset: int | None = None,
                   search: str | None = None, archived: bool | None = None) -> Page[Survey]:
        """One page; ``search`` and ``archived`` are the real service's filters (older servers ignore them).

        A search longer than the newest service takes (``SEARCH_MAX``) is cut there, as older servers cut it.
        """
        params: dict[str, Any] = {}
        if limit is not None:
            params["limit"] = limit
        if offset is not None:
            params["offset"] = offset
        if search:
            params["search"] = search[:SEARCH_MAX]
        if archived is not None:
            params["archived"] = "true" if archived else "false"
        return await self._c.get_page(self.base, Survey, params or None)

    async def iterate(self, page_size: int = 100) -> AsyncIterator[Page[Survey]]:
        async for page in self._c.iterate(self.base, Survey, {"limit": page_size, "offset": 0}):
            yield page

    async def get(self, survey_id: str) -> Survey:
        path = self._survey(survey_id)
        return self._c._one(await self._c.request("GET", path), Survey, "GET", path)

    async def create(self, fields: Mapping[str, Any]) -> Survey:
        body = check_survey_write(fields, creating=True)
        data = await self._c.request("POST", self.base, json_body=body)
        return self._c._one(data, Survey, "POST", self.base)

    async def update(self, survey_id: str, changes: Mapping[str, Any],
                     existing: Mapping[str, Any] | None = None) -> Survey:
        """PATCH exactly the given fields; ``existing`` (the survey as stored) lets every rule be checked first."""
        body = check_survey_write(changes, existing=existing)
        path = self._survey(survey_id)
        return self._c._one(await self._c.request("PATCH", path, json_body=body), Survey, "PATCH", path)

    async def delete(self, survey_id: str) -> None:
        await self._c.request("DELETE", self._survey(survey_id))

    async def activity(self, survey_id: str | None = None, *, limit: int | None = None,
                       max_items: int = 500) -> builtins.list[ActivityEntry]:
        """Activity of one survey (or of all, for None), newest first, following ``next`` up to ``max_items``."""
        path = self._path("activity") if survey_id is None else self._survey(survey_id, "activity")
        params = {"limit": limit} if limit else None
        entries: builtins.list[ActivityEntry] = []
        async for page in self._c.iterate(path, ActivityEntry, params):
            entries.extend(page.results)
            if len(entries) >= max_items:
                return entries[:max_items]
        return entries

    async def summarize_responses(self, survey_id: str, question_index: int | None = None) -> ResponseSummary:
        path = self._survey(survey_id, "summarize_responses")
        params = {"question_index": question_index} if question_index is not None else None
        data = await self._c.request("POST", path, params=params, json_body={})
        if data is None or not isinstance(data, Mapping):
            return ResponseSummary(content=None if data is None else str(data))
        return self._c._one(data, ResponseSummary, "POST", path)

    async def stats(self, survey_id: str, *, date_from: datetime | None = None,
                    date_to: datetime | None = None) -> SurveyStats:
        """Shown, dismissed and sent counts and rates, within ``date_from``/``date_to`` where given (not every
        server has this endpoint: 404 there)."""
        path = self._survey(survey_id, "stats")
        params = {key: iso(value) for key, value in (("date_from", date_from), ("date_to", date_to))
                  if value is not None}
        return self._c._one(await self._c.request("GET", path, params=params or None), SurveyStats, "GET", path)

    async def responses_count(self) -> dict[str, int]:
        """Survey id -> count; a survey absent from the map has none."""
        data = await self._c.request("GET", self._path("responses_count"))
        if not isinstance(data, Mapping):
            return {}
        return {str(k): int(v) for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
