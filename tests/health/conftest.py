"""The sandbox of the status tests: on the real clock, shared, its world put back as seeded before each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live_world import LiveWorld, as_seeded, live_world
from tui.sandbox.runner import SandboxHandle

PROJECT_ONE_KEY = "project-one-key"  # a key limited to project 1


@pytest.fixture(scope="session")
def world() -> Iterator[LiveWorld]:
    with live_world(keys=[f"{PROJECT_ONE_KEY}:*@1"]) as found:
        yield found


@pytest.fixture
def sandbox(world: LiveWorld) -> SandboxHandle:
    """The world as seeded, no faults, an empty request log and the server's clock on this machine's."""
    return as_seeded(world)
