"""Opening the survey editor on a survey of twelve questions, as shipped and with ``StyledAtMount`` undone (the
first resume restyling every widget the mount has just styled, as Textual does by default).

Printed as the ratio of the undone median to the shipped one, over interleaved opens in one process; the
assertion is only the functional fact that the editor opened.
"""

from __future__ import annotations

import gc
import statistics
import time

import pytest
from textual import events

from tui.api.models.surveys import Survey
from tui.screens.base import StyledAtMount
from tui.screens.editor import SurveyEditorScreen

from .helpers import SIZE, report
from .test_choices_bench import EditorOnly

OPENS = 9


class NoScreen(EditorOnly):
    """The editor's app with nothing pushed at mount: the test pushes the editor itself, timed."""

    async def on_mount(self) -> None:
        return None


def _survey() -> Survey:
    questions = [{"type": "single_choice", "question": f"Question {q}?", "choices": [f"Choice {c}" for c in range(6)]}
                 for q in range(12)]
    return Survey.model_validate({"id": f"s-{time.monotonic_ns()}", "name": "Twelve", "type": "popover",
                                  "questions": questions})


async def _open() -> float:
    survey = _survey()
    app = NoScreen(survey)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gc.collect()
        started = time.perf_counter()
        await app.push_screen(SurveyEditorScreen(survey))
        await pilot.pause()
        await pilot.pause()
        took = time.perf_counter() - started
        assert isinstance(app.screen, SurveyEditorScreen)
    return took


def _restyle_at_first_resume(self: StyledAtMount, event: events.ScreenResume) -> None:
    """Textual's default: the first resume styles the screen again."""


async def test_the_editor_opens_styled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped_resume = StyledAtMount.on_screen_resume
    shipped: list[float] = []
    undone: list[float] = []
    await _open()  # imports and caches warm
    for _ in range(OPENS):
        monkeypatch.setattr(StyledAtMount, "on_screen_resume", shipped_resume)
        shipped.append(await _open())
        monkeypatch.setattr(StyledAtMount, "on_screen_resume", _restyle_at_first_resume)
        undone.append(await _open())
    slower = sum(u > s for u, s in zip(undone, shipped, strict=True))
    report(f"editor open, 12 questions (n={OPENS} each, interleaved)", [
        ("as shipped (StyledAtMount)", f"{statistics.median(shipped) * 1e3:.0f}", f"{min(shipped) * 1e3:.0f}", "1.00x",
         "-"),
        ("restyled at the first resume (a trick undone)", f"{statistics.median(undone) * 1e3:.0f}",
         f"{min(undone) * 1e3:.0f}", f"{statistics.median(undone) / statistics.median(shipped):.2f}x",
         f"{slower}/{OPENS}"),
    ], ("what", "median ms", "min ms", "ratio of medians", "opens slower undone"))
