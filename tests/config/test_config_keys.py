"""Key sources: key_command success and every failure is one clear line without the key; the keyring is optional."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tui.config import ConfigError, Profile, keys
from tui.config.keys import KeySourceError, resolve_key, run_key_command

PY = sys.executable


def test_key_command_output_is_stripped() -> None:
    assert run_key_command([PY, "-c", "print('  phx_abc  ')"]).get_secret_value() == "phx_abc"


def test_key_command_as_string_is_split_without_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    # With a shell, `;` would run the touch; shlex keeps it as an argument of python -c.
    secret = run_key_command(f"{PY} -c \"print('k1')\" ; touch {marker}")
    assert secret.get_secret_value() == "k1" and not marker.exists()


def test_key_command_first_line_only() -> None:
    assert run_key_command([PY, "-c", "print('k2\\nuser: me')"]).get_secret_value() == "k2"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([PY, "-c", "import sys; sys.stderr.write('gpg: decryption failed\\n'); sys.exit(3)"],
         r"failed \(exit 3\); run it yourself to see why$"),
        ([PY, "-c", "pass"], "printed nothing"),
        (["/nonexistent/pass-manager", "show"], "program '/nonexistent/pass-manager' not found"),
    ],
)
def test_key_command_failures_are_one_line(argv: list[str], expected: str) -> None:
    with pytest.raises(KeySourceError, match=expected) as caught:
        run_key_command(argv)
    assert "\n" not in str(caught.value) and isinstance(caught.value, ConfigError)


def test_key_command_timeout() -> None:
    with pytest.raises(KeySourceError, match=r"did not finish within 0.5s"):
        run_key_command([PY, "-c", "import time; time.sleep(5)"], timeout=0.5)


def test_failing_command_never_shows_its_output() -> None:
    with pytest.raises(KeySourceError) as caught:
        run_key_command([PY, "-c", "print('phx_' + 'secret_value'); raise SystemExit(1)"])
    assert "phx_secret_value" not in str(caught.value)


def test_source_order_env_then_command_then_file() -> None:
    profile = Profile(key_command=[PY, "-c", "print('from-command')"], key="from-file")  # type: ignore[arg-type]
    assert resolve_key({"WATCHDECK_API_KEY": "from-env"}, "p", profile)[1] == "environment"
    key, source = resolve_key({}, "p", profile)
    assert (key.get_secret_value(), source) == ("from-command", "key_command")
    key, source = resolve_key({}, "p", Profile(key="from-file"))  # type: ignore[arg-type]
    assert (key.get_secret_value(), source) == ("from-file", "config file")


def test_keyring_used_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeKeyring:
        store: dict[tuple[str, str], str] = {}

        @classmethod
        def get_password(cls, service: str, user: str) -> str | None:
            return cls.store.get((service, user))

        @classmethod
        def set_password(cls, service: str, user: str, value: str) -> None:
            cls.store[(service, user)] = value

    monkeypatch.setattr(keys, "_keyring", lambda: FakeKeyring)
    assert keys.store_in_keyring("eu", "ring-key")
    key, source = resolve_key({}, "eu", Profile())
    assert (key.get_secret_value(), source) == ("ring-key", "keyring")


def test_no_keyring_no_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keys, "_keyring", lambda: None)
    assert not keys.store_in_keyring("eu", "x")
    with pytest.raises(KeySourceError, match=r"no API key: set WATCHDECK_API_KEY .* key_command in \[profiles.eu\]"):
        resolve_key({}, "eu", Profile())
