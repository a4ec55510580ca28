"""The ``/_sandbox/`` control endpoints (no auth, never faulted) and the OpenAPI document."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.endpoint import app_state, ok, routes
from tui.sandbox.errors import validation_error
from tui.sandbox.faults import parse_fault
from tui.sandbox.openapi import build_schema
from tui.sandbox.timeutil import iso


async def admin_faults(request: Request) -> Response:
    state = app_state(request)
    if request.method == "GET":
        return ok({"results": state.faults.list()})
    if request.method == "DELETE":
        state.faults.clear()
        return Response(status_code=204)
    try:
        data = json.loads(await request.body() or b"{}")
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        fault = state.faults.add(parse_fault(data))
    except (ValueError, TypeError) as exc:
        return validation_error(str(exc), None).response()
    return ok(fault.to_dict(), 201)


async def admin_requests(request: Request) -> Response:
    state = app_state(request)
    if request.method == "DELETE":
        state.requests.clear()
        return Response(status_code=204)
    return ok({"results": state.requests.list()})


async def admin_clock(request: Request) -> Response:
    state = app_state(request)
    return ok({"now": iso(state.clock.now()), "speed": getattr(state.clock, "speed", 0.0)})


async def admin_reset(request: Request) -> Response:
    state = app_state(request)
    state.reset()
    state.requests.clear()
    return ok({"reset": True, "now": iso(state.clock.now())})


async def admin_tick(request: Request) -> Response:
    state = app_state(request)
    state.simulator.tick()
    return ok({"now": iso(state.clock.now())})


async def openapi_schema(request: Request) -> Response:
    return ok(build_schema(str(request.base_url).rstrip("/")))


def admin_routes() -> list[BaseRoute]:
    out: list[BaseRoute] = []
    out += routes("/api/schema", openapi_schema, ["GET"])
    out += routes("/_sandbox/faults", admin_faults, ["GET", "POST", "DELETE"])
    out += routes("/_sandbox/requests", admin_requests, ["GET", "DELETE"])
    out += routes("/_sandbox/clock", admin_clock, ["GET"])
    out += routes("/_sandbox/reset", admin_reset, ["POST"])
    out += routes("/_sandbox/tick", admin_tick, ["POST"])
    return out
