"""The ``watchdeck`` command's entry point: ``tui.startup``'s tricks run before anything heavy is imported."""

from __future__ import annotations


def main() -> int:
    import sys

    from tui import startup

    startup.quiet_collector()
    startup.skip_httpx_cli()
    startup.start_demo_early(sys.argv[1:])
    from tui.__main__ import main as run

    return run()
