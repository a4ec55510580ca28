"""Projects (the account-level endpoints real clients call first)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.db import loads
from tui.sandbox.endpoint import Ctx, api, int_param, limit_offset, ok, routes


@api("project:read")
async def projects_list(ctx: Ctx) -> Response:
    limit = int_param(ctx.request, "limit", 100) or 100
    offset = int_param(ctx.request, "offset", 0)
    with ctx.state.db.read() as c:
        rows = c.execute("SELECT data FROM projects ORDER BY id").fetchall()
    items = [loads(r["data"]) for r in rows]
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


def project_routes() -> list[BaseRoute]:
    out: list[BaseRoute] = []
    out += routes("/api/projects", projects_list, ["GET"])
    out += routes("/api/projects/{project_id}", project_retrieve, ["GET"])
    return out
