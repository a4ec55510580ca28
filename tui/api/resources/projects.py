"""Projects, the key's own record and who it belongs to."""

from __future__ import annotations

import builtins

from tui.api.client_core import ClientCore
from tui.api.models.projects import ApiKeyInfo, Project, User
from tui.api.urls import api_path, project_path


class ProjectsApi:
    def __init__(self, client: ClientCore) -> None:
        self._c = client

    async def me(self) -> User:
        """``GET /api/users/@me/`` (needs ``user:read``): who the key belongs to."""
        path = api_path("users", "@me")
        return self._c._one(await self._c.request("GET", path), User, "GET", path)

    async def current_key(self) -> ApiKeyInfo:
        """``GET /api/personal_api_keys/@current/`` (no scope needed): the key's own scopes."""
        path = api_path("personal_api_keys", "@current")
        return self._c._one(await self._c.request("GET", path), ApiKeyInfo, "GET", path)

    async def list(self) -> builtins.list[Project]:
        projects: builtins.list[Project] = []
        async for page in self._c.iterate(api_path("projects"), Project, max_pages=20):
            projects.extend(page.results)
        return projects

    async def get(self, project_id: str) -> Project:
        path = project_path(project_id)
        return self._c._one(await self._c.request("GET", path), Project, "GET", path)
