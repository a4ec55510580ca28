"""``watchdeck metrics`` serves ``watchdeck_export_silenced``: the silences a dashboard kept in the state folder."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from tests.metrics.conftest import Exporter, make_world, value
from tui.sandbox.runner import SandboxHandle
from tui.state.io.alert_marks_store import MarksKeeper, marks_path


def silence(handle: SandboxHandle, export_id: str) -> None:
    """What a dashboard on this host does when ``s`` is confirmed (no shared store: the state folder alone)."""
    keeper = MarksKeeper(marks_path(Path(os.environ["WATCHDECK_STATE_DIR"]), handle.base_url, handle.api_key),
                         None, handle.base_url, handle.api_key)
    keeper.load()
    keeper.marks.silence(("1", export_id), 7200.0, "warehouse maintenance", "ops", time.time())
    keeper.save()


def test_the_exporter_serves_each_exports_silence_and_a_new_one_within_a_poll(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    world = make_world(sandbox)
    silence(sandbox, world.failing)
    exporter = start_exporter(sandbox)

    def labels(export_id: str) -> dict[str, str]:
        return {"project": "1", "export_id": export_id, "export": world.names[export_id]}

    samples = exporter.scrape_when(
        lambda s: value(s, "watchdeck_export_silenced", **labels(world.failing)) is not None, "the first poll")
    assert value(samples, "watchdeck_export_silenced", **labels(world.failing)) == 1.0
    assert value(samples, "watchdeck_export_silenced", **labels(world.overdue)) == 0.0
    assert value(samples, "watchdeck_export_state", **labels(world.failing), state="failing") == 1.0  # verdict stays

    silence(sandbox, world.overdue)  # made while the exporter runs: read at its next poll
    samples = exporter.scrape_when(
        lambda s: value(s, "watchdeck_export_silenced", **labels(world.overdue)) == 1.0, "the new silence")
    assert value(samples, "watchdeck_export_silenced", **labels(world.healthy)) == 0.0
