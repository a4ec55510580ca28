"""The selected export's details as plain text: destination (secrets masked), query, schedule."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rich.text import Text

from tui.look.export_cells import lag_words
from tui.look.palette import Tone
from tui.look.render import plain
from tui.state.exports import WatchedExport
from tui.state.health import Verdict
from tui.text.clean import clean
from tui.text.redaction import mask_secrets
from tui.text.words import ago, past_ago


def _when(value: datetime | None, now: datetime) -> str:
    """A time that may lie ahead (start, end, next run): "in 3 hours" is right for it."""
    return "—" if value is None else f"{value:%Y-%m-%d %H:%M:%S %Z} ({ago(value, now)})"


def _happened(value: datetime | None, now: datetime) -> str:
    """A time something happened (created, updated, paused): never "in …", whatever the clock skew."""
    return "—" if value is None else f"{value:%Y-%m-%d %H:%M:%S %Z} ({past_ago(value, now)})"


def _pretty(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def export_details_text(watched: WatchedExport, verdict: Verdict) -> Text:
    """The details pane; times and the health line are read at the verdict's moment (server time)."""
    now = verdict.judged_at
    export = watched.export
    text = Text()

    def row(label: str, value: Text | str) -> None:
        text.append(f"{label:<16}", style="bold")
        text.append(value if isinstance(value, Text) else Text(value))
        text.append("\n")

    row("Name", plain(export.name))
    row("Id", plain(export.id, Tone.MUTED.style))
    row("Project", plain(watched.project_id))
    row("Model", plain(export.model or "—"))
    row("Interval", plain(export.interval or "—"))
    row("Paused", Text("yes", style=Tone.WARNING.style) if export.paused else Text("no"))
    row("Last paused", _happened(export.last_paused_at, now))
    row("Start at", _when(export.start_at, now))
    row("End at", _when(export.end_at, now))
    row("Created", _happened(export.created_at, now))
    row("Updated", _happened(export.last_updated_at, now))
    row("Health", plain(f"{verdict.state.value}: {verdict.reason}"))
    lag = verdict.lag_seconds
    row("Lag", "—" if lag is None else f"{lag_words(verdict)} behind")  # as the table says it
    row("Overdue rule", verdict.rule or "—")
    due = verdict.next_due
    row("Next run due", "—" if due is None else _when(due, now))
    text.append("\nDestination ", style="bold")
    text.append(plain(export.destination.type or "—", Tone.ACCENT.style))
    text.append("\n")
    config = mask_secrets(export.destination.config or {})
    text.append(clean(_pretty(config), oneline=False, limit=20000) + "\n", style="")
    text.append("\nQuery\n", style="bold")
    text.append(clean(export.query or "—", oneline=False, limit=20000) + "\n")
    if export.schema_:
        text.append("\nSchema\n", style="bold")
        text.append(clean(_pretty(export.schema_), oneline=False, limit=20000) + "\n")
    return text
