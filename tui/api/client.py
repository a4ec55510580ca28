"""The async HTTP client: one method per operation of the interface, grouped by resource.

Knows nothing of Textual. :class:`ApiClient` is the core (:mod:`tui.api.client_core`: the connection pool,
retries, the shared answer cache) with the operations of each resource on an attribute of its own:
``projects``, ``surveys`` and ``batch_exports`` (:mod:`tui.api.resources`).
"""

from __future__ import annotations

from functools import cached_property

from tui.api.client_core import ClientCore
from tui.api.resources.batch_exports import BatchExportsApi
from tui.api.resources.projects import ProjectsApi
from tui.api.resources.surveys import SurveysApi


class ApiClient(ClientCore):
    """All operations of the interface for one project, over one connection pool."""

    @cached_property
    def projects(self) -> ProjectsApi:
        return ProjectsApi(self)

    @cached_property
    def surveys(self) -> SurveysApi:
        return SurveysApi(self)

    @cached_property
    def batch_exports(self) -> BatchExportsApi:
        return BatchExportsApi(self)

    def __repr__(self) -> str:  # never the key (nor a password written into the URL)
        return f"ApiClient(host={self._host!r}, project_id={self.project_id!r})"

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def with_project(self, project_id: str) -> ApiClient:
        """A client for another project sharing this one's settings (not its pool)."""
        auth = self._headers.get("Authorization", "").removeprefix("Bearer ")
        return ApiClient(self.base_url, auth, project_id, timeout=self.timeout, max_retries=self.max_retries,
                         max_in_flight=self.max_in_flight, max_retry_wait=self.max_retry_wait, sleep=self._sleep,
                         cache=self._cache)
