"""Opening a question with 10,000 choices in the editor, against the same question with 10.

Target (issue: one Input per choice took 100 s and 1.8 GB): under 1 s to open and still responsive.
Printed as ratios to the 10-choice baseline measured in the same run; the assertions are only
gross functional facts (the form opened; a key typed into it lands in the draft).
"""

from __future__ import annotations

import gc
import time
import tracemalloc

from textual.app import App
from textual.widgets import OptionList, TextArea

from tui.api.client import ApiClient
from tui.api.models.surveys import Survey
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.screens.editor import SHOW_DELAY, SurveyEditorScreen
from tui.state.server_time import ServerClock
from tui.widgets.editor.choices import ChoicesEditor

from .helpers import FROZEN_AT, SIZE, report, wait_for


class EditorOnly(App[None]):
    """The editor on a local survey, with the app's stylesheets: no network."""

    CSS_PATH = WatchdeckApp.CSS_PATH

    def __init__(self, survey: Survey) -> None:
        super().__init__()
        self.clock = FrozenClock(FROZEN_AT)
        self.server_clock = ServerClock(self.clock)
        self.settings = Settings(base_url="http://127.0.0.1:9", api_key="unused", project_ids=["1"])
        self.api = ApiClient(self.settings.base_url, "unused", "1")
        self._survey = survey

    async def on_mount(self) -> None:
        await self.push_screen(SurveyEditorScreen(self._survey, read=False))  # a local survey: not on a server

    async def on_unmount(self) -> None:
        await self.api.aclose()


def _survey(choices: int) -> Survey:
    """A fresh id each time: a draft left by an earlier open would otherwise be offered back."""
    question = {"type": "single_choice", "question": "Which one?",
                "choices": [f"Choice number {i}" for i in range(choices)]}
    return Survey.model_validate({"id": f"s{choices}-{time.monotonic_ns()}", "name": "Choices", "type": "popover",
                                  "questions": [question]})


async def _open(choices: int, *, traced: bool = False) -> dict[str, float]:
    """Highlight the question and wait for its form; ``traced`` measures allocations (slower) instead of time."""
    survey = _survey(choices)
    gc.collect()
    app = EditorOnly(survey)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        items = screen.query_one("#editor-items", OptionList)
        items.focus()
        items.highlighted = 1
        await wait_for(lambda: bool(screen.query(ChoicesEditor)), timeout=300, step=0.005)
        await pilot.pause()
        opened = time.perf_counter() - started - SHOW_DELAY  # the list waits for the cursor to rest
        peak = 0
        if traced:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        # responsiveness: one key typed at the end of the list, until it is in the draft
        editor = screen.query_one(ChoicesEditor)
        started = time.perf_counter()
        if editor.text_mode:
            area = screen.query_one("#choices-text", TextArea)
            area.focus()
            area.move_cursor(area.document.end)
        else:
            screen.query(".choice-input").last().focus()
        await pilot.press("x")
        await wait_for(lambda: screen.draft.questions[0].choices[-1].endswith("x"), timeout=60)
        typed = time.perf_counter() - started
    return {"open_s": opened, "peak_mb": peak / 2**20, "key_s": typed}


async def test_ten_thousand_choices_open_like_ten() -> None:
    baseline = await _open(10)
    big = await _open(10_000)
    baseline["peak_mb"] = (await _open(10, traced=True))["peak_mb"]
    big["peak_mb"] = (await _open(10_000, traced=True))["peak_mb"]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.1f}x" if b else "-"

    report("editor: a question with 10,000 choices vs 10", [
        ("open the question", f"{big['open_s']:.3f} s", "< 1 s", f"{baseline['open_s']:.3f} s",
         ratio(big["open_s"], baseline["open_s"])),
        ("memory allocated while opening (peak)", f"{big['peak_mb']:.1f} MB", "-", f"{baseline['peak_mb']:.1f} MB",
         ratio(big["peak_mb"], baseline["peak_mb"])),
        ("one key typed, until in the draft", f"{big['key_s'] * 1000:.0f} ms", "-",
         f"{baseline['key_s'] * 1000:.0f} ms", ratio(big["key_s"], baseline["key_s"])),
    ], ("measure", "10,000 choices", "target", "10 choices", "ratio"))
