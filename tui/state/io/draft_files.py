"""Unsaved survey edits as files, one per survey, readable only by their user: nothing edited is lost."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.api.writes import parse_datetime
from tui.secrets.private_files import write_private
from tui.state.survey_draft import DRAFT_VERSION


@dataclass
class StoredDraft:
    path: Path
    data: dict[str, Any]

    @property
    def saved_at(self) -> datetime | None:
        return parse_datetime(self.data.get("saved_at"))


_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}", re.ASCII)


class DraftStore:
    """Unsaved edits as JSON files, one per survey (``<id>.json``) or new survey (``new-<uuid>.json``)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, draft_id: str) -> Path:
        """The draft's file, always directly in the drafts folder.

        A survey id is server text: one that is not a plain name (``../x``, empty, 300 characters, a
        separator or a dot in it) is named by its hash, so it neither leaves the folder nor shares a file
        with another id.
        """
        if _PLAIN_ID.fullmatch(draft_id):
            return self.directory / f"{draft_id}.json"
        return self.directory / f"id-{hashlib.sha256(draft_id.encode('utf-8', 'surrogatepass')).hexdigest()[:40]}.json"

    def write(self, draft_id: str, data: Mapping[str, Any] | str) -> Path:
        """Atomic: a crash mid-write leaves the previous draft, never half a file.

        ``data`` may be pre-serialised text, so a caller can snapshot the draft on the UI thread and
        leave only the disk write to a thread.
        """
        path = self.path_for(draft_id)
        text = data if isinstance(data, str) else json.dumps(data, indent=1)
        write_private(path, text)
        return path

    def read(self, draft_id: str) -> StoredDraft | None:
        return self._read(self.path_for(draft_id))

    @staticmethod
    def _read(path: Path) -> StoredDraft | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != DRAFT_VERSION:
            return None
        return StoredDraft(path, data)

    def latest_new(self) -> StoredDraft | None:
        """The most recent draft of a survey never saved, for an editor opened on a new survey."""
        if not self.directory.is_dir():
            return None
        found = [d for p in self.directory.glob("new-*.json") if (d := self._read(p)) is not None]
        found.sort(key=lambda d: d.data.get("saved_at") or "", reverse=True)
        return found[0] if found else None

    def remove(self, draft_id: str) -> None:
        with contextlib.suppress(OSError):
            self.path_for(draft_id).unlink()
