"""Settings: what to connect to, what to watch, how often.

Resolved in this order: command-line flags, then the environment
(``WATCHDECK_*``), then defaults. The API key is a ``SecretStr`` so it never
shows in a repr, a log line or a traceback.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

MIN_POLL_SECONDS = 2.0
DEFAULT_POLL_SECONDS = 10.0


class ConfigError(Exception):
    """A setting that cannot be used; the message is one line for stderr."""


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
        if value < MIN_POLL_SECONDS:
            raise ValueError(f"poll interval must be at least {MIN_POLL_SECONDS:g} s")
        return value


def env_default(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None
