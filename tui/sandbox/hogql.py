"""A batch export's query as the real service stores it: printed back in one form, with the schema it derives.

The real service parses ``hogql_query`` and prints it again before storing (``schema.hogql_query``): keywords in
upper case, one space between words, ``, `` between items, arithmetic as calls (``1 + 1`` as ``plus(1, 1)``).
``schema.fields`` holds one entry per selected item, its ``alias`` (the ``AS`` name, else the expression itself)
and the expression as it runs (``toInt`` as ``accurateCastOrNull``), string constants replaced by
placeholders whose values are in ``schema.values``. This is a tokenizer with a small, bounded printer for
arithmetic, not a parser: enough for the queries the sandbox accepts (one ``SELECT ... FROM events``), checked
before by ``validation``; a run of tokens it cannot read is kept as typed.
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
    return _arithmetic([t.upper() if t.lower() in KEYWORDS else t for t in _TOKEN.findall(query)])


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
    ``SELECT a AS b FROM events``; ``toInt(1 + 1)`` -> ``toInt(plus(1, 1))``)."""
    return _join(_tokens(query))


# The real printer writes arithmetic as function calls (HogQL's ArithmeticOperationOp printed by name).
ARITHMETIC = {"+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "modulo"}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}
MAX_ARITHMETIC_DEPTH = 64
"""Nesting the arithmetic printer follows (parentheses and calls inside one another); deeper text is kept as typed."""


class _NotArithmetic(Exception):
    """A run of tokens the small printer does not read: it is kept as it was typed."""


def _closing(tokens: list[str], start: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``start``."""
    depth = 0
    for index in range(start, len(tokens)):
        if tokens[index] == "(":
            depth += 1
        elif tokens[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    raise _NotArithmetic


_SEPARATORS = frozenset({",", "=", "==", "!=", "<>", "<", ">", "<=", ">=", "||", *(k.upper() for k in KEYWORDS)})


def _is_separator(token: str) -> bool:
    """Tokens arithmetic never spans: commas, keywords, comparisons."""
    return token.upper() in _SEPARATORS


def _arithmetic(tokens: list[str], depth: int = 0) -> list[str]:
    """The tokens with every ``a + b`` (and ``- * / %``) printed as ``plus(a, b)``, by precedence, left to right;
    a run the printer cannot read is kept as typed."""
    if depth > MAX_ARITHMETIC_DEPTH:
        return tokens
    out: list[str] = []
    run: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "(":
            try:
                end = _closing(tokens, index)
            except _NotArithmetic:  # unbalanced: the rest as typed
                return out + _run(run) + tokens[index:]
            run += ["(", *_arithmetic(tokens[index + 1:end], depth + 1), ")"]
            index = end + 1
            continue
        if _is_separator(token):
            out += _run(run)
            out.append(token)
            run = []
        else:
            run.append(token)
        index += 1
    return out + _run(run)


def _run(tokens: list[str]) -> list[str]:
    """One run between separators, printed with its arithmetic as calls where it has any."""
    if not any(t in ARITHMETIC for t in tokens) or _nesting(tokens) > MAX_ARITHMETIC_DEPTH:
        return tokens
    try:
        position, expression = _sum(tokens, 0, 1)
    except (_NotArithmetic, IndexError):
        return tokens
    return expression if position == len(tokens) else tokens


def _nesting(tokens: list[str]) -> int:
    deepest = depth = 0
    for token in tokens:
        depth += 1 if token == "(" else -1 if token == ")" else 0
        deepest = max(deepest, depth)
    return deepest


def _sum(tokens: list[str], position: int, level: int) -> tuple[int, list[str]]:
    """Operators of ``level`` and above from ``position`` (precedence climbing): (next position, printed tokens)."""
    position, left = _operand(tokens, position)
    while position < len(tokens) and tokens[position] in ARITHMETIC and _PRECEDENCE[tokens[position]] >= level:
        operator = tokens[position]
        position, right = _sum(tokens, position + 1, _PRECEDENCE[operator] + 1)
        left = [ARITHMETIC[operator], "(", *left, ",", *right, ")"]
    return position, left


def _operand(tokens: list[str], position: int) -> tuple[int, list[str]]:
    """A constant, a name (``events.properties``), a call with its arguments, or a bracketed expression."""
    token = tokens[position]
    if token == "-" and position + 1 < len(tokens) and re.fullmatch(r"\d+(?:\.\d+)?", tokens[position + 1]):
        return position + 2, ["-" + tokens[position + 1]]
    if token == "(":
        end = _closing(tokens, position)
        inner = tokens[position + 1:end]
        inner_end, expression = _sum(inner, 0, 1)
        if inner_end != len(inner):
            raise _NotArithmetic
        return end + 1, expression
    if token in ARITHMETIC or token in (")", ","):
        raise _NotArithmetic
    out = [token]
    position += 1
    while position + 1 < len(tokens) and tokens[position] == "." and _WORD.fullmatch(tokens[position + 1]):
        out += [".", tokens[position + 1]]
        position += 2
    if position < len(tokens) and tokens[position] == "(" and _is_name(token):
        end = _closing(tokens, position)
        out += tokens[position:end + 1]
        position = end + 1
    return position, out


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


# HogQL's typed conversions run as ClickHouse's accurateCastOrNull with the type as a constant.
CASTS = {"toInt": "Int64", "toFloat": "Float64"}


def _casts(tokens: list[str]) -> list[str]:
    """``toInt(x)`` as it runs: ``accurateCastOrNull(x, 'Int64')``."""
    out: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in CASTS and index + 1 < len(tokens) and tokens[index + 1] == "(":
            try:
                end = _closing(tokens, index + 1)
            except _NotArithmetic:
                return out + tokens[index:]
            out += ["accurateCastOrNull", "(", *_casts(tokens[index + 2:end]), ",", f"'{CASTS[token]}'", ")"]
            index = end + 1
            continue
        out.append(token)
        index += 1
    return out


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
            fields.append({"expression": _expression(_casts(expr), values), "alias": alias})
        else:
            expression = _expression(_casts(item), values)
            fields.append({"expression": expression, "alias": expression})
    return {"fields": fields, "values": values, "hogql_query": _join(tokens)}


def schema(query: str) -> dict[str, Any]:
    """``schema`` of an export with this query: ``{"fields": [{"expression", "alias"}], "values", "hogql_query"}``."""
    return copy.deepcopy(_schema(query))
