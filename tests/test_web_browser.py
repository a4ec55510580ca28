"""Web mode in a real browser: Debian's Chromium driven by Playwright (never a downloaded browser).

The operator's tokened page shows the monitor and answers a key; a page from
another origin in the same browser cannot open the websocket, even knowing the
token; a URL without the token is refused. Without Chromium the whole module is
one SKIP line naming it.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.real_parts import import_or_missing, missing
from tests.webserver import WebServer, running_web

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 30_000
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")

if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
    missing("browser test of web mode: Chromium is not installed (Debian package 'chromium', /usr/bin/chromium)",
            module=True)
sync_api = import_or_missing("playwright.sync_api", "browser test of web mode: playwright is not installed")
pytest.importorskip("textual_serve")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with running_web(tmp_path_factory.mktemp("web")) as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A fresh profile each run: no cookie, cache or permission of an earlier run can help a test pass."""
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=executable, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()


class Frames:
    """What the page's websockets receive, as terminal text with the escape sequences taken out."""

    def __init__(self, page: Any) -> None:
        self.chunks: list[str] = []
        self.opened: list[str] = []
        page.on("websocket", self._on_websocket)

    def _on_websocket(self, ws: Any) -> None:
        self.opened.append(ws.url)
        ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload: str | bytes) -> None:
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
        self.chunks.append(_ANSI.sub("", text))

    def since(self, start: int) -> str:
        return "".join(self.chunks[start:])

    def wait_for(self, page: Any, found: Callable[[str], bool], start: int = 0, what: str = "") -> None:
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            if found(self.since(start)):
                return
            page.wait_for_timeout(100)
        raise AssertionError(f"never saw {what}; got: {self.since(start)[-2000:]!r}")


@pytest.mark.slow
def test_the_operator_sees_the_monitor_and_a_key_changes_the_screen(server: WebServer, browser: Any) -> None:
    page = browser.new_page()
    frames = Frames(page)
    response = page.goto(server.url)
    assert response is not None and response.status == 200
    frames.wait_for(page, lambda text: "READ-ONLY" in text and "Snowflake" in text, what="the monitor's exports")
    assert len(frames.opened) == 1
    assert frames.opened[0].startswith(f"ws://127.0.0.1:{server.port}/ws/{server.token}?width=")
    page.locator("#terminal").click()
    before = len(frames.chunks)
    page.keyboard.press("?")
    frames.wait_for(page, lambda text: "Act on the export" in text, start=before, what="the help screen")
    page.close()


def test_a_url_without_the_token_is_refused(server: WebServer, browser: Any) -> None:
    page = browser.new_page()
    frames = Frames(page)
    response = page.goto(f"http://127.0.0.1:{server.port}/")
    assert response is not None and response.status == 403
    page.wait_for_timeout(300)
    assert frames.opened == []
    page.close()


class _OtherOrigin(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args: object) -> None:
        pass


def test_a_page_from_another_origin_cannot_open_the_websocket(server: WebServer, browser: Any) -> None:
    """Even with the token (a leaked URL): a second loopback server on another port is another origin."""
    ws_url = f"ws://127.0.0.1:{server.port}/ws/{server.token}?width=80&height=24"
    _OtherOrigin.page = f"""<!DOCTYPE html><html><body><script>
      const ws = new WebSocket({ws_url!r});
      ws.onopen = () => {{ document.title = "open"; }};
      ws.onclose = () => {{ if (document.title !== "open") document.title = "refused"; }};
    </script></body></html>""".encode()
    other = ThreadingHTTPServer(("127.0.0.1", 0), _OtherOrigin)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser.new_page()
        frames = Frames(page)
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        page.wait_for_function("document.title === 'open' || document.title === 'refused'")
        assert page.title() == "refused"
        assert frames.chunks == []
        page.close()
    finally:
        other.shutdown()
        other.server_close()
