"""The question asked when a new profile holds a pasted key: where to keep it (keyring, 0600 file, nowhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App

from tui.config.paths import stylesheets
from tui.screens.key_storage import KeyStorageScreen


class KeyStorageHost(App[None]):
    CSS_PATH: ClassVar = stylesheets("app.tcss", "modals.tcss", "welcome.tcss")

    def __init__(self, *, keyring: bool) -> None:
        super().__init__()
        self.keyring = keyring

    def on_mount(self) -> None:
        self.push_screen(KeyStorageScreen("us", Path("/home/op/.config/watchdeck/config.toml"), keyring=self.keyring))


@pytest.mark.parametrize("keyring", [True, False], ids=["keyring", "no-keyring"])
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_key_storage_question(snap_compare: Any, size: tuple[int, int], keyring: bool) -> None:
    assert snap_compare(KeyStorageHost(keyring=keyring), terminal_size=size)
