"""Unexpected exceptions go to a log file in the user state dir, never onto the screen as a traceback.

The API key cannot leak through here: it lives in a ``SecretStr`` and in the
client's headers, neither of which is formatted into an exception message;
the text is still scrubbed of anything that looks like a bearer token.
"""

from __future__ import annotations

import re
import traceback
from datetime import UTC, datetime
from pathlib import Path

from tui.paths import state_dir

_BEARER = re.compile(r"(Bearer\s+)\S+", re.IGNORECASE)


def scrub(text: str) -> str:
    return _BEARER.sub(r"\1[hidden]", text)


def crash_log_path() -> Path:
    return state_dir() / "errors.log"


def record_exception(error: BaseException, context: str = "") -> Path | None:
    """Append the traceback to the crash log; returns its path, or None when it cannot be written."""
    path = crash_log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"--- {datetime.now(UTC).isoformat()} {context}\n{scrub(detail)}\n")
    except OSError:
        return None
    return path
