"""A cheap census of what a long-running process holds, for the soak's ``WATCHDECK_SOAK_TRACE=1`` mode.

tracemalloc slows the monitor's polling too much to run for the soak's half hour; this counts instead:
the size of every ``functools.lru_cache`` and Textual cache the process has, live objects by type, the
interpreter's allocated blocks and glibc's own figures (``mallinfo2``: bytes in use and bytes free but kept).
Comparing two censuses says whether RSS growth is objects held (a cache filling, a store growing) or the
allocator keeping freed memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from textual.cache import FIFOCache, LRUCache


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def malloc_figures() -> dict[str, int]:
    """glibc's ``mallinfo2``: bytes ``in_use``, bytes ``free`` but kept, ``mmapped``; empty off glibc."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError, TypeError):
        return {}
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return {"in_use": int(info.uordblks), "free": int(info.fordblks), "mmapped": int(info.hblkhd)}


@dataclass
class Census:
    caches: dict[str, int] = field(default_factory=dict)
    types: Counter[str] = field(default_factory=Counter)
    blocks: int = 0
    malloc: dict[str, int] = field(default_factory=dict)


def _cache_name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def take_census() -> Census:
    gc.collect()
    census = Census(blocks=sys.getallocatedblocks(), malloc=malloc_figures())
    textual_caches: Counter[str] = Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        census.types[kind.__qualname__] += 1
        if isinstance(obj, functools._lru_cache_wrapper):
            census.caches[_cache_name(obj)] = obj.cache_info().currsize
        elif isinstance(obj, (LRUCache, FIFOCache)):
            textual_caches[f"{kind.__name__}({getattr(obj, 'maxsize', '?')})"] += len(obj)
    census.caches.update(textual_caches)
    return census


def census_growth(first: Census, last: Census, top: int = 15) -> list[list[object]]:
    """The caches and object types that grew most between two censuses, then the process-wide figures."""
    rows: list[list[object]] = []
    grown = sorted(((last.caches.get(k, 0) - first.caches.get(k, 0), k) for k in last.caches), reverse=True)
    rows += [["cache", k, first.caches.get(k, 0), last.caches[k], f"{d:+d}"] for d, k in grown[:top] if d > 0]
    types = sorted(((last.types[k] - first.types.get(k, 0), k) for k in last.types), reverse=True)
    rows += [["objects", k, first.types.get(k, 0), last.types[k], f"{d:+d}"] for d, k in types[:top] if d > 0]
    rows.append(["blocks", "sys.getallocatedblocks()", first.blocks, last.blocks, f"{last.blocks - first.blocks:+d}"])
    for key in last.malloc:
        was, now = first.malloc.get(key, 0), last.malloc[key]
        rows.append(["malloc KiB", key, was // 1024, now // 1024, f"{(now - was) // 1024:+d}"])
    return rows
