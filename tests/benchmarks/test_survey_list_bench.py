"""Benchmark of the survey browser with 10,000 surveys: first page, paging stalls, memory.

Targets: first page visible < 1 s after the screen opens; paging to the end without a
UI-thread stall over 50 ms; RSS < 150 MB. Figures are printed with ratios to a baseline measured
in the same run (a bare Textual app with a 100-row DataTable), and only gross
functional facts are asserted: the machine is too noisy for timed assertions.

Each app runs in a fresh interpreter so its RSS is its own (the sandbox, with its SQLite database
of 10,000 surveys, stays in the pytest process). That interpreter imports this module, so the module
imports neither pytest nor the sandbox at the top: they added ~13,000 objects (and megabytes) to the
measured process that the real app never has, and every full garbage collection walked them.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from tests.benchmarks.helpers import FROZEN_AT, report, rss_mb, run_python
from tui.clock import FrozenClock

SURVEYS = 10_000
SIZE = (120, 40)


class LagMonitor:
    """The longest time the event loop (the UI thread) was busy: how late a 2 ms sleep wakes up."""

    def __init__(self, tick: float = 0.002) -> None:
        self.tick = tick
        self.worst = 0.0
        self.samples: list[float] = []
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.tick)
            late = time.perf_counter() - start - self.tick
            self.samples.append(late)
            self.worst = max(self.worst, late)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def p99(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else 0.0


async def _until(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.002)


async def measure_baseline() -> dict[str, float]:
    """A bare Textual app with a 100-row, 7-column DataTable: first frame, scroll stall, RSS."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Footer, Header

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield DataTable(cursor_type="row")
            yield Footer()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("name", "type", "status", "qs", "responses", "creator", "created")
            table.add_rows([(f"Survey {i}", "popover", "running", "3", f"{i * 7:,}", "Ada Okafor", "2 days ago")
                            for i in range(100)])
            table.focus()

    start = time.perf_counter()
    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first_frame = time.perf_counter() - start
        lag = LagMonitor()
        lag.start()
        for _ in range(6):
            await pilot.press("pagedown")
            await pilot.pause()
        await pilot.press("ctrl+end")
        await pilot.pause()
        lag.stop()
        return {"first_frame_s": first_frame, "worst_stall_ms": lag.worst * 1000, "p99_stall_ms": lag.p99() * 1000,
                "rss_mb": rss_mb()}


async def measure_browser(base_url: str, api_key: str) -> dict[str, float]:
    """The survey browser against the 10,000-survey sandbox."""
    from tui.app import WatchdeckApp
    from tui.config import Settings
    from tui.screens.surveys import SurveyBrowserScreen

    opened: list[float] = []
    original_mount = SurveyBrowserScreen.on_mount

    def timed_mount(screen: SurveyBrowserScreen) -> None:
        opened.append(time.perf_counter())
        original_mount(screen)

    SurveyBrowserScreen.on_mount = timed_mount  # type: ignore[method-assign]

    append_times: list[float] = []
    original_accept = SurveyBrowserScreen._accept_page

    def timed_accept(screen: SurveyBrowserScreen, result: Any) -> None:
        t0 = time.perf_counter()
        original_accept(screen, result)
        append_times.append(time.perf_counter() - t0)

    SurveyBrowserScreen._accept_page = timed_accept  # type: ignore[method-assign]

    import gc

    gc_pauses: list[float] = []
    gc_started: list[float] = []

    def gc_watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_started.append(time.perf_counter())
        elif gc_started:
            gc_pauses.append(time.perf_counter() - gc_started.pop())

    gc.callbacks.append(gc_watch)

    start = time.perf_counter()
    settings = Settings(base_url=base_url, api_key=api_key, project_ids=["1"])
    app = WatchdeckApp(settings, clock=FrozenClock(FROZEN_AT), start_mode="surveys")
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: isinstance(app.screen, SurveyBrowserScreen) and app.screen.table.row_count > 0)
        await pilot.pause()  # the frame with the rows
        visible = time.perf_counter()
        screen = app.screen
        assert isinstance(screen, SurveyBrowserScreen)
        rss_first = rss_mb()
        await app.workers.wait_for_complete()
        lag = LagMonitor()
        lag.start()
        pages_start = time.perf_counter()
        presses = 0
        while not screen.pager.exhausted:
            before = screen.table.row_count
            await pilot.press("end")
            presses += 1
            await _until(lambda b=before: screen.table.row_count > b or screen.pager.exhausted  # type: ignore[misc]
                         or screen.error is not None)
            if screen.error is not None:
                raise AssertionError(screen.error)
        await pilot.press("up", "down")
        await pilot.pause()
        paging = time.perf_counter() - pages_start
        lag.stop()
        rows = screen.table.row_count
        return {
            "screen_to_first_page_s": visible - opened[0],
            "start_to_first_page_s": visible - start,
            "rows": rows,
            "pages": len(append_times),
            "presses": presses,
            "paging_total_s": paging,
            "worst_stall_ms": lag.worst * 1000,
            "p99_stall_ms": lag.p99() * 1000,
            "worst_append_ms": max(append_times) * 1000,
            "median_append_ms": sorted(append_times)[len(append_times) // 2] * 1000,
            "worst_gc_ms": max(gc_pauses, default=0.0) * 1000,
            "rss_first_page_mb": rss_first,
            "rss_mb": rss_mb(),
        }


_RUN = """
import asyncio, json, sys
from tests.benchmarks.test_survey_list_bench import measure_baseline, measure_browser
if sys.argv[1] == "baseline":
    print(json.dumps(asyncio.run(measure_baseline())))
else:
    print(json.dumps(asyncio.run(measure_browser(sys.argv[2], sys.argv[3]))))
"""


def _run(*args: str) -> dict[str, float]:
    done = run_python(_RUN, *args, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_survey_list_with_10000_surveys() -> None:
    from tui.sandbox.runner import SandboxOptions, start_sandbox  # not at the top: see the module docstring

    with start_sandbox(SandboxOptions(seed=7, surveys=SURVEYS, simulate=False,
                                      clock=FrozenClock(FROZEN_AT))) as sandbox10k:
        baseline = _run("baseline")
        browser = _run("browser", sandbox10k.base_url, sandbox10k.api_key)

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.1f}x" if b else "—"

    report(
        "survey browser, 10,000 surveys (baseline: bare app + 100-row DataTable, same run)",
        [
            ("first page visible after screen opens", f"{browser['screen_to_first_page_s'] * 1000:.0f} ms",
             "< 1000 ms", f"{baseline['first_frame_s'] * 1000:.0f} ms (first frame)",
             ratio(browser["screen_to_first_page_s"], baseline["first_frame_s"])),
            ("process start → first page", f"{browser['start_to_first_page_s'] * 1000:.0f} ms", "", "", ""),
            ("worst UI stall while paging to the end", f"{browser['worst_stall_ms']:.1f} ms", "< 50 ms",
             f"{baseline['worst_stall_ms']:.1f} ms (scrolling)",
             ratio(browser["worst_stall_ms"], baseline["worst_stall_ms"])),
            ("p99 UI stall while paging", f"{browser['p99_stall_ms']:.1f} ms", "",
             f"{baseline['p99_stall_ms']:.1f} ms", ratio(browser["p99_stall_ms"], baseline["p99_stall_ms"])),
            ("page append handler, worst / median", f"{browser['worst_append_ms']:.1f} / "
             f"{browser['median_append_ms']:.1f} ms", "", "", ""),
            ("worst garbage-collector pause", f"{browser['worst_gc_ms']:.1f} ms", "", "", ""),
            ("pages loaded / rows / time", f"{browser['pages']:.0f} / {browser['rows']:.0f} / "
             f"{browser['paging_total_s']:.1f} s", "", "", ""),
            ("RSS after first page", f"{browser['rss_first_page_mb']:.1f} MB", "", f"{baseline['rss_mb']:.1f} MB",
             ratio(browser["rss_first_page_mb"], baseline["rss_mb"])),
            ("RSS with all 10,000 loaded", f"{browser['rss_mb']:.1f} MB", "< 150 MB", f"{baseline['rss_mb']:.1f} MB",
             ratio(browser["rss_mb"], baseline["rss_mb"])),
        ],
        ("measure", "watchdeck", "target", "baseline", "ratio"),
    )
    # functional facts only
    assert browser["rows"] == SURVEYS
    assert browser["pages"] == SURVEYS // 100
