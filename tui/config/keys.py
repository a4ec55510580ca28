"""Where the API key comes from: the environment, a password manager, the OS keyring, or (discouraged) the file.

Order, first found wins: ``WATCHDECK_API_KEY``; the profile's ``key_command``
(run without a shell, 10 s timeout, stdout stripped); the profile's ``key`` in
``config.toml`` (the file must then be 0600, see
``tui.config.file.permission_warning``); the OS keyring (service
``watchdeck``, user = the profile name) when the optional ``keyring`` package
is installed. Explicit configuration comes before the keyring so that a stale
keyring entry never shadows what the operator wrote.

The key itself never appears in a message: errors name the source, not the value.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import SecretStr

from tui.config.errors import ConfigError, env_default
from tui.config.models import Profile
from tui.text.words import duration

KEY_COMMAND_TIMEOUT = 10.0
KEYRING_SERVICE = "watchdeck"


class KeySourceError(ConfigError):
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
        raise KeySourceError("key_command is empty")
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise KeySourceError(f"key_command {shown!r}: program {argv[0]!r} not found") from None
    except PermissionError:
        raise KeySourceError(f"key_command {shown!r}: {argv[0]!r} is not executable") from None
    except subprocess.TimeoutExpired:
        raise KeySourceError(f"key_command {shown!r} did not finish within {duration(timeout)}") from None
    except OSError as err:
        raise KeySourceError(f"key_command {shown!r} could not run: {err.strerror or err}") from None
    if done.returncode != 0:
        # Not its stderr: a password manager may print the secret, or the vault's path and the account, there.
        raise KeySourceError(f"key_command {shown!r} failed (exit {done.returncode}); run it yourself to see why")
    key = done.stdout.decode("utf-8", "replace").strip()
    if not key:
        raise KeySourceError(f"key_command {shown!r} printed nothing")
    if "\n" in key:
        key = key.splitlines()[0].strip()  # `pass show` prints the secret on the first line
    # Only the program's name: the rest of the command line may hold the key itself (``echo phx_…``).
    return SecretStr(check_key(key, f"key_command ({os.path.basename(argv[0])})"))


def key_problem(key: str) -> str | None:
    """What makes ``key`` unusable as a bearer token, in words; None when nothing does.

    Said before anything is sent: a key with a space in it reached the server
    whole and came back as "401 bad key", sending the operator after the wrong
    cause.
    """
    for char in key:
        if char.isspace():
            return "contains spaces" if char == " " else f"contains whitespace ({char!r})"
        if unicodedata.category(char)[0] == "C":
            return f"contains a control character (U+{ord(char):04X})"
        if not char.isascii():
            return f"contains a character that is not ASCII (U+{ord(char):04X}), which no HTTP header can carry"
    return None


def check_key(key: str, source: str) -> str:
    """``key`` unchanged, or a one-line error naming the source and what is wrong (never the key)."""
    if (problem := key_problem(key)) is not None:
        raise KeySourceError(f"the key from {source} {problem}: nothing was sent; check what it prints")
    return key


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


def resolve_key(env: Mapping[str, str], profile_name: str | None, profile: Profile) -> tuple[SecretStr, str]:
    """The key and a name of its source, for Settings.key_source and messages."""
    if value := env_default(env, "WATCHDECK_API_KEY"):
        return SecretStr(check_key(value, "WATCHDECK_API_KEY")), "environment"
    if profile.key_command is not None:
        return run_key_command(profile.key_command), "key_command"
    if profile.key is not None and profile.key.get_secret_value().strip():
        return SecretStr(check_key(profile.key.get_secret_value().strip(), "the config file")), "config file"
    if (stored := key_from_keyring(profile_name)) is not None:
        return SecretStr(check_key(stored.get_secret_value().strip(), "the keyring")), "keyring"
    where = f" or key_command in [profiles.{profile_name}]" if profile_name else ""
    ring = " or store it in the OS keyring" if keyring_available() and profile_name else ""
    raise KeySourceError(f"no API key: set WATCHDECK_API_KEY to a personal API key{where}{ring}")
