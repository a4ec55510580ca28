"""The exporter's HTTP server answers its own names only (DNS rebinding), and on /metrics only: real requests."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.metrics.conftest import Exporter
from tui.cli.metrics_http import start_metrics_server
from tui.sandbox.runner import SandboxHandle
from tui.state.metric_families import PollMetrics


@pytest.fixture
def served() -> Iterator[Callable[..., str]]:
    """Start a metrics server on a free loopback port; returns its base URL."""
    servers = []

    def start(host: str = "127.0.0.1", allow_hosts: tuple[str, ...] = ()) -> str:
        httpd, thread = start_metrics_server(host, 0, PollMetrics().registry, allow_hosts)
        servers.append((httpd, thread))
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{httpd.server_port}"

    yield start
    for httpd, thread in servers:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _get(url: str, host: str | None = None) -> httpx.Response:
    return httpx.get(url, headers={"Host": host} if host else None, timeout=10, verify=False)  # plain loopback HTTP


def test_metrics_answers_loopback_names_and_refuses_any_other_host(served: Callable[..., str]) -> None:
    base = served()
    port = base.rsplit(":", 1)[1]
    ok = _get(f"{base}/metrics")
    assert ok.status_code == 200 and "watchdeck_requests_total" in ok.text
    for name in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert _get(f"{base}/metrics", name).status_code == 200, name
    for name in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", f"127.0.0.1:{port}0",
                 "127.0.0.1"):
        refused = _get(f"{base}/metrics", name)
        assert (refused.status_code, refused.text) == (403, "403 Forbidden: unknown Host\n"), name
        assert "watchdeck" not in refused.text


def test_a_request_without_a_host_is_refused(served: Callable[..., str]) -> None:
    base = served()
    with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=10) as conn:
        conn.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 403 ") and b"watchdeck_" not in answer


def test_only_metrics_is_served(served: Callable[..., str]) -> None:
    base = served()
    assert _get(f"{base}/metrics?name[]=x").status_code == 200
    for path in ("/", "/metrics/", "/favicon.ico", "/metrics.txt", "/other", "/metrics/x"):
        answer = _get(f"{base}{path}")
        assert (answer.status_code, answer.text) == (404, "404 Not Found: only /metrics is served\n"), path


def test_allowed_names_are_served_on_the_listen_port_or_the_port_they_name(served: Callable[..., str]) -> None:
    base = served(allow_hosts=("prom.example", "Proxy.Example:9999"))
    port = base.rsplit(":", 1)[1]
    assert _get(f"{base}/metrics", f"prom.example:{port}").status_code == 200
    assert _get(f"{base}/metrics", "proxy.example:9999").status_code == 200
    assert _get(f"{base}/metrics", "prom.example:9999").status_code == 403
    assert _get(f"{base}/metrics", f"proxy.example:{port}").status_code == 403


def test_an_ipv6_loopback_listener_checks_hosts_too(served: Callable[..., str]) -> None:
    try:
        base = served("::1")
    except OSError:
        pytest.skip("SKIP: no IPv6 loopback on this machine")
    port = base.rsplit(":", 1)[1]
    assert _get(f"{base}/metrics").status_code == 200
    assert _get(f"{base}/metrics", f"localhost:{port}").status_code == 200
    assert _get(f"{base}/metrics", f"evil.example:{port}").status_code == 403


def test_the_exporter_takes_allow_host(sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    exporter = start_exporter(sandbox, "--allow-host", "scraper.internal")
    assert exporter.url is not None
    port = exporter.url.rsplit(":", 1)[1].split("/")[0]
    assert _get(exporter.url, f"scraper.internal:{port}").status_code == 200
    assert _get(exporter.url, f"evil.example:{port}").status_code == 403
    assert _get(exporter.url.replace("/metrics", "/")).status_code == 404
    assert exporter.stop() == 0
