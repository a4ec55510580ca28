"""Every key of watchdeck's screens in one table: bindings, footer, help, palette and README come from it.

Each entry says which key runs which action, what the footer calls it, what help and the palette say
about it, which group of help it belongs to, and whether it **writes** (sends a change to the server).
Screens take their ``BINDINGS`` from :func:`bindings`; read-only mode hides exactly the actions
:func:`writing_actions` names; help and the palette read :func:`entry_for`; the README's key tables
are :func:`readme_table` (``python -m tui.tools.readme_keys`` rewrites them, and a test compares).

Dialogs are not here: they share one rule instead (``tui.screens.dialog``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding

# The groups of help, in the order help shows them.
ACT_EXPORT = "Act on the export"
INCIDENT = "In an incident"
ACT_SURVEY = "Act on a survey"
EDIT_SURVEY = "Edit the survey"
RUNS = "Runs and logs"
VIEW = "View"
NAVIGATE = "Navigate"
GROUP_ORDER = (ACT_EXPORT, INCIDENT, ACT_SURVEY, EDIT_SURVEY, RUNS, VIEW, NAVIGATE)


@dataclass(frozen=True)
class KeyEntry:
    id: str
    """The binding id (``[keymap]`` in config.toml uses it); its area is the part before the dot."""
    keys: str
    """Textual key names, comma-separated."""
    action: str
    label: str
    """The footer's word for it."""
    title: str
    """The command's name in help and the palette."""
    sentence: str
    """What happens, in help, the palette and the README."""
    group: str
    show: bool = True
    """Shown in the footer (every entry shows in help and the palette)."""
    writes: bool = False
    """Sends a change to the server (or starts something that does): hidden in read-only mode."""
    priority: bool = False
    shared: bool = False
    """Bound by several screens, each with this same binding (the form keys); any other entry is bound once."""

    @property
    def area(self) -> str:
        return self.id.partition(".")[0]

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.label, show=self.show, id=self.id, priority=self.priority)


def _k(id: str, keys: str, action: str, label: str, title: str, sentence: str, group: str, *,
       show: bool = True, writes: bool = False, priority: bool = False, shared: bool = False) -> KeyEntry:
    return KeyEntry(id, keys, action, label, title, sentence, group, show, writes, priority, shared)


KEYS: tuple[KeyEntry, ...] = (
    # ---------------------------------------------------------------- the whole app
    # q quits from the monitor and the survey list; each view and dialog over them binds q to what its Escape does.
    _k("app.quit", "q", "quit", "Quit", "Quit",
       "On the monitor or the survey list: close watchdeck. In a view or a dialog q closes it, as Escape does.",
       NAVIGATE),
    _k("app.help", "question_mark", "help", "Help", "Help",
       "Show every key of this screen and what the run statuses mean.", NAVIGATE),
    _k("app.interrupt", "ctrl+c", "interrupt", "Quit", "Quit now",
       "Close watchdeck from any screen; an open editor's edits are kept as a draft.", NAVIGATE, show=False,
       priority=True),
    _k("app.suspend", "ctrl+z", "suspend_process", "Suspend", "Suspend",
       "Put watchdeck in the background; fg brings it back, fully redrawn.", NAVIGATE, show=False),
    _k("app.pick_project", "P", "pick_project", "Project", "Switch project",
       "Pick another project from the ones this key can see.", NAVIGATE),
    # ---------------------------------------------------------------- the monitor
    _k("monitor.pause", "p", "pause", "Pause", "Pause export",
       "Stop scheduling new runs of the selected export (asks first).", ACT_EXPORT, writes=True),
    _k("monitor.unpause", "u", "unpause", "Unpause", "Unpause export",
       "Start scheduling runs of the selected export again (asks first).", ACT_EXPORT, writes=True),
    _k("monitor.backfill", "b", "backfill", "Backfill", "Backfill",
       "Export a past period of the selected export again: start and end (UTC), the number of runs shown first.",
       ACT_EXPORT, writes=True),
    _k("monitor.retry", "r", "retry", "Retry run", "Retry run",
       "Run the selected run again (asks; a completed run asks twice).", RUNS, writes=True),
    _k("monitor.run_logs", "l", "run_logs", "Run logs", "Run logs", "Show the log lines of the selected run.", RUNS),
    _k("monitor.export_logs", "L", "export_logs", "Export logs", "Export logs",
       "Show the log lines of every run of the selected export.", RUNS),
    _k("monitor.run_error", "enter", "run_error", "Run error", "Open",
       "On an export: go down to its runs; on a run: show its whole error message.", RUNS, show=False),
    _k("monitor.edit", "e", "edit", "Edit", "Edit export",
       "Edit the selected export (name, interval, paused, start and end, destination, query); sends what changed.",
       ACT_EXPORT, writes=True),
    _k("monitor.delete", "D", "delete", "Delete", "Delete export",
       "Delete the selected export, after you type its name.", ACT_EXPORT, writes=True),
    _k("monitor.ack", "a", "acknowledge", "Ack alert", "Acknowledge alert",
       "Stop the alert for the selected export until it fails again.", ACT_EXPORT),
    _k("monitor.silence", "s", "silence", "Silence", "Silence export",
       "Silence the selected export for a time, with a reason: its verdict and alert stay, the bell, toasts and "
       "hook events wait; every screen of this server and key sees it.", ACT_EXPORT, show=False),
    _k("monitor.silence_project", "S", "silence_project", "Silence project", "Silence project",
       "Silence every export of the selected export's project for a time, with a reason.", ACT_EXPORT, show=False),
    _k("monitor.alerts", "exclamation_mark", "alerts", "Alerts", "Alerts",
       "Show or hide the open alerts and the ones handled this session.", INCIDENT),
    _k("monitor.groups", "g", "groups", "Groups", "Failure groups",
       "Group the failing runs of every export by the cause in their error.", INCIDENT),
    _k("monitor.timeline", "t", "timeline", "Timeline", "Incident timeline",
       "Every watched export on one time axis, worst run per period; enter opens the run under the cursor, escape "
       "comes back.",
       INCIDENT),
    _k("monitor.repair", "R", "repair", "Repair", "Repair in bulk",
       "Retry every failed interval of the selected export, planned from the server's runs list; gaps only if "
       "ticked; a preview first.", INCIDENT,
       writes=True),
    _k("monitor.backfills", "B", "backfills", "Backfills", "Backfills",
       "List the selected export's backfills and their progress; c cancels one.", INCIDENT, show=False),
    _k("monitor.cancel_run", "c", "cancel_run", "Cancel run", "Cancel run",
       "Cancel the selected run while it is starting or running (asks first).", RUNS, show=False, writes=True),
    _k("monitor.runs_by_interval", "i", "runs_by_interval", "Runs by interval", "Runs by interval",
       "Show one row per data interval with its attempts, or every attempt.", RUNS, show=False),
    _k("monitor.runs_filter", "f", "runs_filter", "Runs filter", "Filter runs by status",
       "Show all runs, failed, running, completed or cancelled.", RUNS, show=False),
    _k("monitor.details", "d", "details", "Details", "Export details",
       "Show the selected export's settings below the table instead of its runs, or its runs again.", VIEW,
       show=False),
    _k("monitor.refresh", "ctrl+r", "refresh", "Refresh", "Refresh now",
       "Ask the server for the exports now instead of at the next poll.", VIEW),
    _k("monitor.filter", "slash", "filter", "Filter", "Filter exports",
       "Show only the exports whose name or state contains what you type.", VIEW),
    _k("monitor.clear_filter", "escape", "clear_filter", "Clear filter", "Clear filter",
       "Clear the filter; from the runs pane or the tabs below, go back to the exports.", VIEW, show=False),
    _k("monitor.freeze", "space", "freeze", "Freeze", "Freeze",
       "Stop updating the screen so you can read it (data keeps arriving); press again to resume.", VIEW),
    _k("monitor.slower", "plus,equals_sign", "slower", "+poll", "Poll less often",
       "Wait longer between two polls of the server.", VIEW, show=False),
    _k("monitor.faster", "minus", "faster", "-poll", "Poll more often", "Wait less between two polls of the server.",
       VIEW, show=False),
    _k("monitor.surveys", "tab", "app.switch_to('surveys')", "Surveys", "Go to surveys",
       "Show the survey list; exports keep being watched.", NAVIGATE),
    # ---------------------------------------------------------------- the monitor's incident views
    _k("alerts.jump", "enter", "jump", "Go to export", "Go to export", "Put the monitor's cursor on this export.",
       INCIDENT),
    _k("alerts.ack", "a", "acknowledge", "Acknowledge", "Acknowledge alert",
       "Stop this alert until its export fails again.", INCIDENT),
    _k("alerts.silence", "s", "silence", "Silence", "Silence export",
       "Silence this alert's export for a time, with a reason (every screen of this server and key sees it).",
       INCIDENT),
    _k("alerts.silence_project", "S", "silence_project", "Silence project", "Silence project",
       "Silence every export of this alert's project for a time, with a reason.", INCIDENT, show=False),
    _k("alerts.close", "q,exclamation_mark,escape", "close", "Close", "Close alerts", "Back to the monitor.",
       NAVIGATE),
    _k("groups.filter", "enter", "filter", "Show these exports", "Show these exports",
       "Filter the monitor's table to the group's exports.", INCIDENT),
    _k("groups.repair", "R", "repair", "Repair group", "Repair group",
       "Retry every failed interval of the group's exports since its first failure, recovered ones included; "
       "a preview first.", INCIDENT, writes=True),
    _k("groups.since", "s", "since", "Since", "Failures since",
       "Group the failures of the current incident (since the first failure of the exports alerting, as the runs "
       "list holds it), of the last 24 h, or all loaded.",
       VIEW),
    _k("groups.close", "q,g,escape", "close", "Close", "Close groups", "Back to the monitor.", NAVIGATE),
    _k("timeline.zoom_in", "plus,equals_sign", "zoom(-1)", "Zoom in", "Zoom in", "Show a shorter period.", VIEW),
    _k("timeline.zoom_out", "minus", "zoom(1)", "Zoom out", "Zoom out", "Show a longer period.", VIEW),
    _k("timeline.close", "q,t,escape", "close", "Close", "Close timeline", "Back to the monitor.", NAVIGATE),
    _k("backfills.cancel", "c", "cancel_backfill", "Cancel backfill", "Cancel backfill",
       "Cancel the selected backfill (asks first).", ACT_EXPORT, writes=True),
    _k("backfills.refresh", "ctrl+r", "reload", "Refresh", "Refresh backfills", "Ask the server for the list now.",
       VIEW),
    _k("backfills.close", "q,B,escape", "close", "Close", "Close backfills", "Back to the monitor.", NAVIGATE),
    # ---------------------------------------------------------------- logs
    _k("logs.back", "q,escape", "close", "Back", "Close logs", "Go back to the monitor.", NAVIGATE),
    _k("logs.follow", "f", "toggle_follow", "Follow", "Follow new lines",
       "Keep showing new log lines as they arrive, or stop.", RUNS),
    _k("logs.level", "v", "cycle_level", "Level", "Log level", "Show only lines of this level or worse.", RUNS),
    _k("logs.search", "slash", "search", "Search", "Search logs",
       "Show only lines containing what you type, highlighted; esc clears it.", RUNS),
    _k("logs.reload", "ctrl+r", "reload", "Reload", "Reload logs", "Load the log lines from the server again.", RUNS),
    _k("logs.follow_on", "end", "follow_on", "End", "Follow again", "Go to the last line and follow new ones.", RUNS,
       show=False, priority=True),
    _k("logs.page_up", "pageup", "read_back('page')", "Page up", "Read back",
       "Scroll back a page; the header says PAUSED.", RUNS, show=False, priority=True),
    _k("logs.line_up", "up", "read_back('line')", "Line up", "Read back a line",
       "Scroll back a line; the header says PAUSED.", RUNS, show=False, priority=True),
    # ---------------------------------------------------------------- the survey browser
    _k("surveys.filter", "slash", "filter", "Filter", "Filter surveys",
       "Show only the surveys whose name contains what you type (a server-side search).", VIEW),
    _k("surveys.status_filter", "f", "cycle_status", "Status", "Filter by status",
       "Show draft, running, complete or archived surveys.", VIEW),
    _k("surveys.sort", "o", "cycle_sort", "Sort", "Sort surveys", "Sort the list by the next column.", VIEW),
    _k("surveys.sort_reverse", "O", "reverse_sort", "Reverse", "Reverse the order",
       "Sort the list the other way round.", VIEW, show=False),
    _k("surveys.detail", "enter", "toggle_detail", "Detail", "Survey details",
       "Show or hide the selected survey's questions and settings.", VIEW),
    _k("surveys.new", "n", "new", "New", "New survey", "Start a new survey in the question editor.", ACT_SURVEY,
       writes=True),
    _k("surveys.edit", "e", "edit", "Edit", "Edit survey", "Open the selected survey in the question editor.",
       ACT_SURVEY, writes=True),
    _k("surveys.edit_file", "E", "edit_file", "Edit as file", "Edit survey as a file",
       "Open the selected survey as JSON in your $VISUAL or $EDITOR; the diff is shown before anything is sent.",
       ACT_SURVEY, show=False, writes=True),
    _k("surveys.delete", "d", "delete", "Delete", "Delete survey",
       "Delete the selected survey (asks; a running survey or one with responses needs its name typed).",
       ACT_SURVEY, writes=True),
    _k("surveys.archive", "a", "archive", "Archive", "Archive survey",
       "Hide the selected survey from the usual lists (asks first).", ACT_SURVEY, writes=True),
    _k("surveys.unarchive", "a", "unarchive", "Unarchive", "Unarchive survey",
       "Bring the selected survey back from the archive.", ACT_SURVEY, writes=True),
    _k("surveys.launch", "s", "launch", "Launch", "Launch survey",
       "Start showing the selected survey now (asks first).", ACT_SURVEY, writes=True),
    _k("surveys.stop", "s", "stop", "Stop", "Stop survey", "Stop showing the selected survey now (asks first).",
       ACT_SURVEY, writes=True),
    _k("surveys.resume", "s", "resume", "Resume", "Resume survey",
       "Clear the stopped survey's end date: respondents see it again now (asks first).", ACT_SURVEY, writes=True),
    _k("surveys.template", "t", "template", "From template", "New survey from a template",
       "Start from NPS (a follow-up per score range), CSAT, PMF or open feedback, in the question editor.",
       ACT_SURVEY, show=False, writes=True),
    _k("surveys.duplicate", "D", "duplicate", "Duplicate", "Duplicate survey",
       "Open a copy of the selected survey in the question editor, as a new draft.", ACT_SURVEY, show=False,
       writes=True),
    _k("surveys.summarize", "S", "summarize", "Summary", "Summarize responses",
       "Ask the server for a written summary of the answers (a POST).", ACT_SURVEY, writes=True),
    _k("surveys.activity", "h", "activity", "Activity", "Survey activity",
       "Who changed the selected survey, and what they changed.", VIEW),
    _k("surveys.activity_all", "H", "activity_all", "All activity", "All survey activity",
       "Recent changes to every survey of the project.", VIEW),
    _k("surveys.reload", "ctrl+r", "reload", "Reload", "Reload surveys", "Load the survey list from the server again.",
       VIEW),
    _k("surveys.monitor", "tab", "monitor", "Monitor", "Go to exports", "Show the batch export monitor.", NAVIGATE),
    _k("surveys.escape", "escape", "escape", "Back", "Back", "Close the detail pane, or clear the filter.", NAVIGATE,
       show=False),
    _k("surveys.first", "home", "first", "First", "First survey", "Go to the first survey.", VIEW, show=False),
    _k("surveys.last", "end", "last", "Last", "Last survey", "Go to the last loaded survey.", VIEW, show=False),
    # ---------------------------------------------------------------- the question editor
    _k("editor.save", "ctrl+s", "save", "Save", "Save survey", "Send the survey to the server.", EDIT_SURVEY,
       writes=True),
    _k("editor.leave", "escape,q", "leave", "Back", "Leave the editor",
       "Go back to the list; asks first when something is unsaved (kept as a draft either way). q too, outside a "
       "text field.", NAVIGATE),
    _k("editor.add", "ctrl+n,f2", "add", "Add question", "Add question", "Add a question after the selected one.",
       EDIT_SURVEY),
    _k("editor.duplicate", "ctrl+t,f3", "duplicate", "Duplicate", "Duplicate question", "Copy the selected question.",
       EDIT_SURVEY),
    _k("editor.delete", "f8", "delete", "Delete question", "Delete question", "Remove the selected question.",
       EDIT_SURVEY),
    _k("editor.move_up", "ctrl+up,alt+up", "move(-1)", "Move up", "Move question up",
       "Move the selected question one place up.", EDIT_SURVEY),
    _k("editor.move_down", "ctrl+down,alt+down", "move(1)", "Move down", "Move question down",
       "Move the selected question one place down.", EDIT_SURVEY),
    _k("editor.preview", "f5,ctrl+o", "preview", "Preview", "Preview survey",
       "Answer the survey as a user would, with its branching; ctrl+b goes back.", EDIT_SURVEY),
    _k("editor.switch_pane", "f6", "switch_pane", "List/form", "Between list and form",
       "Jump from the question list into the form's first field, or back to the list.", NAVIGATE),
    # A priority key acts as it arrives, before the keys still on their way: from a field that is safe (the text
    # typed before F6 is typed there), from the list it is not (a Down typed before F6 would act after it, in the
    # form), so from the list F6 is the ordinary key above.
    _k("editor.to_list", "f6", "to_list", "List/form", "Back to the list",
       "From any field (a JSON field too) back to the question list at once: the keys typed after F6 go there, "
       "however fast.", NAVIGATE, priority=True),
    _k("editor.choice_add", "f4", "add_choice", "Add choice", "Add choice",
       "Add a choice at the end of the list and put the cursor in it.", EDIT_SURVEY, show=False),
    _k("editor.choice_up", "ctrl+shift+up", "move_choice(-1)", "Choice up", "Move choice up",
       "Move the choice being edited one place up.", EDIT_SURVEY, show=False),
    _k("editor.choice_down", "ctrl+shift+down", "move_choice(1)", "Choice down", "Move choice down",
       "Move the choice being edited one place down.", EDIT_SURVEY, show=False),
    _k("editor.choice_remove", "alt+delete", "remove_choice", "Remove choice", "Remove choice",
       "Remove the choice being edited.", EDIT_SURVEY, show=False),
    # Every table and list (the exports, runs, surveys, alerts, groups, backfills, activity, the editor's questions,
    # the pickers) binds these, beside the arrows; a text field keeps the letters.
    _k("list.down", "j", "cursor_down", "Down", "Row down",
       "Move the cursor down a row in a table or list, as the down arrow does.", NAVIGATE, show=False, shared=True),
    _k("list.up", "k", "cursor_up", "Up", "Row up",
       "Move the cursor up a row in a table or list, as the up arrow does.", NAVIGATE, show=False, shared=True),
    # Every form (the editor, the dialogs, the profile form) binds these: Tab moves on when it is typed, not after
    # the keys typed behind it (a key a field does not take is otherwise handled once it has gone up to the app,
    # and by then the field has taken the keys that followed: `Alpha` Tab `Beta` typed fast gave `AlphaBeta`).
    _k("form.next_field", "tab", "app.focus_next", "Next field", "Next field",
       "Move to the next field (in a JSON field too: it does not indent); the keys typed after Tab go there, "
       "however fast.", NAVIGATE, show=False,
       priority=True, shared=True),
    _k("form.previous_field", "shift+tab", "app.focus_previous", "Previous field", "Previous field",
       "Move to the previous field.", NAVIGATE, show=False, priority=True, shared=True),
    # The settings form's JSON fields: a key a text area would take for itself, kept as in every other field (F6 is
    # the editor's priority key, so it reaches the screen from a JSON field as from any other).
    _k("editor.json_leave", "escape", "screen.leave", "Back", "Leave, from a JSON field",
       "In a JSON field too, Escape leaves the editor, asking first when something is unsaved.", NAVIGATE),
)

_BY_ID: dict[str, KeyEntry] = {entry.id: entry for entry in KEYS}


def entries(*areas: str) -> list[KeyEntry]:
    """The entries of these areas (``monitor``, ``surveys``, ...), in the registry's order."""
    return [entry for entry in KEYS if entry.area in areas]


def bindings(*ids_or_areas: str) -> list[Binding]:
    """The ``BINDINGS`` of a screen or widget: every entry of the named areas, or the named entries."""
    chosen = [entry for entry in KEYS if entry.area in ids_or_areas or entry.id in ids_or_areas]
    return [entry.binding() for entry in chosen]


def entry_for(binding: Binding) -> KeyEntry | None:
    return _BY_ID.get(binding.id) if binding.id else None


def describe(binding: Binding) -> tuple[str, str] | None:
    """A binding's title and sentence for help and the palette; None for Textual's generic keys.

    A binding outside the registry (a dialog's own keys) is described by its footer label when the footer shows it.
    """
    if (entry := entry_for(binding)) is not None:
        return entry.title, entry.sentence
    if binding.show and binding.description:
        return binding.description, binding.description + "."
    return None


def writing_actions(*areas: str) -> frozenset[str]:
    """The actions of these areas that send a change to the server: what read-only mode hides."""
    return frozenset(entry.action for entry in entries(*areas) if entry.writes)


def effective_keys(entry: KeyEntry, keymap: Mapping[str, str]) -> str:
    """The entry's keys after the operator's ``[keymap]``."""
    return keymap.get(entry.id, entry.keys)


# ---------------------------------------------------------------- the README's key tables

_README_KEY_NAMES = {
    "question_mark": "?", "exclamation_mark": "!", "slash": "/", "plus": "+", "minus": "-", "equals_sign": "=",
    "space": "space", "pageup": "PageUp", "pagedown": "PageDown",
}

#: The README's tables: name -> the areas they list, and entries left out as repeats of the monitor's.
README_TABLES: dict[str, tuple[str, ...]] = {
    "monitor": ("monitor", "app", "list"),
    "incident": ("alerts", "groups", "timeline", "backfills"),
    "logs": ("logs",),
    "surveys": ("surveys",),
    "editor": ("editor", "form"),
}
_README_SKIPPED: frozenset[str] = frozenset()


def readme_keys(keys: str) -> str:
    return " ".join(f"`{_README_KEY_NAMES.get(key, key)}`" for key in keys.split(","))


def readme_table(name: str) -> str:
    """One README table, as Markdown; the README holds it between ``<!-- keys:NAME -->`` and ``<!-- /keys -->``."""
    lines = ["| Key | Action | Writes |", "| --- | --- | --- |"]
    for entry in entries(*README_TABLES[name]):
        if entry.id in _README_SKIPPED:
            continue
        writes = "yes" if entry.writes else ""
        lines.append(f"| {readme_keys(entry.keys)} | {entry.title}: {entry.sentence} | {writes} |")
    return "\n".join(lines)


def readme_with_tables(readme: str, names: Iterable[str] = tuple(README_TABLES)) -> str:
    """The README with each generated table replaced by what the registry says now."""
    for name in names:
        start, end = f"<!-- keys:{name} -->\n", "<!-- /keys -->"
        head, found, rest = readme.partition(start)
        if not found:
            raise ValueError(f"README has no {start.strip()} marker")
        _old, found, tail = rest.partition(end)
        if not found:
            raise ValueError(f"README's {start.strip()} table has no end marker")
        readme = f"{head}{start}{readme_table(name)}\n{end}{tail}"
    return readme
