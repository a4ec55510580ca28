"""``watchdeck --demo``'s sandbox: a child process on a socket the dashboard opened, one clock, one lifetime."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from email.utils import parsedate_to_datetime

import httpx

from tui.cli.demo import DEMO_KEY, DEMO_PROJECT, DemoServer
from tui.sandbox import auth


def test_the_demo_key_is_the_sandboxes() -> None:
    assert DEMO_KEY == auth.DEMO_KEY


def test_requests_sent_while_it_seeds_wait_and_its_clock_is_ours() -> None:
    with DemoServer(scenario="outage", speed=1.0) as server:
        sent = time.monotonic()  # at once: the child is still importing and seeding
        answer = httpx.get(f"{server.base_url}/api/projects/{DEMO_PROJECT}/batch_exports/",
                           headers={"Authorization": f"Bearer {server.api_key}"}, timeout=30, verify=False)
        print(f"first answer after {time.monotonic() - sent:.2f} s")
        assert answer.status_code == 200 and answer.json()["results"]
        served_at = parsedate_to_datetime(answer.headers["date"])
        assert abs((served_at - server.clock.now()).total_seconds()) < 2.5, "one simulated time for both"
        assert server.running
        assert server.wait_until_serving()
    assert not server.running, "stopped with the dashboard"


PARENT = """
import sys, time
from tui.cli.demo import DemoServer
server = DemoServer(scenario=None)
print(server.base_url.rsplit(":", 1)[1], flush=True)
time.sleep(60)
"""


def test_the_child_ends_when_the_dashboard_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        port = int(parent.stdout.readline())
        httpx.get(f"http://127.0.0.1:{port}/api/projects/", timeout=30, verify=False)  # the child is up
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        except OSError:
            return
        time.sleep(0.1)
    raise AssertionError("the demo sandbox outlived the dashboard that started it")
