"""Run the sandbox in-process: uvicorn in a daemon thread on a loopback port.

Used by ``watchdeck --demo`` and by tests; returns only once the server accepts connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import uvicorn

from tui.clock import Clock, FrozenClock, ScaledClock
from tui.sandbox.app import SandboxState, create_app
from tui.sandbox.auth import DEMO_KEY
from tui.sandbox.options import SandboxOptions

__all__ = ["SandboxHandle", "SandboxOptions", "make_clock", "start_sandbox"]


def make_clock(options: SandboxOptions) -> Clock:
    """The injected clock, else a frozen one for a frozen world, else scaled simulated time.

    A scaled clock starts at the wall clock; ``create_app`` re-anchors it at the saved
    simulated time when it opens an existing database.
    """
    if options.clock is not None:
        return options.clock
    now = datetime.now(UTC)
    if not options.simulate:
        return FrozenClock(now)
    return ScaledClock(now, options.speed)


class _Server(uvicorn.Server):
    """uvicorn's server, stopped by :meth:`stop` waking it rather than by a flag it looks at every 0.1 s.

    Its serving loop sets the default headers once (the sandbox's own Date is stamped by the app, so they never
    change) and then waits, using no CPU, for ``stop``. ``started_event`` is what ``start_sandbox`` waits on.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.started_event = threading.Event()
        self._wake: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.started_event.set()

    async def main_loop(self) -> None:
        wake = asyncio.Event()
        self._wake = (asyncio.get_running_loop(), wake)
        # ``_wake`` is set here before should_exit is read (by on_tick), and ``stop`` sets should_exit before it
        # reads ``_wake``: whichever runs second sees what the other set, so a stop is never missed.
        if not await self.on_tick(0):
            await wake.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown when a connection is open (it asks each to finish, and pauses 0.1 s for them);
        with none open, the listening sockets closed and the app's lifespan ended at once."""
        if self.server_state.connections or self.server_state.tasks:
            await super().shutdown(sockets)
            return
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for server in self.servers:
            await server.wait_closed()
        await self.lifespan.shutdown()

    def stop(self) -> None:
        self.should_exit = True
        if self._wake is not None:
            loop, wake = self._wake
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(wake.set)


class SandboxHandle:
    """A running sandbox; use as a context manager or call :meth:`stop`."""

    def __init__(self, server: _Server, thread: threading.Thread, state: SandboxState, base_url: str) -> None:
        self._server = server
        self._thread = thread
        self._state = state
        self.base_url = base_url
        self.project_id = "1"
        self.api_key = DEMO_KEY
        self.clock: Clock = state.clock

    @property
    def state(self) -> SandboxState:
        """The app state (database, simulator) for white-box tests."""
        return self._state

    def requests(self) -> list[dict[str, Any]]:
        return self._state.requests.list()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.stop()
            self._thread.join(timeout=10)
        self._state.db.close()

    def __enter__(self) -> SandboxHandle:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def listening_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A bound TCP socket (port 0: a free one).

    IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted sockets whose proto says TCP; with proto 0
    every small keep-alive answer waited ~40 ms for Nagle and delayed ACKs.
    """
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def start_sandbox(options: SandboxOptions | None = None, host: str = "127.0.0.1", port: int = 0,
                  sock: socket.socket | None = None) -> SandboxHandle:
    """Serve with uvicorn in a daemon thread on a free loopback port (or on ``sock``, already bound and maybe
    listening); return when it accepts connections."""
    options = options or SandboxOptions()
    clock = make_clock(options)
    app = create_app(options, clock)
    if sock is None:
        sock = listening_socket(host, port)
    host, actual_port = sock.getsockname()[:2]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2,
                            date_header=False)  # the app stamps Date with the sandbox's own clock
    server = _Server(config)

    def serve() -> None:
        try:
            server.run(sockets=[sock])
        finally:
            server.started_event.set()  # a start that failed wakes the wait below too

    thread = threading.Thread(target=serve, name="sandbox-server", daemon=True)
    thread.start()
    if not server.started_event.wait(timeout=15) or not server.started:
        raise RuntimeError("the sandbox server did not start")
    shown_host = f"[{host}]" if ":" in host else host
    return SandboxHandle(server, thread, app.state.sandbox, f"http://{shown_host}:{actual_port}")
