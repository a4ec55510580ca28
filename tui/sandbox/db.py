"""SQLite state: schema, one lock, transactions.

The store is used from uvicorn's event-loop thread and from the simulator thread, so the one
connection is opened with ``check_same_thread=False`` and every use goes through an ``RLock``.
Objects whose shape is open-ended (surveys, exports, projects, users, flags) are stored as JSON
documents next to the few columns that queries filter or sort on; that keeps unknown survey
fields round-tripping exactly as they came.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tui.secrets.private_files import create_private

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS projects(id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users(id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS flags(
    id INTEGER PRIMARY KEY AUTOINCREMENT, team_id INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS surveys(
    id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0, responses_base INTEGER NOT NULL DEFAULT 0,
    responses_rate REAL NOT NULL DEFAULT 0, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS surveys_project ON surveys(project_id, created_at);
CREATE TABLE IF NOT EXISTS activity(
    seq INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL, item_id TEXT NOT NULL,
    created_at TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS activity_item ON activity(project_id, item_id);
CREATE TABLE IF NOT EXISTS exports(
    id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, created_at TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0, paused INTEGER NOT NULL DEFAULT 0, interval TEXT NOT NULL,
    start_at TEXT, end_at TEXT, next_end TEXT NOT NULL, profile TEXT NOT NULL DEFAULT 'normal',
    data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS exports_next ON exports(next_end);
CREATE INDEX IF NOT EXISTS exports_project ON exports(project_id, created_at);
CREATE TABLE IF NOT EXISTS runs(
    id TEXT PRIMARY KEY, export_id TEXT NOT NULL, status TEXT NOT NULL, active INTEGER NOT NULL,
    created_at TEXT NOT NULL, data_interval_start TEXT, data_interval_end TEXT NOT NULL,
    records_completed INTEGER, records_total_count INTEGER, latest_error TEXT, cursor TEXT,
    finished_at TEXT, last_updated_at TEXT NOT NULL, bytes_exported INTEGER, backfill_id TEXT,
    instance_id TEXT NOT NULL, plan TEXT NOT NULL, events_done INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS runs_export_created ON runs(export_id, created_at);
CREATE INDEX IF NOT EXISTS runs_export_interval ON runs(export_id, data_interval_start);
CREATE INDEX IF NOT EXISTS runs_active ON runs(active) WHERE active = 1;
CREATE TABLE IF NOT EXISTS pending_runs(
    id TEXT PRIMARY KEY, export_id TEXT NOT NULL, backfill_id TEXT NOT NULL, created_at TEXT NOT NULL,
    data_interval_start TEXT, data_interval_end TEXT NOT NULL, plan TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS pending_created ON pending_runs(created_at);
CREATE TABLE IF NOT EXISTS backfills(
    id TEXT PRIMARY KEY, export_id TEXT NOT NULL, start_at TEXT, end_at TEXT, created_at TEXT NOT NULL,
    total_runs INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outages(
    id INTEGER PRIMARY KEY AUTOINCREMENT, destination TEXT NOT NULL, start_at TEXT NOT NULL, end_at TEXT,
    error TEXT, fails_after REAL);
CREATE TABLE IF NOT EXISTS logs(
    seq INTEGER PRIMARY KEY AUTOINCREMENT, export_id TEXT NOT NULL, run_id TEXT NOT NULL,
    instance_id TEXT NOT NULL, timestamp TEXT NOT NULL, level TEXT NOT NULL, message TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS logs_export_ts ON logs(export_id, timestamp);
CREATE INDEX IF NOT EXISTS logs_run ON logs(run_id);
"""


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class Database:
    """One SQLite connection guarded by a re-entrant lock."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.lock = threading.RLock()
        if path:
            create_private(Path(path))  # 0600 in a 0700 folder before SQLite creates it with the umask's mode
        self.conn = sqlite3.connect(path or ":memory:", check_same_thread=False, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        if path:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(SCHEMA)
        self._add_missing_columns()

    def _add_missing_columns(self) -> None:
        """Columns added after the first release, so a database saved by an older sandbox still opens."""
        for table, name, kind in (("backfills", "cancelled_at", "TEXT"), ("outages", "fails_after", "REAL")):
            have = {r["name"] for r in self.conn.execute(f"PRAGMA table_info({table})")}
            if name not in have:
                self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and run the block in one BEGIN IMMEDIATE ... COMMIT (rolled back on error)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock for a consistent read (autocommit mode, no transaction needed)."""
        with self.lock:
            yield self.conn

    def get_meta(self, key: str) -> str | None:
        with self.read() as c:
            row = c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row["value"])

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def saved_sim_now(path: str | None) -> str | None:
    """The simulated time stored in an existing database file, without opening it for writing."""
    if not path or not os.path.exists(path):
        return None
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'sim_now'").fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return None if row is None else str(row[0])
