"""Projects and the account endpoints real clients call first: ``users/@me/`` and ``personal_api_keys/@current/``.

``@current`` needs no scope (any valid key may read itself); ``@me`` needs ``user:read``.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.db import loads
from tui.sandbox.endpoint import Ctx, api, int_param, limit_offset, ok, routes
from tui.sandbox.timeutil import iso

FULL_ONLY = frozenset({"created_at"})


@api("project:read")
async def projects_list(ctx: Ctx) -> Response:
    limit = int_param(ctx.request, "limit", 100) or 100
    offset = int_param(ctx.request, "offset", 0)
    with ctx.state.db.read() as c:
        rows = c.execute("SELECT data FROM projects ORDER BY id").fetchall()
    # the list holds "basic" projects, without created_at (the full project, retrieve, has it)
    items = [{k: v for k, v in loads(r["data"]).items() if k not in FULL_ONLY} for r in rows]
    search = ctx.request.query_params.get("search")
    if search:
        items = [p for p in items if search.lower() in p["name"].lower()]
    nxt, prev = limit_offset(ctx.request, len(items), limit, offset)
    return ok({"count": len(items), "next": nxt, "previous": prev, "results": items[offset:offset + limit]})


@api("project:read")
async def project_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        row = c.execute("SELECT data FROM projects WHERE id = ?", (pid,)).fetchone()
    return ok(loads(row["data"]))


@api("user:read")
async def user_me(ctx: Ctx) -> Response:
    with ctx.state.db.read() as c:
        row = c.execute("SELECT data FROM users WHERE id = ?", (ctx.key.user_id,)).fetchone()
        project = loads(c.execute("SELECT data FROM projects WHERE id = 1").fetchone()["data"])
        projects = [loads(r["data"]) for r in c.execute("SELECT data FROM projects ORDER BY id").fetchall()]
    user = loads(row["data"]) if row else {"id": ctx.key.user_id}
    organization = {"id": project["organization"], "name": "Acme", "slug": "acme", "membership_level": 8,
                    "teams": [{"id": p["id"], "name": p["name"]} for p in projects]}
    return ok({**user, "date_joined": "2024-01-08T09:30:00Z", "team": {k: project[k] for k in (
        "id", "uuid", "organization", "name", "timezone")}, "organization": organization,
        "organizations": [{"id": organization["id"], "name": "Acme", "slug": "acme", "membership_level": 8}],
        "scene_personalisation": [], "theme_mode": None, "is_staff": False, "is_2fa_enabled": False,
        "has_password": True})


@api(None)
async def key_current(ctx: Ctx) -> Response:
    """The key that made the request: its scopes (``["*"]`` for all), never its value."""
    key = ctx.key
    return ok({"id": key.key_id, "label": key.label, "value": None, "mask_value": key.mask_value,
               "created_at": "2025-01-06T10:00:00Z", "last_used_at": iso(ctx.now), "user_id": key.user_id,
               "scopes": key.scope_list or ["*"], "scoped_teams": [], "scoped_organizations": [],
               "last_rolled_at": None})


def project_routes() -> list[BaseRoute]:
    out: list[BaseRoute] = []
    out += routes("/api/users/@me", user_me, ["GET"])
    out += routes("/api/personal_api_keys/@current", key_current, ["GET"])
    out += routes("/api/projects", projects_list, ["GET"])
    out += routes("/api/projects/{project_id}", project_retrieve, ["GET"])
    return out
