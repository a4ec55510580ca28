"""Server text is never formatted into a string a widget shows except through the one cleaning door.

Two dialogs once put an export's name and interval into an f-string handed to ``Text``; an export name
carrying OSC 52 then wrote the operator's clipboard on every repaint. This reads the source of every
screen and widget: an f-string that formats a field the server sends (``.name``, ``.interval``,
``.latest_error``, ...) must be inside ``clean``/``plain``/``editable`` (or a helper that calls one),
else it is listed here with the reason it is not server text. The every-key sweep
(``test_hostile_sweep.py``) checks the rendered result; this check names the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted((ROOT / "tui" / "screens").rglob("*.py")), *sorted((ROOT / "tui" / "widgets").rglob("*.py")),
           *sorted((ROOT / "tui" / "look").rglob("*.py")), ROOT / "tui" / "app.py"]
SERVER_FIELDS = {"name", "interval", "message", "description", "question", "latest_error", "error", "detail",
                 "link", "title", "creator", "signature", "summary", "destination", "sample_error", "export_name",
                 "kind", "level", "label", "reason", "key", "id"}
CLEANING_CALLS = {"clean", "plain", "editable", "_notify"}
"""The door (``tui.text.clean``, ``tui.look.render``) and helpers that put their argument through it
(``SurveyBrowserScreen._notify``)."""
NOT_SERVER_TEXT = {
    "surveys.py: SORT_BY_KEY[self.sort_key].label": "a sort's label is the dashboard's own",
    "surveys.py: survey.id": "a problem message for the file editor, shown through plain() by the caller",
    "monitor_status.py: facts.interval": "a float of seconds",
    "monitor.py: view.label": "a view's label is the dashboard's own",
    "monitor_incident.py: view.label": "a view's label is the dashboard's own",
    "survey_preview.py: self.reason": "the preview's own words for the last branching step",
    "timeline.py: zoom.label": "a zoom's label is the dashboard's own",
    "welcome.py: values.name": "the profile name the operator typed",
    "logs.py: self.level": "one of the dashboard's level filters",
    "cleaned_note.py: q.key": "the editor's own key for a question",
    "choices.py: self.key": "the editor's own key for a question",
    "question_form.py: self.key": "the editor's own key for a question",
    "question_form.py: q.kind": "shown through plain() on the next line",
    "alerts.py: alert.kind": "one of the alert model's own kinds",
    "help.py: shown.binding.key": "a key binding is the dashboard's own",
    "help.py: binding.key": "a key binding is the dashboard's own",
    "footer.py: self.label": "a key binding's key as Textual draws it: the dashboard's own",
    "footer.py: self.description": "a key binding's description is the dashboard's own",
    "base.py: worker.name": "a worker's name is the dashboard's own (the bug report cleans what it shows)",
    "repair.py: group.signature": "the dialog's title, shown through plain()",
}


def _unclean_fstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def cleaned(node: ast.AST) -> bool:
        while node in parents:
            node = parents[node]
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name in CLEANING_CALLS:
                    return True
        return False

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr) or cleaned(node):
            continue
        for value in node.values:
            if not isinstance(value, ast.FormattedValue):
                continue
            for expr in _formatted_fields(value.value):
                where = f"{path.name}: {ast.unparse(expr)}"
                if where not in NOT_SERVER_TEXT:
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(expr)}")
    return found


def _formatted_fields(expr: ast.expr) -> list[ast.Attribute]:
    """The server fields an f-string value shows: ``x.name``, also inside ``x.interval or 'unknown'``.

    A call's result is not followed (``len(x.name)`` shows a number, ``clean(x.name)`` is clean).
    """
    if isinstance(expr, ast.Attribute):
        return [expr] if expr.attr in SERVER_FIELDS else []
    if isinstance(expr, ast.BoolOp):
        return [field for value in expr.values for field in _formatted_fields(value)]
    if isinstance(expr, ast.IfExp):
        return _formatted_fields(expr.body) + _formatted_fields(expr.orelse)
    return []


def test_server_fields_reach_a_widget_only_through_the_cleaning_door() -> None:
    found = [line for path in SOURCES for line in _unclean_fstrings(path)]
    assert found == [], "server text formatted outside clean()/plain(): " + "; ".join(found)


def test_the_check_sees_an_unclean_name(tmp_path: Path) -> None:
    """The check itself can fail: the line the repair preview had is found, its cleaned form is not."""
    probe = tmp_path / "probe.py"
    probe.write_text('preview.append(f"First ({first.export.name}), last")\n'
                     'preview.append(f"First ({clean(first.export.name)}), last")\n'
                     'summary.update(Text(f"This creates ({self.export.interval or \'unknown\'})."))\n',
                     encoding="utf-8")
    assert _unclean_fstrings(probe) == ["probe.py:1: first.export.name", "probe.py:3: self.export.interval"]
