"""The on_alert hook: a real subprocess, no shell, JSON on stdin, 10 s limit, never the key."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tui.state.alert_hooks import AlertHook, hook_environment

KEY = "phx_secretsecretsecret"

RECORDER = """
import json, os, sys
body = sys.stdin.read()
with open(sys.argv[1], "a") as out:
    out.write(json.dumps({"body": json.loads(body), "env": dict(os.environ), "argv": sys.argv[2:]}) + "\\n")
"""


async def test_hook_gets_the_alert_on_stdin_without_the_key(tmp_path: Path) -> None:
    out = tmp_path / "got.jsonl"
    environ = {"PATH": "/usr/bin:/bin", "WATCHDECK_API_KEY": KEY, "OTHER": f"Bearer {KEY}", "CHAT_URL": "https://x"}
    hook = AlertHook([sys.executable, "-c", RECORDER, str(out), "$HOME", "a;b"], KEY, environ=environ)
    result = await hook.send({"event": "opened", "detail": f"error quoting {KEY}"})
    assert result.ok, result.message
    got = json.loads(out.read_text())
    assert got["body"] == {"event": "opened", "detail": "error quoting ***"}
    assert got["argv"] == ["$HOME", "a;b"]  # no shell: nothing expanded or split
    assert "WATCHDECK_API_KEY" not in got["env"] and "OTHER" not in got["env"]
    assert got["env"]["CHAT_URL"] == "https://x"
    assert KEY not in out.read_text()


async def test_hook_that_hangs_is_killed_and_a_failure_is_named(tmp_path: Path) -> None:
    hang = AlertHook([sys.executable, "-c", "import time; time.sleep(30)"], KEY, timeout=0.3)
    result = await hang.send({"event": "opened"})
    assert not result.ok and result.message == "timed out after 0.3 s"
    failing = AlertHook([sys.executable, "-c", "import sys; sys.exit('chat is down')"], KEY)
    assert (await failing.send({})).message == "exit 1: chat is down"
    missing = AlertHook([str(tmp_path / "nope")], KEY)
    assert (await missing.send({})).message.startswith("could not start")


def test_environment_keeps_everything_else() -> None:
    assert hook_environment({"A": "1", "POSTHOG_API_KEY": "x"}, None) == {"A": "1"}


def test_profile_on_alert_is_a_list_of_arguments(tmp_path: Path) -> None:
    from tui.config import ConfigError, parse_config
    from tui.config.resolve import Overrides, resolve_settings

    path = tmp_path / "config.toml"
    path.write_text('[profiles.prod]\nbase_url = "https://eu.example.com"\nproject = "1"\n'
                    'on_alert = ["curl", "-sS", "-d", "@-", "https://chat.example.com/hook"]\n')
    path.chmod(0o600)
    settings = resolve_settings(Overrides(profile="prod"),
                                {"WATCHDECK_API_KEY": KEY, "WATCHDECK_CONFIG_DIR": str(tmp_path)})
    assert settings.on_alert == ["curl", "-sS", "-d", "@-", "https://chat.example.com/hook"]
    for bad in ('on_alert = []', 'on_alert = "curl -d @- https://x"'):
        try:
            parse_config(f'[profiles.prod]\nproject = "1"\n{bad}\n', path)
        except ConfigError as err:
            assert "on_alert" in str(err)
        else:
            raise AssertionError(f"accepted {bad}")
