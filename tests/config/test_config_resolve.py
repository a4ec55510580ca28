"""Precedence (flag > env > profile > default), profiles, bad files, permissions, plain http, saving."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tui.config import (
    DEFAULT_POLL_SECONDS,
    ConfigError,
    InsecureUrl,
    load_config,
    remember_project,
    remembered_project,
    save_profile,
)
from tui.config.resolve import NeedsSetup, Overrides, resolve_settings

PROFILES = """\
# my profiles
default_profile = "us"

[profiles.us]
base_url = "https://us.example.com"
project = "10"
exports = ["e-us"]
poll = 30
key_command = ["{python}", "-c", "print('key-from-command')"]

[profiles.eu]
base_url = "https://eu.example.com"
projects = [20, "21"]
read_only = true
bell = false
lag_alert_intervals = 3
key = "key-in-file"

[keymap]
"app.quit" = "ctrl+q"
""".replace("{python}", sys.executable.replace("\\", "\\\\"))


def test_defaults_from_flags_and_env_only(env: dict[str, str]) -> None:
    env |= {"WATCHDECK_BASE_URL": "https://env.example.com/", "WATCHDECK_API_KEY": "k-env",
            "WATCHDECK_PROJECT_ID": "1, 2"}
    settings = resolve_settings(Overrides(), env)
    assert settings.base_url == "https://env.example.com"
    assert settings.project_ids == ["1", "2"]
    assert settings.poll_seconds == DEFAULT_POLL_SECONDS
    assert settings.key_source == "environment"
    assert settings.profile is None and settings.warnings == []


def test_flag_beats_env_beats_profile(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config(PROFILES)
    # profile only
    settings = resolve_settings(Overrides(), env)
    assert (settings.profile, settings.base_url, settings.project_ids) == ("us", "https://us.example.com", ["10"])
    assert settings.export_ids == ["e-us"] and settings.poll_seconds == 30
    assert settings.api_key.get_secret_value() == "key-from-command" and settings.key_source == "key_command"
    assert settings.keymap == {"app.quit": "ctrl+q"}
    # env beats profile
    env |= {"WATCHDECK_BASE_URL": "https://env.example.com", "WATCHDECK_PROJECT_ID": "11",
            "WATCHDECK_API_KEY": "k-env"}
    settings = resolve_settings(Overrides(), env)
    assert (settings.base_url, settings.project_ids) == ("https://env.example.com", ["11"])
    assert settings.api_key.get_secret_value() == "k-env" and settings.key_source == "environment"
    assert settings.poll_seconds == 30  # the profile still fills what neither flag nor env says
    # flags beat env
    settings = resolve_settings(
        Overrides(base_url="https://flag.example.com", projects=["12", "13,14"], exports=["e-flag"], poll=5), env)
    assert settings.base_url == "https://flag.example.com"
    assert settings.project_ids == ["12", "13", "14"]
    assert settings.export_ids == ["e-flag"] and settings.poll_seconds == 5


def test_profile_choice_order(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config(PROFILES)
    assert resolve_settings(Overrides(), env).profile == "us"  # default_profile
    env["WATCHDECK_PROFILE"] = "eu"
    eu = resolve_settings(Overrides(), env)
    assert eu.profile == "eu" and eu.project_ids == ["20", "21"]
    assert eu.read_only and eu.bell is False and eu.lag_alert_intervals == 3
    assert eu.key_source == "config file" and eu.api_key.get_secret_value() == "key-in-file"
    assert resolve_settings(Overrides(profile="us"), env).profile == "us"  # flag beats env
    with pytest.raises(ConfigError, match=r"no profile 'mars' in .*config.toml; profiles: eu, us"):
        resolve_settings(Overrides(profile="mars"), env)


def test_only_profile_is_used_without_default(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config('[profiles.solo]\nbase_url = "https://solo.example.com"\nproject = "3"\n')
    env["WATCHDECK_API_KEY"] = "k"
    assert resolve_settings(Overrides(), env).profile == "solo"


def test_nothing_configured_needs_setup(env: dict[str, str]) -> None:
    with pytest.raises(NeedsSetup, match="nothing to connect to"):
        resolve_settings(Overrides(), env)
    env["WATCHDECK_API_KEY"] = "k"  # a key alone does not say where to connect
    with pytest.raises(NeedsSetup):
        resolve_settings(Overrides(), env)


def test_several_profiles_and_no_default_needs_setup(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config('[profiles.a]\nbase_url = "https://a.example.com"\n[profiles.b]\nbase_url = "https://b.example.com"\n')
    with pytest.raises(NeedsSetup, match="several profiles") as caught:
        resolve_settings(Overrides(), env)
    assert caught.value.config is not None and set(caught.value.config.profiles) == {"a", "b"}


def test_missing_pieces_are_one_line_errors(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="no API key"):
        resolve_settings(Overrides(base_url="https://x.example.com", projects=["1"]), env)
    env["WATCHDECK_API_KEY"] = "k"
    with pytest.raises(ConfigError, match="no project"):
        resolve_settings(Overrides(base_url="https://x.example.com"), env)
    with pytest.raises(ConfigError, match="no server"):
        resolve_settings(Overrides(projects=["1"]), env)
    with pytest.raises(ConfigError, match="not an http"):
        resolve_settings(Overrides(base_url="ftp://x", projects=["1"]), env)


# --------------------------------------------------------------------------- plain http


def test_plain_http_off_machine_is_refused_unless_allowed(env: dict[str, str]) -> None:
    env["WATCHDECK_API_KEY"] = "k"
    with pytest.raises(InsecureUrl, match=r"plain http to intranet\.example\.com.*--allow-insecure-http"):
        resolve_settings(Overrides(base_url="http://intranet.example.com", projects=["1"]), env)
    ok = resolve_settings(Overrides(base_url="http://intranet.example.com", projects=["1"],
                                    allow_insecure_http=True), env)
    assert ok.base_url == "http://intranet.example.com"
    for url in ("http://127.0.0.1:8010", "http://localhost:8010", "http://[::1]:8010"):
        assert resolve_settings(Overrides(base_url=url, projects=["1"]), env).base_url == url


def test_profile_may_allow_plain_http(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config('[profiles.lan]\nbase_url = "http://10.0.0.5"\nproject = "1"\nallow_insecure_http = true\n')
    env["WATCHDECK_API_KEY"] = "k"
    assert resolve_settings(Overrides(), env).base_url == "http://10.0.0.5"


# --------------------------------------------------------------------------- permissions


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_key_in_a_readable_file_warns(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    text = '[profiles.p]\nbase_url = "https://p.example.com"\nproject = "1"\nkey = "secret-in-file"\n'
    path = write_config(text, mode=0o644)
    settings = resolve_settings(Overrides(), env)
    assert len(settings.warnings) == 1
    assert "holds an API key" in settings.warnings[0] and "0644" in settings.warnings[0]
    assert f"chmod 600 {path}" in settings.warnings[0]
    assert "secret-in-file" not in settings.warnings[0]
    os.chmod(path, 0o600)
    assert resolve_settings(Overrides(), env).warnings == []


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_readable_file_without_key_does_not_warn(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config('[profiles.p]\nbase_url = "https://p.example.com"\nproject = "1"\n', mode=0o644)
    env["WATCHDECK_API_KEY"] = "k"
    assert resolve_settings(Overrides(), env).warnings == []


# --------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[profiles.us]\nbase_url = "https://x"\nproject = \n', r"config.toml, line 3: not valid TOML"),
        ('default_profile = "us"\n[profiles.us\n', r"config.toml, line 2: not valid TOML"),
        ('\n\n[profiles.us]\nbase_url = "https://x.example.com"\npoll = "fast"\n',
         r"config.toml, line 5: profiles\.us\.poll: Input should be a valid number"),
        ('[profiles.us]\nbase_url = "https://x.example.com"\npoll = 1\n',
         r"line 3: profiles\.us\.poll: poll interval must be at least 2s"),
        ('[profiles.us]\nproject = "1"\nbase_url = "gopher://x"\n', r"line 3: profiles\.us\.base_url: base URL"),
        ('[profiles.us]\nbase_url = "https://x.example.com"\nprojcet = "1"\n',
         r"line 3: profiles\.us\.projcet: unknown key"),
        ('default_profile = "mars"\n[profiles.us]\nbase_url = "https://x.example.com"\n',
         r"default_profile 'mars' is not a profile here \(profiles: us\)"),
        ('[profiles.us]\nproject = "1"\nprojects = ["2"]\n', r"line 1: profiles\.us: use either project or projects"),
        ('[profiles.us]\nread_only = "yes"\nbell = 3\n',
         r"line 2: profiles\.us\.read_only: Input should be a valid boolean.*\(and 1 more problem\)"),
        ('colour = "red"\n', r"line 1: colour: unknown key"),
    ],
)
def test_bad_file_is_one_error_with_key_and_line(env: dict[str, str], write_config: Callable[..., Path],
                                                 text: str, expected: str) -> None:
    path = write_config(text)
    with pytest.raises(ConfigError, match=expected) as caught:
        resolve_settings(Overrides(), env)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))


# --------------------------------------------------------------------------- saving


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_save_profile_creates_private_file_without_key(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "config.toml"
    save_profile(path, "us", {"base_url": "https://us.example.com", "project": "7", "key": "never-written"},
                 make_default=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert "never-written" not in text
    config = load_config(path)
    assert config is not None and config.default_profile == "us"
    assert config.profiles["us"].project_ids == ["7"] and config.profiles["us"].key is None


def test_save_profile_keeps_comments_and_replaces_its_own_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# keep me\ndefault_profile = "eu"\n\n[profiles.eu]\nbase_url = "https://eu.example.com"\n'
                    '\n[profiles.us]\nbase_url = "https://old.example.com"\nproject = "1"\n\n[keymap]\n"a.b" = "x"\n')
    save_profile(path, "us", {"base_url": "https://new.example.com", "project": "2", "key_command": "pass x"})
    text = path.read_text()
    assert text.startswith("# keep me\n") and "old.example.com" not in text
    config = load_config(path)
    assert config is not None
    assert config.default_profile == "eu" and config.keymap == {"a.b": "x"}
    assert config.profiles["us"].base_url == "https://new.example.com"
    assert config.profiles["us"].key_command == "pass x"
    assert config.profiles["eu"].base_url == "https://eu.example.com"
    with pytest.raises(ConfigError, match="profile name"):
        save_profile(path, "bad name!", {})


# --------------------------------------------------------------------------- remembered project


def test_remembered_project_per_profile(env: dict[str, str], write_config: Callable[..., Path]) -> None:
    write_config('default_profile = "one"\n[profiles.one]\nbase_url = "https://o.example.com"\nproject = "1"\n'
                 '[profiles.wall]\nbase_url = "https://o.example.com"\nprojects = ["1", "2", "3"]\n')
    env["WATCHDECK_API_KEY"] = "k"
    assert remembered_project("one", env) is None
    remember_project("one", "9", env)
    remember_project("wall", "3", env)
    assert remembered_project("one", env) == "9"
    assert resolve_settings(Overrides(), env).project_ids == ["9"]
    # a wall of several projects keeps them all, the picked one first
    assert resolve_settings(Overrides(profile="wall"), env).project_ids == ["3", "1", "2"]
    # flags and env still win
    assert resolve_settings(Overrides(projects=["5"]), env).project_ids == ["5"]
    Path(env["WATCHDECK_STATE_DIR"], "projects.json").write_text("not json")
    assert remembered_project("one", env) is None


def test_save_profile_keeps_comments_inside_the_profile_and_its_unknown_settings(tmp_path: Path) -> None:
    """A save updates only the values the form has: comments on and between lines, and hand-written settings stay."""
    path = tmp_path / "config.toml"
    original = ('# watchdeck settings\n\n[profiles.eu]\n# the production project\nbase_url = "https://eu.example.com"\n'
                'project = "1"  # acme prod\npoll = 30\non_alert = ["notify-send", "watchdeck"]\n\n'
                '[keymap]\n"monitor.pause" = "f6"  # my key\n')
    path.write_text(original)
    save_profile(path, "eu", {"base_url": "https://eu.example.com", "project": "2", "poll": None},
                 make_default=True)
    text = path.read_text()
    assert "# the production project\n" in text and '"f6"  # my key' in text
    assert 'project = "2"' in text and "# acme prod" in text  # the value changed, its comment stayed
    assert "poll" not in text
    config = load_config(path)
    assert config is not None and config.default_profile == "eu"
    assert config.profiles["eu"].project_ids == ["2"] and config.profiles["eu"].on_alert == ["notify-send", "watchdeck"]
    assert text.index("default_profile") < text.index("[profiles.eu]")
