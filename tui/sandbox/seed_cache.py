"""Frozen worlds seeded once per process: a second sandbox with the same seed and time copies the first.

Seeding simulates days of history (about 2,500 runs, 0.5 s of one core). A
frozen world (``simulate=False``: the clock never moves) seeded from the same
options at the same instant is the same database, byte for byte, so the
second one is a copy made with SQLite's backup API (a few milliseconds). Test
suites and screenshot runs start hundreds of these. A world whose clock moves
is seeded at a different instant every time, so it is never kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

from tui.secrets.private_files import create_private

#: Worlds kept at once; each is a few megabytes of in-memory SQLite.
MAX_WORLDS = 8
#: Changes whenever seeding changes what it makes: a world saved by an older seed is not loaded.
SEED_FORMAT = 1
#: Worlds kept on disk (the newest): one per hour of demo starts is all that is ever read.
MAX_SAVED_WORLDS = 3

_worlds: OrderedDict[Hashable, sqlite3.Connection] = OrderedDict()
_lock = threading.Lock()


def seed_or_copy(conn: sqlite3.Connection, key: Hashable, seed: Callable[[], None]) -> bool:
    """Fill ``conn`` with the world named by ``key``: copied when it was seeded before, else ``seed()`` and kept.

    Returns True when the world was copied.
    """
    with _lock:
        kept = _worlds.get(key)
        if kept is not None:
            _worlds.move_to_end(key)
            kept.backup(conn)
            return True
    seed()
    copy = sqlite3.connect(":memory:", check_same_thread=False)
    conn.backup(copy)
    with _lock:
        _worlds[key] = copy
        while len(_worlds) > MAX_WORLDS:
            _worlds.popitem(last=False)[1].close()
    return False


def seed_or_load(conn: sqlite3.Connection, directory: Path, key: Hashable, seed: Callable[[], None]) -> bool:
    """Like :func:`seed_or_copy`, with the worlds kept as files in ``directory`` (for the next process).

    ``watchdeck --demo`` seeds at the hour and simulates on from there, so every start within the hour loads the
    same file. A file that cannot be read or written is no error: the world is seeded instead. Returns True when
    the world was loaded.
    """
    path = directory / f"world-{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}.sqlite"
    try:
        if path.is_file():
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as saved:
                saved.backup(conn)
            return True
    except sqlite3.Error:
        pass
    seed()
    try:
        partial = path.with_suffix(f".{os.getpid()}.partial")
        create_private(partial)  # the folder 0700, the file 0600 before SQLite writes to it
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            conn.backup(copy)
        os.replace(partial, path)
        for old in sorted(directory.glob("world-*.sqlite"), key=lambda p: p.stat().st_mtime)[:-MAX_SAVED_WORLDS]:
            old.unlink(missing_ok=True)
    except (OSError, sqlite3.Error):
        pass
    return False
