"""Masking of destination secrets (keys, passwords, tokens in ``destination.config``) for the screen and the journal.

The real service removes secret keys from responses already; masking again here
covers older servers, the sandbox in odd modes, and what the operator types.
"""

from __future__ import annotations

from typing import Any

MASK = "••••••"
SECRET_KEYS = frozenset({
    "aws_access_key_id", "aws_secret_access_key", "password", "private_key", "private_key_passphrase",
    "private_key_id", "token", "client_email", "token_uri", "user", "api_key", "secret", "authorization",
})
_SECRET_HINTS = ("secret", "password", "token", "private_key", "api_key", "credential")


def is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in SECRET_KEYS or any(hint in lowered for hint in _SECRET_HINTS)


def mask_secrets(value: Any) -> Any:
    """A copy with every value under a secret-looking key replaced by a mask, recursively."""
    if isinstance(value, dict):
        return {
            k: (MASK if is_secret_key(str(k)) and v not in (None, "") else mask_secrets(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value
