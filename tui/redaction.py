"""A password written into a URL (``http://user:PASSWORD@host``) is masked wherever text is shown or logged.

A base URL may carry credentials for a proxy in front of the service; the
settings keep it whole (the client needs it), everything that prints it goes
through :func:`mask_url_password`.
"""

from __future__ import annotations

import re

MASK = "***"
# scheme://user:password@ — the password runs to the last "@" before the path, as urlsplit reads it.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*):(?P<password>[^/\s]*)@")


def mask_url_password(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***`` (the user name stays: it says which)."""
    return _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)


def mask_secrets_in(text: str, secrets: tuple[str, ...] | frozenset[str] | set[str] = ()) -> str:
    """URL passwords and each known secret (the API key) masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return mask_url_password(text)
