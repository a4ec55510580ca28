"""How one export becomes a row of the monitor's table, and a run a row of the runs table.

Pure functions of a row's facts (:class:`tui.state.export_board.RowFacts`,
its verdict included): the board says which rows changed, and the screen
repaints only those. Every server string goes through :func:`tui.look.render.plain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rich.text import Text

from tui.api.models.batch_exports import BatchExportRun, interval_seconds
from tui.look.palette import Tone
from tui.look.render import plain, progress_bar
from tui.look.status import status_strip, status_text
from tui.state.export_board import RowFacts
from tui.state.exports import runs_oldest_first
from tui.state.health import HealthState, Verdict, run_activity_time
from tui.text.clean import clean
from tui.text.words import ago, coarse_duration, count, duration, past_ago, short_count

# (key, label, width), in the order drawn; which of them are drawn is EXPORT_PRIORITY's.
EXPORT_COLUMNS: list[tuple[str, str, int | None]] = [
    ("mark", " ", 1),
    ("name", "Export", 30),
    ("project", "Project", 8),
    ("model", "Model", 7),
    ("dest", "Destination", 11),
    ("interval", "Interval", 8),
    ("state", "State", 10),
    ("latest", "Latest run", 14),
    ("lag", "Lag", 7),
    ("strip", "Last runs", 10),
    ("progress", "Progress", 13),
    ("last", "Last run", 14),
    ("due", "Next due", 14),
]
# What an on-call operator needs first: a column is shown only when every column named before it that fits is
# shown too, and is dropped whole (tui.widgets.virtual_table.fit_columns); never cut halfway off the screen.
# The project column exists only when several projects are watched (their section rows name them too).
EXPORT_PRIORITY = ("mark", "name", "state", "latest", "lag", "strip", "progress", "due", "last", "project", "interval",
                   "dest", "model")
# The data model (events, persons, sessions) says what a destination receives: drawn only beside the Destination
# column, never in its place where Destination is too wide to fit.
EXPORT_REQUIRES = {"model": "dest"}
# The column that takes the width the shown columns leave, up to this much.
EXPORT_GROW = ("name", 40)

CURSOR_WIDTH = 12
RUN_COLUMNS: list[tuple[str, str, int | None]] = [
    ("status", "Status", 18),
    ("interval", "Data interval", 19),
    ("records", "Records", 32),
    ("duration", "Took", 7),
    ("finished", "Finished", 14),
    ("error", "Latest error", 24),
    ("cursor", "Cursor", CURSOR_WIDTH),
]
# Which run, which data, why it failed, then the figures; the error takes the width left (its text is long).
RUN_PRIORITY = ("status", "interval", "error", "records", "duration", "finished", "cursor")
RUN_GROW = ("error", 100)


def _interval_label(interval: str) -> Text:
    """The schedule as a duration (``5m``, ``1h``, ``1d``), or the server's word where it is not one watchdeck knows."""
    seconds = interval_seconds(interval)
    return Text(duration(seconds)) if seconds is not None else plain(interval, limit=9)


TIME_COLUMNS = ("state", "lag", "last", "due")

# How each verdict reads in the State column: a symbol and a word (never colour alone), in the tone of
# tui.look.status, so that NO_COLOR draws a failing export reversed like a failed run.
STATE_LOOKS: dict[HealthState, tuple[str, Tone]] = {
    HealthState.OK: ("✔ ok", Tone.SUCCESS),
    HealthState.RUNNING: ("⟳ running", Tone.STARTING),
    HealthState.FAILING: ("✖ failing", Tone.FAILURE),
    HealthState.OVERDUE: ("▲ overdue", Tone.WARNING),
    HealthState.PAUSED: ("⏸ paused", Tone.WARNING),
    HealthState.ENDED: ("■ ended", Tone.QUIET),
    HealthState.NO_RUNS: ("· no runs", Tone.QUIET),
    HealthState.UNKNOWN_STATUS: ("? unknown", Tone.UNKNOWN),
}


def state_text(verdict: Verdict) -> Text:
    label, tone = STATE_LOOKS[verdict.state]
    return Text(label, style=tone.style)


def static_cells(row: RowFacts) -> dict[str, Text]:
    """The cells that do not age with the clock: rebuilt only when the row's fingerprint changes."""
    watched, marked = row.watched, row.marked
    export = watched.export
    latest = row.verdict.latest_run
    if latest is not None and latest.is_in_progress:
        progress = progress_bar(latest.records_completed, latest.records_total_count, width=8)
    else:
        progress = Text("")
    return {
        "mark": (Text("s", style=Tone.MUTED.style + " reverse") if row.silenced  # silenced: its verdict stays
                 else Text("!", style=Tone.FAILURE.style + " reverse") if marked else Text(" ")),
        "name": plain(export.name or export.id, "bold" if marked else "", limit=60),
        "project": plain(watched.project_id, Tone.MUTED.style),
        "model": plain(export.model or "—"),
        "dest": plain(export.destination.type or "—"),
        "interval": _interval_label(export.interval or "—"),
        "latest": status_text(latest.status) if latest else Text("no runs", style=Tone.MUTED.style),
        "strip": status_strip([r.status for r in runs_oldest_first(export)]),
        "progress": progress,
    }


def lag_words(verdict: Verdict) -> str:
    """The lag as the table and the details say it: ``2h05m``, ``≥ 10h`` where the runs known only bound it."""
    text = coarse_duration(verdict.lag_seconds)
    return f"≥ {text}" if verdict.lag_is_lower_bound and verdict.lag_seconds is not None else text


def time_cells(verdict: Verdict) -> dict[str, Text]:
    """State, lag, last run and next due: what the verdict says at its moment, at minute resolution.

    The verdict is judged on the server's time, and no figure here is ever negative.
    """
    now = verdict.judged_at
    latest = verdict.latest_run
    last_time = run_activity_time(latest) if latest is not None else None
    due = verdict.next_due
    if verdict.state is HealthState.ENDED:
        due_text = Text("ended", style=Tone.MUTED.style)
    elif verdict.state is HealthState.PAUSED:
        due_text = Text("paused", style=Tone.MUTED.style)
    elif due is None:
        due_text = Text("—", style=Tone.MUTED.style)
    elif abs((due - now).total_seconds()) < 60:
        due_text = Text("due now")
    elif due < now:
        late = ago(due, now, coarse=True).replace(" ago", "")
        due_text = Text(f"overdue {late}", style=Tone.WARNING.style) if verdict.overdue else Text(f"late {late}")
    else:
        due_text = Text(ago(due, now, coarse=True))
    return {
        "state": state_text(verdict),
        "lag": Text(lag_words(verdict), style=Tone.FAILURE.style if verdict.overdue else ""),
        "last": Text(past_ago(last_time, now, coarse=True) if last_time is not None else "—"),
        "due": due_text,
    }


def export_cells(row: RowFacts) -> dict[str, Text]:
    return {**static_cells(row), **time_cells(row.verdict)}


def cursor_text(cursor: str | None) -> Text:
    """A run's resume cursor in its column's width, its telling part kept.

    The cursor is opaque. One that is a time reads as the data interval does (``11-24 01:12``, UTC): its
    date-and-T head, the same on every row, told nothing. Any other keeps its end, where opaque positions
    (offsets, sequence numbers) differ, behind an ellipsis.
    """
    text = clean(cursor or "", limit=400)
    if not text:
        return Text("")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is not None and moment.tzinfo is not None:
        text = f"{moment.astimezone(UTC):%m-%d %H:%M}"
    elif len(text) > CURSOR_WIDTH:
        text = "…" + text[-(CURSOR_WIDTH - 1):]
    return Text(text, style=Tone.MUTED.style, no_wrap=True, end="")


# The Records column (32 cells) less the bar (8), a space, the percentage (4) and a space.
RECORDS_FIGURES_WIDTH = 18


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
    figures = f"{count(run.records_completed)}/{count(run.records_total_count)}"
    if len(figures) > RECORDS_FIGURES_WIDTH:  # abbreviated, never cut: 1.55M/1.55M, not 1,550,533/1,550,53
        figures = f"{short_count(run.records_completed)}/{short_count(run.records_total_count)}"
    records = Text.assemble(progress_bar(run.records_completed, run.records_total_count, width=8), " ",
                            (figures, Tone.MUTED.style))
    error = (run.latest_error or "").splitlines()[0] if run.latest_error else ""
    return {
        "status": status_text(run.status),
        "interval": Text(interval),
        "records": records,
        "duration": Text(duration(took)),
        "finished": Text(past_ago(run.finished_at, now)) if run.finished_at else Text("—", style=Tone.MUTED.style),
        "error": plain(error, Tone.ERROR_TEXT.style, limit=200),
        "cursor": cursor_text(run.cursor),
    }


def records_series(runs: Sequence[BatchExportRun]) -> list[float]:
    return [float(r.records_completed or 0) for r in runs]


def duration_series(runs: Sequence[BatchExportRun]) -> list[float]:
    values = []
    for run in runs:
        if run.finished_at and run.created_at:
            values.append(max(0.0, (run.finished_at - run.created_at).total_seconds()))
    return values
