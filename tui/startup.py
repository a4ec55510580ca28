"""Start-up, tuned in one place: the collector while the dashboard loads, and its first poll sent early.

The dashboard's first frame is about 0.4 s of imports, styles and mounting on
one core; the server needs about as long again to answer the first poll. Sent
from the app, the answer came after the first frame and the data a frame or
more later. Sent here, before Textual is imported, it is on its way while
Textual loads: in a child process on Linux (the other core does the poll's own
work), on a thread elsewhere. Either runs the app's own code for a poll
(``ApiClient`` and ``ExportsSource`` on an event loop of its own), so the key,
proxy, TLS, redirect and retry rules are the client's and nowhere else; the
monitor's source takes over the poll's answer and what it learned (a missing
list route, the last good exports) as if it had asked itself.

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

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from concurrent.futures import Future

    from tui.clock import Clock
    from tui.config import Settings
    from tui.demo import DemoServer
    from tui.state.exports import ExportsSnapshot, FirstPoll
    from tui.state.server_time import ServerClock

#: A second after start the first frame with data is drawn: the collection before the freeze (~30 ms) waits.
FREEZE_AFTER_SECONDS = 1.0

_frozen = False


def quiet_collector() -> None:
    """No garbage collection while the dashboard loads (``resume_collector`` undoes it)."""
    gc.disable()


def skip_httpx_cli() -> None:
    """httpx loads its command-line client (click, pygments, rich's progress bars: ~20 ms of every start)
    whenever click is installed, and uvicorn, the sandbox's server, installs it. watchdeck never runs that
    client: marked absent, httpx takes its own fallback for an install without its ``cli`` extra."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


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


#: Words that make ``watchdeck --demo`` something other than the demo dashboard (help, web mode, a subcommand).
NOT_THE_DEMO_DASHBOARD = frozenset({"-h", "--help", "--version", "--web", "status", "surveys", "sandbox"})

_early_demo: DemoServer | None = None


def start_demo_early(argv: Sequence[str]) -> None:
    """``watchdeck --demo``: start the sandbox before the settings and Textual load, not after.

    Its child process takes ~0.2 s to serve, on the other core; started after the
    settings were read (pydantic: ~0.1 s), it was what the demo's first frame with
    data waited for. The words are only glanced at: ``_run_demo`` takes the server
    once the real parser has said it is the demo; any other outcome leaves it
    unused, and it ends with this process like every demo server.
    """
    global _early_demo
    if "--demo" not in argv or NOT_THE_DEMO_DASHBOARD.intersection(argv):
        return
    from tui.demo import open_demo_server

    try:
        _early_demo = open_demo_server()
    except OSError:  # said by _run_demo, which tries again
        _early_demo = None


def take_early_demo() -> DemoServer | None:
    global _early_demo
    server, _early_demo = _early_demo, None
    return server


def _may_fork() -> bool:
    """A child process only where forking is safe: Linux (macOS's system libraries are not fork-safe), and no
    thread started yet (a lock another thread held would stay held in the child)."""
    return sys.platform == "linux" and threading.active_count() == 1


class EarlyPoll:
    """The monitor's first poll, run with the app's own client and state code in a child process (or a thread).

    In a child process forked before Textual is imported, the poll's own work (HTTP, JSON, validation: ~50 ms
    for 200 exports) runs on the other core, and its answers are read when they come: on a thread, each step
    waited for the app's loading to hand the interpreter over, and the demo's first answer took ~0.2 s to be
    read. The child sends back a :class:`~tui.state.exports.FirstPoll` (plain values, pickled into a file in
    memory; the key stays where it was: the child has it from the fork), and ends when this process does.
    """

    def __init__(self, settings: Settings, server_clock: ServerClock, project_ids: Sequence[str],
                 before: Callable[[], object] | None = None) -> None:
        self._settings = settings
        self._before = before  # run first: e.g. wait until the demo's sandbox serves
        self.server_clock = server_clock
        self.project_ids = list(project_ids)
        self._child_pid: int | None = None
        self._alive_fd: int | None = None
        self._alive_lock = threading.Lock()
        from concurrent.futures import Future

        self.answer: Future[FirstPoll | None] = Future()

    def __repr__(self) -> str:  # never the key
        return f"EarlyPoll(projects={self.project_ids!r})"

    @property
    def in_child(self) -> bool:
        return self._child_pid is not None

    def start(self) -> EarlyPoll:
        if _may_fork():
            try:
                self._start_child()
                return self
            except (OSError, AttributeError):  # no fork or no memfd_create here after all: a thread, then
                pass
        threading.Thread(target=self._run_on_thread, name="watchdeck-first-poll", daemon=True).start()
        return self

    def stop(self) -> None:
        """End a child still polling (the demo's sandbox waits for every holder of its pipe to let go)."""
        if self._child_pid is not None and not self.answer.done():
            with contextlib.suppress(OSError):
                os.kill(self._child_pid, signal.SIGKILL)
        self._close_alive()

    def _close_alive(self) -> None:
        """Once, from whichever thread comes first: a second close could hit a descriptor opened since."""
        with self._alive_lock:
            fd, self._alive_fd = self._alive_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    # ------------------------------------------------------------------ on a thread

    def _run_on_thread(self) -> None:
        try:
            first = self._poll_now()
        except BaseException:  # a first poll that could not even run is not used: the monitor asks itself
            first = None
        if not self.answer.done():
            self.answer.set_result(first)

    def _poll_now(self) -> FirstPoll:
        import asyncio

        if self._before is not None:
            self._before()
        return asyncio.run(self._poll())

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
        return FirstPoll(source.learned(), snapshot, time.monotonic(), error, self.server_clock.offsets())

    # ------------------------------------------------------------------ in a child process

    def _start_child(self) -> None:
        # The answer goes through a file in memory, not a pipe: read from a pipe in 64 KB pieces, each piece waited
        # for the interpreter while the app loaded, and 800 KB (200 exports) took ~0.1 s to arrive. One pipe says
        # the answer's size once it is written (or closes without it), the other closes when this process ends.
        answer = os.memfd_create("watchdeck-first-poll", os.MFD_CLOEXEC)
        done_read, done_write = os.pipe()
        alive_read, alive_write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (answer, done_read, done_write, alive_read, alive_write):
                os.close(fd)
            raise
        if pid == 0:  # pragma: no cover (the child: measured by coverage only where it runs)
            self._child(answer, done_write, alive_read, close=(done_read, alive_write))
        os.close(done_write)
        os.close(alive_read)
        self._child_pid, self._alive_fd = pid, alive_write
        threading.Thread(target=self._receive, args=(answer, done_read, pid), name="watchdeck-first-poll",
                         daemon=True).start()

    def _child(self, answer: int, done_write: int, alive_read: int, close: Sequence[int]) -> NoReturn:
        status = 1
        try:
            for fd in close:
                os.close(fd)
            quiet = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # nothing of this process may read from or write to the dashboard's terminal
                os.dup2(quiet, fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the dashboard's; its exit ends this one
            threading.Thread(target=_exit_when_closed, args=(alive_read,), daemon=True).start()
            data = _pickled(self._poll_now())
            view = memoryview(data)
            while view:
                view = view[os.write(answer, view):]
            os.write(done_write, len(data).to_bytes(8, "big"))  # the parent reads it now, with one call
            os.close(done_write)
            status = 0
        finally:
            os._exit(status)

    def _receive(self, answer: int, done_read: int, pid: int) -> None:
        first: FirstPoll | None = None
        try:
            # The answer's size, once it is written; nothing when the child ended without one. Few calls from here
            # on: each one waits its turn for the interpreter while the app loads.
            size = int.from_bytes(os.read(done_read, 8), "big")
            data = os.pread(answer, size, 0) if size else b""
            if len(data) == size and data:
                import pickle

                first = pickle.loads(data)  # written by this process's own child, from plain values
                if first is not None:
                    self.server_clock.add_offsets(first.server_offsets)
        except Exception:  # an answer that cannot be read is not used: the monitor asks itself
            first = None
        finally:
            for fd in (answer, done_read):
                os.close(fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            self._close_alive()
            if not self.answer.done():
                self.answer.set_result(first)


def _pickled(first: FirstPoll) -> bytes:
    """The answer as bytes; an error that cannot be pickled is sent as None (the monitor asks itself)."""
    import pickle

    try:
        return pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return pickle.dumps(None)


def _exit_when_closed(fd: int) -> None:
    """The child's watch on its parent: the pipe's other end closes when the parent ends, in whatever way."""
    while os.read(fd, 1):
        pass
    os._exit(0)


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
