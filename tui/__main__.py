"""Command line: the dashboard, ``--demo``, and ``watchdeck sandbox``.

Start-up errors are one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from tui import __version__
from tui.config import DEFAULT_POLL_SECONDS, MIN_POLL_SECONDS, ConfigError, Settings, check_base_url, env_default

EXIT_USAGE = 2
# The sandbox's runs move every few seconds; a 10 s poll would make the demo look stuck.
DEMO_POLL_SECONDS = 3.0


def _poll_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < MIN_POLL_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_POLL_SECONDS:g} seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="watchdeck",
        description="A terminal dashboard for surveys and batch exports.",
        epilog="The API key is read from WATCHDECK_API_KEY; it is never accepted as a flag.",
    )
    parser.add_argument("--version", action="version", version=f"watchdeck {__version__}")
    parser.add_argument("--demo", action="store_true", help="start the embedded sandbox server and watch it")
    parser.add_argument("--base-url", metavar="URL", help="API base URL (env WATCHDECK_BASE_URL)")
    parser.add_argument("--project", metavar="ID", action="append", dest="projects",
                        help="project id; repeat to watch several (env WATCHDECK_PROJECT_ID)")
    parser.add_argument("--export", metavar="ID", action="append", dest="exports", default=[],
                        help="batch export id to watch; repeatable (added to the project's list)")
    parser.add_argument("--poll", metavar="SECONDS", type=_poll_seconds, default=None,
                        help=f"poll interval (default {DEFAULT_POLL_SECONDS:g} s, at least {MIN_POLL_SECONDS:g} s)")
    parser.add_argument("--read-only", action="store_true", help="hide every key that changes anything")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sandbox = sub.add_parser("sandbox", help="serve the local sandbox server")
    from tui.sandbox import cli as sandbox_cli

    sandbox_cli.add_arguments(sandbox)
    return parser


def resolve_settings(args: argparse.Namespace, env: Mapping[str, str]) -> Settings:
    """Flags first, then the environment."""
    base_url = args.base_url or env_default(env, "WATCHDECK_BASE_URL")
    if not base_url:
        raise ConfigError("no server: pass --base-url URL or set WATCHDECK_BASE_URL (or try --demo)")
    base_url = check_base_url(base_url)
    api_key = env_default(env, "WATCHDECK_API_KEY")
    if not api_key:
        raise ConfigError("no API key: set WATCHDECK_API_KEY to a personal API key")
    projects = args.projects or ([p] if (p := env_default(env, "WATCHDECK_PROJECT_ID")) else [])
    if not projects:
        raise ConfigError("no project: pass --project ID or set WATCHDECK_PROJECT_ID")
    return Settings(
        base_url=base_url,
        api_key=api_key,
        project_ids=projects,
        export_ids=list(args.exports or []),
        poll_seconds=args.poll or DEFAULT_POLL_SECONDS,
        read_only=args.read_only,
    )


def _fail(message: str) -> int:
    print(f"watchdeck: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    environ = os.environ if env is None else env
    if args.command == "sandbox":
        from tui.sandbox import cli as sandbox_cli

        return sandbox_cli.run(args)
    if args.demo:
        return _run_demo(args)
    try:
        settings = resolve_settings(args, environ)
    except ConfigError as err:
        return _fail(str(err))
    from tui.app import WatchdeckApp

    app = WatchdeckApp(settings)
    app.run()
    return app.return_code or 0


def _run_demo(args: argparse.Namespace) -> int:
    from tui.app import WatchdeckApp
    from tui.sandbox.runner import SandboxOptions, start_sandbox

    try:
        handle = start_sandbox(SandboxOptions())
    except OSError as err:
        return _fail(f"cannot start the sandbox: {err}")
    with handle:
        settings = Settings(
            base_url=handle.base_url,
            api_key=handle.api_key,
            project_ids=args.projects or [handle.project_id],
            export_ids=list(args.exports or []),
            poll_seconds=args.poll or DEMO_POLL_SECONDS,
            read_only=args.read_only,
            demo=True,
        )
        app = WatchdeckApp(settings, clock=handle.clock)
        app.run()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
