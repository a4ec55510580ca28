"""How long a request's retries may go on, set by whoever knows: a poll's deadline is one interval away.

Retrying a timed-out GET three times inside one poll kept the header on "refreshing" for four
timeouts (about a minute) before it could say why. A poller sets a deadline one interval away; the
client then starts a retry only if it could end before it, so a poll gives up (and says so) within
one interval of its last attempt. Without a deadline (one-off requests) the client's own limits apply.
It is a context variable, so it follows the poll into the tasks it starts and nowhere else.

The deadline also caps each attempt: with the defaults (poll 10 s, request timeout 15 s) one GET
would otherwise outlast the interval it belongs to, so the header could say nothing for 15 s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("watchdeck_retry_deadline", default=None)
_interval: ContextVar[float | None] = ContextVar("watchdeck_retry_interval", default=None)


@contextmanager
def retry_deadline(seconds: float) -> Iterator[None]:
    """Requests made inside the block retry only while the retry could finish within ``seconds`` of its start."""
    token = _deadline.set(time.monotonic() + seconds)
    cap = _interval.set(seconds)
    try:
        yield
    finally:
        _interval.reset(cap)
        _deadline.reset(token)


def attempt_timeout(default: float) -> float:
    """How long one attempt may wait for an answer: the client's timeout, never longer than the deadline's span."""
    seconds = _interval.get()
    return default if seconds is None else min(default, seconds)


def may_retry(wait: float, attempt_cost: float = 0.0) -> bool:
    """True when waiting ``wait`` s and spending ``attempt_cost`` s more still ends before the deadline."""
    deadline = _deadline.get()
    return deadline is None or time.monotonic() + wait + attempt_cost <= deadline
