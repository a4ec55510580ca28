"""How long the sandbox takes to seed and serve a scaled world (10,000 surveys, 200 exports)."""

from __future__ import annotations

import time

from tui.sandbox.runner import SandboxOptions, start_sandbox

from .helpers import median, report

RUNS = 3


def test_a_scaled_seed_starts_serving() -> None:
    times: list[float] = []
    for _ in range(RUNS):
        started = time.monotonic()
        with start_sandbox(SandboxOptions(surveys=10_000, exports=200, simulate=False)) as handle:
            times.append(time.monotonic() - started)
            assert handle.state.db.conn.execute("SELECT COUNT(*) FROM exports").fetchone()[0] >= 200
    report(f"sandbox seed of 10,000 surveys and 200 exports -> serving (n={RUNS})",
           [["seed and start", f"{median(times):.2f}", f"{min(times):.2f}"]], ["what", "median s", "min s"])
