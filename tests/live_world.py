"""A sandbox on the real clock shared by several tests, its world put back as seeded before each.

A world seeded on the real clock is never the same twice, so it is never a cached copy: each start seeds it
afresh. Tests that move the server's clock, change runs or add faults, but do not test the clock's own
movement, share one such sandbox: before each test its world is restored from a copy taken after seeding,
its faults and request log emptied and its clock set to this machine's again, so test order never matters.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx

from tui.clock import ScaledClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

#: A sandbox and the copy of its world as seeded.
LiveWorld = tuple[SandboxHandle, sqlite3.Connection]


@contextlib.contextmanager
def live_world(keys: list[str] | None = None) -> Iterator[LiveWorld]:
    """Seed 7, a frozen world (no simulator) under a clock running at real speed from now."""
    options = SandboxOptions(seed=7, simulate=False, clock=ScaledClock(datetime.now(UTC), speed=1.0),
                             keys=keys or [])
    with start_sandbox(options) as handle, contextlib.closing(sqlite3.connect(":memory:")) as seeded:
        with handle.state.db.lock:
            handle.state.db.conn.backup(seeded)
        yield handle, seeded


def as_seeded(world: LiveWorld) -> SandboxHandle:
    """The world as seeded, no faults, an empty request log and the server's clock on this machine's."""
    handle, seeded = world
    with handle.state.db.lock:
        seeded.backup(handle.state.db.conn)
    with httpx.Client(base_url=handle.base_url, timeout=10, verify=False) as admin:
        assert admin.delete("/_sandbox/faults").status_code == 204
        assert admin.delete("/_sandbox/requests").status_code in (200, 204)
        assert admin.post("/_sandbox/clock", json={"now": datetime.now(UTC).isoformat()}).status_code == 200
    assert handle.requests() == []
    return handle
