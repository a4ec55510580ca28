"""Hooks that deliver: a failed ``on_alert`` hook is tried again with backoff, in order per episode, journaled.

The hooks are real programs (a Python script run without a shell, as an operator's would be); the delays are
shortened to milliseconds, and every wait is on a condition: the events delivered or given up.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import Static

from tui.screens.alerts import AlertsScreen
from tui.state.alert_book import Alert, AlertBook, Observation
from tui.state.io.alert_hooks import AlertHook
from tui.state.io.hook_outbox import HookOutbox
from tui.state.io.journal import ActionJournal

from .outage import Host, context, outage_desk
from .runs import NOW

KEY = "phx_" + "k" * 40
# Fails (exit 1) the first FAILS attempts at each (event, episode) named in argv[3:], "all" for every one;
# appends every attempt to argv[1] and every delivery to argv[2].
FLAKY = """
import json, sys
event = json.loads(sys.stdin.read())
name = event["event"] + " " + event["export_id"]
with open(sys.argv[1], "a", encoding="utf-8") as tries:
    tries.write(name + "\\n")
with open(sys.argv[1], encoding="utf-8") as tries:
    attempt = tries.read().splitlines().count(name)
fails, flaky = int(sys.argv[3]), sys.argv[4:]
if ("all" in flaky or name in flaky) and attempt <= fails:
    print(f"relay down (attempt {attempt})", file=sys.stderr)
    sys.exit(1)
with open(sys.argv[2], "a", encoding="utf-8") as out:
    out.write(json.dumps(event) + "\\n")
"""


def episode(key: str, book: AlertBook | None = None) -> tuple[Alert, Alert]:
    """An episode of export ``key``, opened and then resolved: the same alert, as each event saw it."""
    book = book or AlertBook()
    book.observe([Observation(key, "1", key, f"export {key}", "ok", "")], NOW)
    (alert,) = book.observe([Observation(key, "1", key, f"export {key}", "failing", "x", 1, "Failed")], NOW).opened
    book.observe([Observation(key, "1", key, f"export {key}", "ok", "", 0, "Completed")], NOW)
    return alert, alert


class Setup:
    def __init__(self, tmp_path: Path, fails: int, *flaky: str, retry_for: float = 60.0, timeout: float = 10.0,
                 limit: int = 100) -> None:
        script = tmp_path / "hook.py"
        script.write_text(FLAKY, encoding="utf-8")
        self.tries = tmp_path / "tries.txt"
        self.delivered = tmp_path / "delivered.jsonl"
        self.journal = tmp_path / "journal.jsonl"
        self.toasts: list[str] = []
        hook = AlertHook([sys.executable, str(script), str(self.tries), str(self.delivered), str(fails), *flaky],
                         KEY, timeout=timeout)
        self.outbox = HookOutbox(hook, ActionJournal(self.journal), profile="prod", first_delay=0.05,
                                 max_delay=0.2, retry_for=retry_for, limit=limit, on_failure=self.toasts.append)

    def heard(self) -> list[str]:
        lines = self.delivered.read_text(encoding="utf-8").splitlines() if self.delivered.exists() else []
        return [f"{e['event']} {e['export_id']}" for e in map(json.loads, lines)]

    def attempts(self) -> list[str]:
        return self.tries.read_text(encoding="utf-8").splitlines() if self.tries.exists() else []

    def journaled(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.journal.read_text(encoding="utf-8").splitlines()]

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        runner = asyncio.ensure_future(self.outbox.run())
        try:
            async with asyncio.timeout(60):
                while not condition():
                    await asyncio.sleep(0.02)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}: {self.attempts()}") from None
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)


async def test_a_hook_that_fails_twice_then_succeeds_delivers_opened_once(tmp_path: Path) -> None:
    setup = Setup(tmp_path, 2, "all")
    opened, _ = episode("a")
    setup.outbox.put("opened", opened)
    await setup.until(lambda: not setup.outbox.pending, "the event to be delivered")
    assert setup.heard() == ["opened a"], "delivered exactly once"
    assert setup.attempts() == ["opened a"] * 3
    journal = setup.journaled()
    assert [(e["action"], e["result"], e["detail"]["attempt"]) for e in journal] == [
        ("alert hook", "failed", 1), ("alert hook", "failed", 2), ("alert hook", "delivered", 3)]
    assert journal[0]["detail"]["error"] == "exit 1: relay down (attempt 1)"
    assert journal[0]["detail"]["next_attempt_in"] == 0.05 and journal[1]["detail"]["next_attempt_in"] == 0.1
    assert {e["detail"]["episode_id"] for e in journal} == {opened.episode_id}
    assert journal[0]["profile"] == "prod" and journal[0]["name"] == "export a"
    assert setup.toasts == ["on_alert hook: exit 1: relay down (attempt 1); trying again for up to 1m"]
    assert setup.outbox.undelivered == [] and KEY not in setup.journal.read_text()
    assert not setup.outbox.delivering and not setup.outbox.claim(), "nothing waits: no worker to start"
    setup.outbox.put("resolved", opened)
    assert setup.outbox.claim() and not setup.outbox.claim(), "one worker at a time"


async def test_resolved_waits_behind_its_failing_opened_but_another_episode_does_not(tmp_path: Path) -> None:
    """An episode's "resolved" never reaches the hook before its "opened", however that one fails; another
    export's page goes out meanwhile. "resolved" is retried as hard as "opened"."""
    setup = Setup(tmp_path, 2, "opened a", "resolved a")
    book = AlertBook()
    a_opened, a_resolved = episode("a", book)
    b_opened, _ = episode("b", book)
    setup.outbox.put("opened", a_opened)
    setup.outbox.put("resolved", a_resolved)
    setup.outbox.put("opened", b_opened)
    await setup.until(lambda: not setup.outbox.pending, "every event to be delivered")
    assert setup.heard() == ["opened b", "opened a", "resolved a"]
    assert setup.attempts().count("opened a") == 3 and setup.attempts().count("resolved a") == 3
    first_resolved_try = setup.attempts().index("resolved a")
    assert first_resolved_try > setup.attempts().index("opened a", 2), "resolved tried only once opened went"


async def test_a_hook_that_keeps_failing_or_hangs_is_given_up_after_the_window_and_shown(tmp_path: Path) -> None:
    """Timeouts are failures too; past ``retry_for`` the event is given up, journaled so, and listed in the
    alerts pane with the error; the episode's "resolved" is then sent (and given up in turn)."""
    hang = tmp_path / "hang.py"
    hang.write_text("import time, sys\nsys.stdin.read()\ntime.sleep(30)\n", encoding="utf-8")
    journal = tmp_path / "journal.jsonl"
    toasts: list[str] = []
    outbox = HookOutbox(AlertHook([sys.executable, str(hang)], KEY, timeout=0.3), ActionJournal(journal),
                        first_delay=0.05, max_delay=0.1, retry_for=0.5, on_failure=toasts.append)
    opened, resolved = episode("a")
    outbox.put("opened", opened)
    outbox.put("resolved", resolved)
    runner = asyncio.ensure_future(outbox.run())
    try:
        async with asyncio.timeout(60):
            while outbox.pending:
                await asyncio.sleep(0.02)
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
    assert [(item.event, item.given_up) for item in outbox.undelivered] == [("resolved", True), ("opened", True)]
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    results = [(e["detail"]["event"], e["result"]) for e in entries]
    assert results[-1] == ("resolved", "given up") and ("opened", "given up") in results
    assert results.index(("opened", "given up")) < results.index(("resolved", "failed"))
    assert all(e["detail"]["error"] == "timed out after 0.3s" for e in entries if e["result"] == "failed")
    assert entries[-1]["detail"]["reason"] == "still failing after 0.5s"
    assert toasts[-1].startswith("on_alert hook gave up on 'resolved' for export a")

    desk = outage_desk()
    ctx = context(desk)
    ctx.hooks = outbox
    app = Host(lambda _app: AlertsScreen(ctx))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#alerts-hook", Static)
        shown = str(box.render())
        assert box.display and "on_alert hook · 2 not delivered" in shown
        assert "resolved export a  gave up after" in shown and "attempts: timed out after 0.3s" in shown


async def test_events_waiting_are_bounded(tmp_path: Path) -> None:
    setup = Setup(tmp_path, 0, limit=3)
    book = AlertBook()
    for key in "abcde":
        setup.outbox.put("opened", episode(key, book)[0])
    assert [item.alert.key for item in setup.outbox.pending] == ["c", "d", "e"]
    assert [(item.alert.key, item.given_up) for item in setup.outbox.given_up] == [("b", True), ("a", True)]
    assert [e["detail"]["reason"] for e in setup.journaled()] == ["too many events waiting for the hook"] * 2
    await setup.until(lambda: not setup.outbox.pending, "the rest to be delivered")
    assert setup.heard() == ["opened c", "opened d", "opened e"]
