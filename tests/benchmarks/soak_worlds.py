"""Servers the soaks run against, each a sandbox in its own process (its database grows with every run and its
request log with every request: that must not count as the measured process's memory).

``RUNS_LIST_CHURN``: the issue's status churn. ``sys.argv[1]`` exports in project 1, frozen world but for the
churn: every 2 s the newest run of 5 exports (a different 5 each time, so each export moves every
``exports / 5 * 2`` seconds) moves to the next of Running -> Completed -> Failed, with a new record count and, when
Failed, an error text never seen before. Every tenth export starts in a long outage (its twelve newest runs failed:
its last Completed run, and so its verdict, is only in the runs list), so verdicts read the runs list all the time.

``WEEK``: simulated time at ``sys.argv[1]`` times the wall's (the sandbox's ``--speed``), 50 exports running on their
schedules; every simulated 10 hours one destination has an outage of 3 hours (runs created in it fail), every
simulated 6 hours one export is deleted and a new one added. Prints the base URL, key and project, then one line per
simulated day reached.
"""

from __future__ import annotations

RUNS_LIST_CHURN = r"""
import sys, time, uuid
from datetime import UTC, datetime
from tui.clock import ScaledClock
from tui.sandbox.runner import SandboxOptions, start_sandbox
from tui.sandbox.timeutil import iso

handle = start_sandbox(SandboxOptions(seed=7, exports=int(sys.argv[1]), simulate=False,
                                      clock=ScaledClock(datetime.now(UTC), 1.0)))
db = handle.state.db
with db.read() as c:
    ids = [r["id"] for r in c.execute("SELECT id FROM exports WHERE deleted = 0 AND paused = 0 AND project_id = 1 "
                                      "AND end_at IS NULL ORDER BY created_at").fetchall()]
with db.transaction() as c:
    for export_id in ids[::10]:
        for r in c.execute("SELECT id FROM runs WHERE export_id = ? ORDER BY created_at DESC, id DESC LIMIT 12",
                           (export_id,)).fetchall():
            c.execute("UPDATE runs SET status = 'Failed', latest_error = 'OperationalError: connection refused' "
                      "WHERE id = ?", (r["id"],))
print(handle.base_url, handle.api_key, handle.project_id, flush=True)
STEPS = ["Running", "Completed", "Failed"]
ERRORS = ["ConnectionResetError: [Errno 104] Connection reset by peer (request {tag})",
          "ClientError: An error occurred (AccessDenied) when calling the PutObject operation (request {tag})",
          "OperationalError: could not connect to server at 10.0.{a}.{b}, port 5432: timeout expired"]
n = 0
while True:
    time.sleep(2.0)
    now = iso(handle.clock.now().replace(microsecond=0))
    with db.transaction() as c:
        for i in range(5):
            k = n * 5 + i
            row = c.execute("SELECT id, status FROM runs WHERE export_id = ? ORDER BY created_at DESC, id DESC "
                            "LIMIT 1", (ids[k % len(ids)],)).fetchone()
            if row is None:
                continue
            status = STEPS[(STEPS.index(row["status"]) + 1) % 3] if row["status"] in STEPS else "Running"
            error = ERRORS[k % 3].format(tag=uuid.uuid4().hex[:16], a=k % 250, b=(k // 250) % 250) \
                if status == "Failed" else None
            c.execute("UPDATE runs SET status = ?, latest_error = ?, finished_at = ?, last_updated_at = ?, "
                      "records_completed = ? WHERE id = ?",
                      (status, error, None if status == "Running" else now, now, (k * 37) % 100000, row["id"]))
    n += 1
"""

WEEK = r"""
import sys, time
from datetime import timedelta
from tui.sandbox.outages import add_outage
from tui.sandbox.runner import SandboxOptions, start_sandbox
from tui.sandbox.seed import export_row
from tui.sandbox.timeutil import floor_interval, iso

handle = start_sandbox(SandboxOptions(seed=7, exports=50, speed=float(sys.argv[1]), simulate=True))
db = handle.state.db
print(handle.base_url, handle.api_key, handle.project_id, flush=True)
start = handle.clock.now()
DESTINATIONS = ['S3', 'Snowflake', 'Postgres', 'BigQuery', 'Redshift', 'HTTP', 'Databricks']
outages = deletions = added = days = 0
while True:
    time.sleep(0.2)
    now = handle.clock.now()
    hours = (now - start).total_seconds() / 3600
    with db.transaction() as c:
        while outages * 10 < hours:
            add_outage(c, DESTINATIONS[outages % len(DESTINATIONS)], start + timedelta(hours=outages * 10),
                       start + timedelta(hours=outages * 10 + 3))
            outages += 1
        while deletions * 6 < hours:
            victim = c.execute("SELECT id FROM exports WHERE deleted = 0 AND project_id = 1 ORDER BY created_at "
                               "LIMIT 1 OFFSET 20").fetchone()
            if victim is not None:
                c.execute("UPDATE exports SET deleted = 1 WHERE id = ?", (victim["id"],))
            row = list(export_row(7, 1, 1000 + added, f"Added export #{added + 1}", "HTTP", "events",
                                  "every 5 minutes", "flaky" if added % 2 else "normal", now, timedelta(hours=1)))
            row[8] = iso(floor_interval(now, "every 5 minutes") + timedelta(minutes=5))
            c.execute("INSERT INTO exports(id, project_id, created_at, deleted, paused, interval, start_at, end_at, "
                      "next_end, profile, data) VALUES(?,?,?,?,?,?,?,?,?,?,?)", row)
            deletions += 1
            added += 1
    while days < int(hours // 24):
        days += 1
        print("day", days, flush=True)
"""
