"""The one cleaning door itself (``tui.text.clean``): sequences go whole, an unterminated one takes nothing after it,
bidi controls go, and the length limit's boundary is exact."""

from __future__ import annotations

import pytest

from tui.text.clean import Editable, Shown, clean, editable


@pytest.mark.parametrize(("raw", "shown"), [
    ("a\x1b[31mred\x1b[0m b", "ared b"),  # CSI
    ("a\x1b[2Jb", "ab"),
    ("a\x1b]52;c;aGk=\x07b", "ab"),  # OSC 52 ended by BEL
    ("a\x1b]0;title\x1b\\b", "ab"),  # OSC 0 ended by ST
    ("a\x1bPq#0;2\x1b\\b", "ab"),  # DCS
    ("a\x1b_app\x1b\\b", "ab"),  # APC
    ("a\x9b5mb", "ab"),  # 8-bit CSI
    ("a\x9d0;title\x9cb", "ab"),  # 8-bit OSC ended by 8-bit ST
    ("a\x9d52;c;aGk=\x07b", "ab"),
    ("a\x1bMb\x1bNc", "abc"),  # two-character escapes (reverse index, single shift)
])
def test_escape_sequences_go_whole(raw: str, shown: str) -> None:
    assert clean(raw) == shown
    assert editable(raw).text == shown and editable(raw).cleaned


@pytest.mark.parametrize(("raw", "shown"), [
    ("before\x9d AFTER-TEXT-KEPT", "before AFTER-TEXT-KEPT"),
    ("https://example.com/\x9dTAIL", "https://example.com/TAIL"),
    ("#a\x9d.b-rest", "#a.b-rest"),
    ("title \x1b]0;no end", "title 0;no end"),
    ("x\x1bPno end", "xno end"),
    ("x\x1b_no end either", "xno end either"),
    ("x\x1b]0;cut by\x1b[1m another", "x0;cut by another"),  # interrupted, not terminated: only its introducer
    ("x\x1b]0;ends in a control\x00 after", "x0;ends in a control after"),
])
def test_an_unterminated_sequence_loses_its_introducer_only(raw: str, shown: str) -> None:
    assert editable(raw).text == shown
    assert clean(raw, oneline=False) == shown


def test_bidi_controls_and_other_invisible_controls_go() -> None:
    assert clean("a\u202eb\u202dc\u2066d\u2069e\u200bf\ufeffg") == "a b c d e f g"  # one line: a space each
    assert editable("a\u202eb\u202dc\u2066d\u2069e\u200bf\ufeffg").text == "abcdefg"
    assert clean("a\u05d0\u05d1b") == "a\u05d0\u05d1b"  # right-to-left letters are text


def test_one_line_and_multi_line() -> None:
    assert clean("a\nb\tc\r\nd") == "a b c d"
    assert clean("a\nb\tc\r\nd\re", oneline=False) == "a\nb\tc\nd\ne"
    assert editable("a\nb\tc").text == "a b c" and editable("a\nb\tc", multiline=True).text == "a\nb\tc"


def test_the_length_limit_cuts_exactly_past_it() -> None:
    assert clean("x" * 10, limit=10) == "x" * 10
    cut = clean("x" * 11, limit=10)
    assert cut == "x" * 9 + "…" and len(cut) == 10
    assert clean("x" * 2000) == "x" * 2000 and len(clean("x" * 2001)) == 2000
    assert clean("x" * 5000, limit=None) == "x" * 5000
    assert clean("\x1b[31m" + "x" * 10, limit=10) == "x" * 10  # counted after cleaning
    assert editable("x" * 100_000).text == "x" * 100_000  # an editable value is never cut



def test_nothing_and_other_values_are_text_too() -> None:
    assert clean(None) == "" and clean(42) == "42" and clean(1.5, limit=None) == "1.5"
    assert editable(None) == Editable("", False) and editable(42) == Editable("42", False)


def test_an_editable_field_keeps_its_lines_and_says_when_it_had_to_clean() -> None:
    assert editable("a\r\nb\rc\nd\te", multiline=True) == Editable("a\nb\nc\nd\te", True)
    assert editable("a\nb\tc", multiline=True) == Editable("a\nb\tc", False)
    assert editable("a\r\nb\tc") == Editable("a b c", True), "one line: a newline or a tab becomes one space"
    assert editable("bell\x07 and\x1b[31m red", multiline=True) == Editable("bell and red", True)
    assert editable("plain") == Editable("plain", False)


def test_a_shown_field_saves_the_servers_own_value_until_the_operator_changes_it() -> None:
    one_line = Shown.of("a\tb\x1b[31mc")
    assert (one_line.original, one_line.shown) == ("a\tb\x1b[31mc", "a bc")
    assert one_line.saved("a bc") == "a\tb\x1b[31mc", "untouched: the server's value, not the cleaned one"
    assert one_line.saved("a bcd") == "a bcd"
    lines = Shown.of("a\nb\x07", multiline=True)
    assert (lines.shown, lines.saved("a\nb")) == ("a\nb", "a\nb\x07")
