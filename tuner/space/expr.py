"""Safe evaluation of the small expression language used in search-space files.

Expressions are Python syntax restricted to literals, names, arithmetic, comparisons, boolean logic,
conditional expressions and a few named functions, so a search space (possibly written by an LLM)
cannot run arbitrary code. Nor can it spend unbounded time or memory: an expression is at most MAX_CHARS
characters (checked before `ast.parse`, which recurses), MAX_NODES syntax nodes and MAX_DEPTH levels deep (so
evaluating it never nears Python's recursion limit); no integer it makes exceeds MAX_INT_BITS bits, no string or
tuple MAX_LENGTH items, no exponent MAX_EXPONENT; `%` does not format strings. Every constant subexpression is
evaluated under these bounds when the expression is parsed, so `9**9**9` is refused before any point is
evaluated. Each bound is several times what the packaged search spaces use (at most 504 characters, 137 nodes,
13 levels, no power). A broken bound, like any other failure, is an ExpressionError: one line naming the
expression and the bound.
"""

from __future__ import annotations

import ast
import copy
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

MAX_CHARS = 2000
MAX_NODES = 500
MAX_DEPTH = 100
MAX_INT_BITS = 4096
MAX_EXPONENT = MAX_INT_BITS  # a larger exponent of any base but 0 and ±1 passes MAX_INT_BITS
MAX_LENGTH = 10_000


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
_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)
_UNARY = (ast.USub, ast.UAdd, ast.Not)
_ALLOWED = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
            ast.IfExp, ast.And, ast.Or, ast.Tuple, ast.List, *_BINARY, *_COMPARE, *_UNARY)


def _shown(text: str) -> str:
    """The expression as error messages quote it: on one line, a long one cut short."""
    flat = " ".join(text.split())
    return f"'{flat}'" if len(flat) <= 120 else f"'{flat[:100]}…' ({len(text)} characters)"


def _fail(text: str, detail: str) -> ExpressionError:
    return ExpressionError(f"{_shown(text)}: {detail}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bounded(value: Any, text: str) -> Any:
    """`value`, unless it is an integer, string or tuple beyond the language's bounds."""
    kind = type(value)
    if kind is float or kind is bool:
        return value
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _fail(text, f"an integer of {value.bit_length()} bits exceeds the limit of {MAX_INT_BITS} bits")
    if isinstance(value, (str, bytes, tuple)) and len(value) > MAX_LENGTH:
        raise _fail(text, f"a value of {len(value)} items exceeds the limit of {MAX_LENGTH}")
    return value


def _power(base: Any, exponent: Any, text: str) -> Any:
    """`base ** exponent`, refused before it is computed when the result would pass MAX_INT_BITS (at least
    (bits - 1) * exponent + 1 bits; what gets computed has at most twice MAX_INT_BITS)."""
    if _is_int(base) and _is_int(exponent) and exponent > 0 and abs(base) > 1:
        if exponent > MAX_EXPONENT:
            raise _fail(text, f"exponent {exponent} exceeds the limit of {MAX_EXPONENT}")
        if (base.bit_length() - 1) * exponent + 1 > MAX_INT_BITS:
            raise _fail(text, f"{base} ** {exponent} exceeds the limit of {MAX_INT_BITS} bits")
    return base ** exponent


def _product(left: Any, right: Any, text: str) -> Any:
    """`left * right`, refused before it is computed when the result would pass the bounds."""
    if _is_int(left) and _is_int(right) and left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
        raise _fail(text, f"a product of {left.bit_length() + right.bit_length()} bits exceeds the limit of "
                          f"{MAX_INT_BITS} bits")
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (str, bytes, tuple)) and _is_int(count) and len(sequence) * count > MAX_LENGTH:
            raise _fail(text, f"'*' would make {len(sequence) * count} items, over the limit of {MAX_LENGTH}")
    return left * right


def _binary(kind: type[ast.operator], left: Any, right: Any, text: str) -> Any:
    if kind is ast.Pow:
        return _bounded(_power(left, right, text), text)
    if kind is ast.Mult:
        return _bounded(_product(left, right, text), text)
    if kind is ast.Mod and isinstance(left, (str, bytes)):
        raise _fail(text, "'%' on a string (formatting) is not part of the language")
    return _bounded(_BINARY[kind](left, right), text)


def _check_shape(tree: ast.Expression, text: str) -> None:
    """Refuse a tree beyond MAX_NODES nodes or MAX_DEPTH levels, walking it without recursion."""
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise _fail(text, f"more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise _fail(text, f"nested more than {MAX_DEPTH} levels deep")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _fold_constants(node: ast.AST, text: str) -> None:
    """Evaluate every constant subexpression (no names) under the bounds, so that one too big is refused now."""
    if isinstance(node, ast.expr) and not any(isinstance(n, ast.Name) for n in ast.walk(node)):
        _bounded(_run(_Compiled(node, text), {}), text)
        return
    for child in ast.iter_child_nodes(node):
        _fold_constants(child, text)


@lru_cache(maxsize=4096)
def parse(text: str) -> ast.expr:
    """Parse and validate an expression; raise ExpressionError naming what is not allowed or which bound it
    exceeds."""
    if len(text) > MAX_CHARS:
        raise _fail(text, f"longer than the limit of {MAX_CHARS} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise _fail(text, str(exc.msg)) from None
    except (RecursionError, MemoryError):
        raise _fail(text, "too deeply nested to parse") from None
    _check_shape(tree, text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise _fail(text, f"only calls to {', '.join(FUNCTIONS)} are allowed")
        elif not isinstance(node, _ALLOWED):
            raise _fail(text, f"{type(node).__name__} is not allowed in an expression")
        elif isinstance(node, ast.Name) and node.id.startswith("__"):
            raise _fail(text, f"the name '{node.id}' is not part of the language")
    _fold_constants(tree.body, text)
    return tree.body


class _Compiled:
    """A validated expression as Python bytecode, evaluated natively: names, constants, comparisons, boolean logic,
    conditionals and tuples as Python runs them, and every arithmetic operator and function call through a helper
    that applies the language's bounds (and refuses `%` formatting). The helpers' names hold a ':', which no name
    of an expression can, and the code sees no builtins, so it can reach nothing but its names and the helpers."""

    def __init__(self, node: ast.expr, text: str) -> None:
        self.text = text
        self.scope: dict[str, Any] = {"__builtins__": {}}
        tree = ast.Expression(self._lower(copy.deepcopy(node)))
        self.code = compile(ast.fix_missing_locations(tree), "<expression>", "eval")

    def _lower(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self._lower(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self._lower(value))
        if isinstance(node, ast.BinOp):
            return ast.Call(self._helper(f"op:{type(node.op).__name__}", type(node.op)), [node.left, node.right], [])
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            return ast.Call(self._helper(f"call:{node.func.id}", FUNCTIONS[node.func.id]), node.args, [])
        if isinstance(node, ast.List):
            return ast.Tuple(node.elts, ast.Load())
        return node

    def _helper(self, name: str, what: type[ast.operator] | Callable[..., Any]) -> ast.Name:
        if name not in self.scope:
            self.scope[name] = _operator(what, self.text) if isinstance(what, type) else _call(what, self.text)
        return ast.Name(name, ast.Load())


_SMALL = 1 << 62  # operands below this in magnitude: +, -, *, //, % cannot pass the bounds


def _operator(kind: type[ast.operator], text: str) -> Callable[[Any, Any], Any]:
    """The helper of one binary operator: Python's own for two small integers (the common case, by far), else
    `_binary` with the bounds."""
    if kind is ast.Pow or kind is ast.Div:
        return lambda left, right: _binary(kind, left, right, text)
    plain = _BINARY[kind]

    def apply(left: Any, right: Any) -> Any:
        if type(left) is int and type(right) is int and -_SMALL < left < _SMALL and -_SMALL < right < _SMALL:
            return plain(left, right)
        return _binary(kind, left, right, text)

    return apply


def _call(function: Callable[..., Any], text: str) -> Callable[..., Any]:
    def apply(*args: Any) -> Any:
        value = function(*args)
        return value if type(value) is int and -_SMALL < value < _SMALL else _bounded(value, text)

    return apply


@lru_cache(maxsize=4096)
def _compiled(text: str) -> _Compiled:
    return _Compiled(parse(text), text)


def _run(compiled: _Compiled, names: Mapping[str, Any]) -> Any:
    """The compiled expression's value with `names` bound, with Python's own arithmetic, type and value errors and
    an unknown name as ExpressionErrors."""
    try:
        return eval(compiled.code, compiled.scope, names)  # noqa: S307 - validated, lowered, no builtins
    except ExpressionError:
        raise
    except NameError as exc:
        raise _fail(compiled.text, f"unknown name '{exc.name}'") from None
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise _fail(compiled.text, str(exc)) from None


def evaluate(expression: object, names: Mapping[str, Any]) -> Any:
    """Value of `expression` (a string to parse, or a plain literal) with `names` bound."""
    if not isinstance(expression, str):
        return expression
    return _run(_compiled(expression), names)
