"""A throwaway Prometheus and Alertmanager (the Debian packages) on free loopback ports, with the shipped examples.

Prometheus runs ``examples/prometheus/`` (scraping one exporter, its rules' ``for:`` divided by the sandbox's clock
speed); Alertmanager runs ``examples/alertmanager/alertmanager.yml`` (its receivers pointed at a :class:`Receiver`
of the test, its grouping times divided by the same speed). Nothing else of the examples is changed.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.metrics.conftest import ROOT, wait_for

EXAMPLES = ROOT / "examples"
RULES = EXAMPLES / "prometheus" / "watchdeck-rules.yml"
SCRAPE_CONFIG = EXAMPLES / "prometheus" / "prometheus.yml"
ALERTMANAGER_CONFIG = EXAMPLES / "alertmanager" / "alertmanager.yml"
WEBHOOK_URL = "http://127.0.0.1:9099/watchdeck"  # the example's placeholder
ROUTING_KEY_LINE = "      - routing_key: REPLACE-WITH-YOUR-PAGERDUTY-INTEGRATION-KEY"


def binary(name: str) -> str | None:
    found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
    return found


PROMETHEUS = binary("prometheus")
PROMTOOL = binary("promtool")
ALERTMANAGER = binary("prometheus-alertmanager") or binary("alertmanager")
AMTOOL = binary("amtool")
PROMETHEUS_MISSING = ("SKIP: prometheus is not installed (Debian package prometheus, /usr/bin/prometheus; "
                      ".ci/run installs it)")
ALERTMANAGER_MISSING = ("SKIP: alertmanager is not installed (Debian package prometheus-alertmanager, "
                        "/usr/bin/prometheus-alertmanager and amtool; .ci/run installs it)")

_DURATION = re.compile(r"\b(group_wait|group_interval|repeat_interval|for): (\d+)([smh])\b")
_UNIT = {"s": 1, "m": 60, "h": 3600}


def scaled(text: str, speed: float, keys: tuple[str, ...]) -> str:
    """``text`` with the durations of ``keys`` divided by ``speed`` (in milliseconds, at least 1)."""

    def shorter(found: re.Match[str]) -> str:
        if found.group(1) not in keys:
            return found.group(0)
        milliseconds = max(1, round(int(found.group(2)) * _UNIT[found.group(3)] * 1000 / speed))
        return f"{found.group(1)}: {milliseconds}ms"

    return _DURATION.sub(shorter, text)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Process:
    """A server process of the test, its output in a log file; :meth:`stop` ends it."""

    def __init__(self, argv: list[str], log: Path, ready_url: str) -> None:
        self.log_file = log.open("w")
        self.log = log
        self.process = subprocess.Popen(argv, stdout=self.log_file, stderr=subprocess.STDOUT)
        self.http = httpx.Client(base_url=ready_url, timeout=10, verify=False)
        wait_for(self.ready, f"{Path(argv[0]).name} to be ready")

    def ready(self) -> bool:
        assert self.process.poll() is None, f"{self.log.name}: exited\n{self.log.read_text()[-2000:]}"
        try:
            return self.http.get("/-/ready").status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=30)
            self.log_file.close()


class Prometheus(_Process):
    """The example scrape config and rules, scraping ``target`` every 250 ms, ``for:`` divided by ``speed``."""

    def __init__(self, folder: Path, target: str, *, speed: float, alertmanager: str | None = None) -> None:
        assert PROMETHEUS is not None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "watchdeck-rules.yml").write_text(scaled(RULES.read_text(), speed, ("for",)))
        config = SCRAPE_CONFIG.read_text()
        config = config.replace("scrape_interval: 30s", "scrape_interval: 250ms")
        config = config.replace("evaluation_interval: 30s", "evaluation_interval: 250ms")
        assert config.count('"127.0.0.1:9185"') == 1 and config.count('"127.0.0.1:9093"') == 1
        config = config.replace('"127.0.0.1:9185"', f'"{target}"')
        if alertmanager is not None:
            config = config.replace('"127.0.0.1:9093"', f'"{alertmanager}"')
        else:  # no Alertmanager of the test's: none at all (another on the example's port is not ours)
            config = re.sub(r"\nalerting:\n(?:  .*\n)+", "\n", config)
            assert "9093" not in config
        (folder / "prometheus.yml").write_text(config)
        self.port = free_port()
        super().__init__([PROMETHEUS, f"--config.file={folder / 'prometheus.yml'}",
                          f"--storage.tsdb.path={folder / 'data'}", f"--web.listen-address=127.0.0.1:{self.port}"],
                         folder / "prometheus.log", f"http://127.0.0.1:{self.port}")

    def alerts(self) -> list[dict[str, Any]]:
        answer = self.http.get("/api/v1/alerts")
        assert answer.status_code == 200
        found: list[dict[str, Any]] = answer.json()["data"]["alerts"]
        return found


class Receiver:
    """A tiny HTTP receiver: keeps every JSON body posted to it, by path."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with received._lock:
                    received.posts.append((self.path, json.loads(body)))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="test-receiver", daemon=True)
        self._thread.start()

    def bodies(self, path: str) -> list[dict[str, Any]]:
        with self._lock:
            return [body for posted, body in self.posts if posted == path]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=10)


class Alertmanager(_Process):
    """The example Alertmanager config, its webhook at ``receiver``/watchdeck and its PagerDuty Events v2 URL at
    ``receiver``/pagerduty; group_wait, group_interval and repeat_interval divided by ``speed``."""

    def __init__(self, folder: Path, receiver: Receiver, *, speed: float) -> None:
        assert ALERTMANAGER is not None
        folder.mkdir(parents=True, exist_ok=True)
        config = scaled(ALERTMANAGER_CONFIG.read_text(), speed, ("group_wait", "group_interval", "repeat_interval"))
        assert config.count(WEBHOOK_URL) == 1 and config.count(ROUTING_KEY_LINE) == 1
        config = config.replace(WEBHOOK_URL, f"{receiver.url}/watchdeck")
        config = config.replace(ROUTING_KEY_LINE, f"{ROUTING_KEY_LINE}\n        url: {receiver.url}/pagerduty")
        (folder / "alertmanager.yml").write_text(config)
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        super().__init__([ALERTMANAGER, f"--config.file={folder / 'alertmanager.yml'}",
                          f"--storage.path={folder / 'data'}", f"--web.listen-address={self.address}",
                          "--cluster.listen-address="],  # no gossip port: one Alertmanager, alone
                         folder / "alertmanager.log", f"http://{self.address}")


def stop_all(*parts: Callable[[], None]) -> None:
    """Call every ``stop``, even when one fails; the first failure is raised after."""
    failure: BaseException | None = None
    for stop in parts:
        try:
            stop()
        except BaseException as error:
            failure = failure or error
    if failure is not None:
        raise failure
