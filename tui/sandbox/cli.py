"""``watchdeck sandbox``: serve the sandbox in the foreground until Ctrl-C (the server loads only then)."""

from __future__ import annotations

import argparse
import sys
import threading

from tui.sandbox.options import GENERATIONS, SCENARIOS, SandboxOptions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    parser.add_argument("--port", type=int, default=8010, help="port (0 picks a free one; default 8010)")
    parser.add_argument("--db", default=None, metavar="PATH", help="SQLite file to keep state across restarts")
    parser.add_argument("--seed", type=int, default=7, help="seed for the demo data and the simulator")
    parser.add_argument("--speed", type=float, default=60.0, help="simulated seconds per real second")
    parser.add_argument("--surveys", type=int, default=None, help="scale the main project to N surveys")
    parser.add_argument("--exports", type=int, default=None, help="scale the main project to N batch exports")
    parser.add_argument("--key", action="append", default=[], metavar="KEY:SCOPES[@PROJECTS]",
                        help="extra API key, e.g. ro-key:survey:read,batch_export:read; a trailing @1,2 limits it "
                             "to those projects (repeatable)")
    parser.add_argument("--logs-forbidden", action="store_true",
                        help="answer 403 on logs endpoints, as the real cloud does for personal keys")
    parser.add_argument("--generation", choices=GENERATIONS, default="newest",
                        help="answer as the newest real service (default) or an older one: backfill/ and its "
                             "datetime bounds, workflow-id backfill ids, 200 on create, paginated logs")
    parser.add_argument("--scenario", choices=SCENARIOS, default=None,
                        help="outage: seed a recent outage of one destination type (failing runs in several "
                             "exports); start more with POST /_sandbox/outages")
    parser.add_argument("--logs-ignore-paging", action="store_true",
                        help="answer every log entry, ignoring after/before/limit, as some servers do")
    parser.add_argument("--faults", action="append", default=[], metavar="KIND[:k=v,...]",
                        help="inject a fault, e.g. status:status=503,rate=0.2 or latency:seconds=2 (repeatable)")


def options_from_args(args: argparse.Namespace) -> SandboxOptions:
    return SandboxOptions(
        seed=args.seed, speed=args.speed, db_path=args.db, surveys=args.surveys, exports=args.exports,
        keys=list(args.key), logs_forbidden=args.logs_forbidden, faults=list(args.faults),
        generation=args.generation, scenario=args.scenario,
        logs_ignore_paging=args.logs_ignore_paging,
    )


def _wait_forever() -> None:
    """Block until Ctrl-C (a separate function so tests can interrupt it)."""
    threading.Event().wait()


def run(args: argparse.Namespace) -> int:
    # Here, not at the top: ``watchdeck``'s parser imports this module for its arguments, and Starlette and
    # uvicorn (0.1 s) are not what the dashboard's start should wait for.
    from tui.sandbox.auth import parse_key_spec
    from tui.sandbox.faults import parse_fault_spec
    from tui.sandbox.runner import start_sandbox

    options = options_from_args(args)
    try:
        for i, spec in enumerate(options.keys, start=1):
            parse_key_spec(spec, i)
        for spec in options.faults:
            parse_fault_spec(spec)
    except ValueError as exc:
        print(f"watchdeck sandbox: {exc}", file=sys.stderr)
        return 2
    try:
        handle = start_sandbox(options, host=args.host, port=args.port)
    except OSError as exc:
        print(f"watchdeck sandbox: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"Sandbox listening on {handle.base_url}")
    print(f"  project id: {handle.project_id}")
    print(f"  API key:    {handle.api_key}")
    print(f"  answers as: the {options.generation} real service"
          + (f"   scenario: {options.scenario}" if options.scenario else ""))
    print(f"  speed:      {options.speed:g}x   seed: {options.seed}   db: {options.db_path or '(in memory)'}")
    print("Press Ctrl-C to stop.", flush=True)
    try:
        _wait_forever()
    except KeyboardInterrupt:
        print("\nStopping sandbox...", file=sys.stderr)
    finally:
        handle.stop()
    return 0
