"""The real service's error envelope (drf-exceptions-hog), so clients parse sandbox errors like real ones.

Every failure the sandbox reports goes through :class:`ServiceError` (named apart from the client's
``ApiError``, which parses these bodies on the other side); the body is always
``{"type", "code", "detail", "attr"}``.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


class ServiceError(Exception):
    """A failure to answer with the drf-exceptions-hog envelope."""

    def __init__(
        self,
        status: int,
        type_: str,
        code: str,
        detail: str,
        attr: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.type = type_
        self.code = code
        self.detail = detail
        self.attr = attr
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {"type": self.type, "code": self.code, "detail": self.detail, "attr": self.attr}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def validation_error(detail: str, attr: str | None, code: str = "invalid_input") -> ServiceError:
    """400 validation error; DRF's plain ``invalid`` code is rewritten to ``invalid_input`` by the real handler."""
    return ServiceError(400, "validation_error", code, detail, attr)


def not_found(detail: str = "Not found.") -> ServiceError:
    return ServiceError(404, "invalid_request", "not_found", detail)


def not_authenticated() -> ServiceError:
    return ServiceError(
        401,
        "authentication_error",
        "not_authenticated",
        "Authentication credentials were not provided.",
        headers={"WWW-Authenticate": 'Bearer realm="api"'},
    )


def authentication_failed() -> ServiceError:
    return ServiceError(
        401,
        "authentication_error",
        "authentication_failed",
        "Personal API key found in request Authorization header is invalid.",
        headers={"WWW-Authenticate": 'Bearer realm="api"'},
    )


def permission_denied(detail: str) -> ServiceError:
    return ServiceError(403, "authentication_error", "permission_denied", detail)


def method_not_allowed(method: str) -> ServiceError:
    return ServiceError(405, "invalid_request", "method_not_allowed", f'Method "{method}" not allowed.')


def parse_error(detail: str) -> ServiceError:
    return ServiceError(400, "invalid_request", "parse_error", f"JSON parse error - {detail}")


def server_error() -> ServiceError:
    return ServiceError(500, "server_error", "error", "A server error occurred.")
