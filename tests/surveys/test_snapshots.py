"""Snapshots of the survey browser's states (list, detail, empty, error) at two terminal sizes.

The sandbox is frozen (simulate=False, FrozenClock), and each snapshot waits for every worker, so the
pictures only change when the screen does. Each state is pictured at both sizes in one session, resized in between.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.pictures import Pictures
from tests.pilot import settle
from tests.surveys.conftest import make_app, sandbox_options
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox

SIZES = [(120, 36), (80, 24)]


@pytest.fixture
def empty_sandbox(clock: FrozenClock) -> Iterator[Any]:
    with start_sandbox(sandbox_options(clock, surveys=0)) as handle:
        yield handle


async def _both_sizes(snapshot: SnapshotAssertion, app: WatchdeckApp, keys: tuple[str, ...] = ()) -> None:
    """The app's picture at each size, in one session: the keys pressed, then the terminal resized between them."""
    pictures = Pictures(snapshot)
    async with pictures.session(app, SIZES[0]) as pilot:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            await pictures.take(pilot, f"{width}x{height}")
    pictures.check()


async def test_list(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock), ("down", "down"))


async def test_detail(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    # a survey with response-based branching, detail full screen
    await _both_sizes(snapshot, make_app(sandbox, clock), ("down", "enter"))


async def test_empty_project(snapshot: SnapshotAssertion, empty_sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(empty_sandbox, clock))


async def test_search_matches_nothing(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock), ("slash", *"no such survey", "enter"))


async def test_error_bad_key(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock, api_key="wrong-key"))


async def test_hostile_project(snapshot: SnapshotAssertion, sandbox: Any, clock: FrozenClock) -> None:
    await _both_sizes(snapshot, make_app(sandbox, clock, project_id="3"))
