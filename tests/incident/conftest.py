"""Incident tests write their journal and state under a temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"WATCHDECK_{name}_DIR", str(tmp_path / name.lower()))
    return tmp_path
