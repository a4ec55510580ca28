"""The sandbox as a child process of ``watchdeck --demo``, serving on a socket its parent opened.

The parent binds and listens before it starts this process, so its first
requests wait in the socket's queue instead of failing while this process
seeds its world; and seeding (about half a second of simulation) runs on
another core than the parent's start-up. Both processes run one simulated
time: the parent passes its clock's anchor. This process ends when its
standard input closes, which happens when the parent exits in any way.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
from datetime import datetime

from tui.clock import ScaledClock
from tui.sandbox.options import SCENARIOS, SandboxOptions
from tui.sandbox.runner import start_sandbox


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tui.sandbox.child")
    parser.add_argument("--fd", type=int, required=True, help="a bound, listening socket inherited from the parent")
    parser.add_argument("--epoch", required=True, help="the clock's simulated time at --monotonic (ISO 8601)")
    parser.add_argument("--monotonic", type=float, required=True, help="time.monotonic() at --epoch")
    parser.add_argument("--speed", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scenario", choices=SCENARIOS, default=None)
    parser.add_argument("--world-cache", default=None, help="a folder of seeded worlds (seeded at the hour)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    clock = ScaledClock(datetime.fromisoformat(args.epoch), args.speed, monotonic_at_epoch=args.monotonic)
    sock = socket.socket(fileno=args.fd)
    handle = start_sandbox(SandboxOptions(seed=args.seed, speed=args.speed, scenario=args.scenario, clock=clock,
                                          world_cache=args.world_cache), sock=sock)
    print("serving", flush=True)  # the parent's first poll waits for this line rather than time out
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the dashboard's to handle; its exit ends this one
    stdin_closed = threading.Event()

    def watch_parent() -> None:
        while os.read(sys.stdin.fileno(), 4096):
            pass
        stdin_closed.set()

    threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()
    try:
        stdin_closed.wait()
    finally:
        handle.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
