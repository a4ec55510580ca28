"""Fixtures of the new-operator tests: the monitor's frozen sandbox and app, and a survey sandbox beside it."""

from __future__ import annotations

from tests.monitor.conftest import sandbox, user_dirs

__all__ = ["sandbox", "user_dirs"]
