"""The header's project label, from the sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.state.io.project_names import fetch_project_label, project_label


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False,
                                      clock=FrozenClock(datetime(2026, 11, 22, 12, 0, tzinfo=UTC)))) as handle:
        yield handle


def test_label_forms() -> None:
    assert project_label("production", "Acme", "1") == "Acme · production"
    assert project_label("production", None, "1") == "production"
    assert project_label(None, None, "1") == "project 1"


async def test_label_from_the_server(sandbox: SandboxHandle) -> None:
    headers = {"Authorization": f"Bearer {sandbox.api_key}"}
    name = httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/", headers=headers,
                     verify=False).json()["name"]
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id) as client:
        label, _ = await fetch_project_label(client)
    assert label.endswith(name)
