"""Operators the tuner knows, by name: every `Operator` subclass defined in a module of this package, so that
adding an operator is adding files (its module, templates and search space), never editing a list."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from tuner.errors import UsageError
from tuner.ops.base import Operator


@cache
def _operators() -> dict[str, Operator]:
    found: dict[str, Operator] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name == "base":
            continue
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        for value in vars(loaded).values():
            if isinstance(value, type) and issubclass(value, Operator) and value is not Operator and \
                    value.__module__ == loaded.__name__:
                op = value()
                found[op.name] = op
    return dict(sorted(found.items()))


def get_operator(name: str) -> Operator:
    """The operator called `name`; UsageError listing the known ones otherwise."""
    try:
        return _operators()[name.strip().lower()]
    except KeyError:
        raise UsageError(f"unknown operator '{name}' (known: {', '.join(_operators())})") from None


def operator_names() -> list[str]:
    return list(_operators())


def operators() -> dict[str, Operator]:
    """Every operator, by name."""
    return dict(_operators())
