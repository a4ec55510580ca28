"""Everything in the shared store's folder is this user's alone: the folder 0700, every file in it 0600.

hishel writes a ``.gitignore`` into the folder of its SQLite storage when there is none, with the umask's mode
(0644 under the usual 022): watchdeck makes it first, 0600, and puts one left 0644 back to 0600.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tui.api.cache import open_shared_cache
from tui.api.client import ApiClient
from tui.sandbox.runner import SandboxHandle


async def _one_read(sandbox: SandboxHandle, folder: Path) -> None:
    cache = open_shared_cache(None, folder)
    try:
        async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, cache=cache) as client:
            await client.batch_exports.list()
    finally:
        await cache.aclose()


def modes_in(folder: Path) -> dict[str, int]:
    return {path.name: stat.S_IMODE(os.stat(path).st_mode) for path in folder.iterdir()}


async def test_every_file_of_the_store_is_0600_the_gitignore_too(sandbox: SandboxHandle, user_dirs: Path) -> None:
    old = os.umask(0o022)
    try:
        await _one_read(sandbox, user_dirs / "cache")
    finally:
        os.umask(old)
    folder = user_dirs / "cache"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    modes = modes_in(folder)
    assert ".gitignore" in modes and "responses.db" in modes
    assert modes == dict.fromkeys(modes, 0o600)
    assert (folder / ".gitignore").read_text(encoding="utf-8") == "# Automatically created by Hishel\n*"


async def test_a_gitignore_left_readable_by_others_is_made_private(sandbox: SandboxHandle, user_dirs: Path) -> None:
    folder = user_dirs / "cache"
    folder.mkdir(parents=True, mode=0o700)
    (folder / ".gitignore").write_text("*", encoding="utf-8")
    (folder / ".gitignore").chmod(0o644)
    await _one_read(sandbox, user_dirs / "cache")
    assert modes_in(folder)[".gitignore"] == 0o600
    assert (folder / ".gitignore").read_text(encoding="utf-8") == "*", "its text is left as it was"
