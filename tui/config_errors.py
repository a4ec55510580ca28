"""The settings' error and environment lookup, shared by :mod:`tui.config` and :mod:`tui.keys`.

A leaf module: ``config`` asks ``keys`` for the API key, and ``keys`` needs
these two, so they live below both rather than make the two import each other.
"""

from __future__ import annotations

from collections.abc import Mapping


class ConfigError(Exception):
    """A setting that cannot be used; the message is one line for stderr."""


def env_default(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None
