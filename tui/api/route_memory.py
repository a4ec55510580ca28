"""What the client learned about a server's routes, kept for every client of that server in the process.

Where the spec and the real service differ, the client tries the spec's form first and falls back. What worked
is a property of the server (of its generation), not of one client: the dashboard holds one client per watched
project, and each would otherwise pay the same failed request again. So the answer is kept here, by server, for
the life of the process. A server that changes generation (an upgrade removes a route) is learned again: the
remembered form fails, the other is tried and remembered in its place.

Bounded: a process talks to a handful of servers; the least recently used beyond :data:`MAX_SERVERS` is dropped.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

MAX_SERVERS = 32


@dataclass
class BackfillRoute:
    """How a server takes a backfill: ``path`` is ``backfill/`` or ``backfills/`` once known (None: not yet);
    ``dates``: whether its ``backfills/`` takes a day or week export's bounds as dates (the newest do)."""

    path: str | None = None
    dates: bool = True


class RouteMemory:
    def __init__(self, max_servers: int = MAX_SERVERS) -> None:
        self._max = max_servers
        self._backfill: OrderedDict[str, BackfillRoute] = OrderedDict()
        self._lock = threading.Lock()

    def backfill(self, server: str) -> BackfillRoute:
        """The backfill route known for ``server`` (a base URL); a new, unknown one the first time."""
        key = server.rstrip("/").lower()
        with self._lock:
            route = self._backfill.get(key)
            if route is None:
                route = self._backfill[key] = BackfillRoute()
                while len(self._backfill) > self._max:
                    self._backfill.popitem(last=False)
            else:
                self._backfill.move_to_end(key)
            return route

    def __len__(self) -> int:
        return len(self._backfill)

    def clear(self) -> None:
        with self._lock:
            self._backfill.clear()


#: The process's memory, shared by every :class:`~tui.api.client.ApiClient` not given one of its own.
SHARED_ROUTES = RouteMemory()
