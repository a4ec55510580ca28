"""The collector is off while `watchdeck` loads and back on, with what loading made frozen, once the app is up."""

from __future__ import annotations

import gc

import pytest

import tui.app
from tui.__main__ import quiet_collector
from tui.app import WatchdeckApp


def test_quiet_collector_is_undone_by_the_first_freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tui.app, "_startup_frozen", False)
    frozen_before = gc.get_freeze_count()
    try:
        quiet_collector()
        assert not gc.isenabled()
        WatchdeckApp._freeze_startup_objects()
        assert gc.isenabled(), "the app must turn the collector on again"
        assert gc.get_freeze_count() >= frozen_before
        gc.disable()
        WatchdeckApp._freeze_startup_objects()
        assert not gc.isenabled(), "only the first app of a process freezes (and re-enables)"
    finally:
        gc.enable()
