"""The sandbox's ``/_sandbox/`` control endpoints, over one HTTP client for the whole test.

A new ``httpx`` client loads the system's CA bundle (tens of milliseconds of CPU), so a test that moves
the sandbox's clock hundreds of times keeps one client rather than calling ``httpx.request`` each time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tui.sandbox.runner import SandboxHandle


class SandboxAdmin:
    """Calls the sandbox's control endpoints; every answer must be a success."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def __call__(self, method: str, path: str, **body: Any) -> Any:
        answer = self.client.request(method, path, json=body or None)
        assert answer.status_code < 300, answer.text
        return answer.json()

    def pass_seconds(self, seconds: float) -> None:
        """Move the sandbox's clock and bring its world to the new time (schedule, run and finish runs)."""
        self("POST", "clock", advance_seconds=seconds)
        self("POST", "tick")


@contextmanager
def sandbox_admin(handle: SandboxHandle) -> Iterator[SandboxAdmin]:
    # Plain loopback HTTP: no TLS, so no certificate checks (and no CA bundle loaded for them).
    with httpx.Client(base_url=f"{handle.base_url}/_sandbox/", timeout=10, verify=False) as client:
        yield SandboxAdmin(client)
