"""Which of the monitor's keys apply now, from what its cursors are on: the rules of its ``check_action``.

Textual asks the screen about every binding whenever the footer is checked. The screen gathers
:class:`KeyFacts` about the export and run under its cursors and asks :func:`key_state`, whose answer is
Textual's: True, the key acts; None, it is greyed out (nothing for it to act on now); False, it is hidden
(read-only mode hides every key that writes, and the footer shows only one of pause and unpause).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

# Keys that act on the selected export or its run, without writing: greyed out while no export is selected.
READS_OF_EXPORT = frozenset({"run_logs", "export_logs", "acknowledge", "run_error", "silence", "silence_project"})
# Views over every export: they apply whatever is selected.
OVERVIEWS = frozenset({"alerts", "groups", "timeline"})
# The keys whose state is the run under the runs pane's cursor: ``run_selected`` is read for these only (finding
# the run sorts the export's run history, and the footer checks every key at each refresh).
ON_RUN = frozenset({"cancel_run"})


@dataclass(frozen=True)
class KeyFacts:
    """What the monitor shows when a key is checked."""

    read_only: bool
    paused: bool | None
    """The selected export's paused flag; None when no export is selected (a section row, an empty table)."""
    run_selected: bool
    """A run is under the runs pane's cursor (gathered for the keys of :data:`ON_RUN`; False for the others)."""
    detail_shown: bool
    """The lower pane (runs and details) is on screen."""
    pending: bool
    """This key's action on the selected export is still being sent."""
    alert_marked: bool
    """The selected export has an open, unacknowledged alert."""


def key_state(action: str, facts: KeyFacts, writing: Collection[str]) -> bool | None:
    """Whether the monitor's key for ``action`` acts now (True), is greyed out (None) or hidden (False).

    ``writing`` names the actions that send a change to the server (the key registry's ``writing_actions``).
    """
    if action in writing and facts.read_only:
        return False
    selected = facts.paused is not None
    if action in OVERVIEWS:
        return True
    if action in ("repair", "backfills"):
        return True if selected else None
    if action in ON_RUN:  # cancel: on a finished run it says why it cannot
        return True if facts.run_selected else None
    if action in ("pause", "unpause"):
        if not selected:
            return None
        if (action == "pause") == facts.paused:
            return False
    if action == "details":
        return True if facts.detail_shown else None
    if not selected:
        return None if action in writing or action in READS_OF_EXPORT else True
    if facts.pending:
        return None
    if action == "acknowledge" and not facts.alert_marked:
        return None
    return True
