"""Many screens, one poll: dashboards of one key share the poll through the cache; keys never mix.

Eight real dashboard processes run at once for two minutes against one sandbox:
five with one key, one with another key (the one-process baseline, measured in
the same run and on the same store) and two with a third key. The sandbox
counts what each key sent. Five viewers must cost at most 1.2 times what one
costs alone; and each key's viewers must have asked the server themselves (had
answers crossed keys, the baseline would have read the others' and asked less).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cache.conftest import OTHER_KEY, READER_KEY
from tests.cache.viewers import Viewer, measure
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

WINDOW_SECONDS = 120.0
POLL_SECONDS = 4.0  # a shared answer lives half of it: room for a busy machine's late timers
MAX_RATIO = 1.2
GROUPS = [Viewer("sandbox-demo-key", 5), Viewer(OTHER_KEY, 1), Viewer(READER_KEY, 2)]
KEY_IDS = {"sandbox-demo-key": "demo", OTHER_KEY: "key-1", READER_KEY: "key-2"}


def check_counts(counts: dict[str, int]) -> None:
    five, one, two = counts.get("demo", 0), counts.get("key-1", 0), counts.get("key-2", 0)
    print(f"\nrequests in {WINDOW_SECONDS:g} s: 1 viewer {one}, 5 viewers {five} ({five / max(one, 1):.2f}x), "
          f"2 viewers of a third key {two} ({two / max(one, 1):.2f}x)")
    # The baseline asks for the export list and the selected export's runs every poll (fewer on a busy machine).
    assert one >= WINDOW_SECONDS / POLL_SECONDS / 2, counts
    assert five <= MAX_RATIO * one, counts
    assert 0.8 * one <= two <= MAX_RATIO * one, counts
    assert set(counts) <= {"demo", "key-1", "key-2"}, counts


@pytest.fixture
def live_sandbox() -> Iterator[SandboxHandle]:
    """The sandbox as ``watchdeck sandbox`` serves it: runs move on their own."""
    with start_sandbox(SandboxOptions(keys=[OTHER_KEY, f"{READER_KEY}:batch_export:read,survey:read"])) as handle:
        yield handle


@pytest.mark.slow
def test_five_screens_on_one_sqlite_store_cost_one_screens_requests(live_sandbox: SandboxHandle,
                                                                   tmp_path: Path) -> None:
    counts = measure(live_sandbox.base_url, live_sandbox.project_id, GROUPS, tmp_path, seconds=WINDOW_SECONDS,
                     poll=POLL_SECONDS)
    check_counts(dict(counts))
