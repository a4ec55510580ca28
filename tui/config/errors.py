"""The settings' error and environment lookup: the bottom of :mod:`tui.config`.

A leaf: every other config module raises :class:`ConfigError`, and
:mod:`tui.config.keys` needs both names while :mod:`tui.config.resolve` asks
``keys`` for the API key, so they sit below both rather than make the two
import each other.
"""

from __future__ import annotations

from collections.abc import Mapping


class ConfigError(Exception):
    """A setting that cannot be used; the message is one line for stderr."""


def env_default(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None
