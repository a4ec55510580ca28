"""errors.log is bounded: a failure on every poll for days cannot fill the disk, and the log stays 0600."""

from __future__ import annotations

import stat
from pathlib import Path

from tui.secrets.crashlog import MAX_LOG_BYTES, MAX_RECORD_CHARS, record_exception

RECORD = 10_000  # about what one record below takes, traceback included


def test_the_log_is_rotated_at_its_bound_with_one_old_file_kept_both_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "errors.log"
    for poll in range(3 * MAX_LOG_BYTES // RECORD):  # three bounds' worth of records
        assert record_exception(RuntimeError(f"poll {poll} " + "x" * RECORD), "poll", path=path) == path
    old = path.with_name("errors.log.1")
    assert sorted(p.name for p in path.parent.iterdir()) == ["errors.log", "errors.log.1"]
    for log in (path, old):
        assert log.stat().st_size < MAX_LOG_BYTES + 2 * RECORD, log
        assert stat.S_IMODE(log.stat().st_mode) == 0o600, log
    assert f"poll {3 * MAX_LOG_BYTES // RECORD - 1} " in path.read_text()  # the newest record is kept


def test_one_huge_record_is_cut_to_its_bound_keeping_its_start_and_end(tmp_path: Path) -> None:
    path = tmp_path / "errors.log"
    try:
        raise RuntimeError("START" + "y" * 5_000_000 + "END")
    except RuntimeError as error:
        record_exception(error, "poll", path=path)
    text = path.read_text()
    assert len(text) < MAX_RECORD_CHARS + 500
    assert "Traceback" in text and "START" in text and "END" in text and "characters left out" in text
