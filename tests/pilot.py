"""Waiting, in Pilot tests, for what the app shows and runs rather than for a flag kept inside it for tests.

``settle`` is what a snapshot or an assertion on the screen waits for. It reads only what any caller
may read: ``app.workers``, the current screen's footer and bindings, and the survey list's published
footer delay (``tui.screens.debounce``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from textual.worker import WorkerCancelled

from tui.screens import debounce
from tui.screens.surveys import SurveyBrowserScreen

__all__ = ["footer_shows_current_keys", "settle", "until", "workers_done"]

SETTLE_ROUNDS = 100
"""How many rounds ``settle`` waits before it gives up: far more than any screen here needs."""
FOOTER_WAIT_LIMIT = 2.0
"""How long ``settle`` gives the survey list's footer to catch up (many times ``Debounce.footer``, as it ships)."""


def workers_done(app: App[Any]) -> bool:
    """No worker of the app is pending or running."""
    return all(worker.is_finished for worker in app.workers)


def footer_shows_current_keys(screen: Screen[Any]) -> bool:
    """Every footer on the screen shows each key's action enabled or disabled as the screen says it is now.

    A screen without a footer shows nothing stale.
    """
    wanted: dict[str, bool] = {}
    for _node, binding, enabled, _tooltip in screen.active_bindings.values():
        if binding.show:
            wanted.setdefault(binding.action, enabled)
    for footer in screen.query(Footer):
        shown = {key.action: not key.has_class("-disabled") for key in footer.query(FooterKey)
                 if not key.has_class("-command-palette")}
        if shown != wanted:
            return False
    return True


async def settle(pilot: Pilot[Any]) -> None:
    """Every worker done (also those started as others finished), and the survey list's footer up to date.

    One wait for the workers is not enough: a finished poll of the monitor starts its wait for the
    cursor to rest, and that wait starts the run-history load. The survey list refreshes its footer
    only ``Debounce.footer`` after the cursor rests, so for a moment after a move it shows the keys of
    the row left behind; other screens refresh theirs at once.
    """
    app = pilot.app
    footer_deadline: float | None = None
    for _ in range(SETTLE_ROUNDS):
        # A worker cancelled meanwhile (an exclusive one replaced by the next) is done too: not a failure to wait on.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()
        if not workers_done(app):
            continue
        if isinstance(app.screen, SurveyBrowserScreen) and not footer_shows_current_keys(app.screen):
            # Bounded: the footer follows the bindings ``Debounce.footer`` after the cursor rests; a footer that
            # still differs after the limit is what the screen shows, and the caller's assertions are about it.
            footer_deadline = footer_deadline or time.monotonic() + FOOTER_WAIT_LIMIT
            if time.monotonic() < footer_deadline:
                await pilot.pause(debounce.DEBOUNCE.footer)
                continue
        return
    raise AssertionError("the app did not settle: a worker kept running")


ScreenT = TypeVar("ScreenT", bound=Screen[Any])


async def opened_by(pilot: Pilot[Any], key: str, kind: type[ScreenT]) -> ScreenT:
    """Press ``key`` once the app has settled; the screen it opened, which must be a ``kind``."""
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, kind), f"{key} opened {type(screen).__name__}, not {kind.__name__}"
    return screen


async def until(pilot: Pilot[Any], condition: Callable[[], bool], rounds: int = SETTLE_ROUNDS,
                step: float | None = None) -> None:
    """Settle, then give the app more rounds until ``condition`` holds (a resize reaches a screen's handlers a
    round or more after the app's; a debounce timer fires ``step`` seconds at a time). Returns either way: the
    caller asserts what it expected."""
    await settle(pilot)
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(step)
        await settle(pilot)
