"""``nan`` and ``inf`` read as numbers but make a poll that never comes: refused wherever a number is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tui.cli.main import main
from tui.config import Settings


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "Infinity", "NaN"])
@pytest.mark.parametrize("flag", ["--poll", "--grace"])
def test_the_command_line_refuses_non_finite_seconds(env: dict[str, str], capsys: pytest.CaptureFixture[str],
                                                     flag: str, value: str) -> None:
    # --poll belongs to the dashboard, --grace to `status`: both read the number before connecting anywhere.
    command = ["status"] if flag == "--grace" else []
    argv = [*command, "--base-url", "http://127.0.0.1:9", "--project", "1", f"{flag}={value}"]
    assert main(argv, env={**env, "WATCHDECK_API_KEY": "phx_k"}) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "not a finite number of seconds" in lines[0] and value in lines[0]


@pytest.mark.parametrize(("line", "key"), [("poll = nan", "poll"), ("poll = inf", "poll"),
                                           ("lag_alert_intervals = inf", "lag_alert_intervals")])
def test_the_config_file_refuses_non_finite_numbers(env: dict[str, str], capsys: pytest.CaptureFixture[str],
                                                    line: str, key: str) -> None:
    config = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[profiles.p]\nbase_url = "http://127.0.0.1:9"\nproject = "1"\n{line}\n')
    assert main(["status"], env={**env, "WATCHDECK_API_KEY": "phx_k"}) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert f"config.toml, line 4: profiles.p.{key}: must be a finite number" in lines[0] or \
        f"config.toml, line 4: profiles.p.{key}: poll interval must be a finite number" in lines[0], lines[0]


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_settings_refuse_a_non_finite_poll(value: float) -> None:
    with pytest.raises(ValidationError, match="finite"):
        Settings(base_url="http://127.0.0.1:9", api_key="phx_k", project_ids=["1"], poll_seconds=value)
