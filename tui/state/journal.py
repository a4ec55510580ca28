"""The action journal: one JSON line per operator action, for the next person on call.

Secrets never reach it: values under secret-looking keys are masked before writing,
and the API key is never passed in.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.paths import data_dir
from tui.private_files import append_private
from tui.state.secrets import mask_secrets


@dataclass(frozen=True)
class JournalEntry:
    time: datetime
    action: str
    result: str
    profile: str | None = None
    project: str | None = None
    export: str | None = None
    run: str | None = None
    detail: Mapping[str, Any] | None = None

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
        if self.detail:
            record["detail"] = mask_secrets(dict(self.detail))
        return json.dumps(record, default=str, ensure_ascii=False)


class ActionJournal:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / "journal.jsonl"

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
