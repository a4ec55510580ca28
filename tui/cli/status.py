"""``watchdeck status``: one poll of the watched exports, for cron and monitoring checks.

Exit codes: 0 all healthy; 1 an export's alert episode is open (the dashboard's
alert model, :mod:`tui.state.alert_book`, at a first look): it is failing (its
latest run is in the failed group: Failed, FailedRetryable, FailedBilling), or
overdue, or failed runs in a row wait behind an attempt in progress; 2 the check
itself could not be done (connection, auth, a project or export that does not
exist, an answer missing what a verdict needs). Quiet on success (stdout only),
no colour unless stdout is a terminal, and the key never appears: every
message comes from the client's errors, which hold none.

The verdict is :func:`tui.state.health.judge`'s, the same as the monitor's, on
the server's time (the ``Date`` header of its answers): "overdue" means no
Completed data for the export's freshness target where the profile sets one,
else for ``lag_alert_intervals`` (default 2) intervals plus a grace period.
Paused exports, exports that have not started yet, and exports past their
``end_at`` are never overdue. Where the server has no runs list (404/405),
the runs in the export's own ``latest_runs`` are judged, and what they cannot
settle is given as a bound (``failure_streak_is_lower_bound``,
``lag_is_lower_bound`` in ``--json``; ``≥`` in the LAG column).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from tui.api.client import ApiClient
from tui.api.errors import (
    ApiError,
    BadResponse,
    Forbidden,
    MethodNotAllowed,
    NetworkError,
    NotFound,
    ProjectNotFound,
    RateLimited,
    ServerError,
    Unauthorized,
    names_missing_project,
)
from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.api.scopes import KeyReport, fetch_key_report
from tui.clock import Clock, SystemClock
from tui.config import Settings
from tui.state.alert_book import Alert
from tui.state.export_feed import AlertFeed
from tui.state.exports import WatchedExport
from tui.state.health import (
    DEFAULT_GRACE_SECONDS,
    FAILED_GROUP,
    HealthState,
    Verdict,
    incomplete_reason,
    judge,
    needs_record,
    run_activity_time,
    target_for,
    unmatched_targets_warning,
)
from tui.state.io.export_source import confirm_project
from tui.state.io.record_reads import read_for_verdict
from tui.state.run_history import RunHistory
from tui.state.server_time import ServerClock, describe_skew
from tui.text.clean import clean
from tui.text.redaction import mask_url_password
from tui.text.words import duration, past_ago

if TYPE_CHECKING:
    from tui.state.metric_families import PollMetrics

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_ERROR = 2

FAILED = FAILED_GROUP  # the statuses that make an export "failing"

TEST_TIMEOUT = 10.0

_COLOURS = {"ok": "32", "running": "36", "paused": "2", "ended": "2", "failing": "1;31", "overdue": "1;33",
            "no runs": "33", "unknown status": "33"}


@dataclass
class ExportStatus:
    """One line of the report: an export, the verdict on it and its alert episode, if one is open."""

    project_id: str
    export: BatchExport
    verdict: Verdict
    alert: Alert | None = None

    @property
    def state(self) -> str:
        return self.verdict.state.value

    @property
    def latest(self) -> BatchExportRun | None:
        return self.verdict.latest_run

    @property
    def last_completed_end(self) -> datetime | None:
        return self.verdict.last_completed_end

    @property
    def key(self) -> str:
        return WatchedExport(self.project_id, self.export).key

    @property
    def unhealthy(self) -> bool:
        """An alert episode is open: the verdict is failing or overdue, or failed runs in a row wait behind an
        attempt in progress."""
        return self.alert is not None or self.verdict.unhealthy

    @property
    def problem(self) -> str | None:
        """The verdict's reason where it needs attention; the latest error joins a failure's reason."""
        verdict = self.verdict
        if verdict.state is HealthState.FAILING and verdict.latest_run is not None:
            error = clean(verdict.latest_run.latest_error or "", limit=160)
            return verdict.reason + (f": {error}" if error else "")
        if verdict.unhealthy or verdict.state is HealthState.UNKNOWN_STATUS:
            return verdict.reason
        if self.alert is not None:
            return f"{self.alert.kind} alert open: {self.alert.detail}"
        return None


@dataclass
class Report:
    checked_at: datetime  # server time
    exports: list[ExportStatus] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    key: KeyReport | None = None  # the key's scopes, asked after the exports
    clock_skew_seconds: float = 0.0  # server minus this machine, from the Date header of the answers
    history: RunHistory = field(default_factory=RunHistory)  # the runs read for the verdicts, by row key
    alerts: AlertFeed = field(default_factory=AlertFeed)  # the alert model at a first look of these verdicts

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_PROBLEM if any(e.unhealthy for e in self.exports) else EXIT_OK


async def _project_exports(client: ApiClient, wanted: list[str]) -> tuple[list[BatchExport], list[str]]:
    """The project's exports (the list endpoint), or the wanted ids one by one where the server has no list.

    Returns the exports and the wanted ids that this project does not have. A
    project the server does not know raises :class:`ProjectNotFound`: it is not
    a project without exports.
    """
    try:
        page = await client.batch_exports.list()
        exports = page.results
        if wanted:
            exports = [e for e in exports if e.id in wanted]
        return exports, [w for w in wanted if w not in {e.id for e in exports}]
    except (NotFound, MethodNotAllowed) as err:
        if names_missing_project(err):
            raise ProjectNotFound(client.project_id, status=err.status, path=err.path) from None
        await confirm_project(client)
    found: list[BatchExport] = []
    missing: list[str] = []
    for export_id in wanted:
        try:
            found.append(await client.batch_exports.get(export_id))
        except NotFound as err:
            if names_missing_project(err):
                raise ProjectNotFound(client.project_id, status=err.status, path=err.path) from None
            missing.append(export_id)
    return found, missing


def _needs_runs(verdict: Verdict, export: BatchExport) -> bool:
    """Whether the runs in the list answer (``latest_runs``) are too few to be sure; saves requests per export.

    An unhealthy-looking verdict from few runs is worth a second look (the runs list may hold a newer
    Completed run), and so is one whose record is short: no Completed run among the ten latest, or a failure
    streak as long as the list (the lag and the streak are then in older runs).
    """
    return not export.latest_runs or verdict.state is HealthState.OVERDUE or needs_record(verdict)


async def collect(settings: Settings, clock: Clock, export_ids: Sequence[str] = (), *,
                  grace: float = DEFAULT_GRACE_SECONDS, timeout: float = 15.0,
                  on_answer: Callable[[str], None] | None = None) -> Report:
    """One poll of every watched project. Connection and auth errors end up in ``report.errors``.

    ``on_answer`` is told what each request came to (the exporter's request counts).
    """
    wanted = [e for e in dict.fromkeys([*settings.export_ids, *export_ids]) if e]
    server = ServerClock(clock)
    report = Report(checked_at=clock.now())
    key = settings.api_key.get_secret_value()
    still_missing = set(wanted)
    lag_intervals = settings.lag_alert_intervals
    unreachable = False
    for project_id in settings.project_ids:
        async with ApiClient(settings.base_url, key, project_id, timeout=timeout, max_retries=1,
                             max_retry_wait=5.0) as client:
            client.on_server_date = server.record
            client.on_answer = on_answer
            runs_listed = True
            try:
                exports, missing = await _project_exports(client, wanted)
                still_missing &= set(missing)
                for export in exports:
                    problem = incomplete_reason(export)
                    if problem is not None:
                        report.errors.append(f"project {project_id}: answer incomplete, {problem}")
                        continue
                    now = server.now()
                    target = target_for(export, settings.freshness)
                    verdict = judge(export, now, lag_intervals=lag_intervals, grace_seconds=grace,
                                    target_seconds=target, runs_list=runs_listed)
                    if runs_listed and _needs_runs(verdict, export):
                        history = report.history
                        row = WatchedExport(project_id, export).key
                        history.add_latest(row, export.latest_runs, now)
                        try:
                            await read_for_verdict(client.batch_exports, export.id, row, history, now,
                                                   allowed_seconds=verdict.allowed_lag_seconds)
                        except (NotFound, MethodNotAllowed) as err:
                            if names_missing_project(err):
                                raise ProjectNotFound(project_id, status=err.status, path=err.path) from None
                            runs_listed = False  # no runs list here (the interface's server): latest_runs it is
                            verdict = judge(export, server.now(), lag_intervals=lag_intervals, grace_seconds=grace,
                                            target_seconds=target, runs_list=False)
                        else:
                            verdict = judge(export, server.now(), runs=history.runs(row),
                                            read_since=history.read_since(row), lag_intervals=lag_intervals,
                                            grace_seconds=grace, target_seconds=target)
                    report.exports.append(ExportStatus(project_id, export, verdict))
            except NetworkError as err:
                report.errors.append(describe_connection_error(err, settings.base_url))
                unreachable = True
                break  # the same server for every project: one message is enough
            except ProjectNotFound as err:
                report.errors.append(str(err))
            except (Unauthorized, Forbidden) as err:
                report.errors.append(f"project {project_id}: {describe_connection_error(err, settings.base_url)}")
            except ApiError as err:
                report.errors.append(f"project {project_id}: {err}")
    if not unreachable:
        async with ApiClient(settings.base_url, key, "@current", timeout=timeout, max_retries=0) as client:
            client.on_answer = on_answer
            report.key = await fetch_key_report(client)
    if report.key is not None and report.key.missing and report.errors:
        # a check that failed may have failed for want of a scope: say what the key has and lacks
        report.errors.extend(f"key: {line}" for line in report.key.lines())
    if still_missing and not report.errors:
        ids = ", ".join(sorted(still_missing))
        projects = ", ".join(settings.project_ids)
        report.errors.append(f"export {ids} not found in project {projects}")
    report.checked_at = server.now()
    report.clock_skew_seconds = server.offset_seconds
    find_alerts(report)
    return report


def find_alerts(report: Report) -> None:
    """Each export's alert episode, as the dashboard's alert book opens it at a first look of these verdicts (on
    the runs read for them, so an episode begins where the server's record shows it began)."""
    report.alerts = AlertFeed(report.history)
    watched = [WatchedExport(s.project_id, s.export) for s in report.exports]
    report.alerts.observe(watched, {s.key: s.verdict for s in report.exports}, report.checked_at)
    for status in report.exports:
        status.alert = report.alerts.episode(status.key)


# --------------------------------------------------------------------------- explaining failures


def describe_connection_error(err: ApiError, base_url: str) -> str:
    """What failed, in words an operator can act on: DNS, TLS, refused, timeout, 401, 403 with the scope..."""
    parts = urlsplit(base_url)
    host = parts.hostname or base_url
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if isinstance(err, NetworkError):
        kind = err.kind  # the client reads refused/DNS/TLS from the exception chain
        if kind == "dns":
            return f"DNS: cannot resolve {host}. Check the spelling of the base URL."
        if kind == "tls":
            return (f"TLS: the secure connection to {host} failed (certificate or protocol). "
                    "Check the URL, or whether a proxy replaces certificates.")
        if kind == "refused":
            return f"Refused: nothing accepts connections at {host}:{port}. Is the server running, is the port right?"
        if kind == "timeout":
            return f"Timeout: {host} did not answer in time. Check the network, VPN or proxy."
        return f"Network: {err}"
    if isinstance(err, Unauthorized):
        return ("401: the server refused the API key. Use a personal API key (phx_…) of this region: "
                "a US key is unknown on EU and the other way round.")
    if isinstance(err, Forbidden):
        if err.scope:
            return f"403: the key lacks the scope {err.scope}. Add it to the key, or enter the project id yourself."
        return f"403: {clean(err.detail or 'access denied', limit=200)}"
    if isinstance(err, NotFound | MethodNotAllowed) and (err.path or "").rstrip("/") == "/api/projects":
        return (f"{err.status}: {host} has no /api/projects/. Is this the API's base URL "
                "(not an ingestion host such as *.i.posthog.com)?")
    if isinstance(err, RateLimited):
        return f"429: rate limited. {err}"
    if isinstance(err, ServerError):
        return f"{err.status}: the server failed. Try again in a moment."
    if isinstance(err, BadResponse):
        return f"The server answered, but not like the API. Is the base URL right? ({err})"
    return str(err)


# --------------------------------------------------------------------------- output


def lag_words(verdict: Verdict) -> str:
    """The LAG column: ``14h 2m``, ``≥ 10h 1m`` where the runs known only bound it, ``—`` where unknown."""
    lag = verdict.lag_seconds
    if lag is None:
        return "—"
    return f"≥ {duration(lag)}" if verdict.lag_is_lower_bound else duration(lag)


def _row(status: ExportStatus, now: datetime) -> dict[str, str]:
    latest = status.latest
    when = run_activity_time(latest) if latest else None
    return {
        "PROJECT": clean(status.project_id, limit=12),
        "EXPORT": clean(status.export.id, limit=36),
        "NAME": clean(status.export.name, limit=40),
        "INTERVAL": clean(status.export.interval, limit=18),
        "LATEST": clean(latest.status if latest else "—", limit=16),
        "AGE": past_ago(when, now) if when else "—",
        "LAG": lag_words(status.verdict),
        "STATE": status.state.upper(),
    }


def format_table(report: Report, *, colour: bool) -> str:
    """Aligned plain text; ``colour`` adds ANSI colour to the STATE column only (words stay readable without)."""
    now = report.checked_at
    rows = [_row(s, now) for s in report.exports]
    headers = ["PROJECT", "EXPORT", "NAME", "INTERVAL", "LATEST", "AGE", "LAG", "STATE"]
    if not rows:
        return "no exports to watch\n"
    widths = {h: max(len(h), *(len(r[h]) for r in rows)) for h in headers}
    lines = ["  ".join(h.ljust(widths[h]) for h in headers).rstrip()]
    for status, row in zip(report.exports, rows, strict=True):
        cells = [row[h].ljust(widths[h]) for h in headers[:-1]]
        state = row["STATE"]
        if colour:
            state = f"\x1b[{_COLOURS.get(status.state, '0')}m{state}\x1b[0m"
        lines.append("  ".join([*cells, state]))
    problems = [clean(f"{clean(s.export.name or s.export.id, limit=40)}: {s.problem}", limit=400)
                for s in report.exports if s.problem]  # a reason can name a run's status as the server sent it
    text = "\n".join(lines) + "\n"
    if problems:
        text += "\n" + "\n".join(problems) + "\n"
    return text


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else round(max(0.0, seconds), 1)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def to_json(report: Report, settings: Settings) -> dict[str, Any]:
    now = report.checked_at
    exports = []
    for s in report.exports:
        latest = s.latest
        verdict = s.verdict
        exports.append({
            "project_id": s.project_id,
            "id": s.export.id,
            "name": s.export.name,
            "interval": s.export.interval,
            "paused": s.export.paused,
            "state": s.state,
            "healthy": not s.unhealthy,
            "alert": None if s.alert is None else {
                "kind": str(s.alert.kind),
                "detail": s.alert.detail,
                "since": _iso(s.alert.since),
                "episode_id": s.alert.episode_id,
            },
            "problem": s.problem,
            "reason": verdict.reason,
            "failure_streak": verdict.failure_streak,
            "failure_streak_is_lower_bound": verdict.failure_streak_is_lower_bound,
            "next_due": _iso(verdict.next_due),
            "latest_run": None if latest is None else {
                "id": latest.id,
                "status": latest.status,
                "data_interval_start": _iso(latest.data_interval_start),
                "data_interval_end": _iso(latest.data_interval_end),
                "finished_at": _iso(latest.finished_at),
                "age_seconds": _round(verdict.latest_age_seconds),
                "latest_error": latest.latest_error,
            },
            "last_completed_end": _iso(s.last_completed_end),
            "lag_seconds": _round(verdict.lag_seconds),
            "lag_is_lower_bound": verdict.lag_is_lower_bound,
        })
    return {
        "checked_at": _iso(now),
        "base_url": mask_url_password(settings.base_url),
        "profile": settings.profile,
        "project_ids": list(settings.project_ids),
        "exit_code": report.exit_code,
        "healthy": report.exit_code == EXIT_OK,
        "clock_skew_seconds": round(report.clock_skew_seconds, 1),
        "errors": list(report.errors),
        "exports": exports,
        "key": report.key.to_json() if report.key else None,
    }


def key_note(report: Report) -> str:
    """The key's scopes and what each missing one disables, whenever one is missing, nothing failing or not.

    A read-only key is a supported setup, so this is a note on stdout that leaves the exit code alone; when a
    check failed the same lines are already among the errors (the failure may be for want of the scope).
    """
    if report.key is None or not report.key.missing:
        return ""
    lines = [f"key: {line}" for line in report.key.lines()]
    if all(line in report.errors for line in lines):
        return ""
    return "\n" + "".join(f"{line}\n" for line in lines)


def use_colour(stream: TextIO, env: dict[str, str] | None = None) -> bool:
    environ = os.environ if env is None else env
    if "NO_COLOR" in environ:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


EXPOSITIONS = ("prometheus", "openmetrics")


def exposition(report: Report, metrics: PollMetrics, finished_at: float, output: str = "prometheus") -> str:
    """The exporter's families for this one poll: the Prometheus text format 0.0.4 (``prometheus``: what
    node_exporter's textfile collector and ``promtool check metrics`` read) or OpenMetrics (``openmetrics``).
    The alerts are the alert model's at a first look, as the exporter's first poll has them."""
    from prometheus_client import exposition as text_format
    from prometheus_client.openmetrics import exposition as openmetrics_format

    from tui.state.metric_families import EpisodeReading, ExportReading, Reading

    polled = not report.errors
    metrics.show(Reading(
        exports=[ExportReading(s.project_id, s.export.id, s.export.name, s.verdict, EpisodeReading.of(s.alert))
                 for s in report.exports],
        alerts_open=report.alerts.open_by_kind(),
        last_success_timestamp=finished_at if polled else None,
        clock_skew_seconds=report.clock_skew_seconds if polled else None,
    ))
    writer = openmetrics_format if output == "openmetrics" else text_format
    return writer.generate_latest(metrics.registry).decode()


def run(settings: Settings, *, as_json: bool = False, export_ids: Sequence[str] = (),
        grace: float = DEFAULT_GRACE_SECONDS, clock: Clock | None = None,
        stdout: TextIO | None = None, stderr: TextIO | None = None, env: dict[str, str] | None = None,
        output: str | None = None) -> int:
    """Poll once, print, and return the exit code. ``output``: "table" (the default), "json", "prometheus" or
    "openmetrics"."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    output = output or ("json" if as_json else "table")
    metrics: PollMetrics | None = None
    if output in EXPOSITIONS:
        from tui.state.metric_families import PollMetrics  # prometheus_client: loaded only for this format

        metrics = PollMetrics()
    started = time.monotonic()
    report = asyncio.run(collect(settings, clock or SystemClock(), export_ids, grace=grace,
                                 on_answer=metrics.count_request if metrics is not None else None))
    if metrics is not None:
        metrics.poll_duration.observe(time.monotonic() - started)
        out.write(exposition(report, metrics, time.time(), output))
    elif output == "json":
        out.write(json.dumps(to_json(report, settings), indent=2) + "\n")
    elif report.exports or not report.errors:
        out.write(format_table(report, colour=use_colour(out, env)))
        skew = describe_skew(report.clock_skew_seconds)
        if skew:
            out.write(f"\n{skew}: ages and lags are measured on the server's clock\n")
        out.write(key_note(report))
    unmatched = unmatched_targets_warning(settings.freshness, (s.export for s in report.exports))
    if unmatched and not report.errors:
        err.write(f"watchdeck: warning: {unmatched}\n")
    for message in report.errors:  # an error can quote the server's detail
        err.write(f"watchdeck: {clean(mask_url_password(message), limit=1000)}\n")
    out.flush()
    return report.exit_code
