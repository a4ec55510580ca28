"""``watchdeck metrics``: the monitor's verdicts for Prometheus, on ``/metrics``, without a UI.

It polls as the monitor does: the same :class:`~tui.state.io.export_source.ExportsSource`
and :class:`~tui.state.io.poller.Poller` (backoff, ``Retry-After``), the same
rate-limit budget, the shared answer cache with the other viewers of the key,
and the one health model through :mod:`tui.state.export_feed`. Like the
monitor, it reads the server's runs list for an export whose verdict
``latest_runs`` cannot settle (:func:`tui.state.io.board_records.read_board_records`,
inside the operator's share of the budget, again only when its ``latest_runs``
change), so the lag and streak are those ``status`` gives. Each poll
replaces the reading that ``prometheus_client``'s HTTP server serves
(:mod:`tui.state.metric_families`). Loopback by default; another address is
served after a warning, since anyone who reaches it reads the exports' names and
health. A poll that fails inside watchdeck never ends the loop: it is said on
stderr (once for each kind of failure, its traceback in errors.log), counted as
``watchdeck_requests_total{outcome="internal_error"}``, and the next poll comes.
SIGTERM and SIGINT stop it cleanly (exit 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from tui.api.client import ApiClient
from tui.clock import Clock, SystemClock
from tui.config import Settings
from tui.config.paths import state_dir
from tui.state.budget import ActionBudget, effective_poll_seconds
from tui.state.export_board import ExportBoard
from tui.state.export_feed import AlertFeed
from tui.state.exports import ExportsSnapshot
from tui.state.health import unmatched_targets_warning
from tui.state.io.alert_marks_store import MarksKeeper, marks_path
from tui.state.io.board_records import read_board_records
from tui.state.io.export_source import ExportsSource
from tui.state.io.poller import Poller
from tui.state.io.shared import IGNORED_NOTE, SharedViewers
from tui.state.metric_families import POLL_FAILED, EpisodeReading, ExportReading, PollMetrics, Reading
from tui.state.server_time import ServerClock

if TYPE_CHECKING:
    from tui.api.cache import SharedCache

DEFAULT_LISTEN = "127.0.0.1:9185"
#: Kinds of poll failure said on stderr (each once); past this many, failures are only counted.
FAILURES_SAID = 32
EXIT_OK = 0
EXIT_ERROR = 2


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}/metrics"


def parse_listen(text: str) -> Listen:
    """``HOST:PORT`` (``[::1]:9185`` for IPv6); port 0 takes a free one. Raises ValueError with the reason."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep or not host:
        raise ValueError(f"HOST:PORT expected, e.g. {DEFAULT_LISTEN}, not {text!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"{port_text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is out of range")
    return Listen(host, port)


def exposure_warning(listen: Listen) -> str | None:
    """Why an address other than loopback is a risk: the metrics have no authentication."""
    if listen.loopback:
        return None
    return (f"serving metrics on {listen.host}, not loopback: anyone who can reach port {listen.port} reads every "
            "watched export's name and health, without authentication (the API key is never served). "
            "Use 127.0.0.1 with a local Prometheus, or a firewall or an authenticating proxy.")


class Exporter:
    """The poll loop: one :class:`Poller` over the watched projects, each answer turned into a :class:`Reading`."""

    def __init__(self, settings: Settings, metrics: PollMetrics, *, clock: Clock | None = None,
                 cache: SharedCache | None = None, err: TextIO | None = None) -> None:
        self.settings = settings
        self.err = err or sys.stderr
        self.metrics = metrics
        self.server_clock = ServerClock(clock or SystemClock())
        self.cache = cache
        key = settings.api_key.get_secret_value()
        self.clients = [ApiClient(settings.base_url, key, pid, cache=cache) for pid in settings.project_ids]
        for client in self.clients:
            client.on_server_date = self.server_clock.record
            client.on_answer = metrics.count_request
        self.source = ExportsSource(self.clients, settings.export_ids)
        self.poller: Poller[ExportsSnapshot] = Poller(self.source.fetch, settings.poll_seconds,
                                                      age_of=lambda snapshot: snapshot.answer_age)
        self.shared = SharedViewers(cache, settings.base_url, key)
        self.board = ExportBoard(lag_intervals=settings.lag_alert_intervals, freshness=settings.freshness)
        self.budget = ActionBudget(time.monotonic)  # the operator's share: the runs list reads take from it
        self.alerts = AlertFeed(self.board.history)
        # The silences of every dashboard of this server and key: the state folder's, and the shared store's.
        self.marks = MarksKeeper(marks_path(state_dir(), settings.base_url, key), cache, settings.base_url, key)
        self.last_success: float | None = None  # wall-clock seconds
        self._failures_said: set[str] = set()
        self._said_ignoring = False
        metrics.show(self.reading())  # every alert kind at 0 until the first poll says otherwise

    async def poll_once(self) -> None:
        """One poll, its duration measured, and the reading replaced (the last good data judged again on a
        failed poll, as the monitor's rows are)."""
        started = time.monotonic()
        outcome = await self.poller.run_once()
        self.metrics.poll_duration.observe(time.monotonic() - started)
        snapshot = outcome.value if outcome.ok and outcome.value is not None else self.board.snapshot
        await self.marks.sync([(w.project_id, w.export.id) for w in snapshot.exports] if snapshot else [])
        await self.shared.sync(self.poller.interval)
        if self.shared.ignoring and not self._said_ignoring:
            self._said_ignoring = True
            self._say(f"warning: {IGNORED_NOTE} (someone without the API key writes to the store)")
        if outcome.ok and outcome.value is not None and self.last_success is None:
            self._warn_unmatched(outcome.value)
        if outcome.ok:
            self.last_success = time.time() - self.poller.answer_age  # when the answer was fetched
            self._apply_budget()
        if outcome.ok and outcome.value is not None:
            await self._read_records(outcome.value)
        self.metrics.show(self.reading())

    async def _read_records(self, snapshot: ExportsSnapshot) -> None:
        """The new answer on the board, then the runs list read for the exports whose verdict needs it."""
        now = self.server_clock.now()
        self.board.apply_snapshot(snapshot, now)
        self.board.rows(now)  # each export's verdict at this poll: which of them want their record read
        by_project = {client.project_id: client for client in self.clients}
        await read_board_records(self.board, lambda project_id: by_project[project_id].batch_exports,
                                 self.server_clock.now, take=self.budget.try_take)

    def _warn_unmatched(self, snapshot: ExportsSnapshot) -> None:
        warning = unmatched_targets_warning(self.settings.freshness, (w.export for w in snapshot.exports))
        if warning:
            self._say(f"warning: {warning}")

    def _say(self, line: str) -> None:
        self.err.write(f"watchdeck: {line}\n")
        self.err.flush()

    def poll_failed(self, error: Exception) -> None:
        """A poll that failed inside watchdeck: counted, and said with its traceback logged once for each kind."""
        self.metrics.count_request(POLL_FAILED)
        kind = f"{type(error).__name__}: {str(error)[:200]}"
        if kind in self._failures_said or len(self._failures_said) >= FAILURES_SAID:
            return
        self._failures_said.add(kind)
        from tui.secrets.crashlog import one_line, record_exception

        secrets = (self.settings.api_key.get_secret_value(),)
        path = record_exception(error, "metrics poll", secrets=secrets)
        self.err.write(f"{one_line(error, path, secrets)} (polling goes on)\n")
        self.err.flush()

    def _apply_budget(self) -> None:
        asked = self.settings.poll_seconds
        seconds, _ = effective_poll_seconds(asked, self.source.requests_per_cycle)
        self.poller.interval = self.shared.interval(asked, seconds)

    def reading(self) -> Reading:
        snapshot = self.board.snapshot
        exports = snapshot.exports if snapshot is not None else []
        now = self.server_clock.now()
        verdicts = self.board.verdicts(now)
        if snapshot is not None:
            self.alerts.observe(exports, verdicts, now)
        return Reading(
            exports=[ExportReading(w.project_id, w.export.id, w.export.name, verdicts[w.key],
                                   EpisodeReading.of(self.alerts.episode(w.key))) for w in exports],
            alerts_open=self.alerts.open_by_kind(),
            last_success_timestamp=self.last_success,
            clock_skew_seconds=self.server_clock.offset_seconds if self.server_clock.samples else None,
            silenced=frozenset((w.project_id, w.export.id) for w in exports
                               if self.marks.marks.silence_for(w.project_id, w.export.id, time.time()) is not None),
        )

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set; the next poll is armed only after the last one finished, however it ended."""
        while not stop.is_set():
            try:
                await self.poll_once()
            except Exception as error:
                self.poll_failed(error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poller.next_delay())

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
        await self.shared.leave()
        if self.cache is not None:
            await self.cache.aclose()


def _open_cache(settings: Settings, err: TextIO) -> SharedCache | None:
    if not settings.cache:
        return None
    from tui.api.cache import CacheUnavailable, open_shared_cache
    from tui.config.paths import cache_dir

    try:
        cache = open_shared_cache(settings.cache_url, cache_dir())
    except CacheUnavailable as error:
        err.write(f"watchdeck: warning: shared cache off, asking the server: {error}\n")
        return None
    cache.poll_interval_is(settings.poll_seconds)
    return cache


async def _serve(settings: Settings, metrics: PollMetrics, err: TextIO) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    exporter = Exporter(settings, metrics, cache=_open_cache(settings, err), err=err)
    try:
        poller = asyncio.create_task(exporter.run(stop))
        await stop.wait()
        poller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await poller
    finally:
        await exporter.aclose()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def run(settings: Settings, listen: Listen, *, stderr: TextIO | None = None, allow_hosts: Sequence[str] = ()) -> int:
    """Serve ``/metrics`` on ``listen`` and poll until SIGTERM or SIGINT.

    ``allow_hosts``: names besides loopback and the listen address that a request's ``Host`` may give
    (:mod:`tui.cli.metrics_http`)."""
    from tui.cli.metrics_http import start_metrics_server

    err = stderr or sys.stderr
    metrics = PollMetrics()
    try:
        httpd, thread = start_metrics_server(listen.host, listen.port, metrics.registry, allow_hosts)
    except OSError as error:
        err.write(f"watchdeck: cannot listen on {listen.host}:{listen.port}: {error.strerror or error}\n")
        return EXIT_ERROR
    warning = exposure_warning(Listen(listen.host, httpd.server_port))
    if warning:
        err.write(f"watchdeck: warning: {warning}\n")
    err.write(f"watchdeck: serving {listen.url(httpd.server_port)}\n")
    err.flush()
    try:
        asyncio.run(_serve(settings, metrics, err))
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
    return EXIT_OK
