"""One poll of the watched exports, and the first poll sent while the app loads.

One list call per project per cycle where the server has the (real-service)
list endpoint; where it answers 404/405 (the spec has none) the given ids are
fetched one by one. The client caps requests in flight. Whether an export is
healthy is not decided here but in :mod:`tui.state.health`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from tui.api.cache_context import bypass_cache, collect_answer_times
from tui.api.client import ApiClient
from tui.api.errors import (
    ApiError,
    MethodNotAllowed,
    NotFound,
    ProjectNotFound,
    UnexpectedId,
    names_missing_project,
)
from tui.api.models.batch_exports import BatchExport
from tui.api.urls import project_path
from tui.state.exports import ExportsSnapshot, Learned, MissingRoutes, WatchedExport
from tui.state.health import incomplete_reason
from tui.state.io.poller import describe_failure

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.state.server_time import ServerClock

#: A first poll (sent while the app loaded) older than this when the monitor asks is not shown: it asks again.
FIRST_POLL_MAX_AGE = 10.0
#: How long the monitor's first poll waits for a first poll still under way (its client's own timeouts end it
#: sooner; asking again meanwhile would only send the same request twice).
FIRST_POLL_WAIT = 30.0


class FirstPoll:
    """The monitor's first poll, sent on a thread while the app loads (:mod:`tui.cli.startup`).

    It runs the app's own code for a poll (:class:`ApiClient` and :class:`ExportsSource` on an event loop of its
    own), so the key, proxy, TLS, redirect and retry rules are the client's. Its answers date ``server_clock``
    (the app's, from then on). Once ``done`` is set, the monitor's source takes over the answer (``snapshot`` or
    ``error``) and what it learned, as if it had asked itself.
    """

    def __init__(self, settings: Settings, server_clock: ServerClock, project_ids: Sequence[str],
                 before: Callable[[], object] | None = None) -> None:
        self._settings = settings
        self._before = before  # run first: e.g. wait until the demo's sandbox serves
        self.server_clock = server_clock
        self.project_ids = list(project_ids)
        self.learned = Learned()
        self.snapshot: ExportsSnapshot | None = None
        self.error: Exception | None = None  # why it failed: the client's own words, as the monitor's poll says them
        self.finished_at = 0.0  # time.monotonic()
        self.done: Future[bool] = Future()  # True once it asked; False when it could not run at all

    def __repr__(self) -> str:  # never the key
        return f"FirstPoll(projects={self.project_ids!r})"

    def start(self) -> FirstPoll:
        threading.Thread(target=self._run, name="watchdeck-first-poll", daemon=True).start()
        return self

    def answered(self) -> bool:
        """Finished with exports, recently enough to be shown (else the monitor asks again)."""
        return self.done.done() and self.done.result() and self.snapshot is not None and self.fresh()

    def fresh(self) -> bool:
        return time.monotonic() - self.finished_at <= FIRST_POLL_MAX_AGE

    def _run(self) -> None:
        try:
            if self._before is not None:
                self._before()
            asyncio.run(self._poll())
        except Exception:  # a first poll that could not even run is not used: the monitor asks itself
            self.done.set_result(False)
        else:
            self.done.set_result(True)

    async def _poll(self) -> None:
        from tui.api.deadline import retry_deadline

        settings = self._settings
        clients = [ApiClient(settings.base_url, settings.api_key.get_secret_value(), project_id)
                   for project_id in self.project_ids]
        for client in clients:
            client.on_server_date = self.server_clock.record
        source = ExportsSource(clients, settings.export_ids)
        try:
            with retry_deadline(settings.poll_seconds):  # as the monitor's poller does: retries end within one poll
                self.snapshot = await source.fetch()
        except ApiError as err:  # the monitor's first poll fails with it, in the client's words
            self.error = err
        finally:
            for client in clients:
                await client.aclose()
            self.learned = source.learned()
            self.finished_at = time.monotonic()


class ExportsSource:
    """Fetches the watched exports of every project.

    Not found is not "no list": a project the server does not know is an
    error (:class:`ProjectNotFound`); the server is taken to have no export
    list only when the list route answers 404/405 for a project that exists,
    and that is looked at again every ``LIST_RECHECK_SECONDS`` and on
    :meth:`look_again` (ctrl+r). A 404 from a list that answered before is a
    failed poll, not a missing route. An export answer missing what the screen
    needs is a bad item: its last complete answer stays.
    """

    def __init__(self, clients: Sequence[ApiClient], extra_ids: Sequence[str] = (), *,
                 monotonic: Callable[[], float] = time.monotonic,
                 first_poll: FirstPoll | None = None) -> None:
        self.clients = list(clients)
        # The answer of a poll sent while the app loaded (tui.cli.startup): the first fetch takes it over.
        self._first_poll = first_poll
        self.extra_ids = list(dict.fromkeys(extra_ids))
        self._monotonic = monotonic
        self._list_answered: set[str] = set()
        self._missing_lists = MissingRoutes(monotonic)
        self._last_good: dict[str, ExportsSnapshot] = {}
        # Per listed export its last complete answer (about 27 KB, shared with the rows); forgotten once the list
        # no longer names it.
        self._last_complete: dict[str, BatchExport] = {}
        self.bypass_next = False  # the next poll asks the server, not the shared cache (ctrl+r)

    def look_again(self) -> None:
        """Ask the list route again at the next poll, wherever it was found missing (ctrl+r)."""
        self._missing_lists.look_again()

    def list_missing(self, project_id: str) -> bool:
        """The list route answered 404/405 for this (existing) project within the last ten minutes."""
        return self._missing_lists.missing(project_id)

    @property
    def requests_per_cycle(self) -> int:
        """For the rate-limit budget: one per project with a list endpoint, else one per export."""
        total = 0
        for client in self.clients:
            total += len(self.extra_ids) if self.list_missing(client.project_id) else 1
        return max(total, 1)

    def answers_waiting(self) -> bool:
        """A first poll made while the app loaded holds a fresh answer: the next fetch needs no round trip."""
        return self._first_poll is not None and self._first_poll.answered()

    async def fetch(self) -> ExportsSnapshot:
        """One poll of every project. One project failing does not blank the others: its last good
        exports stay, with a note saying why they are old; only when every project fails does the poll fail."""
        if self._first_poll is not None:
            taken = await self._take_first_poll()
            if taken is not None:
                return taken
        bypass, self.bypass_next = self.bypass_next, False
        with collect_answer_times() as answered, bypass_cache() if bypass else contextlib.nullcontext():
            results = await asyncio.gather(*(self._fetch_project(c) for c in self.clients), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        for failure in failures:
            if not isinstance(failure, Exception):  # cancellation and the like are not ours to absorb
                raise failure
        if failures and len(failures) == len(results):
            raise failures[0]
        snapshot = ExportsSnapshot()
        for client, result in zip(self.clients, results, strict=True):
            pid = client.project_id
            if isinstance(result, BaseException):
                snapshot.notes.append(f"project {pid}: {describe_failure(result)}, showing its last good data")
                part = self._last_good.get(pid)
                if part is None:
                    continue
            else:
                part = self._last_good[pid] = result
            snapshot.exports.extend(part.exports)
            snapshot.item_errors.extend(part.item_errors)
            snapshot.incomplete.extend(part.incomplete)
            snapshot.notes.extend(part.notes)
        snapshot.exports.sort(key=lambda w: (w.project_id, w.export.name.lower(), w.export.id))
        snapshot.answer_age = time.time() - min(answered) if answered else 0.0
        return snapshot

    def learned(self) -> Learned:
        return Learned(requests_sent={client.project_id: client.requests_sent for client in self.clients},
                       list_answered=set(self._list_answered),
                       lists_missing={c.project_id for c in self.clients if self.list_missing(c.project_id)},
                       last_good=dict(self._last_good), last_complete=dict(self._last_complete))

    def adopt(self, learned: Learned) -> None:
        """Take over what another source learned, as if this one had asked (its requests count here too)."""
        for client in self.clients:
            client.count_sent_elsewhere(learned.requests_sent.get(client.project_id, 0))
        self._list_answered |= learned.list_answered
        for project_id in learned.lists_missing:
            self._missing_lists.not_offered(project_id)
        self._last_good.update(learned.last_good)
        self._last_complete.update(learned.last_complete)

    async def _take_first_poll(self) -> ExportsSnapshot | None:
        """The first poll's answer (or failure) when it is fresh; what it learned (a missing list route, the last
        good and complete exports) is kept either way, as if this source had asked."""
        assert self._first_poll is not None
        first, self._first_poll = self._first_poll, None
        try:
            ran = await asyncio.wait_for(asyncio.wrap_future(first.done), FIRST_POLL_WAIT)
        except TimeoutError:
            return None
        if not ran:
            return None
        self.adopt(first.learned)
        if not first.fresh():
            return None
        if first.error is not None:
            raise first.error  # this poll's failure: the next one asks again, on the poller's own schedule
        return first.snapshot

    async def _fetch_project(self, client: ApiClient) -> ExportsSnapshot:
        snapshot = ExportsSnapshot()
        exports: dict[str, BatchExport] = {}
        pid = client.project_id
        listed = False
        if not self.list_missing(pid):
            try:
                page = await client.batch_exports.list()
            except (NotFound, MethodNotAllowed) as err:
                if names_missing_project(err):
                    raise ProjectNotFound(pid, status=err.status, path=err.path) from None
                if pid in self._list_answered:
                    raise  # the list answered before: a blip (a proxy, a deploy), not a missing route
                await confirm_project(client)
                self._missing_lists.not_offered(pid)
            else:
                listed = True
                self._list_answered.add(pid)
                exports.update((e.id, e) for e in page.results)
                snapshot.item_errors.extend(page.errors)
        if not listed:
            snapshot.notes.append("no export list on this server: watching the given ids only")
        missing = [i for i in self.extra_ids if i not in exports]
        if missing and (len(self.clients) == 1 or not listed):
            fetched = await asyncio.gather(*(client.batch_exports.get(i) for i in missing), return_exceptions=True)
            for export_id, result in zip(missing, fetched, strict=True):
                if isinstance(result, BatchExport):
                    exports[result.id] = result
                elif isinstance(result, NotFound):
                    if names_missing_project(result):
                        raise ProjectNotFound(pid, status=result.status, path=result.path) from None
                    snapshot.notes.append(f"export {export_id} not found")
                elif isinstance(result, UnexpectedId):  # a watched id that is no export id: never asked for
                    snapshot.notes.append(f"watched export not asked for: {result}")
                elif isinstance(result, BaseException):
                    raise result
        for error in snapshot.item_errors:
            kept = self._last_complete.get(f"{pid}:{error.id}") if error.id else None
            if kept is not None and kept.id not in exports:
                exports[kept.id] = kept
        if listed:  # the list names every export of the project: forget the complete answers of those gone
            named = {f"{pid}:{export_id}" for export_id in exports} | {
                f"{pid}:{error.id}" for error in snapshot.item_errors if error.id}
            for key in [k for k in self._last_complete if k.startswith(f"{pid}:") and k not in named]:
                del self._last_complete[key]
        shown: list[WatchedExport] = []
        for export in exports.values():
            watched = WatchedExport(pid, export)
            problem = incomplete_reason(export)
            if problem is None:
                self._last_complete[watched.key] = export
                shown.append(watched)
                continue
            snapshot.incomplete.append(problem)
            kept = self._last_complete.get(watched.key)
            if kept is not None:
                shown.append(WatchedExport(pid, kept))
        snapshot.exports = shown
        return snapshot


async def confirm_project(client: ApiClient) -> None:
    """Raise :class:`ProjectNotFound` when the server says the project does not exist.

    Asked only when the export list route answered 404/405 without naming the
    project: the project's own route answers for it, else the projects list.
    What cannot be proven missing is taken to exist (a server without the list).
    """
    pid = client.project_id
    try:
        await client.projects.get(pid)
        return
    except NotFound as err:
        if names_missing_project(err):
            raise ProjectNotFound(pid, status=err.status, path=err.path) from None
    except ApiError:
        pass
    try:
        projects = await client.projects.list()
    except ApiError:
        return
    if projects and pid not in {str(p.id) for p in projects}:
        raise ProjectNotFound(pid, status=404, path=project_path(pid))
