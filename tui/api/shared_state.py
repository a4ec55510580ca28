"""Signed shared state: what the processes watching with one API key keep in the shared store (SQLite or Redis).

The request counts, the write generations, the leases and the viewers (and any
later shared record) go through this one scheme, because whoever can write to
the store need not hold the API key:

* **The key.** Entries are signed with a key derived from the API key by
  HKDF-SHA256 (RFC 5869) with a purpose label (:func:`derive_key`); the API key
  itself is never stored, and the signing key is never the API key.
* **Entries.** A *slot* (a name) holds one entry per writer (its *field*: the
  writer's id, one per process). An entry is ``w1.<payload>.<mac>``: the JSON
  payload and an HMAC-SHA256 over the slot's name, the field and the payload,
  so an entry moved to another slot or writer does not check.
* **Writers write only their own entry.** A counter is each writer's own count,
  kept in the writer's memory and written whole; readers add the entries up
  (:meth:`SharedState.total`). No writer reads, increments or trusts another's.
  A writer's count only grows, so a reader keeps the highest it has seen of
  each: an old entry written back (a replay) cannot take a count back.
* **Readers ignore** an entry whose MAC does not check, that does not parse, or
  whose value is out of its plausible range (the caller says what is
  plausible), and a slot with more than :data:`MAX_WRITERS` entries (a flood).
  :attr:`SharedState.ignored` counts them, for one note on the status line.
* **Leases** (one holder at a time) are single signed entries with their expiry
  inside: an entry that does not check, or whose expiry is past or too far
  ahead, does not hold the lease, and is taken over.
* **Records** (who is watching; later an alert's acknowledgement or silence)
  are entries with any JSON value: :meth:`SharedState.put` this writer's,
  :meth:`SharedState.entries` everyone's that check and pass the caller's
  plausibility test, :meth:`SharedState.remove` this writer's.

Standard library only: the start-up path reads the viewers through it
(:func:`tui.api.cache_context.others_watching`) before hishel is imported.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

#: A slot with more entries than this is a flood, not the writers of one key: it is read as empty.
MAX_WRITERS = 256
#: The largest entry read or written, in bytes.
MAX_ENTRY_BYTES = 4096
MAX_FIELD_CHARS = 64
#: Counters each writer keeps in memory (the newest slots; older slots are never written again), and the highest
#: count a reader has seen of each writer's entries (the newest).
COUNTERS_KEPT = 1024
HIGHEST_KEPT = 4096
#: How far a lease's expiry may lie ahead of this host's clock (the hosts sharing Redis may disagree a little).
LEASE_CLOCK_SLACK_SECONDS = 60.0
FORMAT = b"w1"
SALT = b"watchdeck shared state"
#: The slot of the key's viewers: each process's entry is the time it lapses unless renewed.
VIEWERS_SLOT = "viewers"
#: The longest a viewer entry may claim to last: one further ahead is not a viewer's, and is ignored.
MAX_VIEWER_LAPSE_SECONDS = 86400.0


def hkdf_sha256(secret: bytes, salt: bytes, info: bytes) -> bytes:
    """The first 32 bytes of HKDF-SHA256 (RFC 5869): its extract step, then one block of its expand step."""
    pseudo_random = hmac.new(salt, secret, hashlib.sha256).digest()
    return hmac.new(pseudo_random, info + b"\x01", hashlib.sha256).digest()


def derive_key(api_key: str, purpose: str) -> bytes:
    """A 32-byte key for one ``purpose`` (``"state"``, ``"answers"``), derived from the API key.

    HKDF with a fixed salt and the purpose as its info label: keys for different
    purposes are unrelated, and none of them gives the API key back.
    """
    return hkdf_sha256(api_key.encode("utf-8", "surrogateescape"), SALT, purpose.encode())


def _mac(key: bytes, name: str, field: str, payload: bytes) -> bytes:
    message = b"\x1f".join((name.encode(), field.encode("utf-8", "surrogateescape"), payload))
    return hmac.new(key, message, hashlib.sha256).hexdigest().encode()


def seal(key: bytes, name: str, field: str, value: object) -> bytes:
    """The entry for ``value`` (JSON-able) in slot ``name`` under ``field``."""
    payload = json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False).encode()
    return b".".join((FORMAT, payload, _mac(key, name, field, payload)))


class Unsealed:
    """A value that did not check: forged, damaged, or written with another key."""


UNSEALED = Unsealed()


def unseal(key: bytes, name: str, field: str, blob: object) -> object:
    """The value in an entry, or :data:`UNSEALED` when the entry does not check or does not parse."""
    if not isinstance(blob, bytes | bytearray) or len(blob) > MAX_ENTRY_BYTES or len(field) > MAX_FIELD_CHARS:
        return UNSEALED
    head, _, rest = bytes(blob).partition(b".")
    payload, _, mac = rest.rpartition(b".")
    if head != FORMAT or not payload or not hmac.compare_digest(mac, _mac(key, name, field, payload)):
        return UNSEALED
    try:
        return json.loads(payload)
    except ValueError:
        return UNSEALED


def plausible_count(most: int) -> Callable[[object], bool]:
    """A whole number from 0 to ``most`` (never a bool, a float, or a number of 400 digits)."""
    return lambda value: type(value) is int and 0 <= value <= most


def plausible_until(now: float, most_ahead: float) -> Callable[[object], bool]:
    """A finite time no more than ``most_ahead`` seconds after ``now`` (a past one is plausible: it lapsed)."""

    def check(value: object) -> bool:
        return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
                and 0 <= value <= now + most_ahead)

    return check


def checked(key: bytes, name: str, stored: dict[str, bytes], plausible: Callable[[object], bool],
            ) -> tuple[dict[str, object], int]:
    """The values of a slot's entries that check and are plausible, by field, and how many others there were."""
    good: dict[str, object] = {}
    for field, blob in stored.items():
        value = unseal(key, name, field, blob)
        if value is not UNSEALED and plausible(value):
            good[field] = value
    return good, len(stored) - len(good)


class StateStore(Protocol):
    """What a store gives the signed layer: slots of entries by field, and single entries; values are opaque.

    ``keep`` is how long the store keeps a slot after its last write (its own expiry: a lapsed writer's entries go).
    """

    async def write(self, name: str, field: str, blob: bytes, keep: float) -> None: ...
    async def read(self, names: Sequence[str], most: int) -> list[dict[str, bytes] | None]:
        """Each slot's entries by field; None for a slot of more than ``most`` entries."""
        ...
    async def erase(self, name: str, fields: Sequence[str]) -> None: ...
    async def claim(self, name: str, blob: bytes, keep: float) -> bool:
        """Write the single entry ``name`` if there is none; whether it was written."""
        ...
    async def peek(self, name: str) -> bytes | None: ...
    async def clear(self, name: str) -> None: ...
    async def close(self) -> None: ...


class SharedState:
    """The shared state of one (server, API key) pair in one store, as one writer (this process) sees it.

    Every name is put under ``owner`` (the key's id in the store), so the state of
    other keys sharing the store is never read, and never taken for forged.
    Store failures are the caller's to handle (:meth:`tui.api.cache.SharedCache.guarded`).
    """

    def __init__(self, store: StateStore, api_key: str, owner: str, writer: str, *,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.owner = owner
        self.writer = writer
        self._key = derive_key(api_key, "state")
        self._wall = wall
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._highest: OrderedDict[tuple[str, str], int] = OrderedDict()
        #: Entries ignored so far: forged, damaged, out of range, or in a flooded slot.
        self.ignored = 0

    def name(self, slot: str) -> str:
        return f"{self.owner}:{slot}"

    # ------------------------------------------------------------------ entries

    async def put(self, slot: str, value: object, *, keep: float) -> None:
        """This writer's entry in ``slot``."""
        name = self.name(slot)
        await self.store.write(name, self.writer, seal(self._key, name, self.writer, value), keep)

    async def remove(self, slot: str) -> None:
        """This writer's entry in ``slot`` goes."""
        await self.store.erase(self.name(slot), [self.writer])

    async def entries(self, slots: Sequence[str], plausible: Callable[[object], bool]) -> list[dict[str, object]]:
        """Each slot's entries that check and are plausible, by writer; the rest is counted in :attr:`ignored`."""
        names = [self.name(slot) for slot in slots]
        found: list[dict[str, object]] = []
        ignored = 0
        for name, stored in zip(names, await self.store.read(names, MAX_WRITERS), strict=True):
            if stored is None:
                ignored += 1
                found.append({})
                continue
            good, bad = checked(self._key, name, stored, plausible)
            ignored += bad
            found.append(good)
        self.ignored += ignored
        return found

    # ------------------------------------------------------------------ counters

    async def add(self, slot: str, count: int, *, keep: float) -> None:
        """This writer's own count in ``slot`` grows by ``count`` (written whole, signed).

        A slot whose count was let go from memory goes on from the highest of this writer's entries read there.
        """
        total = self._counts.pop(slot, self._highest.get((slot, self.writer), 0)) + count
        self._counts[slot] = total
        while len(self._counts) > COUNTERS_KEPT:
            self._counts.popitem(last=False)
        await self.put(slot, total, keep=keep)

    async def total(self, slots: Sequence[str], *, most: int) -> int:
        """Every writer's count in ``slots`` added up (the highest seen of each); a count above ``most`` is ignored."""
        total = 0
        for slot, entries in zip(slots, await self.entries(slots, plausible_count(most)), strict=True):
            for writer, count in entries.items():
                if isinstance(count, int):
                    total += self._highest_of((slot, writer), count)
        return total

    def _highest_of(self, entry: tuple[str, str], count: int) -> int:
        highest = max(count, self._highest.pop(entry, 0))
        self._highest[entry] = highest
        while len(self._highest) > HIGHEST_KEPT:
            self._highest.popitem(last=False)
        return highest

    # ------------------------------------------------------------------ leases

    async def take(self, slot: str, seconds: float) -> bool:
        """Hold ``slot`` for ``seconds`` if nobody does; a lease that does not check holds nothing and is taken."""
        name = self.name(slot)
        blob = seal(self._key, name, "", {"writer": self.writer, "until": self._wall() + seconds})
        if await self.store.claim(name, blob, seconds):
            return True
        if await self.held(slot):
            return False
        await self.store.clear(name)
        return await self.store.claim(name, blob, seconds)

    async def held(self, slot: str) -> bool:
        """Whether a lease that checks holds ``slot`` now."""
        name = self.name(slot)
        blob = await self.store.peek(name)
        if blob is None:
            return False
        value = unseal(self._key, name, "", blob)
        now = self._wall()
        until = value.get("until") if isinstance(value, dict) else None
        if plausible_until(now, LEASE_CLOCK_SLACK_SECONDS)(until) and isinstance(until, int | float):
            return until >= now
        self.ignored += 1
        return False

    async def release(self, slot: str) -> None:
        await self.store.clear(self.name(slot))
