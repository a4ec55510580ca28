"""What each key does, in words an operator reads: one catalogue for the help screen and the command palette.

Keyed by binding id. A binding without an entry here shows in help and the
palette only when the footer shows it too; Textual's generic widget keys
(cursor movement, copy, focus) are left out, as every terminal user knows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class KeyGuide:
    title: str
    """A name for the palette's list: what the key does, as a command."""
    sentence: str
    """What happens, for the palette's second line and nowhere an action name would leak."""


GUIDE: dict[str, KeyGuide] = {
    # the whole app
    "app.quit": KeyGuide("Quit", "Close watchdeck. Drafts are kept."),
    "app.help": KeyGuide("Help", "Show every key of this screen and what the run statuses mean."),
    "app.suspend": KeyGuide("Suspend", "Put watchdeck in the background; fg brings it back."),
    "app.pick_project": KeyGuide("Switch project", "Pick another project from the ones this key can see."),
    # monitor
    "monitor.pause": KeyGuide("Pause export", "Stop scheduling new runs of the selected export."),
    "monitor.unpause": KeyGuide("Unpause export", "Start scheduling runs of the selected export again."),
    "monitor.backfill": KeyGuide("Backfill", "Export a past period of the selected export again."),
    "monitor.retry": KeyGuide("Retry run", "Run the selected failed run again."),
    "monitor.run_logs": KeyGuide("Run logs", "Show the log lines of the selected run."),
    "monitor.export_logs": KeyGuide("Export logs", "Show the log lines of every run of the selected export."),
    "monitor.run_error": KeyGuide("Run error", "Show the selected run's whole error message."),
    "monitor.edit": KeyGuide("Edit export", "Rename the selected export or change its interval."),
    "monitor.delete": KeyGuide("Delete export", "Delete the selected export, after you type its name."),
    "monitor.ack": KeyGuide("Acknowledge alert", "Stop the alert for the selected export until it fails again."),
    "monitor.refresh": KeyGuide("Refresh now", "Ask the server for the exports now instead of at the next poll."),
    "monitor.filter": KeyGuide("Filter exports", "Show only the exports whose name contains what you type."),
    "monitor.freeze": KeyGuide("Freeze", "Stop updating the screen so you can read it; press again to resume."),
    "monitor.slower": KeyGuide("Poll less often", "Wait longer between two polls of the server."),
    "monitor.faster": KeyGuide("Poll more often", "Wait less between two polls of the server."),
    "monitor.surveys": KeyGuide("Go to surveys", "Show the survey list; exports keep being watched."),
    # monitor, in an incident
    "monitor.alerts": KeyGuide("Alerts", "Show or hide the open alerts and the ones handled this session."),
    "monitor.groups": KeyGuide("Failure groups", "Group the failing runs of every export by the cause in their error."),
    "monitor.timeline": KeyGuide("Incident timeline", "Every watched export on one time axis, worst run per period."),
    "monitor.repair": KeyGuide("Repair in bulk",
                               "Retry every failed interval of the selected export, and backfill its gaps."),
    "monitor.backfills": KeyGuide("Backfills", "List the selected export's backfills and their progress."),
    "monitor.cancel_run": KeyGuide("Cancel run", "Cancel the selected run while it is starting or running."),
    "monitor.runs_by_interval": KeyGuide("Runs by interval",
                                         "Show one row per data interval with its attempts, or every attempt."),
    "monitor.runs_filter": KeyGuide("Filter runs by status", "Show all runs, failed, running, completed or cancelled."),
    # surveys
    "surveys.filter": KeyGuide("Filter surveys", "Show only the surveys whose name contains what you type."),
    "surveys.status_filter": KeyGuide("Filter by status", "Show draft, running, finished or archived surveys."),
    "surveys.sort": KeyGuide("Sort surveys", "Sort the list by another column."),
    "surveys.sort_reverse": KeyGuide("Reverse the order", "Sort the list the other way round."),
    "surveys.detail": KeyGuide("Survey details", "Show or hide the selected survey's questions and settings."),
    "surveys.new": KeyGuide("New survey", "Start a new survey in the editor."),
    "surveys.edit": KeyGuide("Edit survey", "Open the selected survey in the editor."),
    "surveys.edit_file": KeyGuide("Edit survey as a file",
                                  "Open the selected survey as JSON in your $VISUAL or $EDITOR."),
    "surveys.delete": KeyGuide("Delete survey", "Delete the selected survey, after you confirm."),
    "surveys.archive": KeyGuide("Archive survey", "Hide the selected survey from the usual lists."),
    "surveys.unarchive": KeyGuide("Unarchive survey", "Bring the selected survey back from the archive."),
    "surveys.launch": KeyGuide("Launch survey", "Start showing the selected survey to users now."),
    "surveys.stop": KeyGuide("Stop survey", "Stop showing the selected survey to users now."),
    "surveys.summarize": KeyGuide("Summarize responses", "Ask the server for a written summary of the answers."),
    "surveys.activity": KeyGuide("Survey activity", "Who changed the selected survey, and what they changed."),
    "surveys.activity_all": KeyGuide("All survey activity", "Recent changes to every survey of the project."),
    "surveys.reload": KeyGuide("Reload surveys", "Load the survey list from the server again."),
    "surveys.monitor": KeyGuide("Go to exports", "Show the batch export monitor."),
    "surveys.escape": KeyGuide("Back", "Close the detail pane, or clear the filter."),
    # editor
    "editor.save": KeyGuide("Save survey", "Send the survey to the server."),
    "editor.leave": KeyGuide("Leave the editor", "Go back to the list; asks first when something is unsaved."),
    "editor.add": KeyGuide("Add question", "Add a question after the selected one."),
    "editor.duplicate": KeyGuide("Duplicate question", "Copy the selected question."),
    "editor.delete": KeyGuide("Delete question", "Remove the selected question."),
    "editor.move_up": KeyGuide("Move question up", "Move the selected question one place up."),
    "editor.move_down": KeyGuide("Move question down", "Move the selected question one place down."),
    "editor.preview": KeyGuide("Preview survey", "Answer the survey as a user would, with its branching."),
    "editor.switch_pane": KeyGuide("Between list and form",
                                   "Jump from the question list into the form's first field, or back to the list."),
    "editor.choice_up": KeyGuide("Move choice up", "Move the choice being edited one place up."),
    "editor.choice_down": KeyGuide("Move choice down", "Move the choice being edited one place down."),
    "editor.choice_remove": KeyGuide("Remove choice", "Remove the choice being edited."),
    # logs
    "logs.back": KeyGuide("Close logs", "Go back to the monitor."),
    "logs.follow": KeyGuide("Follow new lines", "Keep showing new log lines as they arrive, or stop."),
    "logs.level": KeyGuide("Log level", "Show only lines of this level or worse."),
    "logs.search": KeyGuide("Search logs", "Show only lines containing what you type, highlighted."),
    "logs.reload": KeyGuide("Reload logs", "Load the log lines from the server again."),
}


def guide_for(binding: Binding) -> KeyGuide | None:
    """The entry for a binding; None for Textual's generic keys, which help and the palette leave out.

    A binding of ours without an entry (a dialog's Save or Cancel) is still
    shown, under its footer description, when the footer shows it.
    """
    if binding.id and binding.id in GUIDE:
        return GUIDE[binding.id]
    if binding.show and binding.description:
        return KeyGuide(binding.description, binding.description + ".")
    return None
