"""Every command's output, against a server whose every name, error and survey is hostile, into a real terminal.

Each command runs as the operator runs it (a process, its stdout and stderr a pty) against the sandbox planted as
the every-key sweep plants it (tests/security/test_hostile_sweep.py), and against answers whose error details are
hostile. Whatever reaches the terminal must hold no control byte (C0 but tab, newline and carriage return; ESC; C1;
bidi overrides and isolates), and neither must the files other programs show (the journal, a hook's JSON as
``jq -r`` prints its fields) nor the ``/metrics`` page. Machine formats keep the values (JSON escapes them).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from yaml import safe_load

from tests.security.test_hostile_sweep import FROZEN_AT, HOSTILE, SEQUENCES, _plant
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
TIMEOUT = 60.0


def forbidden(text: str) -> list[str]:
    return sorted({f"U+{ord(ch):04X}" for ch in FORBIDDEN.findall(text)})


@pytest.fixture
def hostile() -> Iterator[SandboxHandle]:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), summary_delay=(0.0, 0.0))
    with start_sandbox(options) as handle:
        _plant(handle)
        with handle.state.db.transaction() as c:  # a status no version knows: its reason names it
            c.execute("UPDATE runs SET status = ? WHERE id = (SELECT id FROM runs ORDER BY created_at DESC LIMIT 1)",
                      (f"Odd{SEQUENCES}",))
        yield handle


@pytest.fixture
def environ(tmp_path: Path, hostile: SandboxHandle) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDECK_")}
    env |= {f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("CONFIG", "DATA", "STATE", "CACHE")}
    env |= {"WATCHDECK_BASE_URL": hostile.base_url, "WATCHDECK_API_KEY": hostile.api_key,
            "WATCHDECK_PROJECT_ID": str(hostile.project_id), "NO_COLOR": "1", "PYTHONPATH": str(ROOT),
            "TERM": "xterm"}
    return env


def in_a_terminal(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[int, str]:
    """Run ``watchdeck ARGS`` with stdout and stderr on one pty; its exit code and everything it wrote."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tui", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the last writer closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                continue  # whatever is left is read on the next turns, until EIO
        code = process.wait(timeout=TIMEOUT)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return code, output.decode("utf-8", errors="replace")


def _survey_id(handle: SandboxHandle) -> str:
    with handle.state.db.transaction() as c:
        row = c.execute("SELECT id FROM surveys WHERE project_id = ? ORDER BY created_at LIMIT 1",
                        (int(handle.project_id),)).fetchone()
    return str(row[0])


def _fault(handle: SandboxHandle, **fault: Any) -> None:
    with httpx.Client(base_url=handle.base_url, timeout=10, verify=False) as admin:
        admin.delete("/_sandbox/faults/")
        if fault:
            assert admin.post("/_sandbox/faults/", json=fault).status_code in (200, 201)


@pytest.mark.slow
def test_every_command_writes_no_control_byte_to_the_terminal(hostile: SandboxHandle, environ: dict[str, str],
                                                               tmp_path: Path) -> None:
    survey_id = _survey_id(hostile)
    changed = tmp_path / "survey.json"
    code, text = in_a_terminal(["surveys", "get", survey_id], environ)
    assert code == 0, text
    # The file as a pipe gets it: the server's text exactly, the hostile name and all, escaped.
    for yaml in (False, True):
        command = [sys.executable, "-m", "tui", "surveys", "get", survey_id, *(["--yaml"] if yaml else [])]
        piped = subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True, check=True).stdout
        assert forbidden(piped) == []
        document = safe_load(piped) if yaml else json.loads(piped)
        assert document["name"] == HOSTILE + survey_id
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({**document, f"colour\x1b]52;c;aGk=\x07{SEQUENCES}": 1}), encoding="utf-8")
    changed.write_text(json.dumps({**document, "name": f"renamed {SEQUENCES}",
                                   "description": f"{HOSTILE}\x9d unterminated AFTER"}), encoding="utf-8")
    created = tmp_path / "new.json"
    created.write_text(json.dumps({k: v for k, v in json.loads(changed.read_text()).items() if k != "id"}))
    runs: dict[str, tuple[int, str]] = {"surveys get": (code, text)}
    for name, args in {
        "status": ["status", "--no-cache"],
        "status --json": ["status", "--no-cache", "--json"],
        "status --format openmetrics": ["status", "--no-cache", "--format", "openmetrics"],
        "surveys get --yaml": ["surveys", "get", survey_id, "--yaml"],
        "surveys list": ["surveys", "list"],
        "surveys apply --dry-run (unknown key)": ["surveys", "apply", str(unknown), "--dry-run"],
        "surveys apply --dry-run": ["surveys", "apply", str(changed), "--dry-run", "--no-cache"],
        "surveys apply": ["surveys", "apply", str(changed), "--no-cache"],
    }.items():
        runs[name] = in_a_terminal(args, environ)
    detail = json.dumps({"type": "validation_error", "code": "invalid", "attr": "name",
                         "detail": f"refused {SEQUENCES} {HOSTILE}"})
    _fault(hostile, kind="body", status=400, body=detail, path="/surveys/$")
    runs["surveys apply (refused)"] = in_a_terminal(["surveys", "apply", str(created), "--no-cache"], environ)
    _fault(hostile, kind="body", status=500, body=json.dumps({"detail": f"denied {SEQUENCES}"}), path="/batch_exports/")
    runs["status (500)"] = in_a_terminal(["status", "--no-cache"], environ)
    _fault(hostile, kind="body", status=503, body=json.dumps({"detail": f"down {SEQUENCES}"}), path="/surveys/")
    runs["surveys list (503)"] = in_a_terminal(["surveys", "list"], environ)
    runs["surveys get (503)"] = in_a_terminal(["surveys", "get", survey_id], environ)
    _fault(hostile)

    leaks = {name: forbidden(text) for name, (_, text) in runs.items() if forbidden(text)}
    assert leaks == {}, {name: runs[name][1][:3000] for name in leaks}
    # Each command ran and showed the hostile text (cleaned), or the error it was meant to meet.
    codes = {name: code for name, (code, _) in runs.items()}
    assert codes == {"surveys get": 0, "status": 1, "status --json": 1, "status --format openmetrics": 1,
                     "surveys get --yaml": 0, "surveys list": 0, "surveys apply --dry-run (unknown key)": 1,
                     "surveys apply --dry-run": 0, "surveys apply": 0, "surveys apply (refused)": 1,
                     "status (500)": 2, "surveys list (503)": 2, "surveys get (503)": 2}, codes
    assert "nul" in runs["status"][1] and "evil" in runs["status"][1] and "a status this version does not know" in (
        runs["status"][1])
    assert "colour" in runs["surveys apply --dry-run (unknown key)"][1]
    assert "unterminated AFTER" in runs["surveys apply --dry-run"][1]  # an unterminated OSC takes nothing after it
    assert "denied" in runs["status (500)"][1] and "refused" in runs["surveys apply (refused)"][1]
    # JSON keeps every value, escaped: the names as the server sent them.
    report = json.loads(runs["status --json"][1].replace("\r\n", "\n"))
    assert all(export["name"].startswith(HOSTILE) for export in report["exports"]) and report["exports"]

    journal = Path(environ["WATCHDECK_DATA_DIR"]) / "journal.jsonl"
    lines = journal.read_bytes().splitlines()
    assert lines and all(line.isascii() for line in lines)
    entries = [json.loads(line) for line in lines]
    assert [e["result"].split(":")[0] for e in entries] == ["ok", "failed"]
    assert entries[0]["name"] == f"renamed {SEQUENCES}"  # the name saved, kept exactly, escaped


def test_the_exporter_writes_no_control_byte_to_its_terminal_or_its_page(hostile: SandboxHandle,
                                                                          environ: dict[str, str]) -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tui", "metrics", "--listen", "127.0.0.1:0", "--no-cache",
                                "--poll", "300"], cwd=ROOT, env=environ, stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=slave, close_fds=True)
    os.close(slave)
    output = bytearray()
    page = ""
    try:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                output += os.read(master, 65536)
            found = re.search(rb"serving (http://\S+/metrics)", output)
            if found:
                page = httpx.get(found.group(1).decode(), timeout=10, verify=False).text
                if "watchdeck_export_healthy{" in page:
                    break
        process.terminate()
        process.wait(timeout=TIMEOUT)
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert "watchdeck_export_healthy{" in page, output.decode(errors="replace")
    assert "nul" in page and "evil" in page
    assert forbidden(page) == []
    assert forbidden(output.decode("utf-8", errors="replace")) == [], output


def test_a_hooks_json_carries_no_control_character_in_any_field(tmp_path: Path) -> None:
    """What ``jq -r .export`` prints of a hook's input: each field decoded, as a hook's program reads it."""
    import asyncio
    from datetime import UTC, datetime

    from tui.state.alert_book import Alert, AlertKind
    from tui.state.io.alert_hooks import AlertHook

    received = tmp_path / "alert.json"
    alert = Alert(id=1, key="1:e", project_id="1", export_id="e", export_name=HOSTILE, kind=AlertKind.FAILING,
                  detail="2 failed runs in a row", since=datetime(2026, 1, 1, tzinfo=UTC),
                  opened_at=datetime(2026, 1, 1, tzinfo=UTC))
    hook = AlertHook(["sh", "-c", f"cat > {received}"], secret=None)
    assert asyncio.run(hook.send(alert.to_json("opened"))).ok
    raw = received.read_text(encoding="utf-8")
    assert forbidden(raw) == []
    fields = json.loads(raw)
    shown = {name: value for name, value in fields.items() if isinstance(value, str) and forbidden(value)}
    assert shown == {}
    assert "evil" in fields["export"] and "evil" in fields["summary"]
