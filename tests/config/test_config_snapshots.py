"""Snapshots of the welcome screen, the profile form and the project picker at 80x24 and 160x48."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App
from textual.pilot import Pilot

from tui.api.client import ApiClient
from tui.config.paths import stylesheets
from tui.sandbox.runner import SandboxHandle
from tui.screens.project_picker import ProjectPickerScreen
from tui.screens.welcome import WelcomeApp

SIZES = [(80, 24), (160, 48)]
# The welcome screen shows where profiles live; a fixed path keeps the picture the same on every machine.
SHOWN_PATH = Path("/home/operator/.config/watchdeck/config.toml")
SIZE_IDS = ["80x24", "160x48"]


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_welcome(snap_compare: Callable[..., bool], env: dict[str, str], size: tuple[int, int]) -> None:
    app = WelcomeApp(env=env, path=SHOWN_PATH)
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_profile_form(snap_compare: Callable[..., bool], env: dict[str, str], size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

    app = WelcomeApp(env=env, path=SHOWN_PATH)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


class PickerHost(App[None]):
    CSS_PATH: ClassVar = stylesheets("app.tcss", "modals.tcss", "welcome.tcss")

    def __init__(self, client: ApiClient) -> None:
        super().__init__()
        self.client = client

    def on_mount(self) -> None:
        self.push_screen(ProjectPickerScreen(self.client, current="1"))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_project_picker(snap_compare: Callable[..., bool], sandbox: SandboxHandle, size: tuple[int, int]) -> None:
    client = ApiClient(sandbox.base_url, sandbox.api_key, "1")
    assert snap_compare(PickerHost(client), terminal_size=size, run_before=settle)
