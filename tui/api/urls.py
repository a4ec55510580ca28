"""Paths, page size and query keys of the API: the client builds requests from them, the cache keys answers by them.

Every request path is built here, by :func:`api_path`, from typed segments: the route's own words and ids
(:class:`Id`). An id is checked against the shape the service gives that kind of object
(:mod:`tui.api.ids`) and percent-encoded, so no id a server sends can choose another path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from tui.api.errors import UnexpectedId
from tui.api.ids import IdKind, id_problem

#: The real service's default page size for limit/offset lists (100); also ours.
EXPORT_LIST_PAGE_SIZE = 100

Params = Mapping[str, Any] | list[tuple[str, Any]] | None
QueryKey = tuple[tuple[str, str], ...]

_ROUTE_WORD = re.compile(r"@?[a-z_]+", re.ASCII)


@dataclass(frozen=True, slots=True)
class Id:
    """An id in a path, with the kind of object it names."""

    kind: IdKind
    value: str


def checked(kind: IdKind, value: object) -> str:
    """``value`` if it is of the shape the service gives a ``kind``'s id; else :class:`UnexpectedId`."""
    problem = id_problem(kind, value)
    if problem is not None:
        raise UnexpectedId(kind, value, problem)
    assert isinstance(value, str)
    return value


def api_path(*segments: str | Id) -> str:
    """``/api/<segment>/.../`` from route words (this module's callers' own) and checked, percent-encoded ids."""
    parts: list[str] = []
    for segment in segments:
        if isinstance(segment, Id):
            parts.append(quote(checked(segment.kind, segment.value), safe=""))
        elif _ROUTE_WORD.fullmatch(segment):
            parts.append(segment)
        else:
            raise ValueError(f"not a route word: {segment!r}")
    return "/api/" + "".join(f"{part}/" for part in parts)


def project_path(project_id: str, *rest: str | Id) -> str:
    """``/api/projects/<project>/...``: the project's own record, its surveys."""
    return api_path("projects", Id("project", project_id), *rest)


def batch_exports_path(project_id: str, *rest: str | Id) -> str:
    """``/api/environments/<project>/batch_exports/...``."""
    return api_path("environments", Id("project", project_id), "batch_exports", *rest)


def next_query(next_url: str) -> list[tuple[str, str]]:
    """The query of a ``next`` link: the page it asks for. Its path is never followed.

    The next page of a list is the same list: its path is the one the first page was asked at, so no
    link a server sends can move a request to another path or host (the API key only ever goes to the
    host the operator chose, at paths built here).
    """
    return parse_qsl(urlsplit(next_url).query, keep_blank_values=True)


def query_key(params: Params) -> QueryKey:
    """An order-free, hashable form of a query, to tell whether two requests ask the same."""
    if not params:
        return ()
    items: Iterable[tuple[str, Any]] = params.items() if isinstance(params, Mapping) else params
    return tuple(sorted((str(key), str(value)) for key, value in items))
