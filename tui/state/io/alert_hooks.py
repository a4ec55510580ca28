"""The ``on_alert`` hook: a program of the operator's, told of each new and resolved alert.

The program runs without a shell (its arguments are a list, nothing is
expanded), with the alert as one JSON object on stdin and a 10 s limit; the
API key is never in its input or its environment, whatever variable holds it.
One alert at a time, in order, so a chat channel reads in the order things happened.

The program runs in a process group of its own; the whole group is killed when
the program is done, at the time limit, or when the send is cancelled (the
dashboard exits), so a ``sleep`` it started in the background goes too. Of what it writes to stderr
only the last 64 KB are kept, and its last line reaches the status line cleaned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.text.clean import clean
from tui.text.redaction import redact_within
from tui.text.words import duration

HOOK_TIMEOUT_SECONDS = 10.0
_UNPRINTABLE = re.compile("[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""Characters a hook's JSON carries as ``\\uXXXX`` (C1 controls such as U+009B/U+009D, bidi controls): a hook
that prints its input to a terminal or a chat must not pass them on raw. C0 controls JSON escapes already."""
OUTPUT_LIMIT = 64 * 1024
"""Bytes of the hook's stderr kept (the last ones): a hook writing in a loop cannot grow the dashboard."""
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


def hook_json(payload: Mapping[str, Any]) -> str:
    """One line of JSON: other languages' text as it is, control and bidi characters escaped."""
    text = json.dumps(payload, ensure_ascii=False)
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
        body = hook_json(redact_within(dict(payload), (self._secret,) if self._secret else ())).encode() + b"\n"
        async with self._lock:
            return await self._run(body)

    async def _run(self, body: bytes) -> HookResult:
        start = asyncio.ensure_future(asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, env=self._env, start_new_session=True))
        try:
            # Shielded: the hook runs from the moment it is forked, before its pipes are connected. A send cancelled
            # then would leave asyncio killing the hook alone and waiting for its pipes, which a child it started
            # keeps open.
            process = await asyncio.shield(start)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                started = await start
                kill_group(started.pid)
                await started.wait()
            raise
        except OSError as err:
            return HookResult(False, f"could not start {self.argv[0]}: {err.strerror or err}")
        kept = bytearray()
        assert process.stderr is not None
        reader = asyncio.create_task(keep_tail(process.stderr, kept, OUTPUT_LIMIT))
        try:
            async with asyncio.timeout(self.timeout):
                await _feed(process, body)
                await process.wait()
                await reader  # until every holder of its stderr (a child it left behind too) has closed it
        except TimeoutError:
            if process.returncode is None:
                return HookResult(False, f"timed out after {duration(self.timeout)}")
        finally:
            reader.cancel()
            kill_group(process.pid)  # the time limit, a cancelled send, or what it left running
            if process.returncode is None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(process.wait())
        if process.returncode != 0:
            lines = bytes(kept).decode(errors="replace").strip().splitlines()[-1:]
            why = f": {clean(lines[0], limit=200)}" if lines else ""
            return HookResult(False, f"exit {process.returncode}{why}")
        return HookResult(True, "ok")


async def _feed(process: asyncio.subprocess.Process, body: bytes) -> None:
    """The alert on the hook's stdin, then end of file; a hook that does not read it is not an error."""
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(body)
        await process.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.close()


async def keep_tail(stream: asyncio.StreamReader, kept: bytearray, limit: int) -> None:
    """Read ``stream`` to its end, keeping only its last ``limit`` bytes in ``kept``."""
    while chunk := await stream.read(limit):
        kept += chunk
        if len(kept) > limit:
            del kept[:-limit]


def kill_group(pid: int) -> None:
    """SIGKILL to the process group the hook leads (it was started in a session of its own)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
