"""The backfills list: one line and nothing more where the server has no list."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.backfills import NO_BACKFILLS_LIST, BackfillsScreen
from tui.screens.incident_base import IncidentContext
from tui.state.budget import ActionBudget
from tui.state.incident import IncidentDesk
from tui.state.io.journal import ActionJournal
from tui.state.repair import ExportRef

from .outage import Host

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def backfill_requests(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in handle.requests() if "/backfills/" in r["path"]]


async def test_without_a_backfills_list_the_key_says_so_and_asks_once(sandbox: SandboxHandle) -> None:
    # The interface's own server has no backfills list: the sandbox answers 404 there, as it would.
    httpx.post(f"{sandbox.base_url}/_sandbox/faults", json={"kind": "status", "status": 404, "path": "/backfills/"},
               timeout=10, verify=False).raise_for_status()
    client = ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id)
    export = (await client.batch_exports.list()).results[0]
    context = IncidentContext(desk=IncidentDesk(), client_for=lambda _pid: client,
                              budget=ActionBudget(lambda: 0.0), journal=ActionJournal(), clock=FrozenClock(FROZEN_AT))
    ref = ExportRef(f"1:{export.id}", sandbox.project_id, export.id, export.name)
    app = Host(lambda _app: BackfillsScreen(context, ref))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, BackfillsScreen)
        assert app.notes == [NO_BACKFILLS_LIST]
    assert ("backfills", sandbox.project_id) in context.unsupported
    assert len(backfill_requests(sandbox)) <= 1
    await client.aclose()
