"""Start-up, tuned in one place: the collector while the dashboard loads, and its first poll sent early.

The dashboard's first frame is about 0.4 s of imports, styles and mounting on
one core; the server needs about as long again to answer the first poll. Sent
from the app, the answer came after the first frame and the data a frame or
more later. Sent here, on a thread before Textual is imported, it is on its way
while Textual loads. The thread runs the app's own code for a poll (``ApiClient``
and ``ExportsSource`` on an event loop of its own), so the key, proxy, TLS,
redirect and retry rules are the client's and nowhere else; the monitor's source
takes over the poll's answer and what it learned (a missing list route, the
last good exports) as if it had asked itself.

The collector: loading makes ~300k objects that live as long as the process,
and with the collector on every import batch set off full passes over all of
them (measured 8-12 ms, and 30 ms just before the first frame with data).
``watchdeck`` turns it off before anything heavy is imported
(:func:`quiet_collector`); the app turns it back on a second after start, with
what loading made frozen out of its way (:func:`resume_collector`).

This module imports only the standard library at the top: ``tui.launch``
imports it before anything else.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future

    from tui.clock import Clock
    from tui.config import Settings
    from tui.state.exports import ExportsSnapshot, FirstPoll
    from tui.state.server_time import ServerClock

#: A second after start the first frame with data is drawn: the collection before the freeze (~30 ms) waits.
FREEZE_AFTER_SECONDS = 1.0

_frozen = False


def quiet_collector() -> None:
    """No garbage collection while the dashboard loads (``resume_collector`` undoes it)."""
    gc.disable()


def collector_on() -> None:
    """Every command but the dashboard runs with the collector on (they do not freeze what loading made)."""
    gc.enable()


def resume_collector() -> None:
    """Freeze what start-up made (modules, classes, the first screen: ~100k objects) and collect again.

    They live as long as the process, yet every full collection walked them
    again: measured 36-48 ms per pass, the longest frames while paging 10,000
    surveys. Frozen, full passes only walk what the app made since. Once per
    process: a second app (tests) must not freeze the first one's leftovers.
    """
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()
    gc.enable()


class EarlyPoll:
    """The monitor's first poll, run on a daemon thread with the app's own client and state code."""

    def __init__(self, settings: Settings, server_clock: ServerClock, project_ids: Sequence[str],
                 before: Callable[[], object] | None = None) -> None:
        self._settings = settings
        self._before = before  # run on the thread first: e.g. wait until the demo's sandbox serves
        self.server_clock = server_clock
        self.project_ids = list(project_ids)
        from concurrent.futures import Future

        self.answer: Future[FirstPoll | None] = Future()

    def __repr__(self) -> str:  # never the key
        return f"EarlyPoll(projects={self.project_ids!r})"

    def start(self) -> EarlyPoll:
        threading.Thread(target=self._run, name="watchdeck-first-poll", daemon=True).start()
        return self

    def _run(self) -> None:
        import asyncio

        try:
            if self._before is not None:
                self._before()
            self.answer.set_result(asyncio.run(self._poll()))
        except BaseException:  # a first poll that could not even run is not used: the monitor asks itself
            if not self.answer.done():
                self.answer.set_result(None)

    async def _poll(self) -> FirstPoll:
        from tui.api.client import ApiClient
        from tui.api.retry_budget import retry_budget
        from tui.state.exports import ExportsSource, FirstPoll

        settings = self._settings
        clients = [ApiClient(settings.base_url, settings.api_key.get_secret_value(), project_id)
                   for project_id in self.project_ids]
        for client in clients:
            client.on_server_date = self.server_clock.record
        source = ExportsSource(clients, settings.export_ids)
        snapshot: ExportsSnapshot | None = None
        error: Exception | None = None
        try:
            with retry_budget(settings.poll_seconds):  # as the monitor's poller does: retries end within one poll
                snapshot = await source.fetch()
        except Exception as err:  # the monitor's first poll fails with it, in the client's words
            error = err
        finally:
            for client in clients:
                await client.aclose()
        return FirstPoll(source, snapshot, time.monotonic(), error)


def start_first_poll(settings: Settings, clock: Clock, *, before: Callable[[], object] | None = None,
                     ) -> EarlyPoll | None:
    """Start the monitor's first poll now, or None where it must wait for the app.

    Not while other viewers share the cache (or where that cannot be told
    cheaply: Redis): the thread's client does not read the store, so it would
    ask for what another viewer's fresh answer already says.
    """
    if settings.cache:
        if settings.cache_url:
            return None
        from tui.api.cache_context import others_watching
        from tui.paths import cache_dir

        if others_watching(cache_dir(), settings.base_url, settings.api_key.get_secret_value()):
            return None
    from tui.state.server_time import ServerClock

    configured = settings.project_ids
    project_ids = list(configured) if len(configured) > 1 else [settings.project_id]
    return EarlyPoll(settings, ServerClock(clock), project_ids, before).start()
