"""Every private member of Textual that watchdeck relies on, with why, and the doors to them.

Textual may rename any of these in a minor release. They are listed here so
that one test (``tests/test_textual_private.py``) can name the one that moved
when the installed Textual changes, instead of a screen drawing garbage at
3 a.m. The test also fails on a private member read, called, assigned or
overridden anywhere in the UI code without being listed here.

Two remain, each a one-liner behind a function below (or, for the
exception hook, in ``tui/safe_app.py``): Textual offers no public door to
any of them. The tables draw through Textual's public line API
(:class:`~tui.widgets.virtual_table.VirtualTable`), with no DataTable internals.
"""

from __future__ import annotations

from dataclasses import dataclass

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
)


def write_terminal_title(app: App[object] | App[int], title: str) -> None:
    """Set the terminal's window title (OSC 2); nothing in a headless run or before the driver exists."""
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(f"\x1b]2;{title}\x07")


__all__ = ["PRIVATE_USES", "PrivateUse", "write_terminal_title"]
