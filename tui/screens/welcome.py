"""First run: the three ways in (the demo, a profile from config.toml, a new profile) and the profile form.

Shown by :class:`WelcomeApp` before the dashboard when nothing says where to
connect; it answers with ``DEMO`` or with resolved :class:`Settings`, and the
command line then starts the sandbox or the dashboard. The profile form tests
the connection (``GET /api/projects/``) and says exactly what failed, because
"cannot connect" is the message that makes people give up on a tool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from tui.api.client import ApiClient
from tui.api.errors import ApiError, Forbidden, NetworkError, Unauthorized
from tui.api.models.projects import Project
from tui.api.scopes import KeyReport, fetch_key_report
from tui.cli.status import TEST_TIMEOUT, describe_connection_error
from tui.config import (
    PRESET_BASE_URLS,
    PROFILE_NAME_RE,
    ConfigError,
    ConfigFile,
    InsecureUrl,
    Settings,
    check_base_url,
    env_default,
    insecure_message,
    is_insecure_url,
    remember_project,
    save_profile,
)
from tui.config.keys import key_problem, keyring_available, run_key_command, store_in_keyring
from tui.config.paths import stylesheets
from tui.config.resolve import Overrides, resolve_settings
from tui.key_registry import bindings
from tui.look.render import plain
from tui.safe_app import SafeApp
from tui.screens.base import WatchdeckScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.key_storage import STORE_FILE, STORE_KEYRING, STORE_NOWHERE, KeyStorageScreen, key_command_hint
from tui.screens.project_picker import ProjectPickerScreen
from tui.text.clean import clean
from tui.text.redaction import mask_url_password
from tui.text.words import counted
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import ItemList
from tui.widgets.text_field import TextField

DEMO = "demo"
NEW_PROFILE = "new-profile"

# Key sources offered by the form.
KEY_ENV = "env"
KEY_KEYRING = "keyring"
KEY_SESSION = "session"
KEY_COMMAND = "command"


async def test_connection(base_url: str, api_key: str) -> list[Project]:
    """``GET /api/projects/`` once, no retries: a form wants the first answer, fast."""
    async with ApiClient(base_url, api_key, "@current", timeout=TEST_TIMEOUT, max_retries=0) as client:
        return await client.projects.list()


async def test_key(base_url: str, api_key: str) -> KeyReport | None:
    """The key's own scopes (``personal_api_keys/@current/``) and owner, asked first as real clients do.

    A refused key or an unreachable server raises (the form says so from this first answer); a server
    without the endpoint gives None and the test goes on to the projects.
    """
    async with ApiClient(base_url, api_key, "@current", timeout=TEST_TIMEOUT, max_retries=0) as client:
        return await fetch_key_report(client, raise_=(NetworkError, Unauthorized))


# --------------------------------------------------------------------------- the three ways in


class WelcomeScreen(WatchdeckScreen[Settings | str | None]):
    """The demo, each profile of config.toml, and "new profile", in one list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "demo", "Demo", id="welcome.demo"),
        Binding("n", "new_profile", "New profile", id="welcome.new"),
        Binding("q", "quit_welcome", "Quit", id="welcome.quit"),
    ]

    def __init__(self, env: Mapping[str, str], config: ConfigFile | None, path: Path | None) -> None:
        super().__init__(classes="welcome-screen")
        self._env = env
        self._config = config
        self._path = path

    def compose(self) -> ComposeResult:
        profiles = self._config.profiles if self._config else {}
        with Vertical(id="welcome-box"):
            yield Static(Text("Welcome to watchdeck", style="bold"), id="welcome-title")
            yield Static(
                "No connection is chosen yet. Pick one of the ways in (enter), or press d / n:", id="welcome-intro"
            )
            options: list[Option] = [
                Option(Text.assemble(("Try the demo", "bold"), " — a local sandbox with sample surveys and exports"),
                       id=DEMO),
            ]
            for name, profile in profiles.items():
                where = mask_url_password(profile.base_url or "(base URL from the environment)")
                projects = ", ".join(profile.project_ids) or "none"
                options.append(Option(Text.assemble(("Profile ", "bold"), plain(name, "bold"),
                                                    f" — {clean(where)} · project {clean(projects)}"),
                                      id=f"profile:{name}"))
            options.append(Option(Text.assemble(("Set up a new profile", "bold"),
                                                " — server, project and API key, tested before saving"),
                                  id=NEW_PROFILE))
            yield ItemList(*options, id="welcome-ways", markup=False)
            hint = (f"Profiles live in {self._path}" if self._path else "")
            yield Static(plain(hint), id="welcome-hint")
            yield Static("", id="welcome-error", classes="field-error")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#welcome-ways", OptionList).focus()

    def _error(self, message: str) -> None:
        self.query_one("#welcome-error", Static).update(plain(message, oneline=False))

    @on(OptionList.OptionSelected, "#welcome-ways")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = event.option.id or ""
        if choice == DEMO:
            self.action_demo()
        elif choice == NEW_PROFILE:
            self.action_new_profile()
        elif choice.startswith("profile:"):
            self._open_profile(choice.removeprefix("profile:"), allow_insecure=False)

    def action_demo(self) -> None:
        self.dismiss(DEMO)

    def action_quit_welcome(self) -> None:
        self.dismiss(None)

    def action_new_profile(self) -> None:
        def done(result: Settings | None) -> None:
            if result is not None:
                self.dismiss(result)

        names = set(self._config.profiles) if self._config else set()
        self.app.push_screen(ProfileFormScreen(self._env, self._path, existing=names), done)

    def _open_profile(self, name: str, *, allow_insecure: bool) -> None:
        self._error("")
        self._resolve_profile(name, allow_insecure)

    @work(exclusive=True, group="welcome-profile", exit_on_error=False)
    async def _resolve_profile(self, name: str, allow_insecure: bool) -> None:
        overrides = Overrides(profile=name, allow_insecure_http=allow_insecure)
        try:
            # A key_command may take seconds (a password manager prompt): not on the UI's loop.
            settings = await asyncio.to_thread(resolve_settings, overrides, self._env)
        except InsecureUrl as err:
            question = Text(f"{err}.\n\nSend the key over plain http anyway?")

            def answer(yes: bool | None) -> None:
                if yes:
                    self._open_profile(name, allow_insecure=True)

            self.app.push_screen(ConfirmScreen("Plain http", question, yes_label="Send", danger=True), answer)
            return
        except ConfigError as err:
            self._error(str(err))
            return
        self.dismiss(settings)


# --------------------------------------------------------------------------- the profile form


@dataclass
class FormValues:
    name: str
    base_url: str
    project: str
    source: str
    key: str
    command: str


class ProfileFormScreen(WatchdeckScreen[Settings | None]):
    """Name, server, project, key source; "Test" asks the server, "Save" tests and writes config.toml (no key)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+t", "test", "Test connection", id="welcome.test", priority=True),
        Binding("ctrl+s", "save", "Save and open", id="welcome.save", priority=True),
        Binding("escape", "back", "Back", id="welcome.back"),
        *bindings("form"),  # Tab moves on when typed, before the keys typed behind it
    ]

    def __init__(self, env: Mapping[str, str], path: Path | None, *, existing: set[str] | None = None) -> None:
        super().__init__(classes="profile-form-screen")
        self._env = env
        self._path = path
        self._existing = existing or set()
        self._insecure_ok: str | None = None  # the base URL the operator agreed to use over plain http
        self._projects: list[Project] = []

    def _sources(self) -> list[tuple[str, str]]:
        sources: list[tuple[str, str]] = []
        if env_default(self._env, "WATCHDECK_API_KEY"):
            sources.append(("The environment (WATCHDECK_API_KEY is set)", KEY_ENV))
        if keyring_available():
            sources.append(("Paste a key, kept in the OS keyring", KEY_KEYRING))
        sources.append(("Paste a key (you choose where to keep it when saving)", KEY_SESSION))
        sources.append(("A command that prints the key (password manager)", KEY_COMMAND))
        return sources

    def compose(self) -> ComposeResult:
        first = "default" if "default" not in self._existing else ""
        with VerticalScroll(id="profile-form"):
            yield Static(Text("New profile", style="bold"), classes="dialog-title")
            yield Label("Profile name")
            yield TextField(first, placeholder="e.g. us, eu, self-hosted", id="name")
            yield Static("", id="name-error", classes="field-error")
            yield Label("Server")
            yield Select([("US Cloud", "us"), ("EU Cloud", "eu"), ("Self-hosted or other", "other")],
                         value="us", allow_blank=False, id="server")
            yield TextField(PRESET_BASE_URLS["us"], placeholder="https://posthog.example.com", id="base-url")
            yield Static("", id="base-url-error", classes="field-error")
            yield Label("Project id (empty: pick one after the test)")
            yield TextField(placeholder="e.g. 12345", id="project")
            yield Static("", id="project-error", classes="field-error")
            yield Label("API key")
            sources = self._sources()
            yield Select(sources, value=sources[0][1], allow_blank=False, id="key-source")
            yield TextField(placeholder="phx_…", password=True, id="key")
            yield TextField(placeholder="e.g. pass show posthog/us", id="key-command")
            yield Static("", id="key-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Back", id="back")
                yield Button("Test connection", id="test")
                yield Button("Save and open", id="save", variant="primary")
            yield Static("", id="form-result")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._show_key_inputs()
        self.query_one("#name", Input).focus()

    # ------------------------------------------------------------------ field plumbing

    @on(Select.Changed, "#server")
    def _server_changed(self, event: Select.Changed) -> None:
        url = PRESET_BASE_URLS.get(str(event.value))
        field = self.query_one("#base-url", Input)
        if url:
            field.value = url
        elif field.value in PRESET_BASE_URLS.values():
            field.value = ""
            field.focus()

    @on(Select.Changed, "#key-source")
    def _source_changed(self) -> None:
        self._show_key_inputs()

    def _show_key_inputs(self) -> None:
        source = self.query_one("#key-source", Select).value
        self.query_one("#key", Input).display = source in (KEY_KEYRING, KEY_SESSION)
        self.query_one("#key-command", Input).display = source == KEY_COMMAND

    def _field_error(self, field: str, message: str) -> None:
        self.query_one(f"#{field}-error", Static).update(plain(message, oneline=False))

    def _result(self, message: str, *, ok: bool) -> None:
        widget = self.query_one("#form-result", Static)
        widget.update(plain(message, oneline=False))
        widget.set_class(ok, "result-ok")
        widget.set_class(not ok, "field-error")

    def _read(self, *, need_project: bool) -> FormValues | None:
        """The form's values, or None with a message next to each bad field (nothing is sent)."""
        for name in ("name", "base-url", "project", "key"):
            self._field_error(name, "")
        values = FormValues(
            name=self.query_one("#name", Input).value.strip(),
            base_url=self.query_one("#base-url", Input).value.strip(),
            project=self.query_one("#project", Input).value.strip(),
            source=str(self.query_one("#key-source", Select).value),
            key=self.query_one("#key", Input).value.strip(),
            command=self.query_one("#key-command", Input).value.strip(),
        )
        ok = True
        if not PROFILE_NAME_RE.match(values.name):
            self._field_error("name", "use letters, digits, - and _ (at most 40)")
            ok = False
        try:
            values.base_url = check_base_url(values.base_url)
        except ConfigError as err:
            self._field_error("base-url", str(err))
            ok = False
        if need_project and not values.project:
            self._field_error("project", "enter a project id, or test the connection to pick one")
            ok = False
        if values.source in (KEY_KEYRING, KEY_SESSION) and not values.key:
            self._field_error("key", "paste the personal API key")
            ok = False
        elif values.source in (KEY_KEYRING, KEY_SESSION) and (problem := key_problem(values.key)):
            self._field_error("key", f"the key {problem}: check what you pasted")
            ok = False
        if values.source == KEY_COMMAND and not values.command:
            self._field_error("key", "enter the command that prints the key")
            ok = False
        return values if ok else None

    # ------------------------------------------------------------------ actions

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "test":
            self.action_test()
        elif event.button.id == "save":
            self.action_save()
        elif event.button.id == "back":
            self.action_back()

    def _typed_anything(self) -> bool:
        """True when the operator typed something the form did not start with."""
        first = "default" if "default" not in self._existing else ""
        typed = {"#name": first, "#project": "", "#key": "", "#key-command": ""}
        if any(self.query_one(selector, Input).value.strip() != start.strip() for selector, start in typed.items()):
            return True
        return self.query_one("#base-url", Input).value.strip() not in (*PRESET_BASE_URLS.values(), "")

    def action_back(self) -> None:
        """Back to the welcome list; a filled form asks first, as nothing of it is saved yet."""
        if not self._typed_anything():
            self.dismiss(None)
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard the new profile?",
                                           "What you typed in this form is not saved anywhere yet.",
                                           yes_label="Discard", danger=True), answer)

    def action_test(self) -> None:
        self._start(save=False)

    def action_save(self) -> None:
        self._start(save=True)

    def _start(self, *, save: bool) -> None:
        values = self._read(need_project=save)
        if values is None:
            return
        if is_insecure_url(values.base_url) and self._insecure_ok != values.base_url:
            question = Text(f"{insecure_message(values.base_url)}.\n\nSend the key over plain http anyway?")

            def answer(yes: bool | None) -> None:
                if yes:
                    self._insecure_ok = values.base_url
                    self._start(save=save)

            self.app.push_screen(ConfirmScreen("Plain http", question, yes_label="Send", danger=True), answer)
            return
        self._result("testing the connection…", ok=True)
        self._check(values, save)

    async def _key(self, values: FormValues) -> str | None:
        if values.source == KEY_ENV:
            return env_default(self._env, "WATCHDECK_API_KEY")
        if values.source == KEY_COMMAND:
            try:
                secret = await asyncio.to_thread(run_key_command, values.command)
            except ConfigError as err:
                self._field_error("key", str(err))
                self._result("no key: the key command failed", ok=False)
                return None
            return secret.get_secret_value()
        return values.key

    @work(exclusive=True, group="welcome-test", exit_on_error=False)
    async def _check(self, values: FormValues, save: bool) -> None:
        key = await self._key(values)
        if not key:
            return
        try:
            report = await test_key(values.base_url, key)  # the key first, as real clients ask
        except ApiError as err:
            self._result(describe_connection_error(err, values.base_url), ok=False)
            return
        scope_lines = "\n".join(report.lines()) if report else ""
        try:
            self._projects = await test_connection(values.base_url, key)
        except Forbidden as err:
            # Authenticated (else 401) but without project:read: usable when the project id is known.
            message = describe_connection_error(err, values.base_url)
            self._result("\n".join(filter(None, [message, scope_lines])), ok=False)
            if not values.project:
                return
        except ApiError as err:
            self._result(describe_connection_error(err, values.base_url), ok=False)
            return
        else:
            self._result("\n".join(filter(None, [self._connected_message(values), scope_lines])), ok=True)
        if not values.project and self._projects:
            self._pick(values, save)
            return
        if save:
            self._save(values, key)

    def _connected_message(self, values: FormValues) -> str:
        parts = urlsplit(values.base_url)
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname or ""
        count = len(self._projects)
        text = f"Connected to {host}: the key sees {counted(count, 'project')}."
        ids = {str(p.id) for p in self._projects}
        if values.project and self._projects and values.project not in ids:
            text += f" Project {values.project} is not among them (another organisation?)."
        return text

    def _pick(self, values: FormValues, save: bool) -> None:
        def chosen(project_id: str | None) -> None:
            if project_id:
                self.query_one("#project", Input).value = project_id
                if save:
                    self._start(save=True)

        self.app.push_screen(ProjectPickerScreen(projects=self._projects), chosen)

    def _save(self, values: FormValues, key: str) -> None:
        """A pasted key is kept where the operator says (keyring, the 0600 file, or this session only)."""
        if self._path is None:
            self._result("no config file location", ok=False)
            return
        if values.source == KEY_KEYRING and store_in_keyring(values.name, key):
            self._write_profile(values, key, STORE_KEYRING)
            return
        if values.source not in (KEY_KEYRING, KEY_SESSION):
            self._write_profile(values, key, STORE_NOWHERE)
            return

        def chosen(where: str | None) -> None:
            if where is None:
                self._result("Not saved yet: choose where to keep the key, or change the key source.", ok=False)
            elif where == STORE_KEYRING and not store_in_keyring(values.name, key):
                self._ask_where_to_keep(values, chosen, keyring_failed=True)
            else:
                self._write_profile(values, key, where)

        self._ask_where_to_keep(values, chosen, keyring_failed=values.source == KEY_KEYRING)

    def _ask_where_to_keep(self, values: FormValues, chosen: Callable[[str | None], None], *,
                           keyring_failed: bool) -> None:
        self.app.push_screen(KeyStorageScreen(values.name, self._path, keyring=keyring_available(),
                                              keyring_failed=keyring_failed), chosen)

    def _write_profile(self, values: FormValues, key: str, where: str) -> None:
        assert self._path is not None
        profile: dict[str, Any] = {"base_url": values.base_url, "project": values.project}
        if values.source == KEY_COMMAND:
            profile["key_command"] = values.command
        if where == STORE_FILE:
            profile["key"] = key
        if self._insecure_ok == values.base_url and is_insecure_url(values.base_url):
            profile["allow_insecure_http"] = True
        note = ""
        if where == STORE_NOWHERE and values.source in (KEY_KEYRING, KEY_SESSION):
            note = " The key was not saved. " + key_command_hint(values.name, self._path).replace("\n\n", " ")
        try:
            has_default = self._path.exists() and "default_profile" in self._path.read_text(encoding="utf-8")
            save_profile(self._path, values.name, profile, make_default=not has_default,
                         with_key=where == STORE_FILE)
        except (ConfigError, OSError) as err:
            self._result(f"could not save {self._path}: {err}", ok=False)
            return
        remember_project(values.name, values.project, self._env)
        source = {KEY_ENV: "environment", KEY_COMMAND: "key_command"}.get(values.source) or {
            STORE_KEYRING: "keyring", STORE_FILE: "config file"}.get(where, "session")
        settings = Settings(
            base_url=values.base_url, api_key=key, project_ids=[values.project], profile=values.name,
            key_source=source, config_path=str(self._path),
            warnings=[f"profile {values.name} saved to {self._path}.{note}"],
        )
        self.dismiss(settings)


# --------------------------------------------------------------------------- the app that hosts them


class WelcomeApp(SafeApp[Settings | str | None]):
    """Runs before the dashboard on first run; ``run()`` returns ``DEMO``, Settings, or None (quit)."""

    TITLE = "watchdeck"
    CSS_PATH = stylesheets("app.tcss", "modals.tcss", "welcome.tcss")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, *, env: Mapping[str, str], config: ConfigFile | None = None, path: Path | None = None) -> None:
        super().__init__()
        self._env = env
        self._config = config
        self._path = path

    def on_mount(self) -> None:
        self.push_screen(WelcomeScreen(self._env, self._config, self._path), self.exit)
