"""Safe evaluation of the small expression language used in search-space files.

Expressions are Python syntax restricted to literals, names, arithmetic, comparisons, boolean logic,
conditional expressions and a few named functions, so a search space (possibly written by an LLM)
cannot run arbitrary code.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any


class ExpressionError(ValueError):
    """Raised when an expression is malformed, uses something outside the language, or fails to evaluate."""


def ceil_div(a: int, b: int) -> int:
    """Smallest integer >= a / b."""
    return -(-a // b)


def align_up(a: int, b: int) -> int:
    """a rounded up to a multiple of b."""
    return ceil_div(a, b) * b


def align_down(a: int, b: int) -> int:
    """a rounded down to a multiple of b."""
    return (a // b) * b


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "abs": abs, "ceil_div": ceil_div, "align_up": align_up, "align_down": align_down,
}

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}


@lru_cache(maxsize=4096)
def parse(text: str) -> ast.expr:
    """Parse and validate an expression; raise ExpressionError naming what is not allowed."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"'{text}': {exc.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise ExpressionError(f"'{text}': only calls to {', '.join(FUNCTIONS)} are allowed")
        elif not isinstance(node, (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp,
                                   ast.BoolOp, ast.Compare, ast.IfExp, ast.And, ast.Or, ast.Tuple, ast.List,
                                   *_BINARY, *_COMPARE, *_UNARY)):
            raise ExpressionError(f"'{text}': {type(node).__name__} is not allowed in an expression")
    return tree.body


def _eval(node: ast.expr, names: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise ExpressionError(f"'{text}': unknown name '{node.id}'")
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, names, text), _eval(node.right, names, text))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, names, text))
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        value: Any = is_and
        for operand in node.values:
            value = _eval(operand, names, text)
            if bool(value) != is_and:
                return value
        return value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names, text)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, names, text)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, names, text) else node.orelse, names, text)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, names, text) for e in node.elts)
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    return FUNCTIONS[node.func.id](*(_eval(a, names, text) for a in node.args))


def evaluate(expression: object, names: Mapping[str, Any]) -> Any:
    """Value of `expression` (a string to parse, or a plain literal) with `names` bound."""
    if not isinstance(expression, str):
        return expression
    try:
        return _eval(parse(expression), names, expression)
    except ExpressionError:
        raise
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise ExpressionError(f"'{expression}': {exc}") from None
