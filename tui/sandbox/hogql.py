"""A batch export's query as the real service stores it: printed back in one form, with the schema it derives.

The real service parses ``hogql_query`` and prints it again before storing (``schema.hogql_query``): keywords in
upper case, one space between words, ``, `` between items. ``schema.fields`` holds one entry per selected item,
its ``alias`` (the ``AS`` name, else the expression itself) and the expression as it runs, string constants
replaced by placeholders whose values are in ``schema.values``. This is a tokenizer, not a parser: enough for
the queries the sandbox accepts (one ``SELECT ... FROM events``), checked before by ``validation``.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

KEYWORDS = frozenset({
    "select", "from", "as", "where", "and", "or", "not", "in", "like", "ilike", "is", "null", "between", "case",
    "when", "then", "else", "end", "distinct", "limit", "offset", "order", "by", "group", "having", "asc", "desc",
    "on", "join", "union", "all", "with",
})
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|[A-Za-z_$][A-Za-z0-9_$]*|\d+(?:\.\d+)?"
                    r"|!=|<=|>=|==|<>|\|\||\S")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _tokens(query: str) -> list[str]:
    return [t.upper() if t.lower() in KEYWORDS else t for t in _TOKEN.findall(query)]


def _is_name(token: str) -> bool:
    return bool(_WORD.fullmatch(token)) and token.lower() not in KEYWORDS


def _join(tokens: list[str]) -> str:
    out = ""
    prev: str | None = None
    for tok in tokens:
        if prev is None or tok in (",", ")", ".") or prev in ("(", "."):
            sep = ""
        elif tok == "(" and _is_name(prev):
            sep = ""  # a function call
        else:
            sep = " "
        out += sep + tok
        prev = tok
    return out


def normalise(query: str) -> str:
    """The query printed back as the real service stores it (``select a as b from events`` ->
    ``SELECT a AS b FROM events``)."""
    return _join(_tokens(query))


def _select_items(tokens: list[str]) -> list[list[str]]:
    """The top-level items between SELECT and FROM, each a list of tokens."""
    items: list[list[str]] = [[]]
    depth = 0
    for tok in tokens[1:] if tokens and tokens[0] == "SELECT" else tokens:
        if depth == 0 and tok == "FROM":
            break
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        if depth == 0 and tok == ",":
            items.append([])
        else:
            items[-1].append(tok)
    return [item for item in items if item]


def _expression(tokens: list[str], values: dict[str, Any]) -> str:
    """The item as it runs: fields of ``events`` qualified, string constants as placeholders."""
    out: list[str] = []
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        prev = tokens[i - 1] if i else ""
        if tok.startswith("'"):
            name = f"hogql_val_{len(values)}"
            values[name] = tok[1:-1]
            out.append(f"%({name})s")
        elif _is_name(tok) and nxt != "(" and prev != ".":
            out.append(f"events.{tok}")
        else:
            out.append(tok)
    return _join(out)


@functools.lru_cache(maxsize=512)
def _schema(query: str) -> dict[str, Any]:
    tokens = _tokens(query)
    values: dict[str, Any] = {}
    fields = []
    for item in _select_items(tokens):
        if len(item) >= 3 and item[-2] == "AS":
            expr, alias = item[:-2], item[-1].strip("`\"")
            fields.append({"expression": _expression(expr, values), "alias": alias})
        else:
            expression = _expression(item, values)
            fields.append({"expression": expression, "alias": expression})
    return {"fields": fields, "values": values, "hogql_query": _join(tokens)}


def schema(query: str) -> dict[str, Any]:
    """``schema`` of an export with this query: ``{"fields": [{"expression", "alias"}], "values", "hogql_query"}``."""
    return copy.deepcopy(_schema(query))
