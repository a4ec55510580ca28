"""The project last picked per profile, kept in the state dir so the next start opens on it.

Best effort by design: a missing, unreadable or malformed state file means
"nothing remembered", and one that cannot be written is not worth failing for.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path

from tui.config.paths import state_dir
from tui.secrets.private_files import write_private

STATE_FILE_NAME = "projects.json"


def _state_file(env: Mapping[str, str] | None) -> Path:
    return state_dir(env) / STATE_FILE_NAME


def remembered_project(profile: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The project last picked for this profile (``""`` stands for "no profile"); None when unknown or unreadable."""
    try:
        data = json.loads(_state_file(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(profile or "") if isinstance(data, dict) else None
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) and str(value) else None


def remember_project(profile: str | None, project_id: str, env: Mapping[str, str] | None = None) -> None:
    """Remember the picked project; a state file that cannot be written is not worth failing for."""
    path = _state_file(env)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[profile or ""] = str(project_id)
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
