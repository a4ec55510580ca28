"""Snapshots of the incident views over a fixed S3 outage at 80x24 and 160x48."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.pictures import Pictures
from tui.look.palette import use_no_color
from tui.screens.alerts import AlertsScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.repair import RepairScreen
from tui.screens.timeline import TimelineScreen

from .outage import Host, context, outage_desk

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]


def host(view: str) -> Host:
    desk = outage_desk()
    ctx = context(desk)
    makers: dict[str, Callable[[Any], Any]] = {
        "alerts": lambda _app: AlertsScreen(ctx),
        "groups": lambda _app: FailureGroupsScreen(ctx),
        "timeline": lambda _app: TimelineScreen(ctx),
        "repair": lambda _app: RepairScreen.for_group(ctx, desk.groups()[0]),
    }
    return Host(makers[view])


async def settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def both_sizes(snapshot: SnapshotAssertion, view: str, run_before: Callable[[Any], Awaitable[None]]) -> None:
    """The view's picture at 80x24 (``size0``), then, the terminal widened, at 160x48 (``size1``): the names the
    pictures of a test parametrized over ``SIZES`` have."""
    pictures = Pictures(snapshot)
    async with pictures.session(host(view), SIZES[0]) as pilot:
        await run_before(pilot)
        await pictures.take(pilot, "size0")
        await pilot.resize_terminal(*SIZES[1])
        await settle(pilot)
        await pictures.take(pilot, "size1")
    pictures.check()


async def test_alerts_pane(snapshot: SnapshotAssertion) -> None:
    await both_sizes(snapshot, "alerts", settle)


async def test_groups_view(snapshot: SnapshotAssertion) -> None:
    await both_sizes(snapshot, "groups", settle)


@pytest.mark.parametrize("view", ["alerts", "groups"])
def test_without_colour_failures_are_reversed_not_grey(snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch,
                                                      view: str) -> None:
    """NO_COLOR at 80x24: "failing", the failed-run counts are reversed (red would be the faintest grey there)."""
    monkeypatch.setenv("NO_COLOR", "1")
    try:
        assert snap_compare(host(view), terminal_size=(80, 24), run_before=settle)
    finally:
        use_no_color(False)


@pytest.mark.parametrize("size", SIZES)
def test_timeline(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """Each size from the start: a timeline widened in the session is not drawn as one opened at that width."""
    async def on_the_outage(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("down", *["left"] * 5)
        await settle(pilot)

    assert snap_compare(host("timeline"), terminal_size=size, run_before=on_the_outage)


async def test_repair_preview(snapshot: SnapshotAssertion) -> None:
    await both_sizes(snapshot, "repair", settle)
