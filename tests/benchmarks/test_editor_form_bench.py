"""A question selected in the editor's list, until its form is shown: one question of each kind, and the settings.

Target (issue 42, item 6: 0.35-0.8 s): under 150 ms. The baseline, measured in the same run, is one line mounted
in the same pane until it is laid out. Printed as medians (and the first round's time: the editor mounts the settings
form as it opens and keeps it, so no round mounts it) and ratios; the assertions are only gross functional facts
(each form showed its own question).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual import events
from textual.widgets import Input, OptionList, Static

from tui.api.models.surveys import Survey

from .helpers import SIZE, median, report
from .test_choices_bench import EditorOnly

ROUNDS = 5
SURVEY: dict[str, Any] = {
    "id": "0195f000-0000-7000-8000-00000000be0c", "name": "Every kind", "type": "popover",
    "questions": [
        {"id": "q-open", "type": "open", "question": "What brought you here today?", "description": "Be honest",
         "branching": {"type": "specific_question", "index": 3}},
        {"id": "q-link", "type": "link", "question": "Read what is new", "link": "https://example.com/changelog",
         "branching": {"type": "end"}},
        {"id": "q-rating", "type": "rating", "question": "How likely are you to recommend us?", "display": "number",
         "scale": 10, "lowerBoundLabel": "Unlikely", "upperBoundLabel": "Very likely",
         "branching": {"type": "response_based", "responseValues": {"0": 4, "10": "end"}}},
        {"id": "q-single", "type": "single_choice", "question": "Which plan are you on?",
         "choices": ["Free", "Pro", "Enterprise"], "branching": {"type": "response_based", "responseValues": {"0": 1}}},
        {"id": "q-multi", "type": "multiple_choice", "question": "What do you use?",
         "choices": ["Dashboards", "Alerts", "Other"], "hasOpenChoice": True},
    ],
}
ITEMS = ["open", "link", "rating (11 branch rows)", "single choice", "multiple choice", "survey settings"]


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.001)


async def test_a_selected_question_shows_its_form_quickly() -> None:
    survey = Survey.model_validate({**SURVEY, "id": f"{SURVEY['id']}-{time.monotonic_ns()}"})
    shown: dict[int, list[float]] = {index: [] for index in range(len(ITEMS))}
    floor: list[float] = []
    app = EditorOnly(survey)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen: Any = app.screen
        items = screen.query_one("#editor-items", OptionList)
        pane = screen.query_one("#editor-form")
        items.focus()
        await pilot.pause()

        def laid_out(option: int) -> bool:
            """The form of list item ``option`` is mounted and laid out in the pane.

            Asked every millisecond while the app works: it reads the pane's children and the form's first fields,
            not the whole screen (a walk of every widget each time took a share of the time it measured).
            """
            forms = [form for form in pane.children if form.display and form.has_class("editor-form")]
            want = None if option == 0 else survey.questions[option - 1].question
            return (len(forms) == 1 and forms[0].size.height > 0 and
                    (want is None) == (forms[0].id == "survey-settings-form") and
                    (want is None or forms[0].query_one("#q-question", Input).value == want))

        for _ in range(ROUNDS):
            for index in range(len(ITEMS)):
                option = (index + 1) % len(ITEMS)  # the questions (list items 1..5), then the settings (0)
                with screen.prevent(OptionList.OptionHighlighted):
                    items.highlighted = option
                await pilot.pause()
                started = time.perf_counter()
                app.post_message(events.Key("enter", "\r"))  # its form shows at once: no wait for the cursor to rest
                await _until(lambda option=option: laid_out(option))
                shown[index].append(time.perf_counter() - started)
                await pilot.pause()
                # the floor: one line mounted in the same pane, until it is laid out
                started = time.perf_counter()
                line = Static("one line")
                await pane.mount(line)
                await _until(lambda line=line: line.size.height > 0)
                floor.append(time.perf_counter() - started)
                await line.remove()
                await pilot.pause()
    baseline = median(floor)
    rows = [(name, f"{median(shown[i]) * 1000:.0f} ms", f"{shown[i][0] * 1000:.0f} ms", "< 150 ms",
             f"{baseline * 1000:.1f} ms", f"{median(shown[i]) / baseline:.0f}x") for i, name in enumerate(ITEMS)]
    report(f"editor: Enter on a list item until its form is laid out (median of {ROUNDS}; first: round 1)", rows,
           ("item", "shown", "first", "target", "one line mounted there", "ratio"))
