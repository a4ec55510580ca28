"""``watchdeck --web``: the same app in a browser, through textual-serve.

Each browser visit starts its own app process (textual-serve's design), so N
viewers are N pollers against the API; textual-serve has no authentication of
its own, which is why it binds to loopback unless told otherwise. Put it
behind an authenticating proxy before exposing it.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

DEFAULT_WEB_PORT = 8000


def strip_web_flags(argv: Sequence[str]) -> list[str]:
    """The command line of the app each visitor gets: the same flags, minus the web ones."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--web":
            continue
        if arg in ("--port", "--web-host"):
            skip = True
            continue
        if arg.startswith(("--port=", "--web-host=")):
            continue
        out.append(arg)
    return out


def serve(argv: Sequence[str], host: str = "127.0.0.1", port: int = DEFAULT_WEB_PORT) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        print("watchdeck: --web needs textual-serve: pip install 'watchdeck[web]'", file=sys.stderr)
        return 2
    command = shlex.join([sys.executable, "-m", "tui", *strip_web_flags(argv)])
    print(f"watchdeck: serving on http://{host}:{port} (each visit runs its own dashboard)", file=sys.stderr)
    Server(command, host=host, port=port, title="watchdeck").serve()
    return 0
