"""The Textual application: two screens (modes) over one API client per project."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import ModalScreen, Screen

from tui.api.client import ApiClient
from tui.cli.startup import FREEZE_AFTER_SECONDS, resume_collector
from tui.clock import Clock, SystemClock
from tui.config import Settings, remember_project
from tui.config.paths import cache_dir, state_dir, stylesheets
from tui.key_registry import bindings, describe
from tui.look.palette import use_no_color
from tui.safe_app import SafeApp
from tui.screens.base import AppHandle, HoldsKeys, KeysTaken
from tui.secrets.private_files import write_private
from tui.state.io.shared import SharedViewers
from tui.state.server_time import ServerClock
from tui.text.clean import clean
from tui.toasts import Toast, ToastQueue, toast_seconds, toast_side
from tui.widgets.reading_spot import reading_spot
from tui.widgets.textual_private import forget_drawn_widgets

if TYPE_CHECKING:
    from tui.api.cache import SharedCache
    from tui.state.io.export_source import FirstPoll

TOAST_RACK_ID = "textual-toastrack"  # the id Textual gives each screen's rack of toasts
TOAST_CHECK_SECONDS = 0.5  # how often waiting toasts are looked at (a dialog closed, a toast left)


def _monitor_screen() -> Screen[Any]:
    from tui.screens.monitor import MonitorScreen

    return MonitorScreen()


def _survey_browser() -> Screen[Any]:
    """Imported on first use: the survey screens and editor cost start-up time the monitor need not pay."""
    from tui.screens.surveys import SurveyBrowserScreen

    return SurveyBrowserScreen()


#: At most this many keys wait for a screen that is reading what it shows.
HELD_KEYS_MAX = 256


class WatchdeckApp(SafeApp[int]):
    """The dashboard. Screens reach the server only through ``api`` / ``api_for``."""

    TITLE = "watchdeck"
    # The survey, editor and picker screens bring their own sheets when first shown: parsing and matching
    # every sheet for every widget would delay the monitor's first frame.
    CSS_PATH: ClassVar[list[str | PurePath]] = stylesheets("app.tcss", "monitor.tcss", "modals.tcss")
    ENABLE_COMMAND_PALETTE = True
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {"monitor": _monitor_screen,
                                                                    "surveys": _survey_browser}
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("app"))
    # The project shown; screens that show one project watch it: self.watch(self.app, "project_id", ...).
    project_id: var[str] = var("")

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        api: ApiClient | None = None,
        start_mode: str = "monitor",
        first_poll: FirstPoll | None = None,
    ) -> None:
        if start_mode not in self.MODES:
            raise ValueError(f"no mode {start_mode!r}")
        super().__init__()
        use_no_color(self.no_color)
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        # The server's time, from the Date header of every answer: health is judged on it. A first poll sent
        # while the app loaded (tui.cli.startup) already dated it, on the same local clock.
        self.server_clock = first_poll.server_clock if first_poll is not None else ServerClock(self.clock)
        self._first_poll = first_poll
        self.project_id = settings.project_id
        self._clients: dict[str, ApiClient] = {}
        if api is not None:
            api.on_server_date = self.server_clock.record
            self._clients[api.project_id] = api
        self._start_mode = start_mode
        # Answers shared with the other viewers of this key (tui.api.cache); hishel is imported only when on.
        # With the first poll already sent (no other viewer was on the store), the store opens after the first
        # frame: opening it (hishel, and redis where installed) would delay that frame.
        self.cache_warning: str | None = None
        self._cache_deferred = first_poll is not None and settings.cache
        self.shared_cache = None if self._cache_deferred else self._open_cache(settings)
        self.shared = SharedViewers(self.shared_cache, settings.base_url, settings.api_key.get_secret_value())
        # Injectable for deterministic snapshots: the pollers' notion of elapsed time and jitter.
        self.monotonic: Callable[[], float] = time.monotonic
        self.jitter: Callable[[], float] = random.random
        self._ui_state_loaded = False
        self.toasts = ToastQueue(time.monotonic)  # real time: a toast leaves when the operator has read it

    # ------------------------------------------------------------------ clients

    def api_for(self, project_id: str) -> ApiClient:
        """One client (one connection pool) per watched project, made on first use."""
        client = self._clients.get(project_id)
        if client is None:
            client = ApiClient(self.settings.base_url, self.settings.api_key.get_secret_value(), project_id,
                               cache=self.shared_cache)
            client.on_server_date = self.server_clock.record
            self._clients[project_id] = client
        return client

    def take_first_poll(self, project_ids: Iterable[str]) -> FirstPoll | None:
        """The poll sent while the app loaded, once, to the monitor watching those projects."""
        first, self._first_poll = self._first_poll, None
        if first is None or first.project_ids != list(project_ids):
            return None
        return first

    @property
    def api(self) -> ApiClient:
        return self.api_for(self.project_id)

    async def on_unmount(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        await self.shared.leave()
        if self.shared_cache is not None:
            await self.shared_cache.aclose()

    def _open_cache(self, settings: Settings) -> SharedCache | None:
        """The shared store, or None (every read asks the server) when it is off or cannot be opened at all.

        A store this install cannot speak to (Redis without the optional package) is said once, on mount, and
        the dashboard goes on without it: a missing extra must not keep a wall screen dark.
        """
        if not settings.cache:
            return None
        from tui.api.cache import CacheUnavailable, open_shared_cache

        try:
            cache = open_shared_cache(settings.cache_url, cache_dir())
        except CacheUnavailable as err:
            self.cache_warning = f"Shared cache off, asking the server: {err}"
            return None
        cache.poll_interval_is(settings.poll_seconds)
        return cache

    # ------------------------------------------------------------------ modes

    def on_mount(self) -> None:
        # Made first: the settings' warnings and the cache's are toasts, and a toast resumes it.
        self._toast_timer = self.set_interval(TOAST_CHECK_SECONDS, self._release_toasts, pause=True)
        self._load_ui_state()
        # Switched to here, not made the DEFAULT_MODE: Textual mounts the app's own widgets into the default
        # mode's screen as the app composes, and would mount a mode screen's children a second time when they
        # were composed first (MountError on a fast start).
        self.switch_mode(self._start_mode)
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        for warning in self.settings.warnings:
            self.notify(clean(warning, limit=400), title="Settings", severity="warning", markup=False, timeout=20)
        self._warn_about_cache()
        self.set_timer(FREEZE_AFTER_SECONDS, self._after_first_frames)
        self.app_resume_signal.subscribe(self, self._repaint_after_resume)

    # ------------------------------------------------------------------ toasts (tui.toasts)

    def _toasts_blocked(self) -> bool:
        """A dialog (or help) is open: a toast would cover it."""
        return isinstance(self.screen, ModalScreen)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A toast, shown now or when no dialog is open and fewer than a few are on screen (tui.toasts)."""
        toast = Toast(message, title, severity, toast_seconds(severity, timeout), markup, time.monotonic())
        if self.toasts.offer(toast, blocked=self._toasts_blocked(), fits=self._toasts_fit):
            self._place_toasts()
            forget_drawn_widgets()  # the toasts gone, with their lines (tui.widgets.textual_private)
            super().notify(message, title=title, severity=severity, timeout=toast.timeout, markup=markup)
        self._toast_timer.resume()

    def _release_toasts(self) -> None:
        """Show the toasts that waited, and keep the stack off the focused line as the cursor moves.

        Toasts on screen when a dialog opens over them go back to wait: they show again when it closes.
        Nothing is done while the app closes and has no screen left. With no toast shown, leaving or waiting, the
        looks pause until the next toast: an idle wall screen is not woken twice a second for nothing.
        """
        if not self.screen_stack:
            return
        if self.toasts.idle():
            self._toast_timer.pause()
            return
        if self._toasts_blocked() and self.toasts.on_screen():
            self.toasts.withdraw()
            self._take_toasts_down()
        for toast in self.toasts.release(blocked=self._toasts_blocked(), fits=self._toasts_fit):
            self._place_toasts()
            forget_drawn_widgets()
            super().notify(toast.message, title=toast.title, severity=cast(SeverityLevel, toast.severity),
                           timeout=toast.timeout, markup=toast.markup)
        self._place_toasts()

    def _take_toasts_down(self) -> None:
        """Every toast off every screen of the stack, each with the holder around it.

        ``clear_notifications`` alone takes the toasts off the screen on top and leaves their holders in its
        toast rack; a screen beneath keeps its toasts until it comes back, and then loses them without their
        holders: each dialog opened over toasts would leave a few empty holders on the monitor for good.
        """
        for screen in self.screen_stack:
            for rack in screen.query_children(f"#{TOAST_RACK_ID}"):
                rack.remove_children()
        self.clear_notifications()

    def _toast_side(self, stack: Sequence[Toast]) -> str | None:
        """The corner for this stack beside the focused widget's line (tui.toasts.toast_side)."""
        spot = reading_spot(self.screen.focused)
        box = (spot.x, spot.y, spot.width, spot.height) if spot is not None else None
        return toast_side((self.size.width, self.size.height), stack, box)

    def _toasts_fit(self, stack: list[Toast]) -> bool:
        return self._toast_side(stack) is not None

    def _place_toasts(self) -> None:
        """The toasts on screen in the corner where they cover none of the focused line (or less of it)."""
        shown = self.toasts.on_screen()
        if not shown or self._toasts_blocked():
            return
        side = self._toast_side(shown)
        if side is None:  # the cursor moved between the toasts' corners: the one where the last toast covers less
            side = self._toast_side(shown[-1:])
        self.screen.set_class(side == "top", "-toasts-top")

    def _warn_about_cache(self) -> None:
        if self.cache_warning:
            self.notify(self.cache_warning, title="Shared cache", severity="warning", markup=False, timeout=20)

    def _after_first_frames(self) -> None:
        """What start-up put off until the first frames were drawn: the shared store, then the collector."""
        if self._cache_deferred:
            self._cache_deferred = False
            # Its imports (hishel, and redis where installed) on a thread, not in one UI stall.
            self.run_worker(self._load_cache_code, thread=True, group="shared-cache", exit_on_error=False)
        resume_collector()

    def _load_cache_code(self) -> None:
        import tui.api.cache  # noqa: F401 (loaded here so that opening it below costs the UI thread little)

        self.call_from_thread(self._open_deferred_cache)

    def _open_deferred_cache(self) -> None:
        cache = self._open_cache(self.settings)
        if cache is not None:
            self.shared_cache = self.shared.cache = cache
            for client in self._clients.values():
                client.share_answers(cache)
        self._warn_about_cache()

    def _repaint_after_resume(self, _: object) -> None:
        """After ctrl+z / fg the terminal holds the shell's output: draw every line again, not a diff."""
        self.screen.refresh(repaint=True, layout=True)

    def action_pick_project(self) -> None:
        from tui.screens.project_picker import ProjectPickerScreen

        def chosen(project_id: str | None) -> None:
            if project_id and project_id != self.project_id:
                self.switch_project(project_id)

        self.push_screen(ProjectPickerScreen(self.api, current=self.project_id), chosen)

    def switch_project(self, project_id: str) -> None:
        """Show another project (remembered for this profile); screens watching ``project_id`` reload."""
        self.project_id = project_id
        remember_project(self.settings.profile, project_id)
        self.notify(f"Project {clean(project_id, limit=40)}", markup=False, timeout=4)

    # ------------------------------------------------------------------ keys a screen holds

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self._held(event):
            return
        await super().on_event(event)

    def _held(self, key: events.Key) -> bool:
        """Keep ``key`` for the screen on top, while it holds keys (:meth:`HoldsKeys.hold_keys`)."""
        screen = self.screen
        if not isinstance(screen, HoldsKeys) or not screen.holding_keys or not screen.holds(key.key):
            return False
        active = screen.active_bindings.get(key.key)
        if active is not None and active.node is self and active.binding.priority:
            return False  # ctrl+c quits at once
        if len(screen.held_keys) < HELD_KEYS_MAX:  # keys beyond the bound are dropped
            screen.held_keys.append(events.Key(key.key, key.character))  # played as a key that has just arrived
        return True

    async def on_keys_taken(self, message: KeysTaken) -> None:
        """Play the keys the screen held, in order, as keys just arrived: before any key still waiting here."""
        screen = message.screen
        if not screen.holding_keys:
            return
        held, screen.held_keys, screen.holding_keys = screen.held_keys, [], False
        if screen is not self.screen:
            return  # it was closed or covered meanwhile: its keys go with it
        for key in held:
            await self.on_event(key)

    # ------------------------------------------------------------------ q and ctrl+c

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``q`` quits from the monitor or the survey list (a mode's own screen) only: the views and dialogs over
        them bind it to what their Escape does, and one that did not would still not quit."""
        if action == "quit":
            return len(self.screen_stack) <= 1
        return True

    def action_interrupt(self) -> None:
        """ctrl+c: close watchdeck from any screen (an open editor keeps its edits as a draft as it unmounts)."""
        self.exit()

    def action_switch_to(self, mode: str) -> None:
        self.switch_mode(mode)

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: every key of the current screen as a sentence, and Textual's theme and screenshot commands.

        Textual's own Quit and Keys would repeat ours; its generic widget keys (cursor, copy, focus) and
        action names (``app.switch_to('surveys')``) mean nothing to an operator, so they are left out.
        """
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command
        # Every key of an action is named (the editor's Leave is "esc, q"), as help names them.
        found: dict[str, tuple[DOMNode, tuple[str, str], list[str]]] = {}
        for active in screen.active_bindings.values():
            binding = active.binding
            words = describe(binding)
            if words is None or not active.enabled:
                continue
            _node, _words, keys = found.setdefault(binding.action, (active.node, words, []))
            key = self.get_key_display(binding)
            if key not in keys:
                keys.append(key)
        for action, (node, (title, sentence), keys) in found.items():
            yield SystemCommand(title, f"{sentence} (key: {', '.join(keys)})", partial(self._run_binding, node, action))

    async def _run_binding(self, node: DOMNode, action: str) -> None:
        await self.run_action(action, node)

    # ------------------------------------------------------------------ theme, kept per user

    def _load_ui_state(self) -> None:
        self._ui_state_loaded = True
        try:
            data = json.loads((state_dir() / "ui.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        theme = data.get("theme") if isinstance(data, dict) else None
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme

    def watch_theme(self, theme: str) -> None:
        if not self._ui_state_loaded:
            return
        with contextlib.suppress(OSError):
            write_private(state_dir() / "ui.json", json.dumps({"theme": theme}))

    # ------------------------------------------------------------------ crash safety

    def crash_secrets(self) -> tuple[str, ...]:
        return (self.settings.api_key.get_secret_value(),)



def _provides_the_screens_handle(app: WatchdeckApp) -> AppHandle:
    """For mypy: the app offers everything :class:`tui.screens.base.AppHandle` promises the screens."""
    return app
