"""What a setting may be: the validated shapes of the settings, a profile and the config file, and the URL rules.

Nothing here reads a file or the environment, so anything may import it
(:mod:`tui.config.keys` does, for :class:`Profile`) without pulling in the loading or
the resolution. The API key is a ``SecretStr`` so it never shows in a repr, a
log line or a traceback; it is not written to the config file by default (see
:mod:`tui.config.keys` for where it comes from).
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from tui.config.errors import ConfigError
from tui.text.words import duration

MIN_POLL_SECONDS = 2.0
DEFAULT_POLL_SECONDS = 10.0
# The names a profile may have: save_profile and the welcome form refuse others.
PROFILE_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# Where the well-known cloud services live (US and EU); offered by the welcome form.
PRESET_BASE_URLS: dict[str, str] = {
    "us": "https://us.posthog.com",
    "eu": "https://eu.posthog.com",
}


_DURATION_RE = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


def parse_duration(text: str) -> float:
    """``"2h"``, ``"30m"``, ``"1h30m"``, ``"1d"``, ``"90s"`` in seconds; ValueError for anything else (or 0)."""
    found = _DURATION_RE.match(text.strip().lower()) if isinstance(text, str) else None
    if not text.strip() or found is None:
        raise ValueError(f"{text!r} is not a duration like \"2h\", \"30m\" or \"1h30m\"")
    days, hours, minutes, seconds = (int(part or 0) for part in found.groups())
    total = float(days * 86400 + hours * 3600 + minutes * 60 + seconds)
    if total <= 0:
        raise ValueError(f"{text!r}: a freshness target must be longer than 0")
    return total


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
    # How fresh each export's data must be, in seconds, by export id or name ([profiles.NAME.freshness]).
    freshness: dict[str, float] = Field(default_factory=dict)

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
            raise ValueError(f"poll interval must be at least {duration(MIN_POLL_SECONDS)}")
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
    freshness: dict[str, str] | None = None  # export id or name -> a duration ("2h", "30m")

    @field_validator("freshness")
    @classmethod
    def _freshness(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for name, text in (value or {}).items():
            try:
                parse_duration(text)
            except ValueError as err:
                raise ValueError(f"freshness of {name!r}: {err}") from None
        return value

    @property
    def freshness_seconds(self) -> dict[str, float]:
        return {name: parse_duration(text) for name, text in (self.freshness or {}).items()}

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
            raise ValueError(f"poll interval must be at least {duration(MIN_POLL_SECONDS)}")
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
