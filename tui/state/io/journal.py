"""The action journal's file: one JSON line per operator action, for the next person on call.

Secrets never reach it: values under secret-looking keys are masked before writing
(:meth:`tui.state.journal_entry.JournalEntry.to_json`), and the API key is never passed in.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from tui.config.paths import data_dir
from tui.secrets.private_files import append_private
from tui.state.journal_entry import JournalEntry

TAIL_LINE_BYTES = 16 * 1024


class ActionJournal:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / "journal.jsonl"

    @classmethod
    def for_session(cls, *, demo: bool) -> ActionJournal:
        """The operator's journal, or the demo's own: sandbox actions never mix with real ones."""
        return cls(data_dir() / ("journal-demo.jsonl" if demo else "journal.jsonl"))

    def append(self, entry: JournalEntry) -> None:
        """Best effort: a full disk must not break the action that was already done."""
        with contextlib.suppress(OSError):
            append_private(self.path, entry.to_json() + "\n")

    def tail(self, limit: int = 200) -> list[dict[str, Any]]:
        """The last ``limit`` entries, read from the end of the file: a journal kept for months is never read whole
        (at most ``TAIL_LINE_BYTES`` per entry asked; a longer line is not an entry of ours)."""
        try:
            with self.path.open("rb") as fh:
                end = fh.seek(0, 2)
                start = max(0, end - limit * TAIL_LINE_BYTES)
                fh.seek(start)
                data = fh.read(end - start)
        except OSError:
            return []
        lines = data.split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first may be cut
        entries = []
        for line in lines[-limit - 1:]:
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue
        return entries[-limit:]
