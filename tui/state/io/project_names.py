"""What the header calls a project: ``Acme · production`` (organization · project), asked once per project.

The project's name comes from ``projects/:id/``; the organization's from the
key's user (``users/@me/``), which a key without ``user:read`` may not read:
then the project's name alone. Nothing here is retried: a name is a nicety.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from tui.api.client import ApiClient
from tui.api.errors import ApiError
from tui.api.urls import api_path, project_path


def project_label(project: str | None, organization: str | None, fallback: str) -> str:
    names = [name for name in (organization, project) if name]
    return " · ".join(names) if names else f"project {fallback}"


def _name(data: Any, *path: str) -> str | None:
    for part in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(part)
    return data if isinstance(data, str) and data.strip() else None


async def fetch_project_label(client: ApiClient, organization: str | None = None) -> tuple[str, str | None]:
    """(label, organization name) for the client's project; pass the organization once known to skip asking."""
    project: str | None = None
    with contextlib.suppress(ApiError):
        project = _name(await client.request("GET", project_path(client.project_id)), "name")
    if organization is None:
        try:
            organization = _name(await client.request("GET", api_path("users", "@me")), "organization", "name")
        except ApiError:
            organization = None
    return project_label(project, organization, client.project_id), organization
