"""The ``watchdeck`` command's entry point: the collector is turned off before anything heavy is imported.

Importing the settings (pydantic) and then Textual makes ~300k objects that live as long
as the process; with the collector on, each import batch set off full passes over all of
them (measured 8-12 ms of the dashboard's start). ``tui.__main__`` turns it back on at
once for every command but the dashboard, whose app turns it on (and freezes what
loading made) a second after start: ``tui.__main__.quiet_collector``.
"""

from __future__ import annotations

import gc


def main() -> int:
    gc.disable()
    from tui.__main__ import main as run

    return run()
