"""The ``on_alert`` hook: a program of the operator's, told of each new and resolved alert.

The program runs without a shell (its arguments are a list, nothing is
expanded), with the alert as one JSON object on stdin and a 10 s limit; the
API key is never in its input or its environment, whatever variable holds it.
One alert at a time, in order, so a chat channel reads in the order things happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.redaction import mask_secrets_in

HOOK_TIMEOUT_SECONDS = 10.0
KEY_VARIABLES = ("WATCHDECK_API_KEY", "POSTHOG_API_KEY", "POSTHOG_PERSONAL_API_KEY")


@dataclass(frozen=True)
class HookResult:
    ok: bool
    message: str  # for the status line when it failed: "exit 2: …", "timed out after 10 s", "not found"


def hook_environment(environ: Mapping[str, str], secret: str | None) -> dict[str, str]:
    """This process's environment without the key: the known key variables and any variable holding its value."""
    env: dict[str, str] = {}
    for name, value in environ.items():
        if name in KEY_VARIABLES:
            continue
        if secret and secret in value:
            continue
        env[name] = value
    return env


def scrub(payload: Any, secret: str | None) -> Any:
    """The payload with the key masked in every string (an error message could quote a header)."""
    if not secret:
        return payload
    if isinstance(payload, str):
        return mask_secrets_in(payload, (secret,))
    if isinstance(payload, Mapping):
        return {k: scrub(v, secret) for k, v in payload.items()}
    if isinstance(payload, list):
        return [scrub(v, secret) for v in payload]
    return payload


class AlertHook:
    """Runs ``argv`` once per alert event."""

    def __init__(self, argv: Sequence[str], secret: str | None, *, timeout: float = HOOK_TIMEOUT_SECONDS,
                 environ: Mapping[str, str] | None = None) -> None:
        if not argv:
            raise ValueError("on_alert needs a program")
        self.argv = list(argv)
        self.timeout = timeout
        self._secret = secret
        self._env = hook_environment(os.environ if environ is None else environ, secret)
        self._lock = asyncio.Lock()

    async def send(self, payload: Mapping[str, Any]) -> HookResult:
        body = json.dumps(scrub(dict(payload), self._secret), ensure_ascii=False).encode() + b"\n"
        async with self._lock:
            return await self._run(body)

    async def _run(self, body: bytes) -> HookResult:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, env=self._env, start_new_session=True)
        except OSError as err:
            return HookResult(False, f"could not start {self.argv[0]}: {err.strerror or err}")
        try:
            _, stderr = await asyncio.wait_for(process.communicate(body), self.timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await process.wait()
            return HookResult(False, f"timed out after {self.timeout:g} s")
        if process.returncode != 0:
            tail = stderr.decode(errors="replace").strip().splitlines()[-1:] if stderr else []
            why = f": {tail[0][:200]}" if tail else ""
            return HookResult(False, f"exit {process.returncode}{why}")
        return HookResult(True, "ok")
