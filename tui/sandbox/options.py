"""Sandbox start-up options (re-exported by ``runner``; kept apart so ``app`` can import them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.clock import Clock


@dataclass
class SandboxOptions:
    seed: int = 7
    speed: float = 60.0  # simulated seconds per real second
    db_path: str | None = None  # None -> in-memory
    surveys: int | None = None  # scale-up counts for benchmarks (None -> the normal seed set)
    exports: int | None = None
    keys: list[str] = field(default_factory=list)  # extra "KEY:scope,scope" specs
    logs_forbidden: bool = False
    logs_ignore_paging: bool = False  # log endpoints answer every entry, ignoring after/before/limit (old servers)
    faults: list[str] = field(default_factory=list)  # fault specs, same syntax as --faults
    simulate: bool = True  # False: frozen world (no simulator thread), for snapshot tests
    clock: Clock | None = None  # inject a FrozenClock for deterministic tests/screenshots
    # Real seconds summarize_responses waits (uniform in the range) so a spinner can show.
    summary_delay: tuple[float, float] = (0.5, 1.5)
    # Which real service to answer as: "newest" (backfills/ only, date-only day/week bounds, UUID backfill
    # ids, logs as {"results"}) or "older" (also backfill/, datetime bounds, workflow-id backfill ids,
    # logs through the limit/offset paginator).
    generation: str = "newest"
    # Projects whose team has the real service's "high-frequency-batch-exports" feature (sub-hour intervals);
    # the demo project has it.
    high_frequency_projects: tuple[int, ...] = (1,)
    scenario: str | None = None  # "outage": the seed holds a recent outage of one destination type
    # A folder of seeded worlds: seed at the hour, keep it there, simulate on to now (the demo's fast start).
    world_cache: str | None = None


GENERATIONS = ("newest", "older")
SCENARIOS = ("outage",)
