"""Frozen worlds seeded once per process: a second sandbox with the same seed and time copies the first.

Seeding simulates days of history (about 2,500 runs, 0.5 s of one core). A
frozen world (``simulate=False``: the clock never moves) seeded from the same
options at the same instant is the same database, byte for byte, so the
second one is a copy made with SQLite's backup API (a few milliseconds). Test
suites and screenshot runs start hundreds of these. A world whose clock moves
is seeded at a different instant every time, so it is never kept.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

#: Worlds kept at once; each is a few megabytes of in-memory SQLite.
MAX_WORLDS = 8

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
