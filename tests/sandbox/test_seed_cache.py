"""A frozen world seeded twice is copied the second time: the same data, and a copy that starts pristine."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxOptions, start_sandbox

AT = datetime(2025, 3, 4, 5, 6, tzinfo=UTC)  # an instant no other test seeds at


def _dump(options: SandboxOptions) -> tuple[list[str], float]:
    started = time.perf_counter()
    with start_sandbox(options) as handle:
        elapsed = time.perf_counter() - started
        dump = list(handle.state.db.conn.iterdump())
        with handle.state.db.transaction() as c:  # a test's writes must not reach the next world
            c.execute("DELETE FROM runs")
    return dump, elapsed


def test_the_second_frozen_world_is_a_pristine_copy_of_the_first() -> None:
    options = SandboxOptions(seed=11, simulate=False, clock=FrozenClock(AT))
    first, seeded = _dump(options)
    second, copied = _dump(SandboxOptions(seed=11, simulate=False, clock=FrozenClock(AT)))
    assert second == first, "a copied world holds exactly what seeding made"
    assert any("INSERT INTO \"runs\"" in line for line in second), "the first world's DELETE did not reach the copy"
    print(f"seeded in {seeded * 1e3:.0f} ms, copied in {copied * 1e3:.0f} ms")


def test_another_seed_or_instant_is_another_world() -> None:
    base, _ = _dump(SandboxOptions(seed=11, simulate=False, clock=FrozenClock(AT)))
    other_seed, _ = _dump(SandboxOptions(seed=12, simulate=False, clock=FrozenClock(AT)))
    later, _ = _dump(SandboxOptions(seed=11, simulate=False, clock=FrozenClock(AT.replace(hour=9))))
    assert other_seed != base and later != base
