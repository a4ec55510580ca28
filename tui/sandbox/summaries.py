"""Canned but plausible answers for summarize_responses (the real one asks an LLM)."""

from __future__ import annotations

import random
from typing import Any

THEMES = [
    "onboarding speed", "pricing clarity", "the mobile app", "dashboard load times", "export reliability",
    "documentation depth", "support response times", "SSO setup", "billing surprises", "search quality",
]


def summarize(doc: dict[str, Any], index: int | None, responses: int, seed: int) -> dict[str, Any]:
    """A few sentences about one question (or a headline for the whole survey when ``index`` is None)."""
    questions = [q for q in (doc.get("questions") or []) if isinstance(q, dict)]
    rng = random.Random(f"{seed}:{doc.get('name')}:{index}")
    sampled = min(responses, 500)
    if responses == 0:
        content = "No responses to analyze."
    elif index is None:
        a, b = rng.sample(THEMES, 2)
        content = (f"Across {responses} responses to \u201c{doc.get('name')}\u201d, sentiment is mostly positive. "
                   f"Respondents most often mention {a}; a smaller group raises concerns about {b}.")
    else:
        q = questions[index]
        text = str(q.get("question", ""))
        kind = q.get("type")
        if kind in ("single_choice", "multiple_choice") and q.get("choices"):
            top = rng.choice(q["choices"])
            share = rng.randint(35, 70)
            content = (f"For \u201c{text}\u201d, {share}% of {sampled} sampled respondents chose \u201c{top}\u201d. "
                       f"Open-ended answers mention {rng.choice(THEMES)} as the deciding factor.")
        elif kind == "rating":
            avg = round(rng.uniform(0.55, 0.9) * float(q.get("scale") or 5), 1)
            content = (f"Ratings for \u201c{text}\u201d average {avg} out of {q.get('scale') or 5}. "
                       f"Low scores cluster around {rng.choice(THEMES)}; high scores praise {rng.choice(THEMES)}.")
        else:
            a, b, c = rng.sample(THEMES, 3)
            content = (f"The {sampled} sampled answers to \u201c{text}\u201d fall into three themes: {a}, {b} and "
                       f"{c}. Several respondents ask for clearer guidance on {a}.")
    body: dict[str, Any] = {"content": content, "question_index": index, "responses_sampled": sampled,
                            "response_count": responses, "cached": False}
    if index is not None:
        body["question_id"] = questions[index].get("id")
    return body
