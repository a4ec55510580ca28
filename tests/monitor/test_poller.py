"""The poll schedule: backoff, Retry-After, freshness words."""

from __future__ import annotations

import pytest

from tui.api.errors import NetworkError, RateLimited, ServerError, Unauthorized
from tui.state.freshness import Freshness
from tui.state.io.poller import Poller


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(outcomes: list[object], interval: float = 10.0) -> tuple[Poller[int], FakeTime]:
    clock = FakeTime()
    queue = list(outcomes)

    async def fetch() -> int:
        item = queue.pop(0)
        if isinstance(item, BaseException):
            raise item
        return int(item)  # type: ignore[call-overload]

    return Poller(fetch, interval, monotonic=clock, jitter=lambda: 0.5), clock


async def test_success_keeps_interval_and_last_good() -> None:
    poller, _ = make([1, 2])
    assert poller.freshness() is Freshness.CONNECTING
    outcome = await poller.run_once()
    assert outcome.ok and outcome.value == 1
    assert poller.next_delay() == 10.0
    assert poller.freshness() is Freshness.LIVE
    await poller.run_once()
    assert poller.last_good == 2


async def test_failures_back_off_exponentially_and_keep_last_good() -> None:
    errors = [ServerError("boom", status=503) for _ in range(4)]
    poller, clock = make([7, *errors])
    await poller.run_once()
    delays = []
    for _ in range(4):
        clock.now += 1
        outcome = await poller.run_once()
        assert not outcome.ok
        delays.append(poller.next_delay())
    assert delays == [10.0, 20.0, 40.0, 80.0]
    assert poller.last_good == 7, "the last good data stays"


async def test_two_missed_cycles_make_it_stale_with_a_reason() -> None:
    poller, clock = make([1, ServerError("x", status=502), ServerError("x", status=502)])
    await poller.run_once()
    clock.now += 10
    await poller.run_once()
    assert poller.freshness() is Freshness.LIVE, "one miss is not stale yet"
    clock.now += 10
    await poller.run_once()
    assert poller.freshness() is Freshness.STALE
    assert "502" in poller.reason()


async def test_age_alone_makes_it_stale() -> None:
    poller, clock = make([1])
    await poller.run_once()
    clock.now += 31
    assert poller.freshness() is Freshness.STALE


async def test_retry_after_is_a_floor() -> None:
    poller, _ = make([RateLimited("slow down", status=429, retry_after=120.0)])
    await poller.run_once()
    assert poller.next_delay() >= 120.0


async def test_auth_errors_back_off_hard_and_show_offline_before_any_success() -> None:
    poller, _ = make([Unauthorized("bad key", status=401)])
    await poller.run_once()
    assert poller.next_delay() >= 80.0
    assert poller.freshness() is Freshness.OFFLINE
    assert "401" in poller.reason()


async def test_backoff_is_capped() -> None:
    poller, _ = make([NetworkError("down", kind="refused") for _ in range(12)])
    for _ in range(12):
        await poller.run_once()
    assert poller.next_delay() <= poller.max_backoff * 1.25
    assert poller.freshness() is Freshness.OFFLINE


async def test_unexpected_exceptions_are_recorded_not_raised() -> None:
    poller, _ = make([ValueError("surprise")])
    outcome = await poller.run_once()
    assert isinstance(outcome.error, ValueError)
    assert poller.in_flight is False


@pytest.mark.parametrize("interval", [2.0, 10.0])
async def test_next_at_is_armed_after_each_poll(interval: float) -> None:
    poller, clock = make([1], interval=interval)
    await poller.run_once()
    assert poller.seconds_until_next() == pytest.approx(interval)
    clock.now += interval / 2
    assert poller.seconds_until_next() == pytest.approx(interval / 2)


@pytest.mark.parametrize("asked", [1e9, float("inf")])
async def test_retry_after_is_capped_at_ten_minutes_and_the_figure_asked_is_shown(asked: float) -> None:
    poller, _ = make([RateLimited("slow down", status=429, retry_after=asked)])
    await poller.run_once()
    assert poller.next_delay() == 600.0
    assert poller.reason() == ("429 rate limited (server asks 11574d01h)" if asked == 1e9
                               else "429 rate limited (server asks forever)")


async def test_a_server_trickling_its_answer_fails_the_poll_at_its_deadline() -> None:
    """One byte every 0.2 s keeps each read within the client's 0.5 s timeout; the poll ends after 1 s all the same."""
    import asyncio

    from tui.api.client import ApiClient

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n")
        try:
            for _ in range(100):
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(0.2)
        except ConnectionError:
            pass
        writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, ApiClient(f"http://127.0.0.1:{port}", "phx_key", "1", timeout=0.5, max_retries=0) as client:
        poller: Poller[object] = Poller(client.batch_exports.list, 1.0, timeout=0.5)
        outcome = await asyncio.wait_for(poller.run_once(), 10)
    assert isinstance(outcome.error, NetworkError)
    assert poller.reason() == "timeout after 1s"
