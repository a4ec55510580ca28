"""Where the cache setting comes from: on by default from the command line, Redis from the profile or a flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.cli.main import build_parser, overrides_from
from tui.config import ConfigError
from tui.config.resolve import resolve_settings


def _env(tmp_path: Path, profile: str = "") -> dict[str, str]:
    folder = tmp_path / "cfg"
    folder.mkdir(exist_ok=True)
    if profile:
        (folder / "config.toml").write_text(profile, encoding="utf-8")
        (folder / "config.toml").chmod(0o600)
    return {"WATCHDECK_CONFIG_DIR": str(folder), "WATCHDECK_STATE_DIR": str(tmp_path / "state"),
            "WATCHDECK_API_KEY": "k" * 20}


def _resolve(argv: list[str], env: dict[str, str]):  # type: ignore[no-untyped-def]
    return resolve_settings(overrides_from(build_parser().parse_args(argv)), env)


def test_the_command_line_shares_answers_through_sqlite_by_default(tmp_path: Path) -> None:
    settings = _resolve(["--base-url", "http://127.0.0.1:1", "--project", "1"], _env(tmp_path))
    assert settings.cache and settings.cache_url is None
    off = _resolve(["--base-url", "http://127.0.0.1:1", "--project", "1", "--no-cache"], _env(tmp_path))
    assert not off.cache


def test_redis_from_the_profile_or_the_flag_which_wins(tmp_path: Path) -> None:
    env = _env(tmp_path, '[profiles.wall]\nbase_url = "http://127.0.0.1:1"\nproject = "1"\n'
                         'cache_url = "redis://wall:6379/0"\n')
    assert _resolve([], env).cache_url == "redis://wall:6379/0"
    assert _resolve(["--cache-url", "redis://other:6379/1"], env).cache_url == "redis://other:6379/1"


def test_a_cache_url_that_is_not_redis_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--cache-url", "http://cache:6379"])
    assert "redis://" in capsys.readouterr().err
    env = _env(tmp_path, '[profiles.wall]\nbase_url = "http://127.0.0.1:1"\nproject = "1"\n'
                         'cache_url = "memcached://x"\n')
    with pytest.raises(ConfigError, match="cache_url"):
        _resolve([], env)
