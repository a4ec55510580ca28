"""A word-by-word difference of two texts: what a reader needs to see when a question is reworded."""

from __future__ import annotations

import difflib
import re
from typing import Literal

Op = Literal["=", "-", "+"]
MAX_WORDS = 2000  # beyond this the texts are compared as they are cut: a diff is for reading, not an audit


def _words(text: str) -> list[str]:
    """Words and the runs of space between them, so joining the pieces gives the text back."""
    return re.findall(r"\S+|\s+", text)[:MAX_WORDS]


def word_diff(before: str, after: str) -> list[tuple[Op, str]]:
    """``(op, text)`` pieces: ``=`` kept, ``-`` only before, ``+`` only after; adjacent pieces of one op merged."""
    old, new = _words(before), _words(after)
    pieces: list[tuple[Op, str]] = []

    def add(op: Op, words: list[str]) -> None:
        if not words:
            return
        text = "".join(words)
        if pieces and pieces[-1][0] == op:
            pieces[-1] = (op, pieces[-1][1] + text)
        else:
            pieces.append((op, text))

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            add("=", old[i1:i2])
        else:
            add("-", old[i1:i2])
            add("+", new[j1:j2])
    return pieces
