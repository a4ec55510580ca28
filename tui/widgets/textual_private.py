"""Every private member of Textual that watchdeck relies on, with why, and the doors to them.

Textual may rename any of these in a minor release. They are listed here so
that one test (``tests/test_textual_private.py``) can name the one that moved
when the installed Textual changes, instead of a screen drawing garbage at
3 a.m. The test also fails on a private member read, called, assigned or
overridden anywhere in the UI code without being listed here.

Three remain, each a one-liner behind a function below (or, for the
exception hook, in ``tui/safe_app.py``): Textual offers no public door to
any of them. The tables draw through Textual's public line API
(:class:`~tui.widgets.virtual_table.VirtualTable`), with no DataTable internals.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual._styles_cache import StylesCache
from textual.app import App


@dataclass(frozen=True)
class PrivateUse:
    owner: str
    """The Textual class that has the member (dotted path)."""
    member: str
    why: str


PRIVATE_USES: tuple[PrivateUse, ...] = (
    PrivateUse("textual.app.App", "_handle_exception",
               "the only hook where an unhandled exception can become one line instead of a traceback with locals"),
    PrivateUse("textual.app.App", "_driver",
               "the terminal title (alert count) has no public writer; only on a real terminal"),
    PrivateUse("textual._styles_cache.StylesCache", "get_inner_outer",
               "its process-wide lru_cache keeps every widget drawn, removed or not, with its drawn lines (1024 of "
               "them); each toast is a new widget: cleared as each toast shows, toasts leave no lines behind"),
)


def write_terminal_title(app: App[object] | App[int], title: str) -> None:
    """Set the terminal's window title (OSC 2); nothing in a headless run or before the driver exists."""
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(f"\x1b]2;{title}\x07")


def forget_drawn_widgets() -> None:
    """Empty Textual's cache of each widget's background styles, which holds the widgets' lines as drawn.

    ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method: its key holds the widget's ``StylesCache``,
    and with it the lines last drawn, for the last 1024 widgets drawn, whether still on screen or long removed.
    Every toast is a new widget with its own lines (about 7 KB, more over a busy screen), so under a stream of
    alert toasts that cache held the lines of a thousand toasts gone, filling for an hour or more. Clearing it
    costs each widget two styles made again at its next draw.
    """
    StylesCache.get_inner_outer.cache_clear()


__all__ = ["PRIVATE_USES", "PrivateUse", "forget_drawn_widgets", "write_terminal_title"]
