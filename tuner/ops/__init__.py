"""Operators the tuner knows, by name."""

from __future__ import annotations

from tuner.errors import UsageError
from tuner.ops.base import Operator
from tuner.ops.softmax import Softmax

OPERATORS: dict[str, Operator] = {op.name: op for op in (Softmax(),)}


def get_operator(name: str) -> Operator:
    """The operator called `name`; UsageError listing the known ones otherwise."""
    try:
        return OPERATORS[name.strip().lower()]
    except KeyError:
        raise UsageError(f"unknown operator '{name}' (known: {', '.join(sorted(OPERATORS))})") from None


def operator_names() -> list[str]:
    return sorted(OPERATORS)
