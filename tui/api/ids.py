"""The shapes of the ids the service puts in its paths, checked before an id goes into one.

Surveys, batch exports, their runs and their backfills are named by UUIDs; projects by their number (or
``@current``, the project of the key in use). An id of any other shape never reaches a request path
(:mod:`tui.api.urls` refuses it), and a list item carrying one is a bad item of its page
(:mod:`tui.api.models`).
"""

from __future__ import annotations

import re
from typing import Literal

IdKind = Literal["project", "survey", "export", "run", "backfill"]

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", re.ASCII)
_PROJECT = re.compile(r"[0-9]{1,18}|@current", re.ASCII)

SHAPES: dict[IdKind, tuple[re.Pattern[str], str]] = {
    "project": (_PROJECT, "numbers"),
    "survey": (_UUID, "UUIDs"),
    "export": (_UUID, "UUIDs"),
    "run": (_UUID, "UUIDs"),
    "backfill": (_UUID, "UUIDs"),
}

_SHOWN_LIMIT = 80
_SHOWN_CHARACTERS = re.compile(r"[^A-Za-z0-9._~:/?#%@=&+-]")


def id_problem(kind: IdKind, value: object) -> str | None:
    """Why ``value`` cannot name a ``kind`` in a path (not a string, or not of the service's shape); None if it can."""
    pattern, shape = SHAPES[kind]
    if not isinstance(value, str):
        return f"{kind} ids are {shape}, not {type(value).__name__} values"
    if pattern.fullmatch(value) is None:
        return f"{kind} ids are {shape}"
    return None


def shown_id(value: object) -> str:
    """An id as a message may show it: printable ASCII of a plain alphabet only, bounded; anything else is ``?``."""
    text = _SHOWN_CHARACTERS.sub("?", str(value))
    return text if len(text) <= _SHOWN_LIMIT else text[: _SHOWN_LIMIT - 1] + "…"
