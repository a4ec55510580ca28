"""Unexpected exceptions go to a log file in the user state dir, never onto the screen as a traceback.

The API key cannot leak through here: it lives in a ``SecretStr`` and in the
client's headers, neither of which is formatted into an exception message;
the text is still scrubbed of anything that looks like a bearer token, of
URL passwords and of the secrets the caller knows. No local variables are
logged (a traceback's locals can hold the key).

The log is bounded: at :data:`MAX_LOG_BYTES` it becomes ``errors.log.1`` (the
one before goes) and a new one starts, so the two hold at most twice that and
one record, which is cut to :data:`MAX_RECORD_CHARS` (its start and its end kept).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.config.paths import state_dir
from tui.secrets.private_files import append_private
from tui.text.clean import clean
from tui.text.redaction import redact

LOG_FILE_NAME = "errors.log"
#: The size at which the log is rotated (one old file kept, 0600 like the log).
MAX_LOG_BYTES = 1024 * 1024
MAX_RECORD_CHARS = 64 * 1024


def crash_log_path() -> Path:
    return state_dir() / LOG_FILE_NAME


def record_exception(error: BaseException, context: str = "", *, path: Path | None = None,
                     secrets: Iterable[str] = ()) -> Path | None:
    """Append the traceback to the crash log (0600); returns its path, or None when it cannot be written."""
    path = path or crash_log_path()
    try:
        detail = redact("".join(traceback.format_exception(type(error), error, error.__traceback__)), secrets)
        if len(detail) > MAX_RECORD_CHARS:
            half = MAX_RECORD_CHARS // 2
            detail = f"{detail[:half]}\n[... {len(detail) - 2 * half} characters left out ...]\n{detail[-half:]}"
        rotate(path)
        append_private(path, f"--- {datetime.now(UTC).isoformat()} {context}\n{detail}\n")
    except OSError:
        return None
    return path


def rotate(path: Path, most: int = MAX_LOG_BYTES) -> None:
    """A log of ``most`` bytes or more becomes ``<name>.1`` (replacing the one before); the next write starts anew."""
    try:
        if path.stat().st_size >= most:
            os.replace(path, path.with_name(f"{path.name}.1"))
    except FileNotFoundError:
        pass


def one_line(error: BaseException, path: Path | None, secrets: Iterable[str] = ()) -> str:
    """What the operator reads on stderr: the error's kind and first line, and where the traceback is."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    detail = f"{type(error).__name__}: {message}" if message else type(error).__name__
    tail = f"; details in {path}" if path else ""
    return f"watchdeck: unexpected error: {clean(redact(detail, secrets), limit=200)}{tail}"


class UnexpectedError(Exception):
    """An unexpected exception, reduced to the one line to show; the original is its ``__cause__``.

    Textual shows an exception that renders itself (``__rich__``) as just
    that, instead of its traceback with every frame's local variables.
    """

    def __init__(self, error: BaseException, line: str) -> None:
        super().__init__(line)
        self.line = line
        self.__cause__ = error

    def __rich__(self) -> Any:
        """The line as it is: cut to the terminal's width it would lose the crash log's path."""
        from rich.segment import Segment, Segments

        return Segments([Segment(self.line), Segment.line()])
