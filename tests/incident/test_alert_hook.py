"""The on_alert hook: a real subprocess, no shell, JSON on stdin, 10 s limit, never the key."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path

from tui.state.io.alert_hooks import AlertHook, hook_environment

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
    assert not result.ok and result.message == "timed out after 0.3s"
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


FLOOD = """
import sys
import threading
import time
chunk = "x" * 65536 + "\\n"
for _ in range(320):
    sys.stderr.write(chunk)
sys.stderr.write("last line \\x1b]52;c;aGk=\\x07\\x1b[2J\\x9b5m done\\n")
sys.exit(3)
"""


async def test_hook_output_is_bounded_and_its_last_line_cleaned() -> None:
    """20 MB on stderr: the dashboard keeps 64 KB of it, and the line it shows has no escape sequence."""
    import tracemalloc

    hook = AlertHook([sys.executable, "-c", FLOOD], KEY)
    tracemalloc.start()
    try:
        result = await hook.send({"event": "opened"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.message == "exit 3: last line  done"
    assert peak < 4 * 1024 * 1024, f"{peak} bytes held while the hook wrote 20 MB"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


LEAVES_A_CHILD = """
import subprocess, sys, time
child = subprocess.Popen(["sleep", "60"])
open(sys.argv[1], "w").write(str(child.pid))
time.sleep(60)
"""


async def _ends(pid: int, within: float = 10.0) -> bool:
    """A SIGKILL is delivered asynchronously: the process is gone once the kernel has ended it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while _alive(pid):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def _child_of(pid_file: Path, task: asyncio.Task[object]) -> int:
    while not pid_file.exists() or not pid_file.read_text():
        assert not task.done(), "the hook ended before it started its child"
        await asyncio.sleep(0.01)
    return int(pid_file.read_text())


async def test_hook_killed_at_its_time_limit_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child"
    hook = AlertHook([sys.executable, "-c", LEAVES_A_CHILD, str(pid_file)], KEY, timeout=2.0)
    task = asyncio.ensure_future(hook.send({"event": "opened"}))
    child = await _child_of(pid_file, task)
    result = await asyncio.wait_for(task, 30)  # not held up until the child ends on its own (60 s)
    assert result.message == "timed out after 2s"
    assert await _ends(child), "the sleep the hook started outlived the time limit"


async def test_hook_killed_with_what_it_started_when_the_dashboard_exits(tmp_path: Path) -> None:
    """The app cancels its workers on exit; a cancelled send ends the hook's whole group."""
    pid_file = tmp_path / "child"
    hook = AlertHook([sys.executable, "-c", LEAVES_A_CHILD, str(pid_file)], KEY, timeout=60.0)
    task = asyncio.ensure_future(hook.send({"event": "opened"}))
    child = await _child_of(pid_file, task)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 30)
    assert await _ends(child), "the sleep the hook started outlived the dashboard"


async def test_hook_json_escapes_c1_and_bidi_characters_and_keeps_other_text(tmp_path: Path) -> None:
    out = tmp_path / "got.jsonl"
    hook = AlertHook([sys.executable, "-c", RECORDER, str(out)], KEY)
    detail = "a\x9b2Jb \x9d0;t\x07 \u202eevil 全角 café"
    assert (await hook.send({"event": "opened", "detail": detail})).ok
    raw = json.loads(out.read_text())["body"]
    assert raw["detail"] == detail, "the hook reads the same text"
    from tui.state.io.alert_hooks import hook_json

    line = hook_json({"detail": detail})
    assert not any(ch in line for ch in "\x9b\x9d\u202e\x07"), line
    assert "\\u009b" in line and "\\u202e" in line and "全角 café" in line


def _children() -> set[int]:
    """This process's children, as the kernel lists them for the thread that forks them (this one)."""
    listed = Path(f"/proc/self/task/{threading.get_native_id()}/children").read_text()
    return {int(pid) for pid in listed.split()}


async def test_hook_cancelled_while_it_starts_is_killed_with_what_it_started(tmp_path: Path) -> None:
    """The dashboard exits while a hook is starting, on a machine so busy that the hook has started a child before
    the event loop has connected the hook's pipes: the send ends at once, and the hook's whole group with it (asyncio,
    cancelled there, kills the hook alone and waits for its pipes, which the child keeps open for 60 s)."""
    pid_file = tmp_path / "child"
    hook = AlertHook([sys.executable, "-c", LEAVES_A_CHILD, str(pid_file)], KEY, timeout=60.0)
    before = _children()
    task = asyncio.ensure_future(hook.send({"event": "opened"}))
    while _children() <= before:  # until the hook is forked: its pipes are connected a few turns of the loop later
        assert not task.done(), "the send ended before it started the hook"
        await asyncio.sleep(0)
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():  # the event loop held, as a busy machine holds it
        assert time.monotonic() < deadline, "the hook did not start its child"
        time.sleep(0.01)
    child = int(pid_file.read_text())
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 30)  # not held up until the child ends on its own (60 s)
    assert await _ends(child), "the sleep the hook started outlived the dashboard"
