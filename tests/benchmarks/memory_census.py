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
import inspect
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
            info = obj.cache_info()
            census.caches[f"{_cache_name(obj)} (max {info.maxsize})"] = info.currsize
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


# --------------------------------------------------------------------------- who holds what grew

_CONTAINERS = (dict, list, tuple, set, frozenset)


def live_ids(kind: type) -> set[int]:
    """The ids of every live object of exactly ``kind`` the collector sees."""
    gc.collect()
    return {id(obj) for obj in gc.get_objects() if type(obj) is kind}


def _link(parent: Any, child: Any) -> str:
    """How ``parent`` holds ``child``: a key, an index, an attribute, or just the parent's type."""
    name = type(parent).__qualname__
    if isinstance(parent, dict):
        for key, value in parent.items():
            if value is child:
                return f"dict[{str(key)[:60]!r}]"
            if key is child:
                return "dict key"
        return "dict"
    if isinstance(parent, (list, tuple)):
        for n, value in enumerate(parent):
            if value is child:
                return f"{name}[{n}] of {len(parent)}"
        return name
    for slot in getattr(type(parent), "__slots__", ()):
        if getattr(parent, slot, None) is child:
            return f"{type(parent).__module__}.{name}.{slot}"
    return f"{type(parent).__module__}.{name}"


def _is_owner(obj: Any) -> bool:
    module = getattr(type(obj), "__module__", "") or ""
    if isinstance(obj, functools._lru_cache_wrapper):
        return True
    if isinstance(obj, _CONTAINERS):
        return False
    if module.startswith("rich.") or module in ("textual.strip", "builtins", "collections"):
        return False
    return module.startswith(("tui.", "textual.")) or isinstance(obj, type)


def owner_chain(obj: Any, ignore: set[int], depth: int = 30) -> list[str]:
    """Referrers of ``obj`` walked upwards (the first that is not a frame or the caller's own) until an object of
    watchdeck's or Textual's, a class or an ``lru_cache``: how it is held, link by link."""
    chain = [type(obj).__qualname__]
    seen = {id(obj)}
    current = obj
    for _ in range(depth):
        refs = gc.get_referrers(current)
        ignore.add(id(refs))
        parents = [r for r in refs if id(r) not in ignore and id(r) not in seen and not inspect.isframe(r)]
        del refs
        if not parents:
            chain.append("(nothing else holds it)")
            break
        parent = parents[0]
        del parents
        chain.append(_link(parent, current))
        seen.add(id(parent))
        if _is_owner(parent):
            break
        current = parent
    return chain


def owners_of_new(kind: type, before: set[int], sample: int = 12) -> list[list[object]]:
    """Objects of ``kind`` alive now that were not at ``before`` (``live_ids``), counted, and an evenly spaced
    sample of them walked up to a named owner (``owner_chain``). Unfreezes the collector first: what start-up froze
    (tui.cli.startup) is out of ``gc.get_referrers``' sight, the app's widgets among it; call it at the end."""
    gc.unfreeze()
    gc.collect()
    new = [obj for obj in gc.get_objects() if type(obj) is kind and id(obj) not in before]
    rows: list[list[object]] = [[len(new), f"new {kind.__qualname__} alive"]]
    ignore = {id(new), id(rows)}
    step = max(1, len(new) // sample)
    picked = new[::step][:sample]
    ignore.add(id(picked))
    del new
    for obj in picked:
        rows.append(["", " <- ".join(owner_chain(obj, ignore))])
    return rows
