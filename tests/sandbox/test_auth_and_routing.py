"""Auth (401/403), routing (405, 404, trailing slash) and the projects listing, over HTTP."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tui.sandbox.runner import SandboxHandle

Factory = Callable[..., SandboxHandle]
Clients = Callable[..., httpx.Client]

P = "/api/projects/1"


def test_missing_header_is_401_not_authenticated(sandbox: SandboxHandle) -> None:
    r = httpx.get(sandbox.base_url + P + "/surveys/", verify=False)
    assert r.status_code == 401
    assert r.json() == {"type": "authentication_error", "code": "not_authenticated",
                        "detail": "Authentication credentials were not provided.", "attr": None}


def test_unknown_key_is_401_authentication_failed(sandbox: SandboxHandle) -> None:
    r = httpx.get(sandbox.base_url + P + "/surveys/", headers={"Authorization": "Bearer nope"}, verify=False)
    assert r.status_code == 401
    body = r.json()
    assert body["code"] == "authentication_failed" and body["type"] == "authentication_error"
    assert body["attr"] is None


def test_missing_scope_is_403_naming_it(sandbox: SandboxHandle, authed: Clients) -> None:
    c = authed(sandbox, "survey-reader")
    assert c.get(P + "/surveys/").status_code == 200
    r = c.post(P + "/surveys/", json={"name": "x", "type": "popover"})
    assert r.status_code == 403
    assert r.json() == {"type": "authentication_error", "code": "permission_denied",
                        "detail": "API key missing required scope 'survey:write'", "attr": None}
    r = c.get("/api/environments/1/batch_exports/")
    assert r.json()["detail"] == "API key missing required scope 'batch_export:read'"
    assert c.get(P + "/surveys/activity/").json()["detail"] == "API key missing required scope 'activity_log:read'"


def test_write_scope_implies_read(sandbox: SandboxHandle, authed: Clients) -> None:
    c = authed(sandbox, "writer")
    assert c.get(P + "/surveys/").status_code == 200
    assert c.get("/api/environments/1/batch_exports/").status_code == 200
    assert c.get("/api/projects/").status_code == 403


def test_wrong_method_is_405_in_envelope(client: httpx.Client) -> None:
    r = client.put(P + "/surveys/")
    assert r.status_code == 405
    assert r.json() == {"type": "invalid_request", "code": "method_not_allowed",
                        "detail": 'Method "PUT" not allowed.', "attr": None}
    assert client.get("/api/environments/1/batch_exports/x/pause/").status_code == 405


def test_unknown_route_and_project_are_404(client: httpx.Client) -> None:
    assert client.get("/api/nothing/").json()["code"] == "not_found"
    for path in ("/api/projects/99/surveys/", "/api/projects/abc/surveys/", "/api/environments/99/batch_exports/"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.json()["type"] == "invalid_request"


def test_trailing_slash_optional_and_current_alias(client: httpx.Client) -> None:
    assert client.get(P + "/surveys").json()["count"] == client.get(P + "/surveys/").json()["count"]
    assert client.get("/api/projects/@current/surveys/").status_code == 200


def test_projects_listing(client: httpx.Client) -> None:
    body = client.get("/api/projects/").json()
    assert body["count"] == 3 and body["next"] is None and body["previous"] is None
    first = body["results"][0]
    assert first["id"] == 1 and first["name"] == "Demo project"
    for key in ("uuid", "organization", "api_token", "timezone"):
        assert key in first
    assert client.get("/api/projects/1/").json()["id"] == 1


def test_personal_api_key_query_param(sandbox: SandboxHandle) -> None:
    r = httpx.get(sandbox.base_url + P + "/surveys/", params={"personal_api_key": sandbox.api_key}, verify=False)
    assert r.status_code == 200


def test_demo_key_and_project(sandbox: SandboxHandle) -> None:
    assert sandbox.api_key == "sandbox-demo-key"
    assert sandbox.project_id == "1"
    assert sandbox.base_url.startswith("http://127.0.0.1:")


def test_openapi_document(client: httpx.Client) -> None:
    doc = httpx.get(str(client.base_url) + "/api/schema/", verify=False).json()
    assert doc["openapi"].startswith("3.")
    for path in ("/api/projects/{project_id}/surveys/", "/api/environments/{project_id}/batch_exports/{id}/",
                 "/api/projects/{project_id}/batch_exports/{batch_export_id}/runs/"):
        assert path in doc["paths"]
    refs = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                refs.add(node["$ref"].rsplit("/", 1)[-1])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    assert refs <= set(doc["components"]["schemas"])
