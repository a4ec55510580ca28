"""Paths, page size and query keys of the API: the client builds requests from them, the cache keys answers by them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

#: The real service's default page size for limit/offset lists (100); also ours.
EXPORT_LIST_PAGE_SIZE = 100

Params = Mapping[str, Any] | list[tuple[str, Any]] | None
QueryKey = tuple[tuple[str, str], ...]


def batch_exports_path(project_id: str) -> str:
    return f"/api/environments/{project_id}/batch_exports/"


def follow_next(base_url: str, next_url: str) -> tuple[str, list[tuple[str, str]]]:
    """The path and query of a ``next`` link, sent to our own base URL.

    Links are absolute and may name another host behind a proxy; re-basing
    them means the API key only ever goes to the host the operator chose.
    """
    parts = urlsplit(next_url)
    base_path = urlsplit(base_url).path.rstrip("/")
    path = parts.path
    if base_path and path.startswith(base_path):
        path = path[len(base_path):]
    return path, parse_qsl(parts.query, keep_blank_values=True)


def query_key(params: Params) -> QueryKey:
    """An order-free, hashable form of a query, to tell whether two requests ask the same."""
    if not params:
        return ()
    items: Iterable[tuple[str, Any]] = params.items() if isinstance(params, Mapping) else params
    return tuple(sorted((str(key), str(value)) for key, value in items))
