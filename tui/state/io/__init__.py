"""What the state touches outside the process: the server, files, programs and the shared store.

Modules directly under :mod:`tui.state` decide (verdicts, boards, plans, alerts, the survey draft) and touch
nothing outside: what they send goes through a callable they are given. The modules here do the touching:

- :mod:`tui.state.io.export_source`: one poll of the watched exports, and the first poll sent while the app loads.
- :mod:`tui.state.io.poller`: the polling loop: back-off, ``Retry-After``, freshness.
- :mod:`tui.state.io.record_reads`, :mod:`tui.state.io.board_records`: reads of the runs list a verdict needs.
- :mod:`tui.state.io.project_names`: reads of project names for labels.
- :mod:`tui.state.io.shared`: what a dashboard shares with the other viewers of its key through the shared store.
- :mod:`tui.state.io.journal`: the action journal's file.
- :mod:`tui.state.io.draft_files`: unsaved survey edits as files.
- :mod:`tui.state.io.alert_hooks`: the alert hook, a program run per alert change.
- :mod:`tui.state.io.export_actions`: the operator's writes to an export (pause, backfill, retry, edit, delete,
  cancel a run), each journaled and reported.
"""
