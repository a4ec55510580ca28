"""The one typed way from a screen to the application: :class:`WatchdeckScreen` and its ``wd`` handle.

Screens need the settings, the clocks and the API clients, not the app's
module: importing ``tui.app`` from a screen made an import cycle (the app
imports the screens) and every use of ``self.app.api`` needed a
``type: ignore``. :class:`AppHandle` names what screens may use;
``tui.app`` checks (for mypy) that :class:`~tui.app.WatchdeckApp` provides it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Protocol, TypeVar, cast

from textual import events
from textual.app import App
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from tui.api.client import ApiClient
from tui.clock import Clock
from tui.config import Settings
from tui.state.io.export_source import FirstPoll
from tui.state.io.shared import SharedViewers
from tui.state.server_time import ServerClock

ResultT = TypeVar("ResultT")


class AppHandle(Protocol):
    """What a screen may ask of the application."""

    settings: Settings
    clock: Clock  # this machine's time (injected: frozen in tests)
    server_clock: ServerClock  # the server's time, from the Date header of its answers
    monotonic: Callable[[], float]
    jitter: Callable[[], float]
    shared: SharedViewers  # the other viewers of this key, through the shared answer cache

    @property
    def project_id(self) -> str: ...

    @property
    def api(self) -> ApiClient: ...

    def api_for(self, project_id: str) -> ApiClient: ...

    def take_first_poll(self, project_ids: Iterable[str]) -> FirstPoll | None: ...

    def switch_project(self, project_id: str) -> None: ...

    def report_bug(self, error: BaseException, context: str) -> None: ...


def app_handle(app: App[object] | App[int]) -> AppHandle:
    """The running app as a :class:`AppHandle` (watchdeck runs no other app)."""
    return cast(AppHandle, app)


class BugReporter(Protocol):
    def report_bug(self, error: BaseException, context: str) -> None: ...


def report_failed_worker(app: App[object] | App[int], event: Worker.StateChanged) -> None:
    """A worker that died of an unexpected exception: logged and shown, and the app keeps running.

    Workers run with ``exit_on_error=False`` and handle expected failures
    (``ApiError``) where they happen, so what arrives here is a bug. Worker
    state messages do not bubble, so every screen that runs workers hands
    them here (through :class:`WatchdeckScreen` and :class:`WatchdeckModal`).
    """
    worker = event.worker
    if event.state is WorkerState.ERROR and worker.error is not None and hasattr(app, "report_bug"):
        cast(BugReporter, app).report_bug(worker.error, f"worker {worker.name or worker.group}")


class StyledAtMount:
    """A screen's first resume follows the mounting of its widgets, which styled them. Textual styles the whole
    screen again on every resume (``ScreenResume.refresh_styles``), as much work again as the mount's styling:
    the first resume keeps the styles of the mount; later ones (back from another mode) restyle as Textual does."""

    _resumed_once = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed_once:
            self._resumed_once = True
            event.refresh_styles = False


class KeysTaken(Message):
    """Posted to the app by a screen that held the keys reaching it (see :meth:`HoldsKeys.hold_keys`)."""

    def __init__(self, screen: HoldsKeys) -> None:
        super().__init__()
        self.screen = screen


class HoldsKeys:
    """A screen shown before it can take keys holds them: every key that reaches the app while it is on top
    waits, those sent with the key that opened it too (the app handles a key's binding once the key has been
    through the screen underneath), and acts once the screen takes keys, in order, before any key that arrives
    after. The app's own priority keys (ctrl+c) act at once, as do those :meth:`holds` lets through.

    The editor holds keys until it has read the survey it shows; a dialog until its buttons are mounted.
    """

    app: App[Any]
    holding_keys = False
    held_keys: list[events.Key]

    def hold_keys(self) -> None:
        """Keys wait from now until :meth:`take_keys`."""
        self.holding_keys = True
        self.held_keys = []

    def holds(self, key: str) -> bool:
        """Whether ``key`` waits while the screen holds keys (a screen lets Escape leave at once, say)."""
        return True

    def take_keys(self) -> None:
        """The screen takes keys again: the app plays the held ones first (see :meth:`hold_keys`)."""
        if self.holding_keys:
            self.app.post_message(KeysTaken(self))


class WatchdeckScreen(HoldsKeys, StyledAtMount, Screen[ResultT]):
    """A screen of watchdeck: reaches the application through the typed ``wd``; its failed workers are reported;
    it may hold keys (:class:`HoldsKeys`)."""

    #: New alerts are toasted over this screen (the monitor's incident views): not over the surveys or a dialog.
    TAKES_ALERT_TOASTS: ClassVar[bool] = False

    @property
    def wd(self) -> AppHandle:
        return app_handle(self.app)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(self.app, event)


class WatchdeckModal(HoldsKeys, StyledAtMount, ModalScreen[ResultT]):
    """A modal of watchdeck: reaches the application through the typed ``wd``; its failed workers are reported;
    it may hold keys (:class:`HoldsKeys`)."""

    @property
    def wd(self) -> AppHandle:
        return app_handle(self.app)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(self.app, event)
