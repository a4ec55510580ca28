"""Shared fixtures: sandboxes over real loopback HTTP, and the real OpenAPI component schemas."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

NOW = datetime(2025, 6, 1, 12, 0, 7, tzinfo=UTC)
# A copy of shared/spec/real-openapi, so the suite runs from any clone.
OPENAPI_DIR = Path(__file__).resolve().parents[1] / "data" / "real-openapi"
READ_ONLY_KEY = "ro-key"
SURVEY_READ_KEY = "survey-reader"


def make_options(**overrides: Any) -> SandboxOptions:
    base: dict[str, Any] = {
        "clock": FrozenClock(NOW),
        "simulate": False,
        "summary_delay": (0.0, 0.0),
        "keys": [f"{READ_ONLY_KEY}:survey:read,batch_export:read,activity_log:read",
                 f"{SURVEY_READ_KEY}:survey:read", "writer:survey:write,batch_export:write"],
    }
    base.update(overrides)
    return SandboxOptions(**base)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    """One frozen world shared by the read-mostly tests (mutating tests use their own names)."""
    with start_sandbox(make_options()) as handle:
        yield handle


@pytest.fixture(scope="session")
def client(sandbox: SandboxHandle) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sandbox.base_url, headers={"Authorization": f"Bearer {sandbox.api_key}"},
                      timeout=10, verify=False) as c:
        yield c


@pytest.fixture
def fresh() -> Iterator[Callable[..., SandboxHandle]]:
    """A factory for private sandboxes (stopped at the end of the test)."""
    handles: list[SandboxHandle] = []

    def factory(**overrides: Any) -> SandboxHandle:
        handle = start_sandbox(make_options(**overrides))
        handles.append(handle)
        return handle

    yield factory
    for h in handles:
        h.stop()


@pytest.fixture
def authed() -> Iterator[Callable[..., httpx.Client]]:
    """``authed(handle, key=None)``: an httpx client for a sandbox (closed at the end of the test)."""
    clients: list[httpx.Client] = []

    def factory(handle: SandboxHandle, key: str | None = None) -> httpx.Client:
        c = httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {key or handle.api_key}"},
                         timeout=10, verify=False)
        clients.append(c)
        return c

    yield factory
    for c in clients:
        c.close()


@pytest.fixture
def now() -> datetime:
    return NOW


def _load(name: str) -> dict[str, Any]:
    with open(OPENAPI_DIR / name, encoding="utf-8") as fh:
        return dict(yaml.safe_load(fh))


def _nullable_flags(schema: dict[str, Any]) -> dict[str, Any]:
    """The published flaw: flag objects are sent as null when unset."""
    schema = copy.deepcopy(schema)
    for name in ("Survey", "SurveySerializerCreateUpdateOnly"):
        props = schema["components"]["schemas"][name]["properties"]
        for field in ("linked_flag", "targeting_flag", "internal_targeting_flag"):
            props[field] = {"oneOf": [props[field], {"type": "null"}]}
    return schema


def _openapi_to_jsonschema(node: Any) -> Any:
    """OpenAPI 3.0 ``nullable: true`` becomes a JSON-Schema union with null."""
    if isinstance(node, list):
        return [_openapi_to_jsonschema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _openapi_to_jsonschema(v) for k, v in node.items()}
    if out.pop("nullable", False):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


class RealSchemas:
    """Validate objects against a named component of the published documents."""

    def __init__(self) -> None:
        self.docs = {
            "surveys": _openapi_to_jsonschema(_nullable_flags(_load("posthog-surveys-api-openapi.yml"))),
            "batch": _openapi_to_jsonschema(_load("posthog-batch-exports-api-openapi.yml")),
        }

    def validate(self, doc: str, component: str, instance: Any) -> None:
        root = self.docs[doc]
        schema = {"$ref": f"#/components/schemas/{component}", "components": root["components"]}
        jsonschema.validate(instance, schema, cls=jsonschema.Draft7Validator,
                            format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


@pytest.fixture(scope="session")
def real_schemas() -> RealSchemas:
    return RealSchemas()
