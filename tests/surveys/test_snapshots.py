"""Snapshots of the survey browser's states (list, detail, empty, error) at two terminal sizes.

The sandbox is frozen (simulate=False, FrozenClock), and each snapshot waits for every worker, so the
pictures only change when the screen does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.pilot import settle
from tests.surveys.conftest import make_app, sandbox_options
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox

SIZES = [(120, 36), (80, 24)]


@pytest.fixture
def empty_sandbox(clock: FrozenClock) -> Iterator[Any]:
    with start_sandbox(sandbox_options(clock, surveys=0)) as handle:
        yield handle


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_list(snap_compare: Any, sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("down", "down")
        await settle(pilot)

    assert snap_compare(make_app(sandbox, clock), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_detail(snap_compare: Any, sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("down", "enter")  # a survey with response-based branching, detail full screen
        await settle(pilot)

    assert snap_compare(make_app(sandbox, clock), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_empty_project(snap_compare: Any, empty_sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(empty_sandbox, clock), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_search_matches_nothing(snap_compare: Any, sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("slash", *"no such survey", "enter")
        await settle(pilot)

    assert snap_compare(make_app(sandbox, clock), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_error_bad_key(snap_compare: Any, sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(sandbox, clock, api_key="wrong-key"), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hostile_project(snap_compare: Any, sandbox: Any, clock: FrozenClock, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(sandbox, clock, project_id="3"), terminal_size=size, run_before=run_before)
