"""Command line: the dashboard, ``--demo``, ``watchdeck status``, ``watchdeck metrics`` and ``watchdeck sandbox``.

Start-up errors are one line on stderr and exit code 2, never a traceback: an
unexpected exception prints one line naming a log file in the state dir, where
the traceback goes (with the API key blanked out, should it appear anywhere).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tui import __version__
from tui.cli import startup
from tui.cli.web import DEFAULT_WEB_PORT
from tui.config import DEFAULT_POLL_SECONDS, MIN_POLL_SECONDS, ConfigError, Settings, check_cache_url, env_default
from tui.config.paths import state_dir
from tui.config.resolve import NeedsSetup, Overrides, resolve_settings
from tui.text.clean import clean
from tui.text.redaction import redact
from tui.text.words import duration

if TYPE_CHECKING:
    from tui.cli.demo import DemoServer
    from tui.cli.metrics import Listen
    from tui.clock import Clock

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a command the pipe's reader stopped listening to exits
# The sandbox's runs move every few seconds; a 10 s poll would make the demo look stuck.
DEMO_POLL_SECONDS = 3.0
_secrets: set[str] = set()


def _remember_secret(value: str | None) -> None:
    if value and len(value) >= 4:
        _secrets.add(value)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit 2) instead of usage + message."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"watchdeck: {message} (see {self.prog} --help)\n")


def _seconds(text: str) -> float:
    """A finite number: ``float`` also reads "nan" and "inf", which would make a poll that never comes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number of seconds: {text!r}")
    return value


def _poll_seconds(text: str) -> float:
    value = _seconds(text)
    if value < MIN_POLL_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at least {duration(MIN_POLL_SECONDS)}")
    return value


def _grace_seconds(text: str) -> float:
    value = _seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _cache_url(text: str) -> str:
    try:
        return check_cache_url(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _listen(text: str) -> Listen:
    from tui.cli.metrics import parse_listen

    try:
        return parse_listen(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


POLL_HELP = f"poll interval (default {duration(DEFAULT_POLL_SECONDS)}, at least {duration(MIN_POLL_SECONDS)})"


def _add_connection_flags(parser: argparse.ArgumentParser, *, in_subcommand: bool = False,
                          dashboard: bool = True) -> None:
    """The flags that say what to connect to; on a subcommand too, so both word orders work.

    On the subcommand the defaults are SUPPRESS, so a flag given before the
    subcommand is not reset by the subcommand's parser.
    """
    default: Any = argparse.SUPPRESS if in_subcommand else None
    group = parser.add_argument_group("connection (flags > environment > profile in config.toml)")
    group.add_argument("--profile", metavar="NAME", default=default,
                       help="profile of config.toml to use (env WATCHDECK_PROFILE; else default_profile)")
    group.add_argument("--base-url", metavar="URL", default=default, help="API base URL (env WATCHDECK_BASE_URL)")
    group.add_argument("--project", metavar="ID", action="append", dest="projects", default=default,
                       help="project id; repeat (or comma-separate) to watch several (env WATCHDECK_PROJECT_ID)")
    group.add_argument("--export", metavar="ID", action="append", dest="exports", default=default,
                       help="batch export id to watch; repeatable")
    if dashboard:  # a one-shot command neither polls again nor has keys to hide
        group.add_argument("--poll", metavar="SECONDS", type=_poll_seconds, default=default,
                           help=POLL_HELP)
        group.add_argument("--read-only", action="store_true", default=default,
                           help="hide every key that changes anything")
    group.add_argument("--allow-insecure-http", action="store_true", default=default,
                       help="send the API key over plain http to a host that is not this machine")
    group.add_argument("--cache-url", metavar="URL", type=_cache_url, default=default,
                       help="share answers with other hosts' viewers through Redis (redis://host:6379/0); "
                            "default: a SQLite file in the user cache dir, shared on this host")
    group.add_argument("--no-cache", action="store_true", default=default,
                       help="ask the server for every read (no shared answers)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="watchdeck",
        description="A terminal dashboard for surveys and batch exports.",
        epilog=(
            "The API key is never a flag: it comes from WATCHDECK_API_KEY, a profile's key_command, "
            "the OS keyring, or (discouraged) a profile's key. Config: config.toml in the user config dir "
            "(WATCHDECK_CONFIG_DIR overrides it)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"watchdeck {__version__}")
    parser.add_argument("--demo", action="store_true", help="start the embedded sandbox server and watch it")
    web = parser.add_argument_group("web mode (needs the 'web' extra, textual-serve: from a clone, "
                                    ".venv/bin/pip install -e '.[web]')")
    web.add_argument("--web", action="store_true", help="serve the dashboard to a browser instead of this terminal")
    web.add_argument("--port", type=int, default=DEFAULT_WEB_PORT, help=f"web port (default {DEFAULT_WEB_PORT})")
    web.add_argument("--web-host", default="127.0.0.1", metavar="HOST",
                     help="address to bind (default 127.0.0.1: loopback only; anything else warns)")
    web.add_argument("--web-actions", action="store_true",
                     help="let the browser use every key that changes anything, as in the terminal "
                          "(web mode is read-only without it)")
    _add_connection_flags(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    status = sub.add_parser(
        "status",
        help="poll once and print the watched exports' health (exit 0 healthy, 1 failed/overdue, 2 error)",
        description=(
            "Poll once and print the watched exports with their latest run status and its age. Exit code 0 when "
            "all are healthy, 1 when an export's alert is open (a latest run failed, failed runs in a row wait "
            "behind an attempt in progress, or an export is overdue), 2 on connection or auth errors."
        ),
    )
    status.add_argument("--json", action="store_true", help="print JSON instead of a table (--format json)")
    status.add_argument("--format", choices=("table", "json", "prometheus", "openmetrics"), default=None,
                        dest="output",
                        help="table (default), json, or the families of `watchdeck metrics` once: prometheus (text "
                             "format 0.0.4, for node_exporter's textfile collector) or openmetrics")
    status.add_argument("--demo", action="store_true", default=argparse.SUPPRESS,
                        help="ask a fresh demo sandbox (the one `watchdeck --demo` starts)")
    status.add_argument("--grace", metavar="SECONDS", type=_grace_seconds, default=None,
                        help="extra time before an export counts as overdue (default 600 s)")
    _add_connection_flags(status, in_subcommand=True, dashboard=False)
    metrics = sub.add_parser(
        "metrics", help="serve the exports' health to Prometheus on /metrics (polls as the dashboard does)",
        description="Poll the watched exports as the dashboard does and serve their health verdicts, open alerts "
                    "and the polls' own figures on /metrics for Prometheus. Stops on SIGTERM or ctrl+c.")
    metrics.add_argument("--listen", metavar="HOST:PORT", type=_listen, default=None,
                         help="address to serve (default 127.0.0.1:9185: loopback only; anything else warns)")
    metrics.add_argument("--allow-host", metavar="NAME[:PORT]", action="append", dest="allow_hosts", default=[],
                         help="a name a scraper reaches this server by, besides loopback and the listen address "
                              "(the Host header of any other is refused); repeatable")
    _add_connection_flags(metrics, in_subcommand=True, dashboard=False)
    metrics.add_argument("--poll", metavar="SECONDS", type=_poll_seconds, default=argparse.SUPPRESS,
                         help=POLL_HELP)
    surveys = sub.add_parser("surveys", help="a survey as a file: get it, edit it, apply it (keep it in git)",
                             description="Surveys as files, for keeping them in a repository.")
    survey_sub = surveys.add_subparsers(dest="survey_command", metavar="ACTION", required=True)
    get = survey_sub.add_parser("get", help="print a survey as JSON (or YAML): watchdeck surveys get ID > s.json")
    get.add_argument("survey_id", metavar="ID")
    get.add_argument("--yaml", action="store_true", help="print YAML instead of JSON (needs PyYAML)")
    _add_connection_flags(get, in_subcommand=True, dashboard=False)
    apply = survey_sub.add_parser(
        "apply", help="create (no id in the file) or update a survey from a file; prints the diff",
        description="Check the file with the editor's rules (exit 1 with the field paths when it breaks them), "
                    "print the diff against the server's survey, then create it or PATCH the fields that differ.")
    apply.add_argument("path", metavar="FILE", type=Path, help="a .json, .yaml or .yml file")
    apply.add_argument("--dry-run", action="store_true", help="print the diff and stop: nothing is sent")
    _add_connection_flags(apply, in_subcommand=True, dashboard=False)
    listing = survey_sub.add_parser("list", help="print every survey's id, name, type and status, one a line")
    _add_connection_flags(listing, in_subcommand=True, dashboard=False)
    sandbox = sub.add_parser("sandbox", help="serve the local sandbox server")
    from tui.sandbox import cli as sandbox_cli

    sandbox_cli.add_arguments(sandbox)
    return parser


def overrides_from(args: argparse.Namespace) -> Overrides:
    return Overrides(
        base_url=getattr(args, "base_url", None),
        projects=list(getattr(args, "projects", None) or []),
        profile=getattr(args, "profile", None),
        exports=list(getattr(args, "exports", None) or []),
        poll=getattr(args, "poll", None),
        read_only=bool(getattr(args, "read_only", False)),
        allow_insecure_http=bool(getattr(args, "allow_insecure_http", False)),
        cache_url=getattr(args, "cache_url", None),
        no_cache=bool(getattr(args, "no_cache", False)),
    )


def _fail(message: str) -> int:
    print(f"watchdeck: {clean(redact(message, _secrets), limit=1000)}", file=sys.stderr)
    return EXIT_USAGE


def _warn(settings: Settings) -> None:
    for warning in settings.warnings:
        print(f"watchdeck: warning: {warning}", file=sys.stderr)


def _resolve(args: argparse.Namespace, env: Mapping[str, str]) -> Settings:
    _remember_secret(env_default(env, "WATCHDECK_API_KEY"))
    settings = resolve_settings(overrides_from(args), env)
    _remember_secret(settings.api_key.get_secret_value())
    return settings


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None, *,
         clock: Clock | None = None) -> int:
    """The ``watchdeck`` command. ``env`` and ``clock`` are for tests; the default is the real environment."""
    environ: Mapping[str, str] = os.environ if env is None else env
    try:
        return _main(argv, environ, clock)
    except SystemExit as exit_:  # argparse: --help, --version, usage errors (already printed)
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `watchdeck status | head -1`: the reader has what it wanted; not an error
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        from tui.secrets.crashlog import one_line

        print(one_line(exc, _log_crash(exc, environ), _secrets), file=sys.stderr)
        return EXIT_USAGE


def _stdout_to_devnull() -> None:
    """What is left in stdout's buffer goes nowhere: flushing it at exit would fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _log_crash(exc: BaseException, env: Mapping[str, str]) -> Path | None:
    from tui.secrets.crashlog import LOG_FILE_NAME, record_exception

    return record_exception(exc, f"start-up, watchdeck {__version__}", path=state_dir(env) / LOG_FILE_NAME,
                            secrets=_secrets)


def _main(argv: Sequence[str] | None, env: Mapping[str, str], clock: Clock | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command or args.web:
        startup.collector_on()  # only the dashboard loads with the collector off; its app turns it on itself
    if args.command == "sandbox":
        from tui.sandbox import cli as sandbox_cli

        return sandbox_cli.run(args)
    if args.command == "status":
        return _run_status(args, env, clock)
    if args.command == "surveys":
        return _run_surveys(args, env)
    if args.command == "metrics":
        return _run_metrics(args, env)
    if args.web:
        return _run_web(args, argv, env)
    if args.demo:
        return _run_demo(args)
    try:
        settings = _resolve(args, env)
    except NeedsSetup as err:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return _fail(str(err))
        return _run_welcome(args, env, err)
    except ConfigError as err:
        return _fail(str(err))
    _warn(settings)
    return _run_dashboard(settings, clock)


def _run_web(args: argparse.Namespace, argv: Sequence[str] | None, env: Mapping[str, str]) -> int:
    """Check the settings here, once, so a bad config is one line now rather than a blank browser tab."""
    from tui.cli.web import serve

    if not args.demo:
        try:
            _resolve(args, env)
        except (ConfigError, NeedsSetup) as err:
            return _fail(str(err))
    return serve(list(sys.argv[1:] if argv is None else argv), host=args.web_host, port=args.port,
                 actions=args.web_actions)


def _run_dashboard(settings: Settings, clock: Clock | None = None) -> int:
    from tui.clock import SystemClock

    clock = clock or SystemClock()
    first_poll = startup.start_first_poll(settings, clock)  # before the import below: that is the point
    startup.quiet_collector()
    from tui.app import WatchdeckApp

    app = WatchdeckApp(settings, clock=clock, first_poll=first_poll)
    app.run()
    return app.return_code or 0


def _run_status(args: argparse.Namespace, env: Mapping[str, str], clock: Clock | None) -> int:
    from tui.cli import status as status_cmd

    grace = args.grace if args.grace is not None else status_cmd.DEFAULT_GRACE_SECONDS
    if args.demo:  # `watchdeck --demo status` or `watchdeck status --demo`
        from tui.cli.demo import open_demo_server

        try:
            server = open_demo_server()
        except OSError as err:
            return _fail(f"cannot start the sandbox: {err}")
        with server:
            if not server.wait_until_serving():
                return _fail("the demo sandbox did not start")
            settings = _demo_settings(server, args)
            return status_cmd.run(settings, as_json=args.json, grace=grace, clock=clock or server.clock,
                                  env=dict(env), output=args.output)
    try:
        settings = _resolve(args, env)
    except ConfigError as err:
        return _fail(str(err))
    _warn(settings)
    return status_cmd.run(settings, as_json=args.json, grace=grace, clock=clock, env=dict(env), output=args.output)


def _run_metrics(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from tui.cli import metrics as metrics_cmd

    try:
        settings = _resolve(args, env)
    except (ConfigError, NeedsSetup) as err:
        return _fail(str(err))
    _warn(settings)
    listen = args.listen or metrics_cmd.parse_listen(metrics_cmd.DEFAULT_LISTEN)
    return metrics_cmd.run(settings, listen, allow_hosts=args.allow_hosts)


def _run_surveys(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from tui.cli import surveys as surveys_cmd

    try:
        settings = _resolve(args, env)
    except (ConfigError, NeedsSetup) as err:
        return _fail(str(err))
    _warn(settings)
    if args.survey_command == "get":
        return surveys_cmd.get(settings, args.survey_id, yaml=args.yaml)
    if args.survey_command == "list":
        return surveys_cmd.list_surveys(settings)
    return surveys_cmd.apply(settings, args.path, dry_run=args.dry_run)


def _run_welcome(args: argparse.Namespace, env: Mapping[str, str], reason: NeedsSetup) -> int:
    """First run: the welcome screen decides between the demo, a profile and a new profile."""
    from tui.screens.welcome import DEMO, WelcomeApp

    startup.collector_on()  # the welcome screen is another app: it does not freeze and re-enable like the dashboard
    welcome = WelcomeApp(env=env, config=reason.config, path=reason.path)
    choice = welcome.run()
    if choice == DEMO:
        return _run_demo(args)
    if isinstance(choice, Settings):
        _remember_secret(choice.api_key.get_secret_value())
        _warn(choice)
        return _run_dashboard(choice)
    return 0


def _demo_settings(server: DemoServer, args: argparse.Namespace) -> Settings:
    return Settings(
        base_url=server.base_url,
        api_key=server.api_key,
        project_ids=list(getattr(args, "projects", None) or []) or [server.project_id],
        export_ids=list(getattr(args, "exports", None) or []),
        poll_seconds=getattr(args, "poll", None) or DEMO_POLL_SECONDS,
        read_only=bool(getattr(args, "read_only", False)),
        profile="demo",
        demo=True,
        key_source="sandbox",
    )


def demo_hint(base_url: str, api_key: str, project_ids: Sequence[str], program: str) -> str:
    """The line ``--demo`` prints first: where its sandbox serves, a ``status`` command that works as pasted in
    another terminal while the demo runs (the sandbox's own key, which is no secret), and its clock's speed."""
    from shlex import quote

    from tui.cli.demo import DEMO_SPEED

    projects = " ".join(f"--project {quote(p)}" for p in project_ids)
    return (f"watchdeck: demo sandbox on {base_url}, its clock {DEMO_SPEED:g} times faster than yours (a minute here"
            f" is an hour there). From another terminal: WATCHDECK_API_KEY={quote(api_key)} {quote(program)} status"
            f" --base-url {quote(base_url)} {projects}")


def _run_demo(args: argparse.Namespace) -> int:
    from tui.cli.demo import open_demo_server

    try:
        server = open_demo_server()
    except OSError as err:
        return _fail(f"cannot start the sandbox: {err}")
    with server:
        settings = _demo_settings(server, args)
        print(demo_hint(server.base_url, server.api_key, settings.project_ids, sys.argv[0]), file=sys.stderr,
              flush=True)
        # Sent as soon as the sandbox serves, while Textual loads.
        first_poll = startup.start_first_poll(settings, server.clock, before=server.wait_until_serving)
        startup.quiet_collector()
        from tui.app import WatchdeckApp

        app = WatchdeckApp(settings, clock=server.clock, first_poll=first_poll)
        app.run()
    return app.return_code or 0

