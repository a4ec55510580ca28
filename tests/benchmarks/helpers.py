"""Measuring helpers of the benchmarks: RSS, frame counting, fresh interpreters, printed tables."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App

from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
EXPORTS = 200
SIZE = (120, 40)  # the floor's terminal size; >= NARROW_WIDTH so the monitor shows every column
ROOT = Path(__file__).resolve().parents[2]
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def make_app(base_url: str, api_key: str, project_id: str = "1", **settings: Any) -> WatchdeckApp:
    values: dict[str, Any] = {"base_url": base_url, "api_key": api_key, "project_ids": [project_id],
                              "poll_seconds": 300.0, "bell": False}
    values.update(settings)
    return WatchdeckApp(Settings(**values), clock=FrozenClock(FROZEN_AT))


# --------------------------------------------------------------------------- measuring


def rss_mb() -> float:
    """Resident set size now (psutil is not a dependency; /proc is enough on Linux)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE_SIZE / 2**20


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def report(title: str, rows: Sequence[Sequence[object]], header: Sequence[str]) -> None:
    """Print a small aligned table (pytest -s shows it)."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n== {title}")
    for n, row in enumerate(cells):
        print("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


class FrameCounter:
    """Counts frames the compositor produced, by wrapping ``App._display``.

    Headless drivers skip writing, but the compositor still renders every changed
    line before ``_display`` is called, so a new count means the repaint is done.
    """

    def __init__(self, app: App[Any]) -> None:
        self.count = 0
        self._waiter: asyncio.Future[None] | None = None
        original = app._display

        def counting(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is not None:
                self.count += 1
                if self._waiter is not None and not self._waiter.done():
                    self._waiter.set_result(None)

        app._display = counting  # type: ignore[method-assign]

    async def wait_next(self, since: int, timeout: float = 0.25) -> bool:
        """Until a frame after ``since`` was produced (False when nothing needed repainting).

        Waits on a future set by the hook, not a polling loop, so the wait itself costs no CPU.
        """
        if self.count > since:
            return True
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(asyncio.shield(self._waiter), timeout)
        except TimeoutError:
            return self.count > since
        finally:
            self._waiter = None
        return True


async def wait_for(predicate: Callable[[], bool], timeout: float = 30.0, step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await asyncio.sleep(step)


async def measure_cpu(action: Callable[[], Awaitable[Any]]) -> tuple[float, float, float]:
    """(UI-thread CPU, process CPU, wall) of one awaited action, in seconds."""
    t0, p0, w0 = time.thread_time(), time.process_time(), time.perf_counter()
    await action()
    return time.thread_time() - t0, time.process_time() - p0, time.perf_counter() - w0


def run_python(code: str, *args: str, timeout: float = 120.0, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess[str]:
    """Run a snippet in a fresh interpreter of this venv (so imports count from zero)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env={**os.environ, **(env or {})}, check=False)


def growth_over_last_half(samples: Sequence[tuple[float, float]]) -> float:
    """How much a figure grew over the last half of a run, as a fraction of its value at half-time: the slope of
    the least-squares line through the samples of the last half, times that half's length. One sample taken just
    after a collection or a big answer moves it little, where the end against the half would move by as much."""
    end = samples[-1][0]
    last = [(t, v) for t, v in samples if t >= end / 2]
    if len(last) < 2:
        return 0.0
    mean_t = sum(t for t, _ in last) / len(last)
    mean_v = sum(v for _, v in last) / len(last)
    spread = sum((t - mean_t) ** 2 for t, _ in last)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in last) / spread if spread else 0.0
    at_half = mean_v + slope * (end / 2 - mean_t)
    return slope * (end - end / 2) / at_half
