"""The action journal: one JSON line per operator action, for the next person on call.

Secrets never reach it: values under secret-looking keys are masked before writing,
and the API key is never passed in.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.config.paths import data_dir
from tui.secrets.private_files import append_private
from tui.secrets.redaction import mask_secrets

# How the survey editor reports a failed save to the screen that journals survey actions:
# (action, survey id or None when creating, name, result, detail). Failures are journaled as saves are.
SurveyWriteFailed = Callable[[str, str | None, str | None, str, Mapping[str, Any] | None], None]


@dataclass(frozen=True)
class JournalEntry:
    """One action. ``time`` is the wall clock; ``server_time`` the clock the app shows, kept only when it differs.

    The demo runs on a simulated clock: an entry stamped with it alone would say
    the action happened days from now. ``name`` is what the operator saw (the
    export's or survey's name), as an id alone means nothing to the next person.
    """

    time: datetime
    action: str
    result: str
    profile: str | None = None
    project: str | None = None
    export: str | None = None
    run: str | None = None
    detail: Mapping[str, Any] | None = None
    survey: str | None = None
    name: str | None = None
    server_time: datetime | None = None

    def to_json(self) -> str:
        record: dict[str, Any] = {
            "time": self.time.isoformat(),
            "profile": self.profile,
            "project": self.project,
            "export": self.export,
            "run": self.run,
            "action": self.action,
            "result": self.result,
        }
        if self.survey is not None:
            record["survey"] = self.survey
        if self.name is not None:
            record["name"] = self.name
        if self.server_time is not None and abs((self.server_time - self.time).total_seconds()) >= 1:
            record["server_time"] = self.server_time.isoformat()
        if self.detail:
            record["detail"] = mask_secrets(dict(self.detail))
        return json.dumps(record, default=str, ensure_ascii=False)


def wall_clock() -> datetime:
    """The real time, whatever clock the app runs on (the demo's is simulated)."""
    return datetime.now(UTC)


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
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()[-limit:]
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue
        return entries
