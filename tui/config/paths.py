"""Where things live: the shipped styles and the user's config, data and state dirs.

``styles/`` sits at the top of the repository (the brief mandates it) and is
mapped into the wheel as ``tui/styles`` by hatch ``force-include``; at run time
the installed copy wins and a checkout falls back to the repository's folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePath

import platformdirs

APP_NAME = "watchdeck"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def styles_dir() -> Path:
    installed = _PACKAGE_DIR / "styles"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / "styles"


def stylesheets(*names: str) -> list[str | PurePath]:
    """Absolute paths of the named .tcss files, for a ``CSS_PATH``."""
    base = styles_dir()
    return [base / name for name in names]


def _override(var: str, default: str, env: Mapping[str, str] | None = None) -> Path:
    value = (os.environ if env is None else env).get(var)
    return Path(value) if value else Path(default)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user config dir; ``WATCHDECK_CONFIG_DIR`` (in ``env`` when given, else the process's) overrides it."""
    return _override("WATCHDECK_CONFIG_DIR", platformdirs.user_config_dir(APP_NAME), env)


def data_dir() -> Path:
    return _override("WATCHDECK_DATA_DIR", platformdirs.user_data_dir(APP_NAME))


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    return _override("WATCHDECK_STATE_DIR", platformdirs.user_state_dir(APP_NAME), env)


def cache_dir() -> Path:
    """The shared response cache's folder (tui.api.cache); ``WATCHDECK_CACHE_DIR`` overrides it."""
    return _override("WATCHDECK_CACHE_DIR", platformdirs.user_cache_dir(APP_NAME))
