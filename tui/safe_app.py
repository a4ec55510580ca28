"""The base of watchdeck's apps: an exception nothing handled is one line on stderr, never a traceback.

Textual's own report of such an exception is a traceback with every frame's
local variables, and locals can hold the API key. Here the traceback (without
locals) goes to the crash log and the operator reads one line naming it.
"""

from __future__ import annotations

import os
from typing import TypeVar

from textual.app import App

from tui.secrets.crashlog import UnexpectedError, one_line, record_exception
from tui.terminal_watch import CHECK_SECONDS, EXIT_HUNG_UP, hung_up, terminal_fd
from tui.text.clean import clean
from tui.text.redaction import redact

ReturnT = TypeVar("ReturnT")


class SafeApp(App[ReturnT]):
    def __init__(self) -> None:
        # Under NO_COLOR Textual draws in the terminal's own colours only when the app is in ANSI mode: in its
        # default mode it turns every colour into a grey of the same luminance, which is still a colour.
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        self._crashed = False
        self.error_console.soft_wrap = True  # the crash line whole, never cut to the terminal's width

    def on_mount(self) -> None:
        """On a terminal (not headless, not in a browser), end when it is hung up (:mod:`tui.terminal_watch`)."""
        fd = terminal_fd()
        if fd is not None and not self.is_headless and not self.is_web:
            self.set_interval(CHECK_SECONDS, lambda: self._end_if_hung_up(fd), name="terminal-watch")

    def _end_if_hung_up(self, fd: int) -> None:
        if hung_up(fd):
            self.exit(return_code=EXIT_HUNG_UP)

    def crash_secrets(self) -> tuple[str, ...]:
        """What to blank out of the crash line and the log (the API key, once there is one)."""
        return ()

    def report_bug(self, error: BaseException, context: str) -> None:
        """Log an unexpected exception to the crash log and say so in a toast, never as a traceback.

        For failures the app survives (a worker that died): the screen stays, the operator is told.
        """
        path = record_exception(error, context=context, secrets=self.crash_secrets())
        where = f" Details in {path}." if path else ""
        text = redact(f"Something went wrong in the background: {error!r}.{where}", self.crash_secrets())
        self.notify(clean(text, limit=400), title="Internal error", severity="error", markup=False, timeout=15)

    def _handle_exception(self, error: Exception) -> None:
        """Log the traceback, hand Textual the one line (an exception that renders itself is shown as just that).

        The original stays chained as the cause, for test runners that
        re-raise it. What fails after the first (a screen half built) is only
        logged: the first is the one to read. Overrides a private hook of
        ``App``: there is no public one for this.
        """
        if isinstance(error, UnexpectedError):
            super()._handle_exception(error)
            return
        path = record_exception(error, context="unexpected exception", secrets=self.crash_secrets())
        if self._crashed:
            return
        self._crashed = True
        super()._handle_exception(UnexpectedError(error, one_line(error, path, self.crash_secrets())))
