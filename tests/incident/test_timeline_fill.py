"""Issue 27, item 14: the timeline's cells fill the width at every zoom, each zoom still showing its whole span."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tests.incident.test_monitor_keys import monitor
from tests.monitor.conftest import FROZEN_AT, make_app
from tests.pilot import settle
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.timeline import TimelineScreen
from tui.state.timeline import ZOOMS, Axis
from tui.widgets.timeline_view import cells_for

from .runs import NOW


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def test_every_zoom_fills_the_cells_it_is_given_and_covers_its_span() -> None:
    for zoom in ZOOMS:
        axis = Axis.ending_at(zoom, NOW, 126)
        assert axis.count == 126
        assert timedelta(seconds=axis.bucket * axis.count) >= zoom.span
        assert axis.bucket <= zoom.bucket.total_seconds()
    narrow = Axis.ending_at(ZOOMS[1], NOW, 20)
    assert narrow.count == ZOOMS[1].buckets, "narrower than the zoom's own cells: its own, scrolled"


async def test_the_timeline_uses_the_width_at_every_zoom(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen: Any = app.screen
        assert isinstance(screen, TimelineScreen)
        counts = []
        for key in ("plus", "plus", "minus", "minus", "minus"):
            assert screen.model.axis is not None
            counts.append(screen.model.axis.count)
            await pilot.press(key)
            await settle(pilot)
        assert set(counts) == {cells_for(160)}
        assert monitor(app) is not None
