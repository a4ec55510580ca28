"""Where CI installed redis-server and Chromium, a test that cannot find them fails instead of skipping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
from tests.real_parts import missing
def test_needs_a_part():
    missing("SKIP: the part is not installed")
"""


def _run(tmp_path: Path, required: str | None) -> subprocess.CompletedProcess[str]:
    import os

    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "WATCHDECK_REQUIRE_REAL_PARTS"}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the probe needs no plugin: pytest alone starts faster
    if required is not None:
        env["WATCHDECK_REQUIRE_REAL_PARTS"] = required
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False)


def test_a_missing_part_skips_on_a_laptop_and_fails_in_ci(tmp_path: Path) -> None:
    laptop = _run(tmp_path, None)
    assert laptop.returncode == 0 and "1 skipped" in laptop.stdout, laptop.stdout
    ci = _run(tmp_path, "1")
    assert ci.returncode == 1 and "1 failed" in ci.stdout and "CI installs it" in ci.stdout, ci.stdout
