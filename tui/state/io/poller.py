"""A poll schedule that can neither overlap nor storm.

The owner arms the next poll only after the last one finished (dolphie's
pattern, not ``set_interval`` + exclusive workers, which cancels the request
in flight every tick when the server is slower than the interval). This
module holds the pure part: outcome bookkeeping, backoff, ``Retry-After`` and
the freshness word the header shows. It knows nothing of Textual, so it is
tested without an app.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tui.api.deadline import retry_deadline
from tui.api.errors import ApiError, Forbidden, NetworkError, ProjectNotFound, RateLimited, Unauthorized
from tui.state.freshness import Freshness
from tui.text.words import duration

T = TypeVar("T")

MAX_BACKOFF_SECONDS = 300.0
RETRY_AFTER_CAP_SECONDS = 600.0
"""The longest a 429's ``Retry-After`` holds polling back (a server asked for 10**9 s, or ``inf``)."""
STALE_AFTER_MISSED = 2
OFFLINE_AFTER_FAILURES = 5


@dataclass
class PollOutcome(Generic[T]):
    value: T | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def describe_failure(error: BaseException | None) -> str:
    """A few words on why polls fail, for the header: ``network``, ``401 bad API key``, ``403 needs X``."""
    if error is None:
        return ""
    if isinstance(error, ApiError):
        return error.short
    return type(error).__name__


class Poller(Generic[T]):
    """Keeps the outcome of each poll and says when the next one is due."""

    def __init__(
        self,
        fetch: Callable[[], Awaitable[T]],
        interval: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
        max_backoff: float = MAX_BACKOFF_SECONDS,
        age_of: Callable[[T], float] | None = None,
        timeout: float = 0.0,
    ) -> None:
        self._fetch = fetch
        # One poll ends within the interval or the client's timeout, whichever is longer, however the server
        # trickles its answer (each read within the timeout would otherwise keep a poll going for minutes).
        self.timeout = timeout
        # How old a value already was when it arrived (an answer another viewer fetched: tui.api.cache).
        self._age_of = age_of
        self.answer_age = 0.0
        self.interval = interval
        self._monotonic = monotonic
        self._jitter = jitter
        self.max_backoff = max_backoff
        self.last_good: T | None = None
        self.last_success: float | None = None
        self.last_attempt: float | None = None
        self.failures = 0
        self.last_error: BaseException | None = None
        self.next_at: float | None = None
        self.in_flight = False
        self.cycles = 0

    async def run_once(self) -> PollOutcome[T]:
        """One poll; never raises except cancellation, so a worker running it cannot die of it."""
        self.in_flight = True
        self.last_attempt = self._monotonic()
        try:
            deadline = self.deadline
            try:
                with retry_deadline(self.interval):  # the client's retries end within one interval
                    async with asyncio.timeout(deadline):
                        value = await self._fetch()
            except TimeoutError:
                raise NetworkError(f"No whole answer within {duration(deadline)}.", kind="timeout",
                                   timeout=deadline) from None
        except asyncio.CancelledError:
            raise
        except Exception as err:  # every failure is recorded and shown, never fatal
            self.failures += 1
            self.last_error = err
            outcome: PollOutcome[T] = PollOutcome(error=err)
        else:
            self.failures = 0
            self.last_error = None
            self.last_good = value
            self.answer_age = min(max(0.0, self._age_of(value)), self.interval) if self._age_of else 0.0
            self.last_success = self._monotonic() - self.answer_age
            outcome = PollOutcome(value=value)
        finally:
            self.in_flight = False
            self.cycles += 1
        self.next_at = self._monotonic() + self.next_delay()
        return outcome

    @property
    def deadline(self) -> float:
        """How long one poll may take, all its requests and retries included."""
        return max(self.interval, self.timeout)

    def next_delay(self) -> float:
        """The interval after a success; capped exponential backoff with jitter after failures.

        A 429's ``Retry-After`` is a floor (waiting less would just be refused again), up to
        ``RETRY_AFTER_CAP_SECONDS``: a server cannot stop polling for good.
        Auth failures (401/403) and a missing project back off to the cap quickly: they do not heal by retrying.
        """
        if self.failures == 0:
            # Due one interval after the answer was fetched, not after it was read: viewers sharing a cache
            # then poll together and the first one's answer serves the rest.
            return max(0.5, self.interval - self.answer_age)
        error = self.last_error
        if isinstance(error, Unauthorized | Forbidden | ProjectNotFound):
            base = min(self.max_backoff, self.interval * 2 ** (self.failures + 2))
        else:
            base = min(self.max_backoff, self.interval * 2 ** (self.failures - 1))
        delay = base * (0.75 + 0.5 * self._jitter())
        if isinstance(error, RateLimited) and error.retry_after is not None:
            delay = max(delay, min(error.retry_after, RETRY_AFTER_CAP_SECONDS))
        return max(delay, 0.5)

    def interval_changed(self) -> float | None:
        """The interval changed between two polls: the next one is due one new interval after the last answer.

        Returns the seconds until then (0: at once, the last answer is older than the new interval), or None
        while a poll is in flight or after a failure, whose backoff stands.
        """
        if self.in_flight or self.failures or self.last_success is None:
            return None
        now = self._monotonic()
        self.next_at = max(now, self.last_success + self.interval)
        return self.next_at - now

    def seconds_until_next(self) -> float | None:
        if self.next_at is None:
            return None
        return max(0.0, self.next_at - self._monotonic())

    def age(self) -> float | None:
        """Seconds since the last successful poll's answer was fetched (by this process or a viewer it shares with)."""
        return None if self.last_success is None else self._monotonic() - self.last_success

    def freshness(self) -> Freshness:
        if isinstance(self.last_error, ProjectNotFound):
            return Freshness.STALE  # nothing on screen is live, and the reason says why: not a network outage
        if self.last_success is None:
            if self.failures >= OFFLINE_AFTER_FAILURES or (self.failures and not isinstance(
                    self.last_error, NetworkError)):
                return Freshness.OFFLINE
            return Freshness.CONNECTING
        if self.failures >= OFFLINE_AFTER_FAILURES:
            return Freshness.OFFLINE
        age = self.age() or 0.0
        if self.failures >= STALE_AFTER_MISSED or age > STALE_AFTER_MISSED * self.interval + self.interval:
            return Freshness.STALE
        return Freshness.LIVE

    def reason(self) -> str:
        return describe_failure(self.last_error)
