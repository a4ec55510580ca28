"""``watchdeck --web`` answers only its operator: Host, Origin and a per-start token; read-only by default.

These speak HTTP and websocket without a browser (the browser's own view is
tests/test_web_browser.py), against the real ``watchdeck --web --demo``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.webserver import WebServer, free_port, running_web
from tui.cli.web import allowed_netlocs, app_command, exposure_warning, strip_web_flags

pytest.importorskip("textual_serve")
aiohttp = pytest.importorskip("aiohttp")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with running_web(tmp_path_factory.mktemp("web")) as running:
        yield running


def test_strip_web_flags_keeps_the_rest() -> None:
    argv = ["--web", "--port", "9000", "--demo", "--web-host=127.0.0.1", "--web-actions", "--poll", "5"]
    assert strip_web_flags(argv) == ["--demo", "--poll", "5"]


def test_each_visit_runs_a_read_only_app_unless_actions_are_asked_for() -> None:
    assert shlex.split(app_command(["--web", "--demo"]))[-2:] == ["--demo", "--read-only"]
    assert "--read-only" not in shlex.split(app_command(["--web", "--demo", "--web-actions"], actions=True))


def test_the_url_carries_a_fresh_token_each_start(server: WebServer) -> None:
    assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")
    assert len(server.token) >= 40
    assert "read-only" in server.stderr()


def test_the_page_needs_the_token(server: WebServer) -> None:
    assert httpx.get(f"{server.origin}/", timeout=5, verify=False).status_code == 403
    assert httpx.get(f"{server.origin}/?token=wrong", timeout=5, verify=False).status_code == 403
    page = httpx.get(server.url, timeout=5, verify=False)
    assert page.status_code == 200
    assert "watchdeck" in page.text
    # the websocket URL the page's script opens carries the token in its path, on the page's own origin
    assert f'data-session-websocket-url="ws://127.0.0.1:{server.port}/ws/{server.token}"' in page.text
    assert page.headers["Referrer-Policy"] == "no-referrer"


def test_a_foreign_host_or_origin_is_refused_even_with_the_token(server: WebServer) -> None:
    rebound = httpx.get(server.url, headers={"Host": f"evil.example:{server.port}"}, timeout=5, verify=False)
    assert rebound.status_code == 403
    framed = httpx.get(server.url, headers={"Origin": "http://evil.example"}, timeout=5, verify=False)
    assert framed.status_code == 403
    other_port = httpx.get(server.url, headers={"Origin": f"http://127.0.0.1:{server.port + 1}"}, timeout=5,
                           verify=False)
    assert other_port.status_code == 403
    assert httpx.get(server.url, headers={"Origin": server.origin}, timeout=5, verify=False).status_code == 200
    assert httpx.get(server.url.replace("127.0.0.1", "localhost"), timeout=5, verify=False).status_code == 200


async def _ws_status(url: str, origin: str | None) -> int:
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=2)) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as err:
            return err.status


def test_the_websocket_needs_the_token_and_the_served_origin(server: WebServer) -> None:
    base = f"ws://127.0.0.1:{server.port}"

    async def statuses() -> list[int]:
        return [
            await _ws_status(f"{base}/ws/{server.token}?width=80&height=24", "http://evil.example"),
            await _ws_status(f"{base}/ws/{server.token}?width=80&height=24", f"http://127.0.0.1:{server.port + 1}"),
            await _ws_status(f"{base}/ws/{server.token}?width=80&height=24", None),
            await _ws_status(f"{base}/ws/wrong?width=80&height=24", server.origin),
            await _ws_status(f"{base}/ws?width=80&height=24", server.origin),
            await _ws_status(f"{base}/ws/{server.token}?width=80&height=24", server.origin),
        ]

    assert asyncio.run(statuses()) == [403, 403, 403, 403, 403, 101]


def test_only_loopback_is_quiet_about_exposure() -> None:
    for host in ("127.0.0.1", "localhost", "::1"):
        assert exposure_warning(host, 8000, actions=False) is None
    warning = exposure_warning("0.0.0.0", 8000, actions=True)
    assert warning is not None
    assert "not loopback" in warning and "token" in warning and "plain http" in warning
    assert "pause" in warning
    assert "127.0.0.1:8000" in allowed_netlocs("0.0.0.0", 8000)
    assert allowed_netlocs("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}


def test_a_non_loopback_web_host_prints_the_warning(tmp_path: Path) -> None:
    """192.0.2.1 (TEST-NET-1) is no address of this machine: the warning is printed, then a one-line bind error."""
    env = dict(os.environ, WATCHDECK_STATE_DIR=str(tmp_path), WATCHDECK_DATA_DIR=str(tmp_path),
               WATCHDECK_CONFIG_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "tui", "--web", "--demo", "--web-host", "192.0.2.1",
                           "--port", str(free_port())], env=env, capture_output=True, timeout=60, check=False)
    err = done.stderr.decode()
    assert "watchdeck: warning: --web-host 192.0.2.1 is not loopback" in err
    assert "cannot listen on 192.0.2.1" in err
    assert "Traceback" not in err
    assert done.returncode == 2


def test_web_mode_is_bound_to_loopback_only(server: WebServer) -> None:
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    others = [a for a in addresses if not str(a).startswith("127.")]
    if not others:
        pytest.skip("this machine has no address but loopback to try")
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://{others[0]}:{server.port}/", timeout=2, verify=False)


def test_the_page_loads_nothing_from_elsewhere_and_says_so(server: WebServer) -> None:
    """A loopback, token-guarded page asked fonts.googleapis.com for its font; the font is served here now."""
    import re

    page = httpx.get(server.url, timeout=5, verify=False)
    assert page.status_code == 200
    remote = re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//[^"' >]+""", page.text)
    assert remote == [], remote
    assert "googleapis" not in page.text
    policy = page.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "font-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert f"connect-src 'self' ws://127.0.0.1:{server.port}" in policy
    font = re.search(r'url\("(/static/fonts/[^"]+)"\)', page.text)
    assert font is not None
    served = httpx.get(f"{server.origin}{font.group(1)}", timeout=5, verify=False)
    assert served.status_code == 200 and len(served.content) > 10_000
    assert served.headers["Content-Security-Policy"] == policy
