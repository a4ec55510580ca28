"""The editor's draft against the server's survey at save time: a three-way compare of payload fields.

Three bodies of one survey, keyed by top-level field (``name``, ``appearance``, ``questions``), each as the editor
would send it: the *base* (the survey as the editor read it), *mine* (the draft now) and *theirs* (the survey as the
server holds it now, read again just before the save). A field the operator edited is one where mine differs from
the base; the server changed one where theirs does. Only the operator's fields are ever sent, each as the operator
decides where the server changed it too (a *conflict*); every other field takes the server's value, never the base's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Conflict:
    """A field both the operator and the server changed since the base, to different values."""

    field: str
    base: Any
    mine: Any
    theirs: Any


@dataclass(frozen=True)
class Compared:
    """What a save must know of base, mine and theirs."""

    edited: tuple[str, ...]
    """Fields the operator changed, in the order of ``mine``."""
    conflicts: tuple[Conflict, ...]
    """Edited fields the server changed too, to another value than the operator's."""
    theirs_changed: tuple[str, ...]
    """Fields the server changed that the operator did not edit: the draft takes the server's value."""

    @property
    def conflicted(self) -> frozenset[str]:
        return frozenset(conflict.field for conflict in self.conflicts)

    def kept(self, take_theirs: Iterable[str] = ()) -> tuple[str, ...]:
        """The operator's fields that stay the operator's: every edited one but those whose server value is taken."""
        taken = set(take_theirs)
        return tuple(name for name in self.edited if name not in taken)


_ABSENT = object()


def compare(base: Mapping[str, Any], mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> Compared:
    """Compare three bodies field by field; a field missing from one of them counts as a value of its own."""
    names = list(dict.fromkeys([*mine, *base, *theirs]))
    edited: list[str] = []
    conflicts: list[Conflict] = []
    theirs_changed: list[str] = []
    for name in names:
        b, m, t = (body.get(name, _ABSENT) for body in (base, mine, theirs))
        mine_changed, server_changed = m != b, t != b
        if mine_changed:
            edited.append(name)
            if server_changed and m != t:
                conflicts.append(Conflict(name, _value(b), _value(m), _value(t)))
        elif server_changed:
            theirs_changed.append(name)
    return Compared(tuple(edited), tuple(conflicts), tuple(theirs_changed))


def _value(value: Any) -> Any:
    return None if value is _ABSENT else value
