"""Ids of the shape the service gives them, for tests: a UUID named by a word, the same in every run."""

from __future__ import annotations

import uuid


def uid(name: str) -> str:
    """The UUID named ``name`` (distinct names give distinct ids)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"watchdeck-test:{name}"))
