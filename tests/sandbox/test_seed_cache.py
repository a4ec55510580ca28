"""A frozen world seeded twice is copied the second time: the same data, and a copy that starts pristine."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from tui.clock import FrozenClock
from tui.sandbox.outages import list_outages
from tui.sandbox.runner import SandboxOptions, start_sandbox
from tui.sandbox.timeutil import parse_iso

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


def _world(directory: Path, at: datetime) -> tuple[list[str], float]:
    started = time.perf_counter()
    options = SandboxOptions(seed=11, scenario="outage", world_cache=str(directory), clock=FrozenClock(at),
                             simulate=False)
    with start_sandbox(options) as handle:
        return list(handle.state.db.conn.iterdump()), time.perf_counter() - started


def test_the_demo_world_seeded_at_the_hour_is_kept_on_disk_simulated_on_to_now_and_seeded_again_if_unreadable(
        tmp_path: Path) -> None:
    """Loaded and simulated on from the hour, a world is the world seeded fresh: no start sees a stale one.

    The same kept world, its file then overwritten with garbage, is seeded again (the same world again); and
    another hour is another world, kept beside it.
    """
    kept = tmp_path / "kept"
    _world(kept, AT.replace(minute=10))  # the hour's first start seeds and keeps it
    loaded, load_s = _world(kept, AT.replace(minute=50))
    fresh, seed_s = _world(tmp_path / "empty", AT.replace(minute=50))
    assert loaded == fresh
    print(f"seeded in {seed_s * 1e3:.0f} ms, loaded in {load_s * 1e3:.0f} ms")
    assert len(list(kept.glob("world-*.sqlite"))) == 1

    for path in kept.glob("world-*.sqlite"):
        path.write_bytes(b"not a database")
    broken, _ = _world(kept, AT.replace(minute=50))
    assert broken == fresh, "a kept world that cannot be read is seeded again"

    _world(kept, AT.replace(hour=AT.hour + 1))
    assert len(list(kept.glob("world-*.sqlite"))) == 2, "another hour is another world"


def test_a_demo_opened_late_in_the_hour_still_opens_on_the_outage(tmp_path: Path) -> None:
    """The world is seeded at the hour; the outage it carries must still be going on at :59, not end at :30."""
    late = AT.replace(minute=59)
    options = SandboxOptions(seed=11, scenario="outage", world_cache=str(tmp_path), clock=FrozenClock(late),
                             simulate=False)
    with start_sandbox(options) as handle, handle.state.db.read() as c:
        outages = list_outages(c)
    assert len(outages) == 1
    assert parse_iso(outages[0]["start_at"]) < late < parse_iso(outages[0]["end_at"]), outages
