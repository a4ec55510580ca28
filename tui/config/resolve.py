"""Which settings apply: the profile chosen, then each field from the first place that gives it.

Resolved in this order, each field on its own: command-line flags, then the
environment (``WATCHDECK_*``), then the chosen profile of ``config.toml`` in
the user config dir, then defaults.

It alone asks :mod:`tui.config.keys` for the API key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from tui.config.errors import ConfigError, env_default
from tui.config.file import config_path, load_config, permission_warning
from tui.config.keys import resolve_key
from tui.config.models import (
    DEFAULT_POLL_SECONDS,
    ConfigFile,
    InsecureUrl,
    Profile,
    Settings,
    check_base_url,
    insecure_message,
    is_insecure_url,
    split_ids,
)
from tui.config.remembered import remembered_project


class NeedsSetup(ConfigError):
    """Nothing says where to connect: first run, or several profiles and none chosen.

    The dashboard answers with the welcome screen; ``status`` (no one to ask)
    with the message.
    """

    def __init__(self, message: str, config: ConfigFile | None = None, path: Path | None = None) -> None:
        super().__init__(message)
        self.config = config
        self.path = path


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
            freshness=prof.freshness_seconds,
        )
    except ValidationError as err:
        first = err.errors()[0]
        raise ConfigError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
