"""One small hierarchy of errors that an operator can act on.

``str(err)`` is always one sentence for the screen; the structured fields
(status, code, detail, attr) are there for code that wants to branch on
``code`` rather than on the status alone (the real service reuses statuses). No error
ever carries the API key: the client never passes headers into them.
"""

from __future__ import annotations

import math
from typing import Any

from tui.api.ids import shown_id
from tui.text.words import duration


class ApiError(Exception):
    """Any failure of a request to the server."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        detail: str | None = None,
        attr: str | None = None,
        method: str | None = None,
        path: str | None = None,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.detail = detail
        self.attr = attr
        self.method = method
        self.path = path
        self.body = body
        # seconds the server asked us to wait (Retry-After), on 429 and on 503 alike
        self.retry_after = retry_after

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, path={self.path!r})"

    @property
    def short(self) -> str:
        """A few words for a status bar: ``HTTP 503``, ``network``, ``401 bad key``."""
        return f"HTTP {self.status}" if self.status else "error"


class ValidationFailed(ApiError):
    """400: the server refused the input; ``attr`` names the field when it said so."""

    @property
    def field(self) -> str | None:
        """The field to show the refusal at: ``attr``, else the name for a taken name.

        The real service finds a taken survey name in its whole-object validation, so that error
        carries ``attr: null``; its code ``unique`` still says which field it is about.
        """
        if self.attr:
            return self.attr
        return "name" if self.code == "unique" else None

    @property
    def field_messages(self) -> dict[str, str]:
        return {self.attr or "": self.detail or self.message}


class Unauthorized(ApiError):
    """401: missing, unknown, revoked or wrong-region API key."""

    @property
    def short(self) -> str:
        return "401 bad API key"


class Forbidden(ApiError):
    """403: the key lacks a scope (``scope`` says which when the body names it) or the project."""

    def __init__(self, message: str, *, scope: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.scope = scope

    @property
    def short(self) -> str:
        return f"403 needs {self.scope}" if self.scope else "403 forbidden"


class LogsUnavailable(Forbidden):
    """403 "does not support personal API key access" on a logs endpoint (the real service refuses them).

    A distinct type so that a log pane can say so once and stop asking, instead
    of failing every poll.
    """


class NotFound(ApiError):
    """404: unknown id, an id of another project, or an endpoint this server lacks."""


class ProjectNotFound(NotFound):
    """The project itself does not exist (or the key cannot see it): an error, never "no exports"."""

    def __init__(self, project_id: str, **kwargs: Any) -> None:
        # A key limited to other projects gets 403 where an unknown project gets 404: to the operator both
        # mean the same fix (the project id, or a key that may see it), so both are named as one error.
        hidden = kwargs.get("status") == 403
        super().__init__(f"project {project_id} not found" + (" or not visible to this key" if hidden else ""),
                         **kwargs)
        self.project_id = project_id

    @property
    def short(self) -> str:
        return self.message


_NO_PROJECT_ACCESS = "does not have access to the requested project"


def names_missing_project(err: ApiError) -> bool:
    """The server says the project (not the object) is unknown or hidden from this key.

    404 "Project not found." for a project that does not exist; 403 "API key does not have access to the
    requested project: ID 99." for one a project-limited key may not use.
    """
    if isinstance(err, ProjectNotFound):
        return True
    detail = (err.detail or "").lower()
    return (err.status == 404 and "project not found" in detail) or (err.status == 403 and _NO_PROJECT_ACCESS in detail)


class MethodNotAllowed(ApiError):
    """405: this server does not offer that operation at that path."""


class RateLimited(ApiError):
    """429: ``retry_after`` seconds to wait, when the server said."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, retry_after=retry_after, **kwargs)

    @property
    def short(self) -> str:
        """``429 rate limited``, with the wait the server asked for as it said it (the poller caps what it waits)."""
        if self.retry_after is None:
            return "429 rate limited"
        wait = duration(self.retry_after) if math.isfinite(self.retry_after) else "forever"
        return f"429 rate limited (server asks {wait})"


class ServerError(ApiError):
    """5xx: the server failed; usually worth retrying later."""

    @property
    def short(self) -> str:
        return f"{self.status} server error"


class BadResponse(ApiError):
    """The server answered 2xx with a body we could not read (malformed or truncated JSON)."""

    @property
    def short(self) -> str:
        return "bad response"


class AnswerTooLarge(BadResponse):
    """The answer's body was larger than the client reads (``tui.api.client_core.MAX_ANSWER_BYTES``): it was refused
    after that many bytes, never parsed."""

    @property
    def short(self) -> str:
        return "answer too large"


class UnreadableAnswer(BadResponse):
    """A write was answered 2xx with a body this version cannot read: it may well have been done.

    Not a failure of the request, and not an internal error: the screen says what the server did,
    journals it, and re-reads the object to learn its real state.
    """

    @property
    def short(self) -> str:
        return "unreadable answer"


def unreadable_answer(status: int | None, method: str, path: str, problem: str) -> UnreadableAnswer:
    """``The server answered 200 with a body this version does not understand``, naming the bad field."""
    code = status if status is not None else "2xx"
    return UnreadableAnswer(
        f"The server answered {code} with a body this version does not understand ({method} {path}: {problem}); "
        "the change may have been made.",
        status=status, method=method, path=path,
    )


class UnexpectedId(ApiError):
    """An id of a shape the service never uses (a survey id that is not a UUID): refused, nothing was sent.

    Such an id came from a hostile or broken server (or a file or command line): sent, it could choose
    another object's path (``../batch_exports/<id>``). ``kind`` names what it should have named.
    """

    def __init__(self, kind: str, value: object, problem: str, **kwargs: Any) -> None:
        super().__init__(f"Refused an id of an unexpected shape: {problem}, not '{shown_id(value)}'. "
                         "Nothing was sent.", **kwargs)
        self.kind = kind

    @property
    def short(self) -> str:
        return "unexpected id"


class NetworkError(ApiError):
    """No HTTP answer: refused, DNS, TLS, timeout or a dropped connection.

    ``sent`` tells whether the request may have reached the server, which
    decides whether a POST may be retried.
    """

    def __init__(self, message: str, *, kind: str = "network", sent: bool = True, timeout: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.kind = kind
        self.sent = sent
        self.timeout = timeout  # the limit that ran out, for a timeout

    @property
    def short(self) -> str:
        if self.kind == "timeout" and self.timeout is not None:
            return f"timeout after {duration(self.timeout)}"
        return self.kind


class WriteValidationError(ValueError):
    """Input refused before anything was sent; ``problems`` maps field paths to messages."""

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = dict(problems)
        path, message = next(iter(self.problems.items())) if self.problems else ("", "invalid input")
        super().__init__(f"{path}: {message}" if path else message)

    @property
    def first_path(self) -> str:
        return next(iter(self.problems), "")
