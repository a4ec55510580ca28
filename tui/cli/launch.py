"""The ``watchdeck`` command's entry point: ``tui.cli.startup``'s tricks run before anything heavy is imported."""

from __future__ import annotations

EXIT_INTERRUPTED = 130


def main() -> int:
    """``ctrl+c`` while the imports run ends the command quietly (130), as it does once it runs."""

    try:
        from tui.cli import startup

        startup.quiet_collector()
        startup.skip_httpx_cli()
        from tui.cli.main import main as run
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return run()
