"""Whether the terminal the app draws on is still there.

A closed terminal window, a killed tmux server or a dropped SSH session hang
the terminal up. The kernel tells only the session's leader (SIGHUP), and
the foreground programs learn of it when that leader ends. A leader that
neither ends nor passes the signal on leaves the app untold: ``make demo`` is
one (make holds SIGHUP while it waits for its command). Textual's input
thread then reads end-of-file in a loop, a core busy for as long as nobody
notices. The app asks the terminal every ``CHECK_SECONDS`` and ends when it
has been hung up.
"""

from __future__ import annotations

import errno
import os
import sys

CHECK_SECONDS = 1.0
#: What an app ends with when its terminal was hung up: 128 + SIGHUP, as a shell reports a program SIGHUP ended.
EXIT_HUNG_UP = 129


def terminal_fd() -> int | None:
    """The terminal the app reads its keys from (Textual's input on Linux and macOS), or None without one."""
    stdin = sys.__stdin__
    if stdin is None:
        return None
    try:
        fd = stdin.fileno()
    except (OSError, ValueError):  # closed, or replaced by an object without a descriptor
        return None
    return fd if os.isatty(fd) else None


def hung_up(fd: int) -> bool:
    """True once the terminal on ``fd`` has been hung up: every request to it then fails with EIO."""
    try:
        os.get_terminal_size(fd)
    except OSError as err:
        return err.errno in (errno.EIO, errno.ENXIO, errno.EBADF)
    return False
