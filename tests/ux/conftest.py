"""Fixtures of the new-operator tests: the monitor's frozen sandbox and app, and a survey sandbox beside it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.monitor.conftest import sandbox, user_dirs
from tests.surveys.conftest import FROZEN_AT, sandbox_options
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, start_sandbox

__all__ = ["sandbox", "survey_sandbox", "user_dirs"]


@pytest.fixture
def survey_sandbox() -> Iterator[SandboxHandle]:
    """The survey tests' frozen sandbox (its clock is ``handle.clock``)."""
    with start_sandbox(sandbox_options(FrozenClock(FROZEN_AT))) as handle:
        yield handle
