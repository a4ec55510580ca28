"""One journal entry (an operator's action, for the next person on call) and what writes it.

The file is :mod:`tui.state.io.journal`'s; the state makes entries and hands them to a :class:`JournalWriter`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from tui.text.redaction import mask_secrets

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
        # ASCII: a C1 control or a bidi override in a name is written as \\uXXXX, never raw (``tail -f`` shows it).
        return json.dumps(record, default=str)


def wall_clock() -> datetime:
    """The real time, whatever clock the app runs on (the demo's is simulated)."""
    return datetime.now(UTC)


class JournalWriter(Protocol):
    def append(self, entry: JournalEntry) -> None: ...
