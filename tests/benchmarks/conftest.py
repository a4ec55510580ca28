"""Fixtures of the benchmarks: a 200-export sandbox and a temporary user directory.

Benchmarks print figures and ratios to baselines measured in the same run (the machine is
noisy from run to run); they assert only gross functional facts.
Run them with ``make bench`` (``pytest -q -s tests/benchmarks`` with the default addopts
overridden, since those ignore this directory).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

from .helpers import EXPORTS, FROZEN_AT


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak-cycles", type=int, default=None,
                     help="poll cycles of the soak test (default 30, or $WATCHDECK_SOAK_CYCLES)")
    parser.addoption("--soak-minutes", type=float, default=None,
                     help="minutes of the churning soak test (default 30, or $WATCHDECK_SOAK_MINUTES)")


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Journal, crash log and config go to a temporary directory, never the user's."""
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path


@pytest.fixture(autouse=True)
def _quick_debounce() -> None:
    """The screens as they ship: benchmarks keep their waits for the operator to stop (tests/conftest.py shortens
    them for the other tests)."""


@pytest.fixture(scope="module")
def sandbox200() -> Iterator[SandboxHandle]:
    """200 exports in project 1 (about 10 runs each), frozen world; shared by a module's benchmarks."""
    with start_sandbox(SandboxOptions(seed=7, exports=EXPORTS, simulate=False,
                                      clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle
