"""A worker that dies of a bug is logged and shown in a toast; the app and its screen keep running.

Worker state messages do not bubble to the app, so every screen class of
watchdeck must derive from the screen bases that hand failed workers to the
app's bug report: the second test walks them all.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import Screen
from textual.worker import WorkerFailed

import tui.screens
import tui.widgets
from tests.monitor.conftest import make_app
from tests.pilot import notifications, settle
from tui.sandbox.runner import SandboxHandle
from tui.screens.base import WatchdeckModal, WatchdeckScreen
from tui.screens.help import HelpScreen
from tui.secrets.crashlog import crash_log_path


async def test_a_failed_worker_is_logged_and_shown_and_the_app_keeps_running(
        sandbox: SandboxHandle, env: dict[str, str]) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)

        async def broken() -> None:
            raise RuntimeError("a bug in a worker")

        worker = screen.run_worker(broken(), name="broken", exit_on_error=False)
        with contextlib.suppress(WorkerFailed):
            await worker.wait()
        await pilot.pause(0.1)
        assert app.is_running and app.screen is screen
        # A toast never covers a dialog (issue 27): it waits until help closes, then shows.
        assert [toast.title for toast in app.toasts.held] == ["Internal error"]
        await pilot.press("escape")
        for _ in range(100):
            toasts = [n for n in notifications(app) if n.title == "Internal error"]
            if toasts:
                break
            await pilot.pause(0.05)
        assert toasts and "a bug in a worker" in toasts[0].message
        log = crash_log_path()
        assert log.is_relative_to(Path(env["WATCHDECK_STATE_DIR"]))
        assert "RuntimeError: a bug in a worker" in log.read_text()


def test_every_screen_reports_its_failed_workers() -> None:
    missing = []
    for package in (tui.screens, tui.widgets):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if (cls.__module__ == module.__name__ and issubclass(cls, Screen)
                        and cls not in (WatchdeckScreen, WatchdeckModal)
                        and not issubclass(cls, (WatchdeckScreen, WatchdeckModal))):
                    missing.append(f"{cls.__module__}.{cls.__name__}")
    assert missing == [], f"screens whose failed workers nobody would report: {missing}"
