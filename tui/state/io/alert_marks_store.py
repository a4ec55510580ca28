"""Where acknowledgements, silences and the alerts pane's history are kept: the state folder and the shared store.

One file per (server, key) pair in the state folder (``alerts/<key id>.json``,
0600, written whole and atomically) holds the marks known and the history; it
is read at start, so a restart keeps them. With the shared cache on (SQLite on
this host, Redis across hosts), each mark is also this process's signed entry in
its scope's slot (:mod:`tui.api.shared_state`): every dashboard and exporter of
the same server and key reads the slots of the exports it watches at each poll
and merges what checks. An entry written without the key fails the check and is
ignored (counted, as every forged entry is, for the status line's note).

The rules (what a mark means, how two merge, what is plausible) are
:mod:`tui.state.alert_marks`'; this module only reads and writes.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.api.cache_context import key_id
from tui.secrets.private_files import write_private
from tui.state.alert_book import Alert
from tui.state.alert_marks import (
    ACK_KEEP_SECONDS,
    AlertMarks,
    Scope,
    history_from_json,
    history_to_json,
    marks_of,
    plausible_mark,
    project_scope,
    prune_history,
    slot_of,
)

if TYPE_CHECKING:
    from tui.api.cache import SharedCache

#: The largest file read back (a thousand episodes take a few hundred kilobytes).
MAX_FILE_BYTES = 4 * 1024 * 1024
FORMAT = 1
#: A slot's entry outlives its silence or acknowledgement by this much (a lapsed one is pruned by every reader).
KEEP_SLACK_SECONDS = 3600.0


def marks_path(state_dir: Path, base_url: str, api_key: str, *, demo: bool = False) -> Path:
    """The file of one (server, key) pair; the demo's own (its sandbox listens on a new port each time)."""
    return state_dir / "alerts" / ("demo.json" if demo else f"{key_id(base_url, api_key)}.json")


class MarksKeeper:
    """The marks and the history of one (server, key) pair, kept in a file and shared through the cache's store."""

    def __init__(self, path: Path, cache: SharedCache | None, base_url: str, api_key: str, *,
                 wall: Callable[[], float] = time.time) -> None:
        self.path = path
        self.cache = cache
        self._base_url = base_url
        self._api_key = api_key
        self._wall = wall
        self.marks = AlertMarks()
        self.history: list[Alert] = []
        self._file_stamp: tuple[float, int] | None = None
        self._published: dict[Scope, dict[str, Any]] = {}  # what this writer's entry in each slot says

    # ------------------------------------------------------------------ the file

    def load(self, ids: Iterable[int] | None = None) -> None:
        """Read the file (if it changed since the last read): its marks merge in; its history is read when ``ids``
        numbers its episodes (the book's numbering), at start only."""
        try:
            info = self.path.stat()
            stamp = (info.st_mtime, info.st_size)
            if stamp == self._file_stamp or info.st_size > MAX_FILE_BYTES:
                return
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        self._file_stamp = stamp
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        wall = self._wall()
        self.marks.load(data.get("marks"), wall)
        if ids is not None:
            self.history = history_from_json(data.get("history"), wall, ids)

    def save(self, history: Sequence[Alert] | None = None) -> None:
        """Write the marks (and the history, when given) whole; best effort: a full disk never stops the screen."""
        wall = self._wall()
        self.marks.prune(wall)
        if history is not None:
            self.history = list(history)
            prune_history(self.history, wall)
        data = {"format": FORMAT, "marks": self.marks.to_json(), "history": history_to_json(self.history)}
        with contextlib.suppress(OSError):
            write_private(self.path, json.dumps(data, separators=(",", ":")))
            info = self.path.stat()
            self._file_stamp = (info.st_mtime, info.st_size)

    # ------------------------------------------------------------------ the shared store

    async def sync(self, scopes: Iterable[Scope]) -> bool:
        """Publish this process's marks that changed, then read every writer's marks of ``scopes`` (the watched
        exports, and their projects) and merge those that check; whether anything new came in."""
        self.load()
        scopes = list(scopes)
        cache = self.cache
        if cache is None:
            return False
        state = cache.state(self._base_url, self._api_key)
        await self.publish()
        wanted = list(dict.fromkeys([*scopes, *(project_scope(p) for p, _ in scopes)]))
        if not wanted:
            return False
        found = await cache.guarded(state.entries([slot_of(s) for s in wanted], plausible_mark(self._wall)), None)
        if not isinstance(found, list):
            return False
        before = self.marks.version
        wall = self._wall()
        for scope, values in zip(wanted, found, strict=True):
            for mark in marks_of(values, wall):
                self.marks.merge(scope, mark)
        changed = self.marks.version != before
        if changed:
            self.save()
        return changed

    async def publish(self) -> None:
        """This writer's entry in each scope's slot says the marks known there (written when they changed)."""
        cache = self.cache
        if cache is None:
            return
        state = cache.state(self._base_url, self._api_key)
        wall = self._wall()
        self.marks.prune(wall)
        for scope, mark in list(self.marks.marks.items()):
            value = mark.to_json()
            if self._published.get(scope) == value:
                continue
            until = max(mark.silence.until if mark.silence is not None else 0.0,
                        mark.ack.noted + ACK_KEEP_SECONDS if mark.ack is not None else 0.0)
            keep = max(60.0, until - wall + KEEP_SLACK_SECONDS)
            await cache.guarded(state.put(slot_of(scope), value, keep=keep))
            if cache.problem is None:
                self._published[scope] = value
