"""Fault injection, the request log and the other admin endpoints."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime

import httpx
import pytest

from tui.sandbox.faults import parse_fault_spec
from tui.sandbox.runner import SandboxHandle, start_sandbox

from .conftest import make_options

Factory = Callable[..., SandboxHandle]
Clients = Callable[..., httpx.Client]

S = "/api/projects/1/surveys/"


@pytest.fixture(scope="module")
def shared_box() -> Iterator[SandboxHandle]:
    with start_sandbox(make_options()) as h:
        yield h


@pytest.fixture
def box(shared_box: SandboxHandle) -> Iterator[SandboxHandle]:
    """One sandbox for this module; faults and the request log are cleared around each test."""
    httpx.delete(shared_box.base_url + "/_sandbox/faults", verify=False)
    yield shared_box
    httpx.delete(shared_box.base_url + "/_sandbox/faults", verify=False)


def _add(h: SandboxHandle, **fault: object) -> dict[str, object]:
    r = httpx.post(h.base_url + "/_sandbox/faults/", json=fault, verify=False)
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_status_fault_with_count_and_path(box: SandboxHandle, authed: Clients) -> None:
    c = authed(box)
    _add(box, kind="status", status=503, path="/surveys/$", count=2)
    assert [c.get(S).status_code for _ in range(3)] == [503, 503, 200]
    assert c.get(S + "responses_count/").status_code == 200
    _add(box, kind="status", status=502)
    r = c.get(S)
    assert r.status_code == 502 and r.json()["type"] == "server_error"
    listed = httpx.get(box.base_url + "/_sandbox/faults", verify=False).json()["results"]
    assert [f["kind"] for f in listed] == ["status"]
    assert httpx.delete(box.base_url + "/_sandbox/faults", verify=False).status_code == 204
    assert c.get(S).status_code == 200


def test_retry_after_and_latency(box: SandboxHandle, authed: Clients) -> None:
    c = authed(box)
    _add(box, kind="retry_after", seconds=3, count=1)
    r = c.get(S)
    assert r.status_code == 429 and r.headers["retry-after"] == "3" and r.json()["code"] == "throttled"
    _add(box, kind="latency", seconds=0.3, count=1)
    t = time.monotonic()
    assert c.get(S).status_code == 200
    assert time.monotonic() - t >= 0.3


def test_a_client_that_gives_up_during_latency_leaves_nothing_behind(box: SandboxHandle, authed: Clients) -> None:
    """A latency fault holds a write; the client times out and hangs up: the request goes no further. The log
    says so, the write is never applied, and no request is left waiting for a client that is gone."""
    httpx.delete(box.base_url + "/_sandbox/requests", verify=False)
    c = authed(box)
    names = {s["name"] for s in c.get(S, params={"limit": 1000}).json()["results"]}
    _add(box, kind="latency", seconds=600, path="/surveys/$", count=1)
    with pytest.raises(httpx.ReadTimeout):
        c.post(S, json={"name": "Abandoned", "type": "popover"}, timeout=0.2)
    deadline = time.monotonic() + 30
    while not any(r["hung_up"] for r in box.requests()):
        assert time.monotonic() < deadline, f"the held request was not let go: {box.requests()}"
        time.sleep(0.02)
    (held,) = [r for r in box.requests() if r["method"] == "POST"]
    assert (held["hung_up"], held["fault"], held["status"]) == (True, "latency", None)
    after = {s["name"] for s in c.get(S, params={"limit": 1000}).json()["results"]}
    assert "Abandoned" not in after and after == names


def test_malformed_truncated_drop(box: SandboxHandle, authed: Clients) -> None:
    c = authed(box)
    _add(box, kind="malformed", count=1)
    r = c.get(S)
    assert r.status_code == 200
    with pytest.raises(ValueError):
        r.json()
    _add(box, kind="truncated", count=1)
    with pytest.raises(httpx.TransportError):
        c.get(S)
    _add(box, kind="drop", count=1)
    with pytest.raises(httpx.TransportError):
        c.get(S)
    assert c.get(S).status_code == 200


def test_rate_zero_never_fires_and_admin_is_never_faulted(box: SandboxHandle, authed: Clients) -> None:
    c = authed(box)
    _add(box, kind="status", rate=0.0)
    assert c.get(S).status_code == 200
    _add(box, kind="status")
    assert httpx.get(box.base_url + "/_sandbox/clock", verify=False).status_code == 200


def test_bad_fault_is_400(box: SandboxHandle) -> None:
    assert httpx.post(box.base_url + "/_sandbox/faults", json={"kind": "explode"}, verify=False).status_code == 400
    assert httpx.post(box.base_url + "/_sandbox/faults", json={"kind": "status", "rate": 2},
                      verify=False).status_code == 400


def test_faults_from_options(fresh: Factory, authed: Clients) -> None:
    h: SandboxHandle = fresh(faults=["status:status=500,path=responses_count"])
    c = authed(h)
    assert c.get(S + "responses_count/").status_code == 500
    assert c.get(S).status_code == 200


def test_fault_spec_parsing() -> None:
    f = parse_fault_spec("retry_after:seconds=5,rate=0.5,path=/runs/,count=3")
    assert (f.kind, f.status, f.seconds, f.rate, f.path, f.count) == ("retry_after", 429, 5.0, 0.5, "/runs/", 3)
    assert parse_fault_spec("drop").kind == "drop"
    for bad in ("nope", "status:status", "status:rate=7"):
        with pytest.raises(ValueError):
            parse_fault_spec(bad)


def test_request_log(box: SandboxHandle, authed: Clients) -> None:
    httpx.delete(box.base_url + "/_sandbox/requests", verify=False)
    c = authed(box, "writer")
    c.post(S + "?x=1", json={"name": "Logged", "type": "popover"})
    httpx.get(box.base_url + S, verify=False)
    items = httpx.get(box.base_url + "/_sandbox/requests", verify=False).json()["results"]
    assert [(i["method"], i["path"]) for i in items] == [("POST", S), ("GET", S)]
    first = items[0]
    assert first["body"] == {"name": "Logged", "type": "popover"} and first["query"] == "x=1"
    assert first["key_id"] == "key-3" and "writer" not in str(first)
    assert items[1]["key_id"] is None and items[1]["body"] is None
    assert box.requests() == items
    assert httpx.delete(box.base_url + "/_sandbox/requests", verify=False).status_code == 204
    assert box.requests() == []


def test_clock_and_reset(box: SandboxHandle, authed: Clients, now: datetime) -> None:
    clock = httpx.get(box.base_url + "/_sandbox/clock", verify=False).json()
    assert clock["now"].startswith(now.isoformat()[:19])
    c = authed(box)
    sid = c.post(S, json={"name": "Gone after reset", "type": "api"}).json()["id"]
    assert httpx.post(box.base_url + "/_sandbox/reset", verify=False).status_code == 200
    assert c.get(f"{S}{sid}/").status_code == 404
    assert c.get(S).json()["count"] == 40
