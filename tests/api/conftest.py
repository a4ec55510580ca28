"""Fixtures for the client tests: the real sandbox over loopback, and a client that records.

One sandbox per test session; each test starts with no faults and an empty request
log, and tests that change data ask for ``fresh`` (the seeded world again). The
client records what it put on the wire (headers, which the sandbox's log does not
keep) and every wait it would have slept, without sleeping.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from tests.api.helpers import NOW, READ_ONLY_KEY, Sandbox, Sleeps, Wire
from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxOptions, start_sandbox


@pytest.fixture(scope="session")
def sandbox_session() -> Iterator[Sandbox]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(NOW), summary_delay=(0.0, 0.0),
                             keys=[f"{READ_ONLY_KEY}:survey:read,batch_export:read"])
    with start_sandbox(options) as handle:
        box = Sandbox(handle)
        yield box
        box.close()


@pytest.fixture
def sandbox(sandbox_session: Sandbox) -> Sandbox:
    sandbox_session.clean()
    return sandbox_session


@pytest.fixture(scope="session")
def older_session() -> Iterator[Sandbox]:
    """The sandbox answering as an older real service (``backfill/``, datetime bounds, workflow-id ids)."""
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(NOW), summary_delay=(0.0, 0.0),
                             generation="older")
    with start_sandbox(options) as handle:
        box = Sandbox(handle)
        yield box
        box.close()


@pytest.fixture
def older(older_session: Sandbox) -> Sandbox:
    with httpx.Client(base_url=older_session.base_url, timeout=10, verify=False) as admin:
        assert admin.post("/_sandbox/reset/").status_code == 200
    older_session.clean()
    return older_session


@pytest.fixture
def wire() -> Wire:
    return Wire()


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def api(sandbox: Sandbox, wire: Wire, sleeps: Sleeps) -> AsyncIterator[ApiClient]:
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, transport=wire, sleep=sleeps,
                         max_retries=3) as client:
        yield client


@pytest.fixture
def fresh(sandbox: Sandbox) -> Sandbox:
    """For tests that change data: the seeded world again (0.4 s), so test order never matters."""
    with httpx.Client(base_url=sandbox.base_url, timeout=10, verify=False) as admin:
        assert admin.post("/_sandbox/reset/").status_code == 200
    sandbox.clean()
    return sandbox
