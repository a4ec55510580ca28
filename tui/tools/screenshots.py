"""``make screenshots``: SVG screenshots of every screen for the README.

Made from the app on the sandbox with a fixed seed and a frozen clock, and
with the app's elapsed-time source and jitter fixed, so the same commit
always produces the same pictures. Never from a live project.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
SIZE = (140, 42)

Step = Callable[[Pilot[Any]], Awaitable[None]]


async def _settle(pilot: Pilot[Any]) -> None:
    """Every worker done, including those that started while the last ones finished.

    One wait is not enough: a finished poll starts the monitor's wait for the cursor to rest, which
    then starts the run-history load the screenshot should show.
    """
    for _ in range(100):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if all(worker.is_finished for worker in pilot.app.workers):
            return
    raise RuntimeError("the app did not settle")


async def _shoot(app: App[Any], path: Path, steps: list[Step], size: tuple[int, int] = SIZE) -> None:
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        for step in steps:
            await step(pilot)
            await _settle(pilot)
        app.save_screenshot(filename=path.name, path=str(path.parent))
    print(f"wrote {path}")


def _press(*keys: str) -> Step:
    async def step(pilot: Pilot[Any]) -> None:
        await pilot.press(*keys)

    return step


def _select_export(name: str) -> Step:
    async def step(pilot: Pilot[Any]) -> None:
        from tui.widgets.virtual_table import VirtualTable

        screen: Any = pilot.app.screen
        table = screen.query_one("#exports", VirtualTable)
        for watched in screen.board.visible():
            if watched.export.name == name:
                table.move_to_key(watched.key)

    return step


async def _wait(pilot: Pilot[Any]) -> None:
    await asyncio.sleep(0.3)


async def make_all(out: Path) -> None:
    from tui.app import WatchdeckApp
    from tui.clock import FrozenClock
    from tui.config import Settings
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    out.mkdir(parents=True, exist_ok=True)
    # The demo as it opens: in the middle of its outage (a column of failures on the timeline).
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), scenario="outage",
                                      summary_delay=(0.0, 0.0))) as sandbox:

        def app(start_mode: str = "monitor") -> WatchdeckApp:
            settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key,
                                project_ids=[sandbox.project_id], poll_seconds=10.0, bell=False)
            made = WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT), start_mode=start_mode)
            made.monotonic = lambda: 1000.0
            made.jitter = lambda: 0.5
            return made

        await _shoot(app(), out / "monitor.svg", [_select_export("Snowflake warehouse (hourly)")])
        await _shoot(app(), out / "run-logs.svg",
                     [_select_export("Snowflake warehouse (hourly)"), _press("l"), _wait, _press("f")])
        await _shoot(app(), out / "backfill.svg", [_select_export("Events to S3 data lake"), _press("b")])
        await _shoot(app(), out / "timeline.svg", [_press("t"), _wait, _press("down", "left", "left")])
        await _shoot(app(), out / "groups.svg", [_press("g"), _wait])
        await _shoot(app("surveys"), out / "survey-list.svg", [])
        await _shoot(app("surveys"), out / "survey-detail.svg", [_press("down", "down"), _press("enter")])
        await _shoot(app("surveys"), out / "question-editor.svg", [_press("down", "down"), _press("e"), _wait])
    from tui.screens.welcome import WelcomeApp

    await _shoot(WelcomeApp(env={}), out / "welcome.svg", [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?", default="screenshots", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        # Drafts, journal and theme of the screenshot run stay out of the operator's own dirs.
        for name in ("DATA", "STATE", "CONFIG"):
            os.environ[f"WATCHDECK_{name}_DIR"] = str(Path(scratch) / name.lower())
        asyncio.run(make_all(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
