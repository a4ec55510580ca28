"""How one export becomes a row of the monitor's table, and a run a row of the runs table.

Pure functions of (data, now): the screen diffs their output against the
previous poll's and repaints only what changed. Every server string goes
through :func:`tui.render.plain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text

from tui.api.models import BatchExportRun
from tui.render import ago, coarse_duration, count, duration, plain, progress_bar
from tui.state.exports import (
    WatchedExport,
    due_anchor,
    due_at,
    lag_exceeds,
    latest_run,
    newest_completed_end,
    runs_oldest_first,
)
from tui.status_look import Tone, error_text_style, status_strip, status_text, tone_style

# (key, label, width); "secondary" columns are hidden on narrow terminals.
EXPORT_COLUMNS: list[tuple[str, str, int | None]] = [
    ("mark", " ", 1),
    ("name", "Export", 30),
    ("project", "Project", 8),
    ("model", "Model", 7),
    ("dest", "Destination", 11),
    ("interval", "Interval", 8),
    ("state", "State", 8),
    ("latest", "Latest run", 14),
    ("lag", "Lag", 7),
    ("strip", "Last runs", 10),
    ("progress", "Progress", 13),
    ("last", "Last run", 14),
    ("due", "Next due", 14),
]
SECONDARY_COLUMNS = ("project", "model", "dest", "interval", "last", "due")

RUN_COLUMNS: list[tuple[str, str, int | None]] = [
    ("status", "Status", 18),
    ("interval", "Data interval", 19),
    ("records", "Records", 32),
    ("duration", "Took", 7),
    ("finished", "Finished", 14),
    ("error", "Latest error", 36),
    ("cursor", "Cursor", 12),
]


def _interval_label(interval: str) -> Text:
    return plain(interval.replace("every ", "").replace(" minutes", "m"), limit=9)


TIME_COLUMNS = ("lag", "last", "due")


@dataclass(frozen=True)
class RowFacts:
    """What a row shows that does not depend on the clock, plus the instants its time cells are measured from.

    A poll in which an export did not change reuses its facts: only the three
    time cells are recomputed (a few microseconds each), so a quiet poll of
    200 exports costs little and a changed row costs one rebuild.
    """

    fingerprint: tuple[Any, ...]
    static: dict[str, Text]
    completed_end: datetime | None
    last_time: datetime | None
    due_anchor: datetime | None
    step: int | None
    paused: bool
    ended: datetime | None


def row_fingerprint(watched: WatchedExport, marked: bool) -> tuple[Any, ...]:
    """Everything the static cells depend on, cheap to build and compare."""
    export = watched.export
    return (
        export.name, export.model, export.destination.type, export.interval, export.paused, export.end_at, marked,
        watched.project_id,
        tuple((r.id, r.status, r.records_completed, r.records_total_count, r.created_at, r.finished_at,
               r.data_interval_end, r.backfill) for r in export.latest_runs),
    )


def row_facts(watched: WatchedExport, marked: bool, fingerprint: tuple[Any, ...] | None = None) -> RowFacts:
    export = watched.export
    latest = latest_run(export)
    runs = runs_oldest_first(export)
    if latest is not None and latest.is_in_progress:
        progress = progress_bar(latest.records_completed, latest.records_total_count, width=8)
    else:
        progress = Text("")
    static = {
        "mark": Text("!", style=tone_style(Tone.FAILURE) + " reverse") if marked else Text(" "),
        "name": plain(export.name or export.id, "bold" if marked else "", limit=60),
        "project": plain(watched.project_id, "dim"),
        "model": plain(export.model or "—"),
        "dest": plain(export.destination.type or "—"),
        "interval": _interval_label(export.interval or "—"),
        "state": Text("⏸ paused", style="bold yellow") if export.paused else Text("▶ active", style="green"),
        "latest": status_text(latest.status) if latest else Text("no runs", style="dim"),
        "strip": status_strip([r.status for r in runs]),
        "progress": progress,
    }
    return RowFacts(
        fingerprint=fingerprint if fingerprint is not None else row_fingerprint(watched, marked),
        static=static,
        completed_end=newest_completed_end(export),
        last_time=(latest.finished_at or latest.created_at) if latest else None,
        due_anchor=due_anchor(export),
        step=export.interval_seconds,
        paused=export.paused,
        ended=export.end_at,
    )


def time_cells(facts: RowFacts, now: datetime, lag_threshold: float) -> dict[str, Text]:
    """Lag, last run and next due: the cells that age with the clock, at minute resolution."""
    lag = None if facts.completed_end is None else max(0.0, (now - facts.completed_end).total_seconds())
    lagging = lag_exceeds(lag, facts.step, facts.paused, lag_threshold)
    due = due_at(facts.due_anchor, facts.step, facts.paused, facts.ended, now)
    if due is None:
        due_text = Text("paused" if facts.paused else "—", style="dim")
    elif abs((due - now).total_seconds()) < 60:
        due_text = Text("due now")
    elif due < now:
        due_text = Text("overdue " + ago(due, now, coarse=True).replace(" ago", ""), style=tone_style(Tone.WARNING))
    else:
        due_text = Text(ago(due, now, coarse=True))
    return {
        "lag": Text(coarse_duration(lag), style=tone_style(Tone.FAILURE) if lagging else ""),
        "last": Text(ago(facts.last_time, now, coarse=True)),
        "due": due_text,
    }


def export_cells(watched: WatchedExport, now: datetime, *, marked: bool, lag_threshold: float) -> dict[str, Text]:
    facts = row_facts(watched, marked)
    return {**facts.static, **time_cells(facts, now, lag_threshold)}


def run_cells(run: BatchExportRun, now: datetime) -> dict[str, Text]:
    start, end = run.data_interval_start, run.data_interval_end
    if start and end:
        tail = f"{end:%H:%M}" if start.date() == end.date() else f"{end:%m-%d}"
        interval = f"{start:%m-%d %H:%M}→{tail}"
    elif end:
        interval = f"…→{end:%m-%d %H:%M}"
    else:
        interval = "—"
    finished_or_now = run.finished_at or (now if run.is_in_progress else None)
    took = (finished_or_now - run.created_at).total_seconds() if finished_or_now and run.created_at else None
    records = Text.assemble(
        progress_bar(run.records_completed, run.records_total_count, width=8), " ",
        (f"{count(run.records_completed)}/{count(run.records_total_count)}", "dim"),
    )
    error = (run.latest_error or "").splitlines()[0] if run.latest_error else ""
    return {
        "status": status_text(run.status),
        "interval": Text(interval),
        "records": records,
        "duration": Text(duration(took)),
        "finished": Text(ago(run.finished_at, now)) if run.finished_at else Text("—", style="dim"),
        "error": plain(error, error_text_style(), limit=200),
        "cursor": plain(run.cursor or "", "dim", limit=40),
    }


def records_series(runs: Sequence[BatchExportRun]) -> list[float]:
    return [float(r.records_completed or 0) for r in runs]


def duration_series(runs: Sequence[BatchExportRun]) -> list[float]:
    values = []
    for run in runs:
        if run.finished_at and run.created_at:
            values.append(max(0.0, (run.finished_at - run.created_at).total_seconds()))
    return values
