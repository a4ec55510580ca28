"""The start-up prefetch: the first poll's answers fetched on a thread, handed to the client once, or not at all."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.api.helpers import Sandbox
from tui.api.client import ApiClient
from tui.api.prefetch import Prefetch, prefetch_export_lists
from tui.api.urls import batch_exports_path


def finished(prefetch: Prefetch, timeout: float = 10.0) -> Prefetch:
    deadline = time.monotonic() + timeout
    while not prefetch.done:
        assert time.monotonic() < deadline, "the prefetch never finished"
        time.sleep(0.01)
    return prefetch


def list_requests(sandbox: Sandbox) -> list[dict[str, Any]]:
    return [r for r in sandbox.requests() if r["path"].endswith("/batch_exports/") and r["method"] == "GET"]


async def test_the_client_takes_every_prefetched_page_and_sends_nothing_itself(sandbox: Sandbox) -> None:
    path = batch_exports_path(sandbox.project_id)
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id) as plain:
        expected = await plain.batch_exports.list(page_size=3)
    pages = -(-len(expected.results) // 3)
    assert pages >= 2, "the seed must span several pages for this test"
    sandbox.clean()

    prefetch = finished(Prefetch(sandbox.base_url, sandbox.api_key, path, [("limit", "3")]).start())
    assert prefetch.ready()
    sent = list_requests(sandbox)
    assert len(sent) == pages == prefetch.sent
    assert {r["key_id"] for r in sent} == {list_requests(sandbox)[0]["key_id"]} != {None}
    assert sent[0]["query_params"] == {"limit": ["3"]}

    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, prefetch=prefetch) as client:
        got = await client.batch_exports.list(page_size=3)
        assert [e.id for e in got.results] == [e.id for e in expected.results]
        assert got.results == expected.results
        assert len(list_requests(sandbox)) == pages, "no page was asked for twice"
        assert client.requests_sent == pages, "prefetched requests still count against the rate budget"
        await client.batch_exports.list(page_size=3)  # the second poll is the client's own
        assert len(list_requests(sandbox)) == 2 * pages
        assert not prefetch.ready(), "each answer is handed out once"


async def test_a_refused_prefetch_leaves_the_request_and_its_rules_to_the_client(sandbox: Sandbox) -> None:
    sandbox.fault(kind="status", status=503, count=1, path="/batch_exports/$")
    prefetch = finished(prefetch_export_lists(sandbox.base_url, sandbox.api_key, [sandbox.project_id])
                        [sandbox.project_id])
    assert not prefetch.ready()
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, prefetch=prefetch,
                         sleep=_no_sleep) as client:
        assert not client.prefetched_answer_ready
        page = await client.batch_exports.list()
    assert page.results
    assert [r["fault"] for r in list_requests(sandbox)] == ["status", None]


async def test_an_answer_older_than_max_age_is_not_shown(sandbox: Sandbox) -> None:
    now = [1000.0]
    prefetch = finished(Prefetch(sandbox.base_url, sandbox.api_key, batch_exports_path(sandbox.project_id),
                                 [("limit", "100")], max_age=10.0, clock=lambda: now[0]).start())
    now[0] += 11
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, prefetch=prefetch) as client:
        await client.batch_exports.list()
    assert len(list_requests(sandbox)) == 2, "the stale answer was dropped and asked for again"


def test_no_prefetch_through_a_proxy_with_a_bad_key_or_to_another_base_url(sandbox: Sandbox) -> None:
    base, key, pid = sandbox.base_url, sandbox.api_key, sandbox.project_id
    assert prefetch_export_lists(base, key, [pid], env={"HTTPS_PROXY": "http://proxy:3128"}) == {}
    assert prefetch_export_lists(base, key, [pid], env={"all_proxy": "socks5://proxy"}) == {}
    assert prefetch_export_lists(base, "two words", [pid], env={}) == {}
    assert prefetch_export_lists(base, "", [pid], env={}) == {}
    assert sandbox.requests() == []
    started = prefetch_export_lists(base, key, [pid, pid, "2"], env={})
    assert sorted(started) == [pid, "2"]
    for prefetch in started.values():
        finished(prefetch)
    other = ApiClient("http://127.0.0.1:9", key, pid, prefetch=started[pid])
    assert not other.prefetched_answer_ready, "an answer from another base URL is never used"


# --------------------------------------------------------------------------- where the key goes


class _Server:
    """A loopback server answering with ``reply(path)``; records each request's path and Authorization."""

    def __init__(self, reply: Callable[[str, str], tuple[int, dict[str, str], bytes]]) -> None:
        seen = self.seen = []  # type: list[tuple[str, str | None]]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((self.path, self.headers.get("Authorization")))
                status, headers, body = reply(self.path, f"http://127.0.0.1:{self.server.server_address[1]}")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server_factory() -> Iterator[Callable[..., _Server]]:
    servers: list[_Server] = []

    def make(reply: Callable[[str, str], tuple[int, dict[str, str], bytes]]) -> _Server:
        servers.append(_Server(reply))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def _page(results: list[dict[str, Any]], next_url: str | None) -> bytes:
    return json.dumps({"count": 2, "next": next_url, "previous": None, "results": results}).encode()


def test_next_links_to_another_host_are_rebased_on_the_base_url(server_factory: Callable[..., _Server]) -> None:
    """A proxy may name another host in ``next``; the key still only goes to the configured one."""
    json_type = {"Content-Type": "application/json"}

    def reply(path: str, _: str) -> tuple[int, dict[str, str], bytes]:
        if "offset" in path:
            return 200, json_type, _page([{"id": "b"}], None)
        return 200, json_type, _page([{"id": "a"}], "https://elsewhere.example/prefix/api/environments/1/"
                                                    "batch_exports/?limit=1&offset=1")

    server = server_factory(reply)
    prefetch = finished(Prefetch(server.url + "/prefix", "phx_key", "/api/environments/1/batch_exports/",
                                 [("limit", "1")]).start())
    assert server.seen == [("/prefix/api/environments/1/batch_exports/?limit=1", "Bearer phx_key"),
                           ("/prefix/api/environments/1/batch_exports/?limit=1&offset=1", "Bearer phx_key")]
    assert prefetch.ready()


def test_redirects_and_errors_are_not_followed_or_kept(server_factory: Callable[..., _Server]) -> None:
    target = server_factory(lambda path, _: (200, {"Content-Type": "application/json"}, _page([], None)))
    redirecting = server_factory(lambda path, _: (302, {"Location": target.url + path}, b""))
    prefetch = finished(Prefetch(redirecting.url, "phx_key", "/api/environments/1/batch_exports/").start())
    assert not prefetch.ready()
    assert target.seen == [], "the key never followed the redirect"
    not_json = server_factory(lambda path, _: (200, {"Content-Type": "text/html"}, b"<html>login</html>"))
    assert not finished(Prefetch(not_json.url, "phx_key", "/x/").start()).ready()


async def _no_sleep(_: float) -> None:
    return None
