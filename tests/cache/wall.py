"""The wall-screen measurement: five dashboards of one key against one, on a shared store.

Eight real dashboard processes run for ``WINDOW_SECONDS`` against a sandbox whose
runs move on their own: five with one key, one with another key (the baseline,
measured in the same run and on the same store) and two with a third key.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
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
GROUPS = [Viewer("sandbox-demo-key", 5), Viewer(OTHER_KEY, 1), Viewer(READER_KEY, 2)]


def check_counts(counts: Counter[str] | BaseException, *, store: str) -> None:
    if isinstance(counts, BaseException):
        raise counts
    five, one, two = counts.get("demo", 0), counts.get("key-1", 0), counts.get("key-2", 0)
    print(f"\n{store}: requests in {WINDOW_SECONDS:g} s: 1 viewer {one}, 5 viewers {five} "
          f"({five / max(one, 1):.2f}x), 2 viewers of a third key {two} ({two / max(one, 1):.2f}x)")
    # The baseline asks for the export list and the selected export's runs every poll (fewer on a busy machine).
    assert one >= WINDOW_SECONDS / POLL_SECONDS / 2, counts
    assert five <= MAX_RATIO * one, counts
    assert 0.8 * one <= two <= MAX_RATIO * one, counts
    assert set(counts) <= {"demo", "key-1", "key-2"}, counts


def measure_wall(home: Path, cache_url: str | None = None) -> Counter[str]:
    """One wall on its own live sandbox (runs move on their own, as ``watchdeck sandbox`` serves them)."""
    options = SandboxOptions(keys=[OTHER_KEY, f"{READER_KEY}:batch_export:read,survey:read"])
    with start_sandbox(options) as handle:
        return measure(handle.base_url, handle.project_id, GROUPS, home, seconds=WINDOW_SECONDS,
                       warm_up=WARM_UP_SECONDS, poll=POLL_SECONDS, cache_url=cache_url)


def measure_walls(walls: dict[str, Callable[[], Counter[str]]]) -> dict[str, Counter[str] | BaseException]:
    """Every wall at the same time, each on a thread: the window is spent waiting, once for all."""
    results: dict[str, Counter[str] | BaseException] = {}

    def run(name: str, wall: Callable[[], Counter[str]]) -> None:
        try:
            results[name] = wall()
        except BaseException as err:  # handed to the test that asks for this wall
            results[name] = err

    threads = [threading.Thread(target=run, args=item, name=f"wall-{item[0]}") for item in walls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
