"""The monitor's key rules as a pure function: each answer (acts, greyed out, hidden) from plain facts."""

from __future__ import annotations

from dataclasses import replace

from tui.key_registry import writing_actions
from tui.state.monitor_key_rules import KeyFacts, key_state

WRITING = writing_actions("monitor")
ON_RUNNING = KeyFacts(read_only=False, paused=False, run_selected=True, detail_shown=True, pending=False,
                      alert_marked=False)
NOTHING_SELECTED = replace(ON_RUNNING, paused=None, run_selected=False)


def states(facts: KeyFacts, *actions: str) -> dict[str, bool | None]:
    return {action: key_state(action, facts, WRITING) for action in actions}


def test_read_only_hides_every_writing_key_and_only_those() -> None:
    read_only = replace(ON_RUNNING, read_only=True)
    hidden = {action for action in [*WRITING, "run_logs", "alerts", "acknowledge", "freeze"]
              if key_state(action, read_only, WRITING) is False}
    assert hidden == set(WRITING)
    assert {"pause", "repair", "cancel_run", "retry", "delete"} <= hidden


def test_the_footer_offers_pause_or_unpause_as_the_export_is() -> None:
    assert states(ON_RUNNING, "pause", "unpause") == {"pause": True, "unpause": False}
    assert states(replace(ON_RUNNING, paused=True), "pause", "unpause") == {"pause": False, "unpause": True}


def test_keys_on_an_export_are_greyed_out_without_one_and_views_stay() -> None:
    assert states(NOTHING_SELECTED, "pause", "unpause", "backfill", "run_logs", "acknowledge", "silence",
                  "repair", "backfills", "cancel_run") == dict.fromkeys(
        ("pause", "unpause", "backfill", "run_logs", "acknowledge", "silence", "repair", "backfills", "cancel_run"))
    assert states(NOTHING_SELECTED, "alerts", "groups", "timeline", "freeze", "filter", "refresh",
                  "runs_filter") == dict.fromkeys(
        ("alerts", "groups", "timeline", "freeze", "filter", "refresh", "runs_filter"), True)


def test_a_pending_action_is_greyed_out_until_it_ends() -> None:
    pending = replace(ON_RUNNING, pending=True)
    assert states(pending, "pause", "backfill", "edit") == {"pause": None, "backfill": None, "edit": None}
    # Cancel and the incident keys have no pending state on the board.
    assert states(pending, "cancel_run", "repair") == {"cancel_run": True, "repair": True}


def test_acknowledge_needs_an_open_alert_and_cancel_a_run() -> None:
    assert key_state("acknowledge", ON_RUNNING, WRITING) is None
    assert key_state("acknowledge", replace(ON_RUNNING, alert_marked=True), WRITING) is True
    assert key_state("cancel_run", replace(ON_RUNNING, run_selected=False), WRITING) is None


def test_details_needs_the_lower_pane() -> None:
    assert key_state("details", replace(NOTHING_SELECTED, detail_shown=True), WRITING) is True
    assert key_state("details", replace(ON_RUNNING, detail_shown=False), WRITING) is None
