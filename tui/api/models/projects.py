"""Projects, the API key's own record, and users (who a key belongs to, who made a survey)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tui.api.models.common import ProjectId, ReadModel, Timestamp


class User(ReadModel):
    id: int | None = None
    uuid: str | None = None
    distinct_id: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    is_email_verified: bool | None = None
    hedgehog_config: dict[str, Any] | None = None

    @property
    def display_name(self) -> str:
        name = " ".join(p for p in (self.first_name, self.last_name) if p)
        return str(name or self.email or "unknown")


class Project(ReadModel):
    """A project; ``created_at`` comes with the full project (``projects/:id/``), not with the basic list."""

    id: ProjectId
    uuid: str | None = None
    organization: str | None = None
    name: str = ""
    timezone: str | None = None
    created_at: Timestamp = None  # a backfill starting before it can have no data


class ApiKeyInfo(ReadModel):
    """``personal_api_keys/@current/``: the key's own label and scopes (``["*"]`` is every scope)."""

    id: str | None = None
    label: str | None = None
    mask_value: str | None = None
    scopes: list[str] = Field(default_factory=list)
    scoped_teams: list[int] | None = None
    scoped_organizations: list[str] | None = None
    created_at: Timestamp = None
    last_used_at: Timestamp = None
