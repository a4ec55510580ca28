"""The welcome screen, the profile form's connection test, and the project picker, driven by Pilot."""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static

from tui.api.client import ApiClient
from tui.config import ConfigFile, Profile, Settings, keys, remembered_project
from tui.config.paths import stylesheets
from tui.config.resolve import Overrides, resolve_settings
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen
from tui.screens.key_storage import KeyStorageScreen
from tui.screens.project_picker import ProjectPickerScreen
from tui.screens.welcome import DEMO, KEY_SESSION, ProfileFormScreen, WelcomeApp, WelcomeScreen

SIZE = (100, 40)


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _text(app: App[Any], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def _open_form(pilot: Pilot[Any]) -> None:
    await pilot.press("n")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ProfileFormScreen)


def _fill(app: App[Any], *, name: str = "local", url: str, project: str = "", key: str = "") -> None:
    screen = app.screen
    screen.query_one("#name", Input).value = name
    screen.query_one("#server", Select).value = "other"
    screen.query_one("#base-url", Input).value = url
    screen.query_one("#project", Input).value = project
    screen.query_one("#key-source", Select).value = KEY_SESSION
    screen.query_one("#key", Input).value = key


# --------------------------------------------------------------------------- welcome


async def test_welcome_offers_three_ways_and_d_starts_the_demo(env: dict[str, str]) -> None:
    config = ConfigFile(profiles={"eu": Profile(base_url="https://eu.example.com", project="5")})
    app = WelcomeApp(env=env, config=config, path=Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml")
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, WelcomeScreen)
        ways = app.screen.query_one("#welcome-ways", OptionList)
        ids = [ways.get_option_at_index(i).id for i in range(ways.option_count)]
        assert ids == [DEMO, "profile:eu", "new-profile"]
        await pilot.press("d")
        await pilot.pause()
    assert app.return_value == DEMO


async def test_welcome_profile_without_key_says_why(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    path = write_config('[profiles.eu]\nbase_url = "https://eu.example.com"\nproject = "5"\n')
    app = WelcomeApp(env=env, config=ConfigFile(profiles={"eu": Profile()}), path=path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await _settle(pilot)
        assert "no API key: set WATCHDECK_API_KEY" in _text(app, "#welcome-error")
        assert isinstance(app.screen, WelcomeScreen)


async def test_welcome_profile_opens_with_settings(env: dict[str, str], write_config: Callable[..., Path],
                                                   sandbox: SandboxHandle) -> None:
    path = write_config(f'[profiles.sandbox]\nbase_url = "{sandbox.base_url}"\nproject = "2"\n')
    env["WATCHDECK_API_KEY"] = sandbox.api_key
    app = WelcomeApp(env=env, config=ConfigFile(profiles={"sandbox": Profile()}), path=path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await _settle(pilot)
    assert isinstance(app.return_value, Settings)
    assert app.return_value.profile == "sandbox" and app.return_value.project_ids == ["2"]


# --------------------------------------------------------------------------- the form's connection test


async def test_form_checks_fields_then_says_what_each_connection_test_found(
        env: dict[str, str], sandbox: SandboxHandle, limited_key: str, free_port: int) -> None:
    """One form, filled and tested in turn (each case's answer differs from the one before it):

    - fields checked before sending: each bad field named next to it, nothing sent;
    - connection refused: said with the address;
    - a key without project:read and no project: 403 with the scope;
    - a full key: every scope and the owner, the key asked first, then the user, then the projects;
    - a key without project:read for project 1: 403, the key's own scopes (personal_api_keys/@current/) and, per
      missing scope, the watchdeck keys it disables; the key itself never shown;
    - a wrong key on save: 401, asked first as real clients do, and nothing saved.
    """
    config = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
    app = WelcomeApp(env=env, path=config)
    async with app.run_test(size=SIZE) as pilot:
        await _open_form(pilot)

        # fields checked before sending
        before = len(sandbox.requests())
        _fill(app, name="bad name", url="not a url", key="")
        await pilot.press("ctrl+s")
        await _settle(pilot)
        assert "letters, digits" in _text(app, "#name-error")
        assert "not an http(s) URL" in _text(app, "#base-url-error")
        assert "enter a project id" in _text(app, "#project-error")
        assert "paste the personal API key" in _text(app, "#key-error")
        assert len(sandbox.requests()) == before

        # connection refused
        _fill(app, url=f"http://127.0.0.1:{free_port}", project="1", key="any-key")
        await pilot.press("ctrl+t")
        await _settle(pilot)
        assert _text(app, "#form-result") == (
            f"Refused: nothing accepts connections at 127.0.0.1:{free_port}. "
            "Is the server running, is the port right?")

        # 403 with the scope
        _fill(app, url=sandbox.base_url, key=limited_key)
        await pilot.press("ctrl+t")
        await _settle(pilot)
        assert _text(app, "#form-result").startswith("403: the key lacks the scope project:read.")

        # a full key has every scope
        mark = len(sandbox.requests())
        _fill(app, url=sandbox.base_url, project="1", key=sandbox.api_key)
        await pilot.press("ctrl+t")
        await _settle(pilot)
        text = _text(app, "#form-result")
        assert "the key has every scope (*) (owner: Ada Okafor)" in text and "missing" not in text
        asked = [r["path"] for r in sandbox.requests()[mark:]]
        assert asked[:2] == ["/api/personal_api_keys/@current/", "/api/users/@me/"], asked
        assert "/api/projects/" in asked[2:], "the projects are asked after the key"

        # the key's scopes and what the missing ones disable
        mark = len(sandbox.requests())
        _fill(app, url=sandbox.base_url, project="1", key=limited_key)
        await pilot.press("ctrl+t")
        await _settle(pilot)
        text = _text(app, "#form-result")
        assert text.startswith("403: the key lacks the scope project:read.")
        assert "the key's scopes: survey:read" in text
        assert "batch_export:write missing: monitor p pause, u unpause, b backfill" in text
        assert limited_key not in text
        assert any(r["path"] == "/api/personal_api_keys/@current/" for r in sandbox.requests()[mark:])

        # 401 for a wrong key, nothing saved
        mark = len(sandbox.requests())
        _fill(app, url=sandbox.base_url, project="1", key="wrong-key")
        await pilot.press("ctrl+s")  # save tests first; a refused key saves nothing
        await _settle(pilot)
        assert _text(app, "#form-result").startswith("401: the server refused the API key.")
        assert not config.exists()
        # the key is asked first, as real clients do; a refused key is said from that answer
        assert any(r["path"] == "/api/personal_api_keys/@current/" and r["key_id"] == "unknown"
                   for r in sandbox.requests()[mark:])


async def test_form_asks_before_sending_the_key_over_plain_http(env: dict[str, str]) -> None:
    app = WelcomeApp(env=env, path=Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml")
    async with app.run_test(size=SIZE) as pilot:
        await _open_form(pilot)
        _fill(app, url="http://posthog.internal.example", project="1", key="k")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await _settle(pilot)
        assert isinstance(app.screen, ProfileFormScreen)
        assert _text(app, "#form-result") == ""  # nothing was sent


async def test_form_tests_picks_a_project_and_saves_without_the_key(env: dict[str, str],
                                                                    sandbox: SandboxHandle) -> None:
    path = Path(env["WATCHDECK_CONFIG_DIR"]) / "sub" / "config.toml"
    app = WelcomeApp(env=env, path=path)
    async with app.run_test(size=SIZE) as pilot:
        await _open_form(pilot)
        _fill(app, name="sandbox", url=sandbox.base_url, key=sandbox.api_key)
        await pilot.press("ctrl+t")
        await _settle(pilot)
        assert isinstance(app.screen, ProjectPickerScreen)  # no project typed: pick one
        await pilot.press(*"staging", "enter")
        await _settle(pilot)
        assert isinstance(app.screen, ProfileFormScreen)
        assert app.screen.query_one("#project", Input).value == "2"
        host = sandbox.base_url.split("//")[1]
        assert _text(app, "#form-result") == (f"Connected to {host}: the key sees 3 projects."
                                              "\nthe key has every scope (*) (owner: Ada Okafor)")
        await pilot.press("ctrl+s")
        await _settle(pilot)
        assert isinstance(app.screen, KeyStorageScreen)  # a pasted key: where to keep it?
        await pilot.press("s")  # this session only
        await _settle(pilot)
    result = app.return_value
    assert isinstance(result, Settings)
    assert (result.profile, result.project_ids, result.base_url) == ("sandbox", ["2"], sandbox.base_url)
    assert 'key_command = "pass show watchdeck/sandbox"' in result.warnings[0]
    assert result.api_key.get_secret_value() == sandbox.api_key
    text = path.read_text()
    assert sandbox.api_key not in text
    assert tomllib.loads(text) == {"default_profile": "sandbox",
                                   "profiles": {"sandbox": {"base_url": sandbox.base_url, "project": "2"}}}
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert remembered_project("sandbox", env) == "2"


# --------------------------------------------------------------------------- keeping the pasted key


async def _save_pasted_key(pilot: Pilot[Any], sandbox: SandboxHandle, choice: str) -> None:
    await _open_form(pilot)
    _fill(pilot.app, name="kept", url=sandbox.base_url, project="2", key=sandbox.api_key)
    await pilot.press("ctrl+s")
    await _settle(pilot)
    assert isinstance(pilot.app.screen, KeyStorageScreen)
    await pilot.press(choice)
    await _settle(pilot)


async def test_pasted_key_kept_in_the_file_opens_the_next_start(env: dict[str, str], sandbox: SandboxHandle) -> None:
    """The dead end: a pasted key lasted one session and the next start exited with "no API key"."""
    path = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
    app = WelcomeApp(env=env, path=path)
    async with app.run_test(size=SIZE) as pilot:
        await _save_pasted_key(pilot, sandbox, "f")
    assert isinstance(app.return_value, Settings)
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    next_start = resolve_settings(Overrides(), env)
    assert next_start.profile == "kept" and next_start.key_source == "config file"
    assert next_start.api_key.get_secret_value() == sandbox.api_key


class FakeKeyring:
    """The OS keyring's two calls; the machine running the tests has no keyring daemon."""

    def __init__(self) -> None:
        self.stored: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.stored.get((service, user))

    def set_password(self, service: str, user: str, value: str) -> None:
        self.stored[(service, user)] = value


async def test_pasted_key_kept_in_the_keyring_opens_the_next_start(env: dict[str, str], sandbox: SandboxHandle,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ring = FakeKeyring()
    monkeypatch.setattr(keys, "_keyring", lambda: ring)
    path = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
    app = WelcomeApp(env=env, path=path)
    async with app.run_test(size=SIZE) as pilot:
        await _save_pasted_key(pilot, sandbox, "k")
    assert ring.stored == {("watchdeck", "kept"): sandbox.api_key}
    assert sandbox.api_key not in path.read_text()
    next_start = resolve_settings(Overrides(), env)
    assert next_start.key_source == "keyring" and next_start.api_key.get_secret_value() == sandbox.api_key


async def test_escape_in_a_filled_form_asks_before_discarding(env: dict[str, str]) -> None:
    app = WelcomeApp(env=env, path=Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml")
    async with app.run_test(size=SIZE) as pilot:
        await _open_form(pilot)
        await pilot.press("escape")  # nothing typed: straight back
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await _open_form(pilot)
        app.screen.query_one("#project", Input).value = "42"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ProfileFormScreen)
        assert app.screen.query_one("#project", Input).value == "42"
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)


# --------------------------------------------------------------------------- project picker


class PickerHost(App[None]):
    CSS_PATH: ClassVar = stylesheets("app.tcss", "modals.tcss", "welcome.tcss")

    def __init__(self, client: ApiClient, current: str | None) -> None:
        super().__init__()
        self.client = client
        self.current = current
        self.picked: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(ProjectPickerScreen(self.client, current=self.current), self.picked.append)


async def test_picker_lists_projects_from_the_server(sandbox: SandboxHandle) -> None:
    before = len(sandbox.requests())
    async with ApiClient(sandbox.base_url, sandbox.api_key, "1") as client:
        app = PickerHost(client, current="1")
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            options = app.screen.query_one("#picker-list", OptionList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert prompts == ["● Demo project  id 1", "  Staging  id 2", "  Playground  id 3"]
            assert options.highlighted == 0  # the current project
            await pilot.press(*"play")
            assert options.option_count == 1
            await pilot.press("enter")
            await pilot.pause()
        assert app.picked == ["3"]
    sent = sandbox.requests()[before:]
    assert [(r["method"], r["path"]) for r in sent] == [("GET", "/api/projects/")]


async def test_picker_escape_keeps_the_current_project(sandbox: SandboxHandle) -> None:
    async with ApiClient(sandbox.base_url, sandbox.api_key, "1") as client:
        app = PickerHost(client, current="2")
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            assert app.screen.query_one("#picker-list", OptionList).highlighted == 1
            await pilot.press("escape")
            await pilot.pause()
        assert app.picked == [None]


async def test_picker_shows_a_failure(sandbox: SandboxHandle) -> None:
    async with ApiClient(sandbox.base_url, "bad-key", "1", max_retries=0) as client:
        app = PickerHost(client, current="1")
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            assert "401" in _text(app, "#picker-message")
            assert app.screen.query_one("#picker-list", OptionList).option_count == 0
