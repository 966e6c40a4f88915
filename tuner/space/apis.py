"""API availability on a run's SoC, read from `tuner/data/api_support.yaml` (the table the simulator's headers are
generated from), as names a search space's expressions see.

For every API of the table, `has_<api in snake case>` (`has_data_copy_pad`, `has_exp`, `has_whole_reduce_sum`)
says whether it takes the run's element type on the SoC's architecture family; `has_fp32_cast` whether Cast
converts the run's element type to float and back (always, for float); for every API of the table's `reserved_ub`
lists, `reserved_ub_<api in snake case>` (`reserved_ub_brcb`) whether it uses Ascend C's reserved UB on the family,
so that a kernel calling it keeps to `ub_api_bytes`. A constraint written against these names
follows the table rather than a SoC's name, and its reason cites the table's source for each name it uses.
"""

from __future__ import annotations

import ast
import re
from functools import cache

from tuner.data.api_support import api_support, reserved_ub_apis
from tuner.space.expr import parse

__all__ = ["ELEMENT_TYPES", "availability", "cited", "names"]

TABLE = "tuner/data/api_support.yaml"
ELEMENT_TYPES = {"float16": "half", "bfloat16": "bfloat16_t", "float32": "float"}
FP32_CAST = "has_fp32_cast"
RESERVED_UB = "reserved_ub_"


def _name(api: str, prefix: str = "has_") -> str:
    return prefix + re.sub(r"(?<!^)(?=[A-Z])", "_", api).lower()


@cache
def _reserving() -> dict[str, str]:
    """Every API some family's `reserved_ub` list names -> the sources of the lists that name it."""
    found: dict[str, list[str]] = {}
    for family, entry in api_support()["reserved_ub"].items():
        for api in entry["apis"]:
            found.setdefault(api, []).append(f"{family}: {entry['source']}")
    return {api: "; ".join(sources) for api, sources in found.items()}


@cache
def _sources() -> dict[str, str]:
    """Availability name -> the source the table gives for it."""
    table = api_support()
    return {**{_name(api): str(entry["source"]) for api, entry in table["apis"].items()},
            FP32_CAST: str(table["cast"]["source"]),
            **{_name(api, RESERVED_UB): source for api, source in _reserving().items()}}


def names() -> frozenset[str]:
    """Every availability name (a rewrite must not declare a knob of one: it would hide the context's value)."""
    return frozenset(_sources())


def availability(family: str, dtype: str) -> dict[str, bool]:
    """The availability and reserved-UB names for a SoC's architecture family (`vector_costs` in socs.yaml: a2,
    310p, 950) and a run's dtype (float16, bfloat16, float32)."""
    table, element = api_support(), ELEMENT_TYPES[dtype]
    names = {_name(api): element in (entry.get(family) or ()) for api, entry in table["apis"].items()}
    casts = table["cast"].get(family) or {}
    names[FP32_CAST] = element == "float" or (f"float<-{element}" in casts and f"{element}<-float" in casts)
    reserving = reserved_ub_apis(family)
    names |= {_name(api, RESERVED_UB): api in reserving for api in _reserving()}
    return names


def cited(expression: str, why: str) -> str:
    """`why`, followed by the table's source for every availability name `expression` uses."""
    sources = _sources()
    used = dict.fromkeys(node.id for node in ast.walk(parse(expression))
                         if isinstance(node, ast.Name) and node.id in sources)
    return "".join([why, *(f" ({TABLE}, {name}: {sources[name]})" for name in used)])
