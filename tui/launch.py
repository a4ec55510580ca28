"""The ``watchdeck`` command's entry point: the collector is turned off before anything heavy is imported.

Importing the settings (pydantic) and then Textual makes ~300k objects that live as long
as the process; with the collector on, each import batch set off full passes over all of
them (``tui.startup``, which imports only the standard library).
"""

from __future__ import annotations


def main() -> int:
    import sys

    from tui import startup

    startup.quiet_collector()
    startup.skip_httpx_cli()
    startup.start_demo_early(sys.argv[1:])
    from tui.__main__ import main as run

    return run()
