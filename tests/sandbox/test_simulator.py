"""The run simulator driven directly (FrozenClock + tick): 10 simulated days stay consistent."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from tui.clock import FrozenClock
from tui.sandbox.db import Database
from tui.sandbox.seed import export_row
from tui.sandbox.simulator import TERMINAL, Simulator, run_timeout
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso, parse_iso

START = datetime(2025, 3, 1, 8, 7, 3, tzinfo=UTC)


def _world(seed: int = 11) -> tuple[Database, Simulator, FrozenClock, dict[str, str]]:
    clock = FrozenClock(START)
    db = Database(None)
    sim = Simulator(db, clock, seed)
    rows = [export_row(seed, 1, 0, "Five", "Postgres", "events", "every 5 minutes", "flaky", START, timedelta(0)),
            export_row(seed, 1, 1, "Hourly", "S3", "events", "hour", "normal", START, timedelta(0))]
    with db.transaction() as c:
        c.executemany("INSERT INTO exports(id, project_id, created_at, deleted, paused, interval, start_at, end_at, "
                      "next_end, profile, data) VALUES(?,?,?,?,?,?,?,?,?,?,?)", rows)
    return db, sim, clock, {"every 5 minutes": rows[0][0], "hour": rows[1][0]}


def _check(db: Database, now: datetime, ids: dict[str, str]) -> None:
    interval_of = {v: k for k, v in ids.items()}
    with db.read() as c:
        runs = [dict(r) for r in c.execute("SELECT * FROM runs").fetchall()]
        log_counts = Counter(r["run_id"] for r in c.execute("SELECT run_id FROM logs").fetchall())
    scheduled: Counter[tuple[str, str]] = Counter()
    for r in runs:
        created = parse_iso(r["created_at"])
        assert created <= now
        if r["status"] in ("Running", "Starting"):
            assert now - created <= run_timeout(interval_of[r["export_id"]]), r
            assert r["active"] == 1 and r["finished_at"] is None
        else:
            assert r["status"] in TERMINAL and r["active"] == 0
            assert r["finished_at"] and parse_iso(r["finished_at"]) >= created
            assert log_counts[r["id"]] >= 3
        if r["records_completed"] is not None:
            assert r["records_total_count"] is not None
            assert 0 <= r["records_completed"] <= r["records_total_count"] <= 2_147_483_647
        assert parse_iso(r["data_interval_end"]) <= created  # never a run for the future
        if r["backfill_id"] is None:
            scheduled[(r["export_id"], r["data_interval_end"])] += 1
    assert all(n == 1 for n in scheduled.values())


def test_ten_days_stay_consistent() -> None:
    db, sim, clock, ids = _world()
    step = timedelta(minutes=20)
    pause_from, pause_to = START + timedelta(days=4), START + timedelta(days=5)
    backfill_at = START + timedelta(days=6)
    while clock.now() < START + timedelta(days=10):
        clock.advance(step)
        now = clock.now()
        if pause_from <= now < pause_from + step:
            with db.transaction() as c:
                c.execute("UPDATE exports SET paused = 1 WHERE id = ?", (ids["hour"],))
        if pause_to <= now < pause_to + step:
            with db.transaction() as c:
                c.execute("UPDATE exports SET paused = 0, next_end = ? WHERE id = ?",
                          (iso(floor_interval(now, "hour") + timedelta(hours=1)), ids["hour"]))
        if backfill_at <= now < backfill_at + step:
            with db.transaction() as c:
                export = {"id": ids["hour"], "interval": "hour", "name": "Hourly", "model": "events",
                          "destination": {"type": "S3"}}
                day = floor_interval(START + timedelta(days=1), "hour")
                intervals = [(iso(day + timedelta(hours=k)), iso(day + timedelta(hours=k + 1))) for k in range(5)]
                sim.queue_backfill(c, export, intervals, now, "bf-1", profile="normal")
                sim.queue_backfill(c, export, intervals[2:3], now, "retry-1", profile="normal")
        sim.tick()
        if now.minute < 20 and now.hour == 0:
            _check(db, now, ids)
    now = clock.now()
    _check(db, now, ids)
    with db.read() as c:
        runs = [dict(r) for r in c.execute("SELECT * FROM runs").fetchall()]
        sim_now = c.execute("SELECT value FROM meta WHERE key = 'sim_now'").fetchone()[0]
    assert sim_now == iso(now)
    five = sorted(r["data_interval_end"] for r in runs if r["export_id"] == ids["every 5 minutes"])
    ends = [parse_iso(x) for x in five]
    assert all(b - a == timedelta(minutes=5) for a, b in pairwise(ends))  # no gaps, no dups
    assert len(five) >= 10 * 24 * 12 - 3
    hourly = {parse_iso(r["data_interval_end"]) for r in runs if r["export_id"] == ids["hour"]
              and r["backfill_id"] is None}
    paused_gap = [h for h in hourly if pause_from + timedelta(hours=1) < h < pause_to]
    assert paused_gap == []
    assert Counter(r["backfill_id"] for r in runs)["bf-1"] == 5
    assert Counter(r["backfill_id"] for r in runs)["retry-1"] == 1
    statuses = Counter(r["status"] for r in runs if r["export_id"] == ids["every 5 minutes"])
    assert statuses["Completed"] > statuses["Failed"] > 0  # the flaky profile fails often
    plans = [json.loads(r["plan"]) for r in runs]
    assert all(p["duration"] + p["start_delay"] <= INTERVALS["hour"] * 2 for p in plans)


def test_deterministic_and_tick_independent() -> None:
    results = []
    for step_minutes in (7, 45):
        db, sim, clock, _ = _world(seed=5)
        end = START + timedelta(days=1)
        while clock.now() < end:
            clock.advance(timedelta(minutes=step_minutes))
            sim.tick(min(clock.now(), end))
        with db.read() as c:
            results.append([tuple(r) for r in c.execute(
                "SELECT id, status, records_completed, records_total_count, finished_at, events_done FROM runs "
                "ORDER BY id")])
    assert results[0] and results[0] == results[1]
