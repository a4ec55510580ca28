"""Every file watchdeck writes is its user's alone: files 0600, the folders it makes 0700.

The crash log can quote server text, drafts hold unpublished surveys, the
journal says who paused what, the config may hold a key: nothing another
account on a shared on-call machine should read. Files are created with their
final mode (never briefly wider, whatever the umask), and whole-file writes
are atomic, so a crash mid-write leaves the previous file rather than half of
one. Folders that already exist keep their mode: ``WATCHDECK_STATE_DIR`` may
point at a folder the operator shares on purpose.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> None:
    """Make ``path`` and any missing parent, each 0700."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another writer
        os.chmod(folder, DIR_MODE)  # exactly 0700: an odd umask (0o277) would leave a folder we cannot write


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically; the new file is 0600 from its first byte."""
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # mkstemp makes it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_private(path: Path, text: str) -> None:
    """Append ``text`` to ``path``, made 0600; a file an older version left readable by others is narrowed."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        if stat.S_IMODE(os.fstat(handle.fileno()).st_mode) & 0o077:
            os.fchmod(handle.fileno(), FILE_MODE)
        handle.write(text)


def create_private(path: Path) -> None:
    """Make ``path`` an empty 0600 file unless it exists (narrowed to 0600 if it does), for a writer (SQLite, a
    child's log) that creates files with the umask's mode."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
