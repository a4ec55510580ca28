"""Waiting, in Pilot tests, for what the app shows and runs rather than for a flag kept inside it for tests.

``settle`` is what a snapshot or an assertion on the screen waits for. It reads only what any caller
may read: ``app.workers``, and the current screen's footer and bindings.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Callable
from typing import Any, TypeVar

from textual import events
from textual.app import App
from textual.notifications import Notification
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from tui.widgets.footer import FooterEntry, KeyFooter

__all__ = ["burst", "footer_entries", "footer_shows_current_keys", "footer_words", "messages_pending",
           "notifications", "settle",
           "toast_texts", "until", "workers_done"]

SETTLE_ROUNDS = 100
"""How many rounds ``settle`` waits before it gives up: far more than any screen here needs."""
FOOTER_ROUNDS = 5
"""How many rounds ``settle`` gives a footer to catch up with its screen's keys (it reads them after the next
refresh): one a screen does not tell of a change stays as it is, and the caller's assertions are about that."""


def notifications(app: App[Any]) -> list[Notification]:
    """The notifications the app holds now (shown, or still to show), oldest first.

    Textual keeps them in a private member and offers no public way to read them: this is the one place a test
    reads it (``tests/textual_private_uses.py`` lists it).
    """
    return list(app._notifications)


def toast_texts(app: App[Any]) -> list[str]:
    """The messages of :func:`notifications`, as text."""
    return [str(notification.message) for notification in notifications(app)]


def workers_done(app: App[Any]) -> bool:
    """No worker of the app is pending or running."""
    return all(worker.is_finished for worker in app.workers)


def messages_pending(app: App[Any]) -> bool:
    """A message or a ``call_next`` callback waits in the app or in a widget of any screen it shows.

    A key's effects travel from widget to widget as messages (a button's press, a dialog's dismissal, the
    callback that sends what the operator confirmed), and ``Pilot.pause`` waits only for the messages queued
    when it starts and then for the process to look idle, which a busy machine's process always does: ``settle``
    waits for the queues themselves. Textual offers no public way to read them (``tests/textual_private_uses.py``
    lists both members).
    """
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    return any(not node._message_queue.empty() or node._next_callbacks for node in nodes)


def footer_shows_current_keys(screen: Screen[Any]) -> bool:
    """Every footer on the screen shows each key's action enabled or disabled as the screen says it is now.

    A screen without a footer shows nothing stale.
    """
    wanted: dict[str, bool] = {}
    for _node, binding, enabled, _tooltip in screen.active_bindings.values():
        if binding.show:
            wanted.setdefault(binding.action, enabled)
    for footer in screen.query(KeyFooter):
        if {entry.action: entry.enabled for entry in footer.keys.entries} != wanted:
            return False
    return True


def footer_entries(screen: Screen[Any]) -> list[FooterEntry]:
    """Every key the screen's footer has, those dropped for width too, the palette's key last."""
    footer = screen.query_one(KeyFooter)
    palette = [footer.keys.palette] if footer.keys.palette is not None else []
    return [*footer.keys.entries, *palette]


def footer_words(screen: Screen[Any]) -> set[str]:
    """The descriptions of the screen's footer keys."""
    return {entry.description for entry in footer_entries(screen) if entry.description}


async def settle(pilot: Pilot[Any]) -> None:
    """Every worker done (also those started as others finished), no message waiting, and the footer up to date.

    One wait for the workers is not enough: a finished poll of the monitor starts its wait for the
    cursor to rest, and that wait starts the run-history load. A footer reads the screen's keys after
    the refresh that follows their change.
    """
    app = pilot.app
    footer_rounds = 0
    for _ in range(SETTLE_ROUNDS):
        # A worker cancelled meanwhile (an exclusive one replaced by the next) is done too: not a failure to wait on.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()
        if not workers_done(app) or messages_pending(app):
            continue
        if footer_rounds < FOOTER_ROUNDS and not footer_shows_current_keys(app.screen):
            footer_rounds += 1
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


_CHARACTERS = {"enter": "\r", "tab": "\t", "escape": "\x1b", "space": " ", "backspace": "\x7f"}


def _key_event(key: str) -> events.Key:
    """The event a terminal's driver posts for one key (a Textual key name), with the character it types."""
    character: str | None = _CHARACTERS.get(key, key if len(key) == 1 else None)
    if character is None and "+" not in key:
        with contextlib.suppress(KeyError):  # ``question_mark`` types "?"; ``down`` types nothing
            character = unicodedata.lookup(key.replace("_", " "))
    return events.Key(key, character)


async def burst(pilot: Pilot[Any], *keys: str) -> None:
    """Send ``keys`` as one write from the terminal: every key is queued before the app handles the first.

    ``Pilot.press`` lets the app go idle between two keys, so each key finds the work of the one before it done;
    a terminal delivers keys typed quickly (or queued during a stall) together, and the app handles each with only
    what the keys before it did at once, its messages still waiting. Then waits as ``settle`` does.
    """
    for key in keys:
        pilot.app.post_message(_key_event(key))
    await settle(pilot)
