"""Where the API key comes from: the environment, a password manager, the OS keyring, or (discouraged) the file.

Order, first found wins: ``WATCHDECK_API_KEY``; the profile's ``key_command``
(run without a shell, 10 s timeout, stdout stripped); the profile's ``key`` in
``config.toml`` (the file must then be 0600, see config.permission_warning);
the OS keyring (service ``watchdeck``, user = the profile name) when the
optional ``keyring`` package is installed. Explicit configuration comes before
the keyring so that a stale keyring entry never shadows what the operator wrote.

The key itself never appears in a message: errors name the source, not the value.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import SecretStr

from tui.config_errors import ConfigError, env_default


class KeySources(Protocol):
    """What a profile says about its key (``tui.config.Profile``), without importing the config that imports us."""

    @property
    def key_command(self) -> str | list[str] | None: ...

    @property
    def key(self) -> SecretStr | None: ...

KEY_COMMAND_TIMEOUT = 10.0
KEYRING_SERVICE = "watchdeck"


class KeyError_(ConfigError):
    """No usable key; the message says which source failed and why, in one line."""


def _command_text(command: str | list[str]) -> str:
    text = command if isinstance(command, str) else shlex.join(command)
    return text if len(text) <= 60 else text[:59] + "…"


def run_key_command(command: str | list[str], *, timeout: float = KEY_COMMAND_TIMEOUT) -> SecretStr:
    """Run a password manager command (``pass show posthog``, ``op read ...``) and return what it printed.

    No shell: the command is split like a shell would (``shlex``) but never
    interpreted, so a profile cannot smuggle in pipes or substitutions.
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    shown = _command_text(command)
    if not argv:
        raise KeyError_("key_command is empty")
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise KeyError_(f"key_command {shown!r}: program {argv[0]!r} not found") from None
    except PermissionError:
        raise KeyError_(f"key_command {shown!r}: {argv[0]!r} is not executable") from None
    except subprocess.TimeoutExpired:
        raise KeyError_(f"key_command {shown!r} did not finish within {timeout:g} s") from None
    except OSError as err:
        raise KeyError_(f"key_command {shown!r} could not run: {err.strerror or err}") from None
    if done.returncode != 0:
        first = next((ln.strip() for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()), "")
        from tui.render import clean

        why = f": {clean(first, limit=120)}" if first else ""
        raise KeyError_(f"key_command {shown!r} failed (exit {done.returncode}){why}")
    key = done.stdout.decode("utf-8", "replace").strip()
    if not key:
        raise KeyError_(f"key_command {shown!r} printed nothing")
    if "\n" in key:
        key = key.splitlines()[0].strip()  # `pass show` prints the secret on the first line
    return SecretStr(key)


def _keyring() -> Any | None:
    try:
        import keyring  # type: ignore[import-not-found, unused-ignore]
    except Exception:  # absent, or a broken backend import: the keyring is optional
        return None
    return keyring


def keyring_available() -> bool:
    return _keyring() is not None


def key_from_keyring(profile: str | None) -> SecretStr | None:
    """The key stored for this profile in the OS keyring; None when absent, unavailable or failing."""
    module = _keyring()
    if module is None or not profile:
        return None
    try:
        value = module.get_password(KEYRING_SERVICE, profile)
    except Exception:  # no backend, locked keyring, D-Bus down: fall through to "no key"
        return None
    return SecretStr(value) if isinstance(value, str) and value.strip() else None


def store_in_keyring(profile: str, key: str) -> bool:
    """Store the key for the profile; False when there is no usable keyring."""
    module = _keyring()
    if module is None:
        return False
    try:
        module.set_password(KEYRING_SERVICE, profile, key)
    except Exception:
        return False
    return True


def resolve_key(env: Mapping[str, str], profile_name: str | None, profile: KeySources) -> tuple[SecretStr, str]:
    """The key and a name of its source, for Settings.key_source and messages."""
    if value := env_default(env, "WATCHDECK_API_KEY"):
        return SecretStr(value), "environment"
    if profile.key_command is not None:
        return run_key_command(profile.key_command), "key_command"
    if profile.key is not None and profile.key.get_secret_value().strip():
        return SecretStr(profile.key.get_secret_value().strip()), "config file"
    if (stored := key_from_keyring(profile_name)) is not None:
        return stored, "keyring"
    where = f" or key_command in [profiles.{profile_name}]" if profile_name else ""
    ring = " or store it in the OS keyring" if keyring_available() and profile_name else ""
    raise KeyError_(f"no API key: set WATCHDECK_API_KEY to a personal API key{where}{ring}")
