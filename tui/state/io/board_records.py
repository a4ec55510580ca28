"""Reading the server's record for a board's verdicts: the monitor's and the exporter's one loop.

After a poll, the exports whose verdict ``latest_runs`` cannot settle
(``Verdict.record_short``) and whose ``latest_runs`` changed since their runs
list was last read get it read (:func:`tui.state.io.record_reads.read_for_verdict`)
into the board's run history, in the given order, at most ``limit`` of them,
each request taking room from ``take`` (the operator's share of the rate budget).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from tui.api.errors import ApiError, MethodNotAllowed, NotFound, ProjectNotFound
from tui.state.export_board import ExportBoard
from tui.state.io.record_reads import RunsApi, read_for_verdict

RECORDS_PER_POLL = 4  # exports whose runs list is read for their verdict after one poll


async def read_board_records(board: ExportBoard, runs_api: Callable[[str], RunsApi], now: Callable[[], datetime],
                             *, take: Callable[[], bool], order: list[str] | None = None,
                             limit: int = RECORDS_PER_POLL) -> list[str]:
    """Read the record of the board's exports that want it (``order``: row keys, the snapshot's order when
    None); returns the keys whose run history changed. Stops when the budget has no room: the next poll asks
    again. A project without a runs list (404/405) is remembered on the board (its rows' keys are returned: their
    verdicts say so); other API errors skip the export."""
    if board.snapshot is None:
        return []
    keys = order if order is not None else [w.key for w in board.snapshot.exports]
    changed: list[str] = []
    for watched in board.records_wanted(keys)[:limit]:
        if board.runs_list_missing(watched.project_id):
            continue
        facts = board.facts(watched.key)
        allowed = facts.verdict.allowed_lag_seconds if facts is not None else None
        version = board.history.version(watched.key)
        try:
            sent = await read_for_verdict(runs_api(watched.project_id), watched.export.id, watched.key,
                                          board.history, now(), allowed_seconds=allowed, take=take)
        except ProjectNotFound:
            continue  # the export poll names it
        except (NotFound, MethodNotAllowed):
            board.runs_list_not_offered(watched.project_id)
            # the project's verdicts now say that their bounds cannot be read further
            changed.extend(w.key for w in board.snapshot.exports
                           if w.project_id == watched.project_id and w.key in keys and w.key not in changed)
            continue
        except ApiError:
            continue
        if not sent:
            break
        board.runs_list_read(watched.project_id)
        board.record_asked(watched.key)
        if board.history.version(watched.key) != version:
            changed.append(watched.key)
    return changed
