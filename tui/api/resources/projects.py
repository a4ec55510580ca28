"""Projects, the key's own record and who it belongs to."""

from __future__ import annotations

import builtins

from tui.api.client_core import ClientCore
from tui.api.models.projects import ApiKeyInfo, Project, User


class ProjectsApi:
    def __init__(self, client: ClientCore) -> None:
        self._c = client

    async def me(self) -> User:
        """``GET /api/users/@me/`` (needs ``user:read``): who the key belongs to."""
        data = await self._c.request("GET", "/api/users/@me/")
        return self._c._one(data, User, "GET", "/api/users/@me/")

    async def current_key(self) -> ApiKeyInfo:
        """``GET /api/personal_api_keys/@current/`` (no scope needed): the key's own scopes."""
        path = "/api/personal_api_keys/@current/"
        return self._c._one(await self._c.request("GET", path), ApiKeyInfo, "GET", path)

    async def list(self) -> builtins.list[Project]:
        projects: builtins.list[Project] = []
        async for page in self._c.iterate("/api/projects/", Project, max_pages=20):
            projects.extend(page.results)
        return projects

    async def get(self, project_id: str) -> Project:
        path = f"/api/projects/{project_id}/"
        return self._c._one(await self._c.request("GET", path), Project, "GET", path)
