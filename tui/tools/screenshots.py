"""``make screenshots``: SVG screenshots of every screen for the README.

Made from the app on the sandbox with a fixed seed and a frozen clock, and
with the app's elapsed-time source and jitter fixed, so the same commit
always produces the same pictures. Never from a live project.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

if TYPE_CHECKING:
    from tui.sandbox.runner import SandboxHandle

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
SIZE = (160, 48)
"""The size an on-call screen often has: the monitor shows every column of an export but its data model, and the
runs their cursor."""

Step = Callable[[Pilot[Any]], Awaitable[None]]


async def _settle(pilot: Pilot[Any]) -> None:
    """Every worker done, including those that started while the last ones finished.

    One wait is not enough: a finished poll starts the monitor's wait for the cursor to rest, which
    then starts the run-history load the screenshot should show.
    """
    for _ in range(100):
        # A worker cancelled meanwhile (an exclusive one replaced by the next) is done too.
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if all(worker.is_finished for worker in pilot.app.workers):
            return
    raise RuntimeError("the app did not settle")


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


@dataclass(frozen=True)
class Scene:
    """One picture: the file it is written to, the screen the app starts on, the keys and steps that lead to it."""

    file: str
    start: str  # "monitor", "surveys", or "welcome" (the first-run screen, no server)
    steps: tuple[Step, ...] = ()


SCENES: tuple[Scene, ...] = (
    Scene("monitor.svg", "monitor", (_select_export("Snowflake warehouse (hourly)"),)),
    Scene("run-logs.svg", "monitor", (_select_export("Snowflake warehouse (hourly)"), _press("l"), _wait, _press("f"))),
    Scene("backfill.svg", "monitor", (_select_export("Events to S3 data lake"), _press("b"))),
    Scene("timeline.svg", "monitor", (_press("t"), _wait, _press("down", "left", "left"))),
    Scene("groups.svg", "monitor", (_press("g"), _wait)),
    Scene("survey-list.svg", "surveys"),
    Scene("survey-detail.svg", "surveys", (_press("down", "down"), _press("enter"))),
    Scene("question-editor.svg", "surveys", (_press("down", "down"), _press("e"), _wait)),
    Scene("welcome.svg", "welcome"),
)


@contextlib.contextmanager
def screenshot_sandbox() -> Iterator[SandboxHandle]:
    """The demo as it opens: in the middle of its outage (a column of failures on the timeline), clock frozen."""
    from tui.clock import FrozenClock
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), scenario="outage",
                                      summary_delay=(0.0, 0.0))) as sandbox:
        yield sandbox


def scene_app(scene: Scene, sandbox: SandboxHandle) -> App[Any]:
    """The app of one picture, its clock, elapsed time and jitter fixed."""
    from tui.app import WatchdeckApp
    from tui.clock import FrozenClock
    from tui.config import Settings
    from tui.screens.welcome import WelcomeApp

    if scene.start == "welcome":  # first run: no profile yet, and where one will live
        return WelcomeApp(env={}, path=Path("/home/op/.config/watchdeck/config.toml"))
    settings = Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=[sandbox.project_id],
                        poll_seconds=10.0, bell=False)
    made = WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT), start_mode=scene.start)
    made.monotonic = lambda: 1000.0
    made.jitter = lambda: 0.5
    return made


async def shoot(scene: Scene, sandbox: SandboxHandle, size: tuple[int, int] = SIZE) -> str:
    """The scene's picture, as SVG."""
    app = scene_app(scene, sandbox)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        for step in scene.steps:
            await step(pilot)
            await _settle(pilot)
        return app.export_screenshot()


def svg_text(svg: str) -> list[str]:
    """The characters of a terminal picture Rich drew as SVG, a line each, placed by their x position (a cell is
    CELL_PX wide) and their line's clip path: what the picture says, whatever its styles and their ids."""
    rows: dict[int, dict[int, str]] = {}
    for match in _SVG_TEXT.finditer(svg):
        x, line, text = float(match.group("x")), int(match.group("line")), html.unescape(match.group("text"))
        rows.setdefault(line, {})[round(x / CELL_PX)] = text.replace("\xa0", " ")
    lines: list[str] = []
    for number in range(max(rows, default=-1) + 1):
        cells = ""
        for column, text in sorted(rows.get(number, {}).items()):
            cells = cells.ljust(column) + text
        lines.append(cells.rstrip())
    return lines


CELL_PX = 12.2
"""How wide Rich's SVG draws one terminal cell (its font size 20 times 0.61)."""
_SVG_TEXT = re.compile(r'<text class="[^"]*" x="(?P<x>[0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" '
                       r'clip-path="url\(#terminal-(?:[0-9]+-)?line-(?P<line>[0-9]+)\)">(?P<text>[^<]*)</text>')


async def make_all(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with screenshot_sandbox() as sandbox:
        for scene in SCENES:
            (out / scene.file).write_text(await shoot(scene, sandbox), encoding="utf-8")
            print(f"wrote {out / scene.file}")


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
