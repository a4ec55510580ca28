"""Settings: what to connect to, what to watch, how often.

Resolved in this order, each field on its own: command-line flags, then the
environment (``WATCHDECK_*``), then the chosen profile of ``config.toml`` in
the user config dir, then defaults. The API key is a ``SecretStr`` so it never
shows in a repr, a log line or a traceback; it is not written to the config
file by default (see :mod:`tui.keys` for where it comes from).

A bad config file is one error that names the file, the key and the line: an
operator fixing a typo at 3 a.m. should not have to read a pydantic dump.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tomlkit
import tomlkit.exceptions
import tomlkit.items
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

# Defined below both this module and tui.keys (which this one asks for the key); still importable from here.
from tui.config_errors import ConfigError as ConfigError
from tui.config_errors import env_default as env_default
from tui.paths import config_dir as config_dir
from tui.paths import state_dir as state_dir
from tui.private_files import write_private

MIN_POLL_SECONDS = 2.0
DEFAULT_POLL_SECONDS = 10.0
CONFIG_FILE_NAME = "config.toml"
STATE_FILE_NAME = "projects.json"
PROFILE_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# Where the well-known cloud services live (US and EU); offered by the welcome form.
PRESET_BASE_URLS: dict[str, str] = {
    "us": "https://us.posthog.com",
    "eu": "https://eu.posthog.com",
}


class NeedsSetup(ConfigError):
    """Nothing says where to connect: first run, or several profiles and none chosen.

    The dashboard answers with the welcome screen; ``status`` (no one to ask)
    with the message.
    """

    def __init__(self, message: str, config: ConfigFile | None = None, path: Path | None = None) -> None:
        super().__init__(message)
        self.config = config
        self.path = path


class InsecureUrl(ConfigError):
    """A plain-http base URL on another machine: the key would cross the network readable."""


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"base URL {url!r} is not an http(s) URL with a host, e.g. https://us.posthog.com")
    return url.strip().rstrip("/")


def check_cache_url(url: str) -> str:
    """Only a Redis URL: ``redis://host:6379/0``, ``rediss://`` (TLS) or ``unix://`` (a socket)."""
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ValueError("cache_url must be a redis:// (or rediss://, unix://) URL")
    return url


def is_insecure_url(url: str) -> bool:
    """True for ``http://`` to anything but this machine: the key would travel in clear text."""
    return urlsplit(url).scheme == "http" and not is_loopback_url(url)


def insecure_message(url: str) -> str:
    host = urlsplit(url).hostname or url
    return (
        f"refusing to send the API key over plain http to {host}: use https, "
        "or pass --allow-insecure-http (allow_insecure_http = true in the profile) if you trust the network"
    )


class Settings(BaseModel):
    """Everything the dashboard needs to run, resolved and validated."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    api_key: SecretStr
    project_ids: list[str] = Field(min_length=1)
    export_ids: list[str] = Field(default_factory=list)
    poll_seconds: float = DEFAULT_POLL_SECONDS
    read_only: bool = False
    profile: str | None = None
    bell: bool = True
    lag_alert_intervals: float = 2.0
    demo: bool = False
    # Said once at start (stderr) and as a toast in the app: e.g. a key file readable by others.
    warnings: list[str] = Field(default_factory=list)
    # Binding id -> keys, for App.set_keymap (from the [keymap] table).
    keymap: dict[str, str] = Field(default_factory=dict)
    # Where the key came from ("environment", "key_command", "keyring", "config file"), never the key.
    key_source: str = "environment"
    config_path: str | None = None
    # A program run for each new and resolved alert, the alert as JSON on stdin (no shell: a list of arguments).
    on_alert: list[str] = Field(default_factory=list)
    # Share GET answers with the other viewers of this key (tui.api.cache): SQLite, or Redis at cache_url.
    # Off unless the command line turns it on: tests and the demo build Settings directly.
    cache: bool = False
    cache_url: str | None = None

    @property
    def project_id(self) -> str:
        """The project shown first (the first of ``--project``)."""
        return self.project_ids[0]

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        try:
            return check_base_url(value)
        except ConfigError as err:
            raise ValueError(str(err)) from None

    @field_validator("poll_seconds")
    @classmethod
    def _poll(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError(f"poll interval must be a finite number of seconds, not {value}")
        if value < MIN_POLL_SECONDS:
            raise ValueError(f"poll interval must be at least {MIN_POLL_SECONDS:g} s")
        return value


def split_ids(values: Sequence[str | int] | None) -> list[str]:
    """``["1,2", "3"]`` -> ``["1", "2", "3"]``: ids from repeated flags or a comma list, order kept, no duplicates."""
    out: list[str] = []
    for value in values or []:
        for part in str(value).split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out


# --------------------------------------------------------------------------- the config file


class Profile(BaseModel):
    """One ``[profiles.NAME]`` table. Unknown keys are errors: a typo must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    base_url: str | None = None
    project: str | None = None
    projects: list[str] | None = None
    exports: list[str] = Field(default_factory=list)
    poll: float | None = None
    read_only: bool | None = None
    key_command: str | list[str] | None = None
    key: SecretStr | None = None
    bell: bool | None = None
    lag_alert_intervals: float | None = None
    allow_insecure_http: bool = False
    on_alert: list[str] | None = None
    cache_url: str | None = None

    @field_validator("cache_url")
    @classmethod
    def _cache_url(cls, value: str | None) -> str | None:
        return check_cache_url(value) if value is not None else None

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check_base_url(value)
        except ConfigError as err:
            raise ValueError(str(err)) from None

    @field_validator("project", mode="before")
    @classmethod
    def _project(cls, value: Any) -> Any:
        return str(value).strip() if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("projects", "exports", mode="before")
    @classmethod
    def _id_list(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    @field_validator("poll")
    @classmethod
    def _poll(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError(f"poll interval must be a finite number of seconds, not {value}")
        if value is not None and value < MIN_POLL_SECONDS:
            raise ValueError(f"poll interval must be at least {MIN_POLL_SECONDS:g} s")
        return value

    @field_validator("lag_alert_intervals")
    @classmethod
    def _lag(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError(f"must be a finite number of intervals, not {value}")
        if value is not None and value <= 0:
            raise ValueError("must be more than 0 intervals")
        return value

    @field_validator("key_command")
    @classmethod
    def _command(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is not None and not (value.strip() if isinstance(value, str) else value):
            raise ValueError("key_command is empty")
        return value

    @field_validator("on_alert")
    @classmethod
    def _hook(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not value[0].strip()):
            raise ValueError('on_alert needs a program: on_alert = ["program", "arg", ...]')
        return value

    @model_validator(mode="after")
    def _one_project_form(self) -> Profile:
        if self.project is not None and self.projects is not None:
            raise ValueError("use either project or projects, not both")
        return self

    @property
    def project_ids(self) -> list[str]:
        return split_ids(self.projects if self.projects is not None else ([self.project] if self.project else []))


class ConfigFile(BaseModel):
    """The whole ``config.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    default_profile: str | None = None
    profiles: dict[str, Profile] = Field(default_factory=dict)
    keymap: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _default_exists(self) -> ConfigFile:
        if self.default_profile is not None and self.default_profile not in self.profiles:
            names = ", ".join(sorted(self.profiles)) or "none"
            raise ValueError(f"default_profile {self.default_profile!r} is not a profile here (profiles: {names})")
        return self

    @property
    def holds_key(self) -> bool:
        return any(p.key is not None for p in self.profiles.values())


def config_path(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / CONFIG_FILE_NAME


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def _line_of(text: str, loc: Sequence[str | int]) -> int | None:
    """The line that sets the key at ``loc`` (e.g. ``("profiles", "us", "poll")``), found in the file's text.

    tomllib keeps no positions, so this reads the text: a table header naming
    the whole path, else the key inside its table (or before the first table
    for a top-level key), else a dotted key, else the nearest table's header.
    """
    parts = [str(p) for p in loc if isinstance(p, str)]
    if not parts:
        return None
    lines = text.splitlines()

    def header_line(names: list[str]) -> int | None:
        inner = r"\s*\.\s*".join(rf'"?{re.escape(n)}"?' for n in names)
        pattern = re.compile(rf"^\s*\[\s*{inner}\s*\]")
        return next((i for i, line in enumerate(lines) if pattern.match(line)), None)

    own = header_line(parts)
    if own is not None:
        return own + 1
    key_re = re.compile(rf'^\s*("?){re.escape(parts[-1])}\1\s*=')
    table = parts[:-1]
    start = 0 if not table else header_line(table)
    if start is not None:
        first = start + 1 if table else 0
        for i in range(first, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if key_re.match(lines[i]):
                return i + 1
    dotted = re.compile(rf"^\s*{re.escape('.'.join(parts))}\s*=")
    for i, line in enumerate(lines):
        if dotted.match(line):
            return i + 1
    for depth in range(len(parts) - 1, 0, -1):
        ancestor = header_line(parts[:depth])
        if ancestor is not None:
            return ancestor + 1
    return None


def describe_config_error(path: Path, text: str, err: ValidationError) -> str:
    """One line: file, line, dotted key, what is wrong (and how many more problems there are)."""
    errors = err.errors()
    first = errors[0]
    loc = [p for p in first["loc"] if not (isinstance(p, str) and p.startswith(("function-", "union[")))]
    # A union (str | list) reports per member; the member's name is noise for the operator.
    loc = [p for p in loc if p not in ("str", "list[str]", "float", "int", "bool")]
    dotted = ".".join(str(p) for p in loc)
    line = _line_of(text, loc) if loc else None
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key (check the spelling; see the config reference in the README)"
    where = f"{path}, line {line}" if line else str(path)
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    key = f"{dotted}: " if dotted else ""
    return f"{where}: {key}{message}{more}"


def parse_config(text: str, path: Path) -> ConfigFile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        msg = str(err)
        match = _TOML_POSITION.search(msg)
        if match:
            return _raise(f"{path}, line {match.group(1)}: not valid TOML: {_TOML_POSITION.sub('', msg).strip()}"
                          f" (column {match.group(2)})")
        return _raise(f"{path}: not valid TOML: {msg}")
    try:
        return ConfigFile.model_validate(data)
    except ValidationError as err:
        raise ConfigError(describe_config_error(path, text, err)) from None


def _raise(message: str) -> ConfigFile:
    raise ConfigError(message)


def load_config(path: Path) -> ConfigFile | None:
    """The parsed file, or None when there is none. Raises ConfigError (one line) when it is bad."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return parse_config(text, path)


def permission_warning(path: Path, config: ConfigFile) -> str | None:
    """A warning when a file holding a key can be read by other users (it must be 0600)."""
    if not config.holds_key or os.name != "posix":
        return None
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if mode & 0o077:
        return (f"{path} holds an API key and is readable by others (mode {mode:04o}): "
                f"run chmod 600 {path}, or better, use key_command or the environment")
    return None


# --------------------------------------------------------------------------- writing a profile


def profile_block(name: str, values: Mapping[str, Any], *, with_key: bool = False) -> str:
    """The TOML text of one profile, to show an operator the lines to add by hand."""
    doc = tomlkit.document()
    doc.add("profiles", tomlkit.table(is_super_table=True))
    doc["profiles"][name] = _profile_table(values, with_key=with_key)
    return tomlkit.dumps(doc).strip() + "\n"


def _profile_table(values: Mapping[str, Any], *, with_key: bool) -> tomlkit.items.Table:
    table = tomlkit.table()
    for key, value in values.items():
        if value is not None and (key != "key" or with_key):
            table[key] = value
    return table


def _set_keeping_comment(table: Any, key: str, value: Any) -> None:
    """Replace a value, keeping the comment the operator wrote after it on the same line."""
    old = table.get(key)
    item = tomlkit.item(value)
    if old is not None and hasattr(old, "trivia") and old.trivia.comment:
        item.comment(old.trivia.comment.lstrip("# ").rstrip())
    table[key] = item


def save_profile(path: Path, name: str, values: Mapping[str, Any], *, make_default: bool = False,
                 with_key: bool = False) -> None:
    """Add or update ``[profiles.NAME]`` in the config file with tomlkit, which keeps the operator's comments,
    layout and the settings this form does not know (``on_alert``, ``bell``, a hand-written ``key``).

    A value given as None is removed. The result is parsed again before it replaces the file, so a save can
    never leave a file that the next start would refuse.
    """
    if not PROFILE_NAME_RE.match(name):
        raise ConfigError("profile name: use letters, digits, - and _ (at most 40)")
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.TOMLKitError as err:
        raise ConfigError(f"{path}: cannot update a file that does not parse ({err})") from err
    if "profiles" not in doc:
        doc.add("profiles", tomlkit.table(is_super_table=True))
    profiles: Any = doc["profiles"]
    if name not in profiles:
        profiles[name] = _profile_table(values, with_key=with_key)
    else:
        table = profiles[name]
        for key, value in values.items():
            if key == "key" and not with_key:
                continue  # the key is written only when the operator chose the file for it
            if value is None:
                table.pop(key, None)
            else:
                _set_keeping_comment(table, key, value)
    if make_default:
        _set_keeping_comment(doc, "default_profile", name)  # tomlkit puts a new one above the first table
    text = tomlkit.dumps(doc)
    parse_config(text, path)
    write_private(path, text)


# --------------------------------------------------------------------------- remembered project per profile


def _state_file(env: Mapping[str, str] | None) -> Path:
    return state_dir(env) / STATE_FILE_NAME


def remembered_project(profile: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The project last picked for this profile (``""`` stands for "no profile"); None when unknown or unreadable."""
    try:
        data = json.loads(_state_file(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(profile or "") if isinstance(data, dict) else None
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) and str(value) else None


def remember_project(profile: str | None, project_id: str, env: Mapping[str, str] | None = None) -> None:
    """Remember the picked project; a state file that cannot be written is not worth failing for."""
    path = _state_file(env)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[profile or ""] = str(project_id)
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- resolution


@dataclass
class Overrides:
    """What the command line said (None / empty = not given)."""

    base_url: str | None = None
    projects: list[str] = field(default_factory=list)
    profile: str | None = None
    exports: list[str] = field(default_factory=list)
    poll: float | None = None
    read_only: bool = False
    allow_insecure_http: bool = False
    cache_url: str | None = None
    no_cache: bool = False


def choose_profile(
    overrides: Overrides, env: Mapping[str, str], config: ConfigFile | None, path: Path
) -> tuple[str | None, Profile | None]:
    """Which profile applies: --profile, WATCHDECK_PROFILE, default_profile, or the only one there is."""
    name = overrides.profile or env_default(env, "WATCHDECK_PROFILE")
    profiles = config.profiles if config else {}
    if name is not None:
        if name not in profiles:
            names = ", ".join(sorted(profiles)) or "none"
            where = path if config is not None else f"{path} (no such file)"
            raise ConfigError(f"no profile {name!r} in {where}; profiles: {names}")
        return name, profiles[name]
    if config and config.default_profile:
        return config.default_profile, profiles[config.default_profile]
    if len(profiles) == 1:
        only = next(iter(profiles))
        return only, profiles[only]
    return None, None


def resolve_settings(
    overrides: Overrides,
    env: Mapping[str, str],
    *,
    demo: bool = False,
) -> Settings:
    """Flags > environment > profile > defaults, field by field.

    Raises :class:`NeedsSetup` when nothing at all says where to connect (the
    welcome screen's cue), :class:`InsecureUrl` for plain http off this
    machine, and :class:`ConfigError` for anything else that is missing or bad.
    """
    from tui.keys import resolve_key

    path = config_path(env)
    config = load_config(path)
    warnings: list[str] = []
    if config is not None and (warning := permission_warning(path, config)):
        warnings.append(warning)

    env_url = env_default(env, "WATCHDECK_BASE_URL")
    env_projects = split_ids([env.get("WATCHDECK_PROJECT_ID", "")])
    # A key alone in the environment does not say where to connect: the welcome form can still use it.
    given = bool(overrides.base_url or overrides.projects or env_url or env_projects)
    name, profile = choose_profile(overrides, env, config, path)
    if profile is None and not given:
        if config is not None and config.profiles:
            raise NeedsSetup(
                f"several profiles in {path} and none chosen: pass --profile NAME or set default_profile",
                config, path,
            )
        raise NeedsSetup(
            "nothing to connect to: pass --base-url URL and --project ID with WATCHDECK_API_KEY set, "
            "add a profile to " + str(path) + ", or try --demo",
            config, path,
        )
    prof = profile or Profile()

    base_url = overrides.base_url or env_url or prof.base_url
    if not base_url:
        raise ConfigError("no server: pass --base-url URL, set WATCHDECK_BASE_URL, or set base_url in a profile")
    base_url = check_base_url(base_url)
    if is_insecure_url(base_url) and not (overrides.allow_insecure_http or prof.allow_insecure_http):
        raise InsecureUrl(insecure_message(base_url))

    projects = split_ids(overrides.projects) or env_projects
    if not projects:
        projects = prof.project_ids
        remembered = remembered_project(name, env)
        if remembered:
            if len(projects) <= 1:
                projects = [remembered]
            elif remembered in projects:
                projects = [remembered, *[p for p in projects if p != remembered]]
    if not projects:
        raise ConfigError("no project: pass --project ID, set WATCHDECK_PROJECT_ID, or set project in the profile")

    api_key, source = resolve_key(env, name, prof)
    try:
        return Settings(
            base_url=base_url,
            api_key=api_key,
            project_ids=projects,
            export_ids=split_ids(overrides.exports) or split_ids(prof.exports),
            poll_seconds=overrides.poll or prof.poll or DEFAULT_POLL_SECONDS,
            read_only=overrides.read_only or bool(prof.read_only),
            profile=name,
            bell=prof.bell if prof.bell is not None else True,
            lag_alert_intervals=prof.lag_alert_intervals or 2.0,
            demo=demo,
            warnings=warnings,
            keymap=dict(config.keymap) if config else {},
            key_source=source,
            config_path=str(path) if config is not None else None,
            on_alert=list(prof.on_alert or []),
            cache=not overrides.no_cache,
            cache_url=overrides.cache_url or prof.cache_url,
        )
    except ValidationError as err:
        first = err.errors()[0]
        raise ConfigError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
