"""The one redaction: every secret shown, logged, journalled or given to a hook is replaced by :data:`MASK`.

What counts as a secret: the API key and any other secret the caller knows, a
password written into a URL (``http://user:PASSWORD@host``: a base URL may carry
credentials for a proxy in front of the service; the settings keep it whole for
the client, everything that prints it masks it), a bearer token in text, and the
value under a secret-looking key of a destination's config (the real service
removes those from its answers already; masking again covers older servers and
what the operator types).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "***"
# scheme://user:password@ — the password runs to the last "@" before the path, as urlsplit reads it.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*):(?P<password>[^/\s]*)@")
_BEARER = re.compile(r"(Bearer\s+)\S+", re.IGNORECASE)
SECRET_KEYS = frozenset({
    "aws_access_key_id", "aws_secret_access_key", "password", "private_key", "private_key_passphrase",
    "private_key_id", "token", "client_email", "token_uri", "user", "api_key", "secret", "authorization",
})
_SECRET_HINTS = ("secret", "password", "token", "private_key", "api_key", "credential")


def mask_url_password(text: str) -> str:
    """``text`` with the password of every URL in it masked (the user name stays: it says which)."""
    return _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Each known secret (the API key), bearer tokens and URL passwords masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return mask_url_password(_BEARER.sub(rf"\g<1>{MASK}", text))


def redact_within(value: Any, secrets: Iterable[str] = ()) -> Any:
    """:func:`redact` applied to every string inside a JSON-like value (a hook's payload), keys kept."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, Mapping):
        return {k: redact_within(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_within(v, secrets) for v in value]
    return value


def is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in SECRET_KEYS or any(hint in lowered for hint in _SECRET_HINTS)


def mask_secrets(value: Any) -> Any:
    """A copy of a destination's config with every value under a secret-looking key masked, recursively."""
    if isinstance(value, dict):
        return {
            k: (MASK if is_secret_key(str(k)) and v not in (None, "") else mask_secrets(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value
