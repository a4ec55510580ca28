"""The state one sandbox app holds: options, clock, keys, faults, the store and the simulator."""

from __future__ import annotations

import random
from pathlib import Path

from tui.clock import Clock
from tui.sandbox.auth import KeyStore
from tui.sandbox.db import Database
from tui.sandbox.faults import FaultRegistry, RequestLog, parse_fault_spec
from tui.sandbox.options import SandboxOptions
from tui.sandbox.outages import keep_demo_outage_going
from tui.sandbox.seed import seed_database
from tui.sandbox.seed_cache import SEED_FORMAT, seed_or_copy, seed_or_load
from tui.sandbox.simulator import Simulator
from tui.sandbox.timeutil import floor_interval, iso, parse_iso


class SandboxState:
    """Everything a request handler needs; one per app."""

    def __init__(self, options: SandboxOptions, clock: Clock) -> None:
        self.options = options
        self.clock = clock
        self.keys = KeyStore(options.keys)
        self.faults = FaultRegistry(options.seed)
        for spec in options.faults:
            self.faults.add(parse_fault_spec(spec))
        self.requests = RequestLog()
        self.db = Database(options.db_path)
        self.simulator = Simulator(self.db, clock, options.seed)
        self.rng = random.Random(options.seed)
        if self.db.get_meta("seeded") is None:
            self.seed_now()
        else:
            saved = self.db.get_meta("sim_now")
            jump = getattr(clock, "jump_to", None)
            if saved and callable(jump) and clock.now() < parse_iso(saved):
                jump(parse_iso(saved))
        self.seeded_at = parse_iso(self.db.get_meta("seeded_at") or iso(clock.now()))

    def seed_now(self) -> None:
        now = self.clock.now()
        options = self.options

        def seed() -> None:
            seed_database(self.db, self.simulator, now, options.seed, options.surveys, options.exports,
                          options.scenario)

        if options.world_cache and not options.db_path:
            # Seeded at the hour (kept on disk for the next start within it), then simulated on to now.
            hour = floor_interval(now, "hour")

            def seed_at_the_hour() -> None:
                seed_database(self.db, self.simulator, hour, options.seed, options.surveys, options.exports,
                              options.scenario)

            world = (SEED_FORMAT, options.seed, options.surveys, options.exports, options.scenario, iso(hour))
            with self.db.lock:
                seed_or_load(self.db.conn, Path(options.world_cache), world, seed_at_the_hour)
            if options.scenario == "outage":
                with self.db.transaction() as c:
                    keep_demo_outage_going(c, hour, now)
            self.simulator.tick(now)
            self.seeded_at = hour
            return
        if options.simulate or options.db_path:
            seed()  # a moving world is never seeded at the same instant twice; a file is the operator's
        else:
            key = (options.seed, options.surveys, options.exports, options.scenario, iso(now))
            with self.db.lock:
                seed_or_copy(self.db.conn, key, seed)
        self.seeded_at = now

    def reset(self) -> None:
        """Wipe and reseed at the current simulated time (holds the lock so the simulator waits)."""
        with self.db.lock:
            with self.db.transaction() as c:
                for table in ("meta", "projects", "users", "flags", "surveys", "activity", "exports", "runs",
                              "pending_runs", "backfills", "logs", "outages"):
                    c.execute(f"DELETE FROM {table}")
                c.execute("DELETE FROM sqlite_sequence")
            self.seed_now()

