"""One alert per export per episode, against the sandbox: pages, acknowledgements and pauses as on-call sees them.

A Postgres outage makes every new attempt of the seed's 5-minute Postgres export start, run a few seconds and fail,
interval after interval, while its lag grows past the limit (20 minutes: two intervals plus the 10-minute grace). Its
verdict goes failing -> running -> failing -> ... -> overdue (an attempt running, lag over the limit) -> failing.
One clock is shared by the sandbox and the app; the sandbox moves only when the test moves it, and the app polls
whenever the export's newest attempt changed status group, so it sees every running and every failed phase. Between
an attempt's end and the next interval's end nothing happens in the sandbox, so the clock goes there in one move.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from textual.widgets import Static

from tests.incident.sandbox_admin import SandboxAdmin
from tests.monitor.conftest import select_export
from tests.pilot import settle
from tui.app import WatchdeckApp
from tui.cli.status import EXIT_OK, EXIT_PROBLEM, collect, to_json
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso
from tui.screens.confirm import ConfirmScreen
from tui.screens.monitor import MonitorScreen
from tui.state.health import status_group

HOOK = """
import sys
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(sys.stdin.read().strip() + "\\n")
"""
STEP_SECONDS = 10  # how far the shared clock moves between looks at the sandbox while an attempt is under way
FAILING = "Snowflake warehouse (hourly)"  # the seed's export whose latest run failed


def export_by(handle: SandboxHandle, *, destination: str | None = None, interval: str | None = None,
              name: str | None = None) -> tuple[str, str]:
    """(id, name) of the watched project's one export matching these."""
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, interval, data FROM exports WHERE deleted = 0 AND project_id = ?",
                         (int(handle.project_id),)).fetchall()
    found = []
    for row in rows:
        data = json.loads(row["data"])
        if ((destination is None or data["destination"]["type"] == destination)
                and (interval is None or row["interval"] == interval) and (name is None or data["name"] == name)):
            found.append((str(row["id"]), str(data["name"])))
    assert len(found) == 1, found
    return found[0]


def newest_status(handle: SandboxHandle, export_id: str) -> str:
    with handle.state.db.read() as c:
        row = c.execute("SELECT status FROM runs WHERE export_id = ? ORDER BY created_at DESC LIMIT 1",
                        (export_id,)).fetchone()
    return str(row["status"])


def seconds_to_next_run(handle: SandboxHandle, export_id: str) -> float:
    """Seconds until the end of the export's next interval: its next run is created a few seconds after that."""
    with handle.state.db.read() as c:
        row = c.execute("SELECT next_end FROM exports WHERE id = ?", (export_id,)).fetchone()
    return (parse_iso(row["next_end"]) - handle.clock.now()).total_seconds()


def monitor(app: Any) -> MonitorScreen:
    return next(s for s in app.screen_stack if isinstance(s, MonitorScreen))


async def poll(pilot: Any) -> None:
    await pilot.press("ctrl+r")
    await settle(pilot)


async def watch_attempts(pilot: Any, admin: SandboxAdmin, handle: SandboxHandle, export_id: str, key: str,
                         seconds: int, until: Any = None) -> list[str]:
    """Move the clock ``seconds``, polling each time the newest attempt changes status group; returns the verdict
    states the monitor showed for the export, one per poll. Stops early once ``until()`` holds.

    The clock moves ``STEP_SECONDS`` at a time while the newest attempt is under way, and straight to the end of
    the export's next interval once it has finished."""
    screen = monitor(pilot.app)
    states: list[str] = []
    shown = ""
    end = handle.clock.now() + timedelta(seconds=seconds)
    while handle.clock.now() < end:
        step: float = STEP_SECONDS
        if status_group(newest_status(handle, export_id)) != "running":
            step = max(step, seconds_to_next_run(handle, export_id))
        admin.pass_seconds(min(step, (end - handle.clock.now()).total_seconds()))
        group = status_group(newest_status(handle, export_id))
        if group != shown:
            shown = group
            await poll(pilot)
            facts = screen.board.facts(key)
            assert facts is not None
            states.append(str(facts.verdict.state))
            if until is not None and until():
                break
    return states


def heard(path: Path, export_id: str) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["export_id"] == export_id]


def app_with_hook(handle: SandboxHandle, clock: FrozenClock, tmp_path: Path) -> tuple[WatchdeckApp, Path]:
    out = tmp_path / "hook.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK, encoding="utf-8")
    settings = Settings(base_url=handle.base_url, api_key=handle.api_key, project_ids=[handle.project_id],
                        poll_seconds=300.0, bell=False, on_alert=[sys.executable, str(hook), str(out)])
    return WatchdeckApp(settings, clock=clock), out


async def test_attempts_alternating_running_and_failed_page_once_and_resolve_once(
        sandbox: SandboxHandle, admin: SandboxAdmin, clock: FrozenClock, tmp_path: Path) -> None:
    """Issue 24's measurement: one export that kept failing for 100 s sent 17 "opened" and 16 "resolved"."""
    export_id, _name = export_by(sandbox, destination="Postgres", interval="every 5 minutes")
    app, out = app_with_hook(sandbox, clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        key = next(k for k, item in screen.incident.desk.exports.items() if item.watched.export.id == export_id)
        assert screen.incident.desk.book.episode(key) is None

        admin("POST", "outages", destination="Postgres")
        states = await watch_attempts(pilot, admin, sandbox, export_id, key, 20 * 60)
        assert states.count("running") >= 2 and states.count("failing") >= 3, states
        assert "overdue" in states, f"the lag never crossed the limit: {states}"
        episode = screen.incident.desk.book.episode(key)
        assert episode is not None and episode.new
        assert [e["event"] for e in heard(out, export_id)] == ["opened"], "one page for the whole episode"

        # The destination is back: an attempt running is no proof; the first completed run ends the episode.
        admin("DELETE", "outages")
        await watch_attempts(pilot, admin, sandbox, export_id, key, 15 * 60,
                             until=lambda: screen.incident.desk.book.episode(key) is None)
        assert newest_status(sandbox, export_id) == "Completed"
        assert screen.incident.desk.book.episode(key) is None
        assert episode.resolution == "a run completed"

    events = heard(out, export_id)
    assert [e["event"] for e in events] == ["opened", "resolved"], events
    opened, resolved = events
    assert opened["episode_id"] == resolved["episode_id"] == opened["dedup_key"] == resolved["dedup_key"]
    assert opened["kind"] == "failing" and opened["severity"] == "error"
    assert opened["summary"].startswith(opened["export"] + ": failing")
    assert resolved["resolution"] == "a run completed"


async def test_an_acknowledgement_survives_the_kind_changing(
        sandbox: SandboxHandle, admin: SandboxAdmin, clock: FrozenClock, tmp_path: Path) -> None:
    export_id, name = export_by(sandbox, destination="Postgres", interval="every 5 minutes")
    app, out = app_with_hook(sandbox, clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        book = screen.incident.desk.book
        admin("POST", "outages", destination="Postgres")
        key = next(k for k, item in screen.incident.desk.exports.items() if item.watched.export.id == export_id)
        await watch_attempts(pilot, admin, sandbox, export_id, key, 10 * 60,
                             until=lambda: book.episode(key) is not None)
        episode = book.episode(key)
        assert episode is not None and str(episode.kind) == "failing" and book.is_marked(key)
        assert screen.board.facts(key).marked  # type: ignore[union-attr]

        select_export(app, name)
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot)
        assert episode.acknowledged_at is not None
        assert key not in {a.key for a in book.open_alerts}
        assert not screen.board.facts(key).marked  # type: ignore[union-attr]

        await watch_attempts(pilot, admin, sandbox, export_id, key, 30 * 60,
                             until=lambda: str(episode.kind) == "overdue")
        assert str(episode.kind) == "overdue", "the kind changed inside the episode"
        assert book.episode(key) is episode and episode.acknowledged_at is not None
        assert not book.is_marked(key) and not screen.board.facts(key).marked  # type: ignore[union-attr]
        assert key not in {a.key for a in book.open_alerts}
        # The marks, the count, the title and the pane are the same alerts.
        marked = {f.key for f in screen.board.rows(screen.now(), screen.incident_keys.marked_keys()).rows if f.marked}
        assert marked == {a.key for a in book.open_alerts}
        count = book.open_count
        status = str(screen.query_one("#monitor-status", Static).render())
        assert (f"{count} alert" in status) is (count > 0) and screen.incident_keys.alerts_words() == screen.sub_title
        assert screen.sub_title == (f"{count} alert{'s' if count != 1 else ''}" if count else "")
    assert [e["event"] for e in heard(out, export_id)] == ["opened"]


async def test_a_paused_export_whose_last_run_failed_is_paused_everywhere(
        sandbox: SandboxHandle, clock: FrozenClock) -> None:
    """Pausing quiets a failing export: the monitor shows it paused, its alert ends, ``status`` exits 0 for it."""
    export_id, _ = export_by(sandbox, name=FAILING)
    settings = Settings(base_url=sandbox.base_url, api_key=SecretStr(sandbox.api_key), project_ids=["1"])

    def status() -> tuple[int, dict[str, Any]]:
        report = asyncio.run(collect(settings, clock, [export_id]))
        data = to_json(report, settings)
        (row,) = data["exports"]
        return report.exit_code, row

    code, row = await asyncio.to_thread(status)
    assert (code, row["state"]) == (EXIT_PROBLEM, "failing")

    app = WatchdeckApp(Settings(base_url=sandbox.base_url, api_key=sandbox.api_key, project_ids=["1"],
                                poll_seconds=300.0, bell=False), clock=clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        key = select_export(app, FAILING)
        episode = screen.incident.desk.book.episode(key)
        assert episode is not None and screen.incident.desk.book.is_marked(key)
        await pilot.pause()
        await pilot.press("p")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        await poll(pilot)
        facts = screen.board.facts(key)
        assert facts is not None and str(facts.verdict.state) == "paused" and not facts.marked
        assert "the last run failed" in facts.verdict.reason
        assert screen.incident.desk.book.episode(key) is None and episode.resolution == "paused by the operator"

    code, row = await asyncio.to_thread(status)
    assert (code, row["state"]) == (EXIT_OK, "paused")
    assert "the last run failed" in row["reason"] and "Failed" in row["reason"]
