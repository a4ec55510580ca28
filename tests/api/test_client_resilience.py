"""Retries, limits and errors, with the sandbox's fault injection over real HTTP.

The client's ``sleep`` is replaced by a recorder: waits are asserted, not slept,
so the suite stays fast and the backoff is visible.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.api.helpers import NOW, READ_ONLY_KEY, Sandbox, Sleeps, Wire
from tests.ids import uid
from tui.api.client import ApiClient
from tui.api.errors import (
    ApiError,
    BadResponse,
    Forbidden,
    LogsUnavailable,
    NetworkError,
    RateLimited,
    ServerError,
    Unauthorized,
    ValidationFailed,
)
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxOptions, start_sandbox

SURVEYS = "/api/projects/1/surveys/"


def _paths(sandbox: Sandbox) -> list[str]:
    return [r["path"] for r in sandbox.requests()]


# --------------------------------------------------------------------------- GET retries


async def test_get_retried_after_503_with_capped_jittered_backoff(api: ApiClient, sandbox: Sandbox,
                                                                  sleeps: Sleeps) -> None:
    sandbox.fault(kind="status", status=503, count=2, path="/surveys/$")
    page = await api.surveys.list(limit=2)
    assert len(page.results) == 2
    assert _paths(sandbox) == [SURVEYS] * 3
    assert [r["fault"] for r in sandbox.requests()] == ["status", "status", None]
    assert len(sleeps.waits) == 2
    assert 0 <= sleeps.waits[0] <= 0.5 and 0 <= sleeps.waits[1] <= 1.0  # 0.5 * 2**attempt, jittered


@pytest.mark.parametrize("status", [502, 504])
async def test_get_retried_on_gateway_errors(api: ApiClient, sandbox: Sandbox, status: int) -> None:
    sandbox.fault(kind="status", status=status, count=1, path="/surveys/$")
    await api.surveys.list(limit=1)
    assert len(sandbox.requests()) == 2


async def test_get_gives_up_after_max_retries(api: ApiClient, sandbox: Sandbox, sleeps: Sleeps) -> None:
    sandbox.fault(kind="status", status=503, path="/surveys/$")
    with pytest.raises(ServerError) as caught:
        await api.surveys.list()
    assert caught.value.status == 503 and "503" in str(caught.value)
    assert len(sandbox.requests()) == 1 + api.max_retries
    assert len(sleeps.waits) == api.max_retries


async def test_500_is_not_retried(api: ApiClient, sandbox: Sandbox) -> None:
    sandbox.fault(kind="status", status=500, path="/surveys/$")
    with pytest.raises(ServerError):
        await api.surveys.list()
    assert len(sandbox.requests()) == 1


async def test_429_waits_as_told_by_retry_after(api: ApiClient, sandbox: Sandbox, sleeps: Sleeps) -> None:
    sandbox.fault(kind="retry_after", seconds=3, count=2, path="/surveys/$")
    await api.surveys.list(limit=1)
    assert sleeps.waits == [3.0, 3.0]
    assert len(sandbox.requests()) == 3


async def test_429_longer_than_max_retry_wait_is_raised_not_slept(api: ApiClient, sandbox: Sandbox,
                                                                  sleeps: Sleeps) -> None:
    sandbox.fault(kind="retry_after", seconds=60, count=1, path="/surveys/$")
    with pytest.raises(RateLimited) as caught:
        await api.surveys.list()
    assert caught.value.retry_after == 60 and "retry in 1m" in str(caught.value)
    assert sleeps.waits == [] and len(sandbox.requests()) == 1


async def test_503_retry_after_is_honoured(api: ApiClient, sandbox: Sandbox, sleeps: Sleeps) -> None:
    sandbox.fault(kind="retry_after", status=503, seconds=2, count=1, path="/surveys/$")
    await api.surveys.list(limit=1)
    assert sleeps.waits == [2.0]


async def test_get_retried_after_dropped_connection(api: ApiClient, sandbox: Sandbox) -> None:
    sandbox.fault(kind="drop", count=1, path="/surveys/$")
    page = await api.surveys.list(limit=3)
    assert len(page.results) == 3
    assert [r["fault"] for r in sandbox.requests()] == ["drop", None]


async def test_get_retried_after_truncated_body(api: ApiClient, sandbox: Sandbox) -> None:
    sandbox.fault(kind="truncated", count=1, path="/surveys/$")
    page = await api.surveys.list(limit=3)
    assert len(page.results) == 3 and len(sandbox.requests()) == 2


async def test_malformed_json_is_a_bad_response(api: ApiClient, sandbox: Sandbox) -> None:
    sandbox.fault(kind="malformed", count=1, path="/surveys/$")
    with pytest.raises(BadResponse) as caught:
        await api.surveys.list()
    assert "malformed" in str(caught.value) and caught.value.path == SURVEYS
    assert len(sandbox.requests()) == 1


# --------------------------------------------------------------------------- writes are not retried


async def test_post_never_retried_after_503(api: ApiClient, sandbox: Sandbox, sleeps: Sleeps) -> None:
    export = (await api.batch_exports.list()).results[0]
    sandbox.clean()
    sandbox.fault(kind="status", status=503, count=1, path="/pause/$")
    with pytest.raises(ServerError):
        await api.batch_exports.pause(export.id)
    assert len(sandbox.requests()) == 1 and sleeps.waits == []


@pytest.mark.parametrize("kind", ["status", "retry_after"])
async def test_patch_and_delete_never_retried(api: ApiClient, sandbox: Sandbox, kind: str) -> None:
    sandbox.fault(kind=kind, status=503 if kind == "status" else 429, path="/surveys/[^/]+/$")
    with pytest.raises(ApiError):
        await api.surveys.update("00000000-0000-0000-0000-000000000001", {"name": "x"})
    with pytest.raises(ApiError):
        await api.surveys.delete("00000000-0000-0000-0000-000000000001")
    assert [r["method"] for r in sandbox.requests()] == ["PATCH", "DELETE"]


async def test_post_not_retried_after_the_connection_dropped(api: ApiClient, sandbox: Sandbox) -> None:
    export = (await api.batch_exports.list()).results[0]
    sandbox.clean()
    sandbox.fault(kind="drop", count=1, path="/pause/$")
    with pytest.raises(NetworkError) as caught:
        await api.batch_exports.pause(export.id)
    assert caught.value.kind == "dropped" and caught.value.sent
    assert len(sandbox.requests()) == 1  # it may have paused: never sent twice


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_connect_refused_is_retried_for_every_method(method: str, sleeps: Sleeps) -> None:
    """Nothing reached a server, so even a POST is safe to send again."""
    async with ApiClient(f"http://127.0.0.1:{_closed_port()}", "phx_key", "1", sleep=sleeps, max_retries=2) as api:
        with pytest.raises(NetworkError) as caught:
            if method == "GET":
                await api.surveys.list()
            else:
                await api.batch_exports.pause(uid("export"))
    assert not caught.value.sent and caught.value.kind in ("refused", "network")
    assert len(sleeps.waits) == 2 and api.requests_sent == 3
    assert "127.0.0.1" in str(caught.value)


def test_backoff_is_capped_and_jittered() -> None:
    client = ApiClient("http://127.0.0.1:9", "k", "1")
    waits = [client._backoff(attempt) for attempt in range(12) for _ in range(20)]
    assert max(waits) <= 8.0 and min(waits) >= 0
    assert len({round(w, 6) for w in waits}) > 100  # jitter: not the same schedule for every client


# --------------------------------------------------------------------------- concurrency limit


async def test_at_most_max_in_flight_requests(sandbox: Sandbox, wire: Wire) -> None:
    sandbox.fault(kind="latency", seconds=0.15, path="/surveys/$")
    async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, transport=wire,
                         max_in_flight=3) as api:
        started = time.monotonic()
        pages = await asyncio.gather(*(api.surveys.list(limit=1, offset=i) for i in range(9)))
        elapsed = time.monotonic() - started
    assert len(pages) == 9 and len(sandbox.requests()) == 9
    assert wire.peak_in_flight == 3
    assert elapsed >= 3 * 0.15  # three waves


# --------------------------------------------------------------------------- errors


async def test_unknown_key_is_unauthorized(sandbox: Sandbox) -> None:
    async with ApiClient(sandbox.base_url, "phx_NotAKeyAtAll_77", "1") as api:
        with pytest.raises(Unauthorized) as caught:
            await api.surveys.list()
    err = caught.value
    assert err.status == 401 and err.code == "authentication_failed"
    assert "WATCHDECK_API_KEY" in str(err)
    assert len(sandbox.requests()) == 1 and sandbox.requests()[0]["key_id"] == "unknown"


async def test_missing_scope_is_named(sandbox: Sandbox) -> None:
    async with ApiClient(sandbox.base_url, READ_ONLY_KEY, "1") as api:
        survey = (await api.surveys.list(limit=1)).results[0]
        with pytest.raises(Forbidden) as caught:
            await api.surveys.update(survey.id, {"name": "nope"})
    assert caught.value.scope == "survey:write" and "survey:write" in str(caught.value)
    assert not isinstance(caught.value, LogsUnavailable)


async def test_server_validation_names_the_field(api: ApiClient, sandbox: Sandbox) -> None:
    """Checks the client cannot make (a duplicate name) come back as ValidationFailed naming the field.

    The real service sends that one from its whole-object validation (``attr`` null, code ``unique``); the
    error still says it is the name."""
    taken = (await api.surveys.list(limit=1)).results[0]
    with pytest.raises(ValidationFailed) as caught:
        await api.surveys.create({"name": taken.name, "type": "popover", "questions": []})
    assert caught.value.status == 400 and caught.value.attr is None and caught.value.field == "name"
    assert "name" in str(caught.value)


async def test_logs_unavailable_to_personal_keys() -> None:
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(NOW), logs_forbidden=True)
    with start_sandbox(options) as h:
        async with ApiClient(h.base_url, h.api_key, h.project_id) as api:
            export = (await api.batch_exports.list()).results[0]
            with pytest.raises(LogsUnavailable) as caught:
                await api.batch_exports.logs(export.id)
            with pytest.raises(LogsUnavailable):
                await api.batch_exports.run_logs(export.id, export.latest_runs[0].id)
            assert (await api.batch_exports.get(export.id)).id == export.id  # only logs are refused
    assert caught.value.status == 403 and "personal API key" in str(caught.value)
    # a 403 is not retried, and once refused the client does not ask for logs again
    assert len([r for r in h.requests() if r["path"].endswith("/logs/")]) == 1


def test_personal_key_refusal_elsewhere_is_plain_forbidden() -> None:
    import httpx

    from tui.api.answers import error_from_response

    body = {"type": "authentication_error", "code": "permission_denied",
            "detail": "This action does not support personal API key access", "attr": None}
    response = httpx.Response(403, json=body)
    assert isinstance(error_from_response(response, "GET", "/api/environments/1/batch_exports/e/logs/"),
                      LogsUnavailable)
    other = error_from_response(response, "POST", "/api/projects/1/surveys/s/launch/")
    assert isinstance(other, Forbidden) and not isinstance(other, LogsUnavailable)


# --------------------------------------------------------------------------- the key stays secret

SECRET = "phx_SECRET_do_not_print_4242"


async def test_api_key_never_in_errors_reprs_or_logs(sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
                                                     sleeps: Sleeps) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[BaseException] = []
    async with ApiClient(sandbox.base_url, SECRET, "1", sleep=sleeps) as api:
        try:
            await api.surveys.list()
        except ApiError as err:
            errors.append(err)
        sandbox.fault(kind="status", status=503, path="/surveys/$")
        try:
            await api.surveys.list()
        except ApiError as err:
            errors.append(err)
        texts = [repr(api), str(vars(api)), repr(api.surveys.__dict__)]
    async with ApiClient(f"http://127.0.0.1:{_closed_port()}", SECRET, "1", sleep=sleeps, max_retries=0) as api:
        try:
            await api.surveys.list()
        except ApiError as err:
            errors.append(err)
    assert [type(e) for e in errors] == [Unauthorized, ServerError, NetworkError]
    for err in errors:
        texts += [str(err), repr(err), str(err.body), str(err.__cause__), str(err.__context__), str(vars(err))]
    texts += [record.getMessage() for record in caplog.records]
    texts += [str(record.args) for record in caplog.records]
    assert caplog.records, "httpx logged nothing: the log check would be vacuous"
    assert not [t for t in texts if SECRET in t]


@pytest.mark.parametrize("key", ["phx_secret\nInjected: 1", "phx_secret é", ""])
async def test_unsendable_key_is_refused_without_sending_or_echoing_it(sandbox: Sandbox, key: str) -> None:
    async with ApiClient(sandbox.base_url, key, "1") as api:
        assert "Authorization" not in api._http.headers
        with pytest.raises(Unauthorized) as caught:
            await api.surveys.list()
    assert "secret" not in str(caught.value) and "secret" not in repr(caught.value)
    assert sandbox.requests() == []


def test_credentials_in_the_url_are_not_shown() -> None:
    client = ApiClient("https://user:hunter2@example.com", "k", "1")
    assert "hunter2" not in repr(client)
    assert client._host == "example.com"


async def test_runs_window_defaults_are_explicit(api: ApiClient, sandbox: Sandbox, away_from_utc: str) -> None:
    """``after`` as a datetime goes out as ISO 8601 with its offset; a naive one is taken as UTC."""
    export = (await api.batch_exports.list()).results[0]
    sandbox.clean()
    naive = datetime(2026, 3, 1, 6, 0)
    await api.batch_exports.runs(export.id, after=naive, before=NOW.astimezone(UTC) - timedelta(hours=1))
    query = sandbox.requests()[0]["query_params"]
    assert query == {"after": ["2026-03-01T06:00:00+00:00"], "before": ["2026-03-02T11:00:00+00:00"]}


async def test_plain_http_clients_trust_no_certificate_and_https_ones_the_bundle() -> None:
    """A plain-http client skips loading the CA bundle (20 ms of start-up); should it ever reach TLS it fails closed."""
    import ssl

    from tui.api.client_core import _tls_for

    context = _tls_for("http://127.0.0.1:8000")
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0
    assert _tls_for("https://us.posthog.com") is True


@pytest.mark.parametrize("depth", [1_000, 100_000])
async def test_an_answer_nested_past_reason_is_a_bad_response_not_a_recursion_error(depth: int) -> None:
    """A hostile server nests its answer: the status line says "bad response", never RecursionError."""
    nested = "[" * depth + "]" * depth
    body = ('{"count": 1, "next": null, "previous": null, "results": [{"id": "' + uid("e1") + '", "name": "n", '
            '"interval": "hour", "paused": false, "created_at": "2026-11-22T12:00:00Z", '
            '"destination": {"type": "S3", "config": {"deep": ' + nested + '}}}]}')

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body.encode(), headers={"content-type": "application/json"})

    async with ApiClient("http://deep.example", "k", "1", transport=httpx.MockTransport(handler),
                         max_retries=0) as api:
        with pytest.raises(BadResponse) as caught:
            await api.batch_exports.list()
    assert caught.value.short == "bad response"


def test_the_client_lets_idle_connections_go_before_the_server_closes_them() -> None:
    """A write sent on an idle connection at the moment the server closes it is lost ("dropped the connection") and
    is not retried, since it may have been sent. The client lets idle connections go first: before the sandbox's
    server (uvicorn's default, as many servers) closes them."""
    import uvicorn

    from tui.api.client_core import KEEPALIVE_SECONDS

    assert uvicorn.Config(app=None).timeout_keep_alive > KEEPALIVE_SECONDS
