"""Delivering the ``on_alert`` hook's events: a failed one is tried again until it is delivered or 15 minutes passed.

Each event ("opened", "resolved") is sent as the alert was when it happened.
A failed send (non-zero exit, time limit, a program that cannot start) is
tried again after a delay that doubles from ``first_delay`` up to
``max_delay``, for up to ``retry_for`` seconds after its first attempt, then
given up. "resolved" is retried exactly as hard as "opened".

Order: events go out in the order they happened, one at a time (the hook's
own lock); an event waits behind an earlier one of the same episode until that
one is delivered or given up, so a "resolved" never reaches the hook before its
"opened". An event of another episode does not wait behind a failing one: its
page is not held up by someone else's broken relay.

Every attempt and its outcome goes to the journal. :meth:`HookOutbox.run`
delivers while events wait and returns once none does (the owner starts it
again, through :meth:`HookOutbox.claim`, when the next event comes); the
retries live in this process only (the app cancels it when it exits), and both
lists are bounded: at most ``PENDING_LIMIT`` events waiting (past it the oldest
is given up, and journaled so) and the last ``GIVEN_UP_KEEP`` given up, which the
alerts pane shows with those still waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tui.state.alert_book import Alert
from tui.state.io.alert_hooks import HookResult
from tui.state.journal_entry import JournalEntry, JournalWriter, wall_clock
from tui.text.words import duration

RETRY_FOR_SECONDS = 15 * 60.0
FIRST_DELAY_SECONDS = 10.0
MAX_DELAY_SECONDS = 120.0
PENDING_LIMIT = 100
GIVEN_UP_KEEP = 50


class Sender(Protocol):
    async def send(self, payload: Mapping[str, Any]) -> HookResult: ...


@dataclass
class HookEvent:
    """One event on its way to the hook."""

    seq: int
    event: str  # "opened" or "resolved"
    alert: Alert
    payload: dict[str, Any]  # the alert as it was when the event happened
    attempts: int = 0
    first_attempt: float | None = None  # monotonic seconds
    next_at: float = 0.0  # monotonic seconds: when it may be tried (again)
    error: str = ""  # why the last attempt failed
    given_up: bool = False

    @property
    def episode_id(self) -> str:
        return str(self.payload.get("episode_id", ""))


@dataclass
class HookOutbox:
    """The events waiting for the hook, and the ones it gave up on; :meth:`run` delivers them."""

    hook: Sender
    journal: JournalWriter | None = None
    profile: str | None = None
    monotonic: Callable[[], float] = time.monotonic
    first_delay: float = FIRST_DELAY_SECONDS
    max_delay: float = MAX_DELAY_SECONDS
    retry_for: float = RETRY_FOR_SECONDS
    limit: int = PENDING_LIMIT
    # Told of a failure worth a word on the status line: an event's first failed attempt, and giving one up.
    on_failure: Callable[[str], None] | None = None
    pending: list[HookEvent] = field(default_factory=list)  # in the order the events happened
    given_up: list[HookEvent] = field(default_factory=list)  # newest first, at most GIVEN_UP_KEEP
    delivering: bool = False  # a run() is under way (or claimed)
    _seq: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _listeners: list[Callable[[], None]] = field(default_factory=list)

    # ------------------------------------------------------------------ reading

    @property
    def undelivered(self) -> list[HookEvent]:
        """What the alerts pane lists: the events still waiting (after a failed attempt or not), then those given
        up, newest first."""
        return [*reversed(self.pending), *self.given_up]

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after each change; returns the function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # ------------------------------------------------------------------ feeding

    def put(self, event: str, alert: Alert) -> None:
        """An event to deliver, sent as the alert is now."""
        self.pending.append(HookEvent(next(self._seq), event, alert, alert.to_json(event), next_at=self.monotonic()))
        while len(self.pending) > self.limit:
            self._give_up(self.pending[0], "too many events waiting for the hook")
        self._wake.set()
        self._changed()

    # ------------------------------------------------------------------ delivering

    def next_event(self) -> tuple[HookEvent | None, float]:
        """The event to send now, or None and how long until one may be sent (inf: none is waiting)."""
        now = self.monotonic()
        ahead: set[str] = set()  # episodes with an earlier event still waiting
        wait = float("inf")
        for item in self.pending:
            if item.episode_id in ahead:
                continue
            ahead.add(item.episode_id)
            if item.next_at <= now:
                return item, 0.0
            wait = min(wait, item.next_at - now)
        return None, wait

    def claim(self) -> bool:
        """Whether the caller should start :meth:`run` now: events wait and no run is under way (it is then
        counted as under way, so a second caller before it starts does not start another)."""
        if self.delivering or not self.pending:
            return False
        self.delivering = True
        return True

    async def run(self) -> None:
        """Deliver until no event waits (an event given up does not), or until cancelled: the app's exit, so the
        retries do not outlive the process."""
        self.delivering = True
        try:
            while self.pending:
                item, wait = self.next_event()
                if item is None:
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), wait)
                    continue
                await self.attempt(item)
        finally:
            self.delivering = False

    async def attempt(self, item: HookEvent) -> None:
        """One attempt at ``item``: delivered, tried again later, or given up."""
        started = self.monotonic()
        if item.first_attempt is None:
            item.first_attempt = started
        item.attempts += 1
        result = await self.hook.send(item.payload)
        if result.ok:
            self.pending.remove(item)
            self._journal(item, "delivered")
            self._changed()
            return
        item.error = result.message
        delay = min(self.max_delay, self.first_delay * 2 ** (item.attempts - 1))
        if self.monotonic() + delay > item.first_attempt + self.retry_for:
            self._journal(item, "failed")
            self._give_up(item, f"still failing after {duration(self.retry_for)}")
            return
        item.next_at = self.monotonic() + delay
        self._journal(item, "failed", next_attempt_in=round(delay, 3))
        if item.attempts == 1 and self.on_failure is not None:
            self.on_failure(f"on_alert hook: {result.message}; trying again for up to {duration(self.retry_for)}")
        self._changed()

    def _give_up(self, item: HookEvent, why: str) -> None:
        item.given_up = True
        self.pending.remove(item)
        self.given_up.insert(0, item)
        del self.given_up[GIVEN_UP_KEEP:]
        self._journal(item, "given up", reason=why)
        if self.on_failure is not None:
            self.on_failure(f"on_alert hook gave up on {item.event!r} for {item.alert.export_name}: {why}")
        self._changed()

    def _journal(self, item: HookEvent, result: str, **more: Any) -> None:
        if self.journal is None:
            return
        alert = item.alert
        detail: dict[str, Any] = {"event": item.event, "episode_id": item.episode_id, "attempt": item.attempts}
        if result != "delivered" and item.error:
            detail["error"] = item.error
        self.journal.append(JournalEntry(wall_clock(), "alert hook", result, profile=self.profile,
                                         project=alert.project_id, export=alert.export_id, name=alert.export_name,
                                         detail=detail | more))

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()
