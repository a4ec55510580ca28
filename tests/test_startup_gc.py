"""The collector is off while `watchdeck` loads and back on, with what loading made frozen, once the app is up."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tui.cli import startup
from tui.cli.main import main


def test_quiet_collector_is_undone_by_the_first_freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "_frozen", False)
    frozen_before = gc.get_freeze_count()
    try:
        startup.quiet_collector()
        assert not gc.isenabled()
        startup.resume_collector()
        assert gc.isenabled(), "the app must turn the collector on again"
        assert gc.get_freeze_count() >= frozen_before
        gc.disable()
        startup.resume_collector()
        assert not gc.isenabled(), "only the first app of a process freezes (and re-enables)"
    finally:
        gc.enable()


def test_commands_other_than_the_dashboard_turn_the_collector_back_on(tmp_path: Path) -> None:
    """`watchdeck` starts with the collector off (tui.cli.launch); `status` and the others must not run that way."""
    env = {f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("CONFIG", "DATA", "STATE")}
    env |= {"WATCHDECK_API_KEY": "phx_secret_1234", "WATCHDECK_PROJECT_ID": "1"}
    gc.disable()
    try:
        assert main(["status", "--base-url", "http://127.0.0.1:9"], env=env) == 2  # the server cannot be asked
        assert gc.isenabled()
    finally:
        gc.enable()
