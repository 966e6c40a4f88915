"""The API support table (`api_support.yaml`): which Ascend C APIs take which element types on each architecture
family. The simulator's headers and the search spaces' availability names are both made from it."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml

__all__ = ["api_support", "reserved_ub_apis"]


@cache
def api_support() -> dict[str, Any]:
    """The table as read from tuner/data/api_support.yaml."""
    return yaml.safe_load(resources.files("tuner.data").joinpath("api_support.yaml").read_text())


def reserved_ub_apis(family: str) -> frozenset[str]:
    """The APIs that use Ascend C's reserved UB on an architecture family (a2, 310p, 950): a kernel that calls
    one keeps its own buffers below the SoC's `ub_scratch_offset`."""
    entry = api_support()["reserved_ub"].get(family)
    return frozenset(entry["apis"]) if entry else frozenset()
