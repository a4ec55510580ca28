"""The wall-screen measurement: five dashboards of one key against one, on a shared store.

For each store, eight real dashboard processes run for ``WINDOW_SECONDS`` against a sandbox whose runs move on
their own: five with one key, one with another key (the baseline, measured in the same run and on the same
store) and two with a third key. Both stores' walls watch one sandbox at the same time, each with keys of its
own, so the sandbox's request log tells them apart by key id.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.cache.conftest import OTHER_KEY, READER_KEY
from tests.cache.viewers import Viewer, measure
from tui.sandbox.runner import SandboxOptions, start_sandbox

# Fifteen polls per viewer at the shortest interval the settings allow: the assertions compare requests of viewers
# watching the same window, so its length does not change them; with fewer polls, a few cache misses from a busy
# machine's late timers would be a large share of the requests. The window is spent waiting (one worker holds it
# while the others run the suite).
POLL_SECONDS = 2.0  # the shortest the settings allow; a shared answer serves the others for most of it
WINDOW_SECONDS = 15 * POLL_SECONDS
WARM_UP_SECONDS = 4 * POLL_SECONDS  # every dashboard's first poll and the moment it joins the others are left out
MAX_RATIO = 1.2
READ_ONLY = ":batch_export:read,survey:read"


@dataclass(frozen=True)
class Wall:
    """One store's three groups: the five, the one (baseline) and the two (a read-only third key), by key id."""

    five: str
    one: str
    two: str

    def roles(self) -> dict[str, str]:
        return {"five": self.five, "one": self.one, "two": self.two}

    def groups(self, keys: dict[str, str], cache_url: str | None) -> list[Viewer]:
        return [Viewer(keys[self.five], 5, cache_url), Viewer(keys[self.one], 1, cache_url),
                Viewer(keys[self.two], 2, cache_url)]


#: The sandbox's keys by key id: the demo key, then the extra keys in the order given (key-1, key-2, ...).
KEYS = {"demo": "sandbox-demo-key", "key-1": OTHER_KEY, "key-2": READER_KEY, "key-3": "redis-wall-five-key",
        "key-4": "redis-wall-one-key", "key-5": "redis-wall-reader-key"}
WALLS = {"sqlite": Wall("demo", "key-1", "key-2"), "redis": Wall("key-3", "key-4", "key-5")}


def check_counts(counts: Counter[str] | BaseException, *, store: str) -> None:
    """``counts``: requests in the window of the wall's groups (``five``, ``one``, ``two``) and of any key id the
    walls do not use."""
    if isinstance(counts, BaseException):
        raise counts
    five, one, two = counts.get("five", 0), counts.get("one", 0), counts.get("two", 0)
    print(f"\n{store}: requests in {WINDOW_SECONDS:g} s: 1 viewer {one}, 5 viewers {five} "
          f"({five / max(one, 1):.2f}x), 2 viewers of a third key {two} ({two / max(one, 1):.2f}x)")
    # The baseline asks for the export list and the selected export's runs every poll (fewer on a busy machine).
    assert one >= WINDOW_SECONDS / POLL_SECONDS / 2, counts
    assert five <= MAX_RATIO * one, counts
    assert 0.8 * one <= two <= MAX_RATIO * one, counts
    assert set(counts) <= {"five", "one", "two"}, counts


def measure_walls(home: Path, redis_url: str | None) -> dict[str, Counter[str]]:
    """Every wall's counts (SQLite always; Redis when ``redis_url``), measured at once on one live sandbox (runs
    move on their own, as ``watchdeck sandbox`` serves them): the window is spent waiting, once for all."""
    walls = {"sqlite": None, **({"redis": redis_url} if redis_url else {})}
    extra = [KEYS["key-1"], KEYS["key-2"] + READ_ONLY, KEYS["key-3"], KEYS["key-4"], KEYS["key-5"] + READ_ONLY]
    groups = [group for store, url in walls.items() for group in WALLS[store].groups(KEYS, url)]
    with start_sandbox(SandboxOptions(keys=extra)) as handle:
        counts = measure(handle.base_url, handle.project_id, groups, home, seconds=WINDOW_SECONDS,
                         warm_up=WARM_UP_SECONDS, poll=POLL_SECONDS)
    used = {key_id for wall in WALLS.values() for key_id in wall.roles().values()}
    others = Counter({key_id: n for key_id, n in counts.items() if key_id not in used})
    return {store: Counter({role: counts[key_id] for role, key_id in WALLS[store].roles().items() if key_id in counts})
            + others for store in walls}
