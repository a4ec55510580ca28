"""Every error the client raises survives pickling whole: a first poll made in a child process sends its failure
back to the dashboard that way, and the monitor then says it in the client's own words."""

from __future__ import annotations

import pickle

import pytest

from tui.api import errors

CASES: list[errors.ApiError] = [
    errors.ApiError("plain", status=418, code="teapot", detail="d", attr="a", method="GET", path="/x/", body={"b": 1},
                    retry_after=3.0),
    errors.ValidationFailed("refused", status=400, attr="name"),
    errors.Unauthorized("The key was refused (401).", status=401),
    errors.Forbidden("not allowed", scope="batch_export:read", status=403),
    errors.LogsUnavailable("no logs", scope="batch_export:read", status=403),
    errors.NotFound("gone", status=404, path="/api/projects/1/batch_exports/x/"),
    errors.ProjectNotFound("99", status=403, detail="API key does not have access to the requested project"),
    errors.MethodNotAllowed("no", status=405),
    errors.RateLimited("slow down", retry_after=12.0, status=429),
    errors.ServerError("boom", status=503, retry_after=1.0),
    errors.BadResponse("truncated", status=200),
    errors.unreadable_answer(200, "POST", "/x/", "bad field"),
    errors.NetworkError("timed out", kind="timeout", sent=False, timeout=15.0),
]


@pytest.mark.parametrize("error", CASES, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling_whole(error: errors.ApiError) -> None:
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == str(error) and again.short == error.short
    assert vars(again) == vars(error)
    assert again.args == error.args
