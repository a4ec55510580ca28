"""``watchdeck status``: one poll of the watched exports, for cron and monitoring checks.

Exit codes: 0 all healthy; 1 a latest run failed or an export is overdue; 2
the check itself could not be done (connection, auth, unknown export). Quiet on
success (stdout only), no colour unless stdout is a terminal, and the key
never appears: every message comes from the client's errors, which hold none.

"Overdue" means no Completed run whose data interval ended within
``lag_alert_intervals`` (default 2) intervals plus a grace period of now.
Paused exports, exports that have not started yet, and exports past their
``end_at`` are never overdue.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TextIO
from urllib.parse import urlsplit

from tui.api.client import ApiClient
from tui.api.errors import (
    ApiError,
    BadResponse,
    Forbidden,
    MethodNotAllowed,
    NetworkError,
    NotFound,
    RateLimited,
    ServerError,
    Unauthorized,
)
from tui.api.models import BatchExport, BatchExportRun, RunStatus
from tui.api.scopes import KeyReport, fetch_key_report
from tui.clock import Clock, SystemClock
from tui.config import Settings
from tui.redaction import mask_url_password
from tui.render import ago, clean, duration

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_ERROR = 2
DEFAULT_GRACE_SECONDS = 600.0

FAILED = frozenset({
    RunStatus.FAILED, RunStatus.FAILED_RETRYABLE, RunStatus.TIMED_OUT, RunStatus.TERMINATED, RunStatus.FAILED_BILLING,
})

TEST_TIMEOUT = 10.0

_COLOURS = {"ok": "32", "paused": "2", "failed": "1;31", "overdue": "1;33", "no runs": "33"}


@dataclass
class ExportStatus:
    """One line of the report."""

    project_id: str
    export: BatchExport
    latest: BatchExportRun | None
    last_completed_end: datetime | None
    state: str  # ok | paused | failed | overdue | no runs
    problem: str | None = None

    @property
    def unhealthy(self) -> bool:
        return self.state in ("failed", "overdue")


@dataclass
class Report:
    checked_at: datetime
    exports: list[ExportStatus] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    key: KeyReport | None = None  # the key's scopes, asked after the exports

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_PROBLEM if any(e.unhealthy for e in self.exports) else EXIT_OK


def _run_time(run: BatchExportRun) -> datetime | None:
    return run.created_at or run.data_interval_end or run.last_updated_at or run.finished_at


def latest_run(runs: Sequence[BatchExportRun]) -> BatchExportRun | None:
    dated = [r for r in runs if _run_time(r) is not None]
    if not dated:
        return runs[0] if runs else None
    return max(dated, key=lambda r: _run_time(r))  # type: ignore[arg-type, return-value]


def last_completed_end(runs: Sequence[BatchExportRun]) -> datetime | None:
    ends = [r.data_interval_end for r in runs if r.status == RunStatus.COMPLETED and r.data_interval_end]
    return max(ends) if ends else None


def judge(project_id: str, export: BatchExport, runs: Sequence[BatchExportRun], now: datetime,
          lag_intervals: float, grace: float) -> ExportStatus:
    """The health of one export from its runs: failed beats overdue beats paused beats ok."""
    latest = latest_run(runs)
    done_end = last_completed_end(runs)
    status = ExportStatus(project_id, export, latest, done_end, "ok")
    if latest is not None and latest.status in FAILED:
        status.state = "failed"
        error = clean(latest.latest_error or "", limit=160)
        status.problem = f"latest run {latest.status}" + (f": {error}" if error else "")
        return status
    if export.paused:
        status.state = "paused"
        return status
    seconds = export.interval_seconds
    if seconds is None:
        status.state = "ok" if latest is not None else "no runs"
        return status
    allowed = timedelta(seconds=lag_intervals * seconds + grace)
    horizon = min(now, export.end_at) if export.end_at else now
    if export.start_at and export.start_at > now:
        return status
    reference = done_end or export.start_at or export.created_at
    if reference is not None and horizon - reference > allowed:
        status.state = "overdue"
        behind = duration((horizon - reference).total_seconds())
        status.problem = (f"no completed data for {behind} (allowed {duration(allowed.total_seconds())})"
                          if done_end else f"no completed run yet, created {behind} ago")
    elif latest is None:
        status.state = "no runs"
    return status


def _needs_runs(export: BatchExport, now: datetime, lag_intervals: float, grace: float) -> bool:
    """Whether the runs in the list answer (``latest_runs``) are too few to judge; saves a request per export."""
    runs = export.latest_runs
    if not runs:
        return True
    latest = latest_run(runs)
    if latest is not None and latest.status in FAILED:
        return False
    if export.paused or export.interval_seconds is None:
        return False
    end = last_completed_end(runs)
    allowed = timedelta(seconds=lag_intervals * export.interval_seconds + grace)
    return end is None or now - end > allowed


async def _project_exports(client: ApiClient, wanted: list[str]) -> tuple[list[BatchExport], list[str]]:
    """The project's exports (the list endpoint), or the wanted ids one by one where the server has no list.

    Returns the exports and the wanted ids that this project does not have.
    """
    try:
        page = await client.batch_exports.list()
        exports = page.results
        if wanted:
            exports = [e for e in exports if e.id in wanted]
        return exports, [w for w in wanted if w not in {e.id for e in exports}]
    except (NotFound, MethodNotAllowed):
        pass
    found: list[BatchExport] = []
    missing: list[str] = []
    for export_id in wanted:
        try:
            found.append(await client.batch_exports.get(export_id))
        except NotFound:
            missing.append(export_id)
    return found, missing


async def collect(settings: Settings, clock: Clock, export_ids: Sequence[str] = (), *,
                  grace: float = DEFAULT_GRACE_SECONDS, timeout: float = 15.0) -> Report:
    """One poll of every watched project. Connection and auth errors end up in ``report.errors``."""
    wanted = [e for e in dict.fromkeys([*settings.export_ids, *export_ids]) if e]
    report = Report(checked_at=clock.now())
    key = settings.api_key.get_secret_value()
    still_missing = set(wanted)
    for project_id in settings.project_ids:
        async with ApiClient(settings.base_url, key, project_id, timeout=timeout, max_retries=1,
                             max_retry_wait=5.0) as client:
            try:
                exports, missing = await _project_exports(client, wanted)
                still_missing &= set(missing)
                now = clock.now()
                for export in exports:
                    runs: list[BatchExportRun] = list(export.latest_runs)
                    if _needs_runs(export, now, settings.lag_alert_intervals, grace):
                        page = await client.batch_exports.runs(export.id)
                        runs = [*runs, *page.results]
                    report.exports.append(judge(project_id, export, runs, now, settings.lag_alert_intervals, grace))
            except NetworkError as err:
                report.errors.append(describe_connection_error(err, settings.base_url))
                break  # the same server for every project: one message is enough
            except (Unauthorized, Forbidden) as err:
                report.errors.append(f"project {project_id}: {describe_connection_error(err, settings.base_url)}")
            except ApiError as err:
                report.errors.append(f"project {project_id}: {err}")
    if not any(e.startswith(("DNS", "TLS", "Refused", "Timeout", "Network")) for e in report.errors):
        async with ApiClient(settings.base_url, key, "@current", timeout=timeout, max_retries=0) as client:
            report.key = await fetch_key_report(client)
    if report.key is not None and report.errors:
        # a check that failed may have failed for want of a scope: say what the key has and lacks
        report.errors.extend(f"key: {line}" for line in report.key.lines())
    if still_missing and not report.errors:
        ids = ", ".join(sorted(still_missing))
        projects = ", ".join(settings.project_ids)
        report.errors.append(f"export {ids} not found in project {projects}")
    return report


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


def _row(status: ExportStatus, now: datetime) -> dict[str, str]:
    latest = status.latest
    when = (latest.finished_at or latest.last_updated_at or latest.created_at) if latest else None
    lag = (now - status.last_completed_end).total_seconds() if status.last_completed_end else None
    return {
        "PROJECT": clean(status.project_id, limit=12),
        "EXPORT": clean(status.export.id, limit=36),
        "NAME": clean(status.export.name, limit=40),
        "INTERVAL": clean(status.export.interval, limit=18),
        "LATEST": clean(latest.status if latest else "—", limit=16),
        "AGE": ago(when, now) if when else "—",
        "LAG": duration(lag) if lag is not None else "—",
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
    problems = [f"{clean(s.export.name or s.export.id, limit=40)}: {s.problem}" for s in report.exports if s.problem]
    text = "\n".join(lines) + "\n"
    if problems:
        text += "\n" + "\n".join(problems) + "\n"
    return text


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def to_json(report: Report, settings: Settings) -> dict[str, Any]:
    now = report.checked_at
    exports = []
    for s in report.exports:
        latest = s.latest
        when = (latest.finished_at or latest.last_updated_at or latest.created_at) if latest else None
        exports.append({
            "project_id": s.project_id,
            "id": s.export.id,
            "name": s.export.name,
            "interval": s.export.interval,
            "paused": s.export.paused,
            "state": s.state,
            "healthy": not s.unhealthy,
            "problem": s.problem,
            "latest_run": None if latest is None else {
                "id": latest.id,
                "status": latest.status,
                "data_interval_start": _iso(latest.data_interval_start),
                "data_interval_end": _iso(latest.data_interval_end),
                "finished_at": _iso(latest.finished_at),
                "age_seconds": round((now - when).total_seconds(), 1) if when else None,
                "latest_error": latest.latest_error,
            },
            "last_completed_end": _iso(s.last_completed_end),
            "lag_seconds": round((now - s.last_completed_end).total_seconds(), 1) if s.last_completed_end else None,
        })
    return {
        "checked_at": _iso(now),
        "base_url": mask_url_password(settings.base_url),
        "profile": settings.profile,
        "project_ids": list(settings.project_ids),
        "exit_code": report.exit_code,
        "healthy": report.exit_code == EXIT_OK,
        "errors": list(report.errors),
        "exports": exports,
        "key": report.key.to_json() if report.key else None,
    }


def use_colour(stream: TextIO, env: dict[str, str] | None = None) -> bool:
    environ = os.environ if env is None else env
    if "NO_COLOR" in environ:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def run(settings: Settings, *, as_json: bool = False, export_ids: Sequence[str] = (),
        grace: float = DEFAULT_GRACE_SECONDS, clock: Clock | None = None,
        stdout: TextIO | None = None, stderr: TextIO | None = None, env: dict[str, str] | None = None) -> int:
    """Poll once, print, and return the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    report = asyncio.run(collect(settings, clock or SystemClock(), export_ids, grace=grace))
    if as_json:
        out.write(json.dumps(to_json(report, settings), indent=2) + "\n")
    elif report.exports or not report.errors:
        out.write(format_table(report, colour=use_colour(out, env)))
    for message in report.errors:
        err.write(f"watchdeck: {mask_url_password(message)}\n")
    out.flush()
    return report.exit_code
