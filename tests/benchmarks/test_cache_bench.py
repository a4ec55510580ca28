"""Wall screens: requests a minute of one viewer against five sharing one cache, measured side by side.

One dashboard with one key and five with another run at once on one SQLite store
(the keys keep their answers apart, so the single one is a fair baseline measured
in the same minutes, on the same busy machine). The sandbox counts what each key
sent. Target: five cost at most 1.2 times one.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.cache.viewers import Viewer, measure
from tui.sandbox.runner import SandboxOptions, start_sandbox

from .helpers import report

OTHER_KEY = "bench-baseline-key"
SECONDS = float(os.environ.get("WATCHDECK_CACHE_BENCH_SECONDS", "90"))
POLL = 4.0


def test_requests_per_minute_one_viewer_against_five(tmp_path: Path) -> None:
    with start_sandbox(SandboxOptions(keys=[OTHER_KEY])) as sandbox:
        counts = measure(sandbox.base_url, sandbox.project_id, [Viewer(sandbox.api_key, 5), Viewer(OTHER_KEY, 1)],
                         tmp_path, seconds=SECONDS, poll=POLL)
    one, five = counts.get("key-1", 0), counts.get("demo", 0)
    assert one > 0
    per_minute = 60.0 / SECONDS
    report(f"shared cache: requests a minute to one key's server, poll {POLL:g} s, over {SECONDS:g} s", [
        ["1 viewer (baseline)", f"{one * per_minute:.1f}", "1.00"],
        ["5 viewers, one SQLite store", f"{five * per_minute:.1f}", f"{five / one:.2f} (target <= 1.2)"],
    ], ["viewers", "requests/min", "ratio"])
