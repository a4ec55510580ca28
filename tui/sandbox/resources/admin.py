"""The ``/_sandbox/`` control endpoints (no auth, never faulted) and the OpenAPI document."""

from __future__ import annotations

import json
from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.endpoint import app_state, ok, routes
from tui.sandbox.errors import validation_error
from tui.sandbox.faults import parse_fault
from tui.sandbox.openapi import build_schema
from tui.sandbox.outages import add_outage, end_outages, list_outages, parse_outage
from tui.sandbox.timeutil import iso, parse_iso


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
    """GET reads the sandbox's clock; POST ``{"now": ISO}`` or ``{"advance_seconds": N}`` moves it.

    Its answers' ``Date`` header follows this clock, as a real server's follows its own: moving it is
    how tests put the server's clock ahead of (or behind) the client's.
    """
    state = app_state(request)
    if request.method == "POST":
        try:
            data = json.loads(await request.body() or b"{}")
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            if "now" in data:
                target = parse_iso(str(data["now"]))
            else:
                target = state.clock.now() + timedelta(seconds=float(data["advance_seconds"]))
        except (ValueError, TypeError, KeyError) as exc:
            return validation_error(f"expected now or advance_seconds: {exc}", None).response()
        mover = getattr(state.clock, "set", None) or getattr(state.clock, "jump_to", None)
        if not callable(mover):
            return validation_error("this sandbox's clock cannot be moved", None).response()
        mover(target)
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


async def admin_outages(request: Request) -> Response:
    """GET lists outages; POST ``{"destination", "start"?, "end"? | "minutes"?, "error"?, "fails_after"?}`` starts
    one (from now and open-ended by default); DELETE ends every outage now."""
    state = app_state(request)
    now = state.clock.now()
    if request.method == "GET":
        with state.db.read() as c:
            return ok({"results": list_outages(c)})
    if request.method == "DELETE":
        with state.db.transaction() as c:
            ended = end_outages(c, now)
        return ok({"ended": ended})
    try:
        data = json.loads(await request.body() or b"{}")
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        dest, start, end, error, fails_after = parse_outage(data, now)
    except (ValueError, TypeError, KeyError) as exc:
        return validation_error(str(exc), None).response()
    with state.db.transaction() as c:
        return ok(add_outage(c, dest, start, end, error, fails_after), 201)


async def openapi_schema(request: Request) -> Response:
    return ok(build_schema(str(request.base_url).rstrip("/"), app_state(request).options.generation))


def admin_routes() -> list[BaseRoute]:
    out: list[BaseRoute] = []
    out += routes("/api/schema", openapi_schema, ["GET"])
    out += routes("/_sandbox/faults", admin_faults, ["GET", "POST", "DELETE"])
    out += routes("/_sandbox/requests", admin_requests, ["GET", "DELETE"])
    out += routes("/_sandbox/clock", admin_clock, ["GET", "POST"])
    out += routes("/_sandbox/reset", admin_reset, ["POST"])
    out += routes("/_sandbox/tick", admin_tick, ["POST"])
    out += routes("/_sandbox/outages", admin_outages, ["GET", "POST", "DELETE"])
    return out
