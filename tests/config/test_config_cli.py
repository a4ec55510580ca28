"""The command line: --version, --help, one-line start-up errors, no tracebacks, the key never shown."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tui import __version__
from tui.cli import main as cli
from tui.cli.main import main
from tui.config import Settings


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"], env={}) == 0
    assert capsys.readouterr().out.strip() == f"watchdeck {__version__}"


@pytest.mark.parametrize(
    ("argv", "flags"),
    [
        (["--help"], ["--version", "--demo", "--profile", "--base-url", "--project", "--export", "--poll",
                      "--read-only", "--allow-insecure-http", "status", "sandbox", "WATCHDECK_API_KEY"]),
        (["status", "--help"], ["--json", "--grace", "--profile", "--base-url", "--project", "--export",
                                "--allow-insecure-http", "exit"]),
    ],
)
def test_help_lists_every_flag(argv: list[str], flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv, env={}) == 0
    out = capsys.readouterr().out
    for flag in flags:
        assert flag in out, flag


def test_status_help_lists_only_what_status_uses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--help"], env={}) == 0
    out = capsys.readouterr().out
    assert "--json" in out and "--grace" in out
    assert "--poll" not in out and "--read-only" not in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--poll", "1"], "argument --poll: must be at least 2s"),
        (["--poll", "soon"], "not a number of seconds: 'soon'"),
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["status", "--grace", "-5"], "must not be negative"),
    ],
)
def test_usage_errors_are_one_line(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv, env={}) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and expected in err and err.startswith("watchdeck: ")


def test_config_errors_are_one_line(env: dict[str, str], write_config: Callable[..., Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    write_config('[profiles.us]\nbase_url = "https://x.example.com"\npoll = "often"\n')
    assert main([], env=env) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 3: profiles.us.poll" in err and "Traceback" not in err


def test_first_run_without_a_terminal_is_one_line(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([], env=env) == 2
    err = capsys.readouterr().err
    assert err.startswith("watchdeck: nothing to connect to") and err.count("\n") == 1


def test_plain_http_is_refused_on_the_command_line(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    env |= {"WATCHDECK_API_KEY": "phx_secret_1234", "WATCHDECK_PROJECT_ID": "1"}
    assert main(["status", "--base-url", "http://posthog.internal.example"], env=env) == 2
    err = capsys.readouterr().err
    assert "refusing to send the API key over plain http to posthog.internal.example" in err
    assert "phx_secret_1234" not in err


def test_unexpected_error_is_one_line_and_logged_without_the_key(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*args: object, **kwargs: object) -> int:
        raise RuntimeError("exploded while holding phx_secret_5678\nsecond line")

    monkeypatch.setattr(cli, "_run_dashboard", boom)
    env |= {"WATCHDECK_API_KEY": "phx_secret_5678", "WATCHDECK_BASE_URL": "https://x.example.com",
            "WATCHDECK_PROJECT_ID": "1"}
    assert main([], env=env) == 2
    err = capsys.readouterr().err
    log = Path(env["WATCHDECK_STATE_DIR"]) / "errors.log"
    assert err == f"watchdeck: unexpected error: RuntimeError: exploded while holding ***; details in {log}\n"
    text = log.read_text()
    assert "Traceback" in text and "RuntimeError" in text and "phx_secret_5678" not in text


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_permission_warning_goes_to_stderr(env: dict[str, str], write_config: Callable[..., Path],
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[Settings] = []

    def fake_dashboard(settings: Settings, clock: object = None) -> int:
        seen.append(settings)
        return 0

    monkeypatch.setattr(cli, "_run_dashboard", fake_dashboard)
    write_config('[profiles.p]\nbase_url = "https://p.example.com"\nproject = "1"\nkey = "phx_in_file"\n', 0o640)
    assert main([], env=env) == 0
    err = capsys.readouterr().err
    assert err.startswith("watchdeck: warning: ") and "readable by others (mode 0640)" in err
    assert "phx_in_file" not in err
    assert len(seen) == 1 and seen[0].warnings


def test_flags_reach_the_dashboard(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Settings] = []

    def fake_dashboard(settings: Settings, clock: object = None) -> int:
        seen.append(settings)
        return 0

    monkeypatch.setattr(cli, "_run_dashboard", fake_dashboard)
    env["WATCHDECK_API_KEY"] = "k"
    argv = ["--base-url", "https://x.example.com", "--project", "1", "--project", "2", "--export", "e1",
            "--poll", "7", "--read-only"]
    assert main(argv, env=env) == 0
    settings = seen[0]
    assert settings.project_ids == ["1", "2"] and settings.export_ids == ["e1"]
    assert settings.poll_seconds == 7 and settings.read_only
