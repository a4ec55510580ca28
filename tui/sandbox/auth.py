"""Personal API keys and their scopes, checked the way the real service checks them.

Keys live in memory (they are set at start, never persisted) so a saved database never holds
secrets. Each key has a short ``key_id`` that is safe to show in the request log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.sandbox import errors

DEMO_KEY = "sandbox-demo-key"

SCOPES = (
    "survey:read",
    "survey:write",
    "activity_log:read",
    "batch_export:read",
    "batch_export:write",
    "project:read",
    "user:read",
)


@dataclass(frozen=True)
class ApiKey:
    key: str
    key_id: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    user_id: int = 1
    label: str = "Sandbox demo key"
    projects: frozenset[int] | None = None  # the projects a key limited to some may use; None: every one

    def sees_project(self, project_id: int) -> bool:
        return self.projects is None or project_id in self.projects

    @property
    def mask_value(self) -> str:
        """The real service's mask: the first and last four characters (never the whole key)."""
        return f"{self.key[:4]}...{self.key[-4:]}"

    @property
    def scope_list(self) -> list[str]:
        return sorted(self.scopes)

    def allows(self, scope: str) -> bool:
        """``*`` grants everything; ``X:write`` also grants ``X:read``."""
        if "*" in self.scopes or scope in self.scopes:
            return True
        obj, _, action = scope.partition(":")
        return action == "read" and f"{obj}:write" in self.scopes


def parse_key_spec(spec: str, index: int) -> ApiKey:
    """Parse ``KEY:scope,scope[@project,project]`` (``KEY`` alone means every scope, no project list every project).

    A key limited to some projects is refused (403) on any other, as the real service's project-scoped keys are.
    """
    key, sep, rest = spec.partition(":")
    scopes_text, _, projects_text = rest.partition("@")
    key = key.strip()
    if not key:
        raise ValueError(f"empty key in {spec!r}")
    scopes = frozenset(s.strip() for s in scopes_text.split(",") if s.strip()) if sep else frozenset({"*"})
    unknown = [s for s in scopes if s != "*" and s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scope(s) {', '.join(sorted(unknown))} in key spec {spec!r}")
    try:
        projects = frozenset(int(p) for p in projects_text.split(",") if p.strip()) if projects_text else None
    except ValueError:
        raise ValueError(f"project ids must be numbers in key spec {spec!r}") from None
    return ApiKey(key=key, key_id=f"key-{index}", scopes=scopes, user_id=1 + index % 3, label=f"Sandbox key {index}",
                  projects=projects)


class KeyStore:
    """The keys the sandbox accepts."""

    def __init__(self, extra_specs: list[str]) -> None:
        self._keys: dict[str, ApiKey] = {DEMO_KEY: ApiKey(DEMO_KEY, "demo", frozenset({"*"}), 1)}
        for i, spec in enumerate(extra_specs, start=1):
            k = parse_key_spec(spec, i)
            self._keys[k.key] = k

    def lookup(self, key: str) -> ApiKey | None:
        return self._keys.get(key)

    def key_id_for_header(self, authorization: str | None) -> str | None:
        """The key id for the request log; never the key itself."""
        token = bearer_token(authorization)
        if token is None:
            return None
        k = self._keys.get(token)
        return k.key_id if k else "unknown"

    def authenticate(self, authorization: str | None, query_key: str | None) -> ApiKey:
        token = bearer_token(authorization) or (query_key or None)
        if token is None:
            raise errors.not_authenticated()
        k = self._keys.get(token)
        if k is None:
            raise errors.authentication_failed()
        return k


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def require_project(key: ApiKey, project_id: int) -> None:
    """The real service's answer to a key limited to other projects (whether or not this one exists)."""
    if not key.sees_project(project_id):
        raise errors.permission_denied(f"API key does not have access to the requested project: ID {project_id}.")


def require_scope(key: ApiKey, scope: str) -> None:
    if not key.allows(scope):
        raise errors.permission_denied(f"API key missing required scope '{scope}'")
