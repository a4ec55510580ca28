"""An exception nothing handled: one line on stderr, the traceback in errors.log, no frame's locals anywhere."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SETTINGS_KEY = "phx_settings_secret_5678"
LOCAL_KEY = "phx_local_secret_1234"

# A real app run (headless: no terminal in a test) whose monitor screen fails as it is built.
SCRIPT = textwrap.dedent(f"""
    import sys
    from tui.app import WatchdeckApp
    from tui.config import Settings
    from tui.screens.monitor import MonitorScreen

    def broken_compose(self):
        api_key = {LOCAL_KEY!r}  # a local variable a pretty traceback would print
        raise RuntimeError("a bug on the way in " + str(len(api_key)))

    MonitorScreen.compose = broken_compose
    settings = Settings(base_url="http://127.0.0.1:9", api_key={SETTINGS_KEY!r}, project_ids=["1"], bell=False)
    app = WatchdeckApp(settings)
    app.run(headless=True, size=(100, 30))
    sys.exit(app.return_code or 0)
""")


# The first-run welcome app is another App: the same rule.
WELCOME_SCRIPT = textwrap.dedent(f"""
    import sys
    from tui.screens.welcome import WelcomeApp, WelcomeScreen

    def broken_compose(self):
        api_key = {LOCAL_KEY!r}
        raise RuntimeError("a bug on the way in " + str(len(api_key)))

    WelcomeScreen.compose = broken_compose
    app = WelcomeApp(env={{}})
    app.run(headless=True, size=(100, 30))
    sys.exit(app.return_code or 0)
""")


@pytest.mark.parametrize("script", [SCRIPT, WELCOME_SCRIPT], ids=["dashboard", "welcome"])
def test_an_unexpected_exception_is_one_line_on_stderr_and_a_traceback_in_the_log(tmp_path: Path,
                                                                                   script: str) -> None:
    env = dict(os.environ, **{f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("CONFIG", "DATA", "STATE")})
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120, check=False)
    err = done.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    log = tmp_path / "state" / "errors.log"
    assert lines == [f"watchdeck: unexpected error: RuntimeError: a bug on the way in 21; details in {log}"], err
    assert done.returncode == 1
    out = done.stdout.decode("utf-8", "replace")
    for text in (err, out):
        assert "Traceback" not in text and LOCAL_KEY not in text and SETTINGS_KEY not in text
    logged = log.read_text()
    assert "Traceback" in logged and "broken_compose" in logged and "a bug on the way in" in logged
    assert LOCAL_KEY not in logged and SETTINGS_KEY not in logged, "no locals, no key in the log"
    assert logged.count("Traceback") == logged.count("--- "), "every failure logged, each with its traceback"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_ctrl_c_while_the_command_loads_ends_it_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """ctrl+c in the first moments (the imports) printed a KeyboardInterrupt traceback; it exits 130 instead."""
    from tui.cli import launch, startup

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(startup, "skip_httpx_cli", interrupted)
    assert launch.main() == 130
