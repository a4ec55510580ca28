"""Which watchdeck keys each API scope enables, so a key's missing scopes can be named with what they disable.

The real service grants ``*`` for every scope and ``X:write`` implies ``X:read``; a read-only key is a
normal, supported setup (the monitor without its actions).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.api.errors import ApiError

if TYPE_CHECKING:
    from tui.api.client import ApiClient

# scope -> what an operator loses without it (keys as the footer shows them).
SCOPE_USES: dict[str, str] = {
    "batch_export:read": "the monitor (exports, runs), status",
    "batch_export:write": "monitor p pause, u unpause, b backfill, r retry, e edit, D delete",
    "survey:read": "the surveys screen (tab), S summary",
    "survey:write": "surveys n new, e edit, d delete, a archive, s launch/stop",
    "activity_log:read": "surveys h activity, H all activity",
    "project:read": "the project picker (a known project id still works)",
    "user:read": "naming the key's owner in the connection test",
}


@dataclass(frozen=True)
class MissingScope:
    scope: str
    disables: str

    def line(self) -> str:
        return f"{self.scope} missing: {self.disables}"


def grants(scopes: Iterable[str], scope: str) -> bool:
    have = set(scopes)
    if "*" in have or scope in have:
        return True
    obj, _, action = scope.partition(":")
    return action == "read" and f"{obj}:write" in have


def missing_scopes(scopes: Iterable[str]) -> list[MissingScope]:
    """The scopes watchdeck uses that the key lacks, each with the keys it disables."""
    have = list(scopes)
    return [MissingScope(s, uses) for s, uses in SCOPE_USES.items() if not grants(have, s)]


def describe_scopes(scopes: Iterable[str]) -> str:
    """One line for a connection test: the key's scopes, or that it has them all."""
    have = sorted(set(scopes))
    if "*" in have:
        return "the key has every scope (*)"
    return "the key's scopes: " + (", ".join(have) if have else "none")


@dataclass(frozen=True)
class KeyReport:
    """What a connection test says about the key: whose it is, its scopes, what its missing scopes disable."""

    scopes: tuple[str, ...]
    owner: str | None = None
    label: str | None = None

    @property
    def missing(self) -> list[MissingScope]:
        return missing_scopes(self.scopes)

    def lines(self) -> list[str]:
        head = describe_scopes(self.scopes)
        if self.owner:
            head = f"{head} (owner: {self.owner})"
        return [head, *(m.line() for m in self.missing)]

    def to_json(self) -> dict[str, object]:
        return {"scopes": list(self.scopes), "owner": self.owner, "label": self.label,
                "missing": {m.scope: m.disables for m in self.missing}}


async def fetch_key_report(client: ApiClient, *, raise_: tuple[type[ApiError], ...] = ()) -> KeyReport | None:
    """``personal_api_keys/@current/`` then ``users/@me/``; None where the server has no such endpoint.

    The owner is optional: ``users/@me/`` needs ``user:read``, which many keys do not have. A caller
    that asks the key first (a connection test) passes the errors it reports itself in ``raise_``
    (a refused key, an unreachable server) rather than learn of them again from its next request.
    """
    try:
        info = await client.projects.current_key()
    except raise_:
        raise
    except ApiError:
        return None
    owner: str | None = None
    try:
        me = await client.projects.me()
        owner = " ".join(p for p in (me.first_name, me.last_name) if p) or me.email
    except ApiError:
        pass
    return KeyReport(tuple(info.scopes), owner, info.label)
