"""The API support table (`api_support.yaml`): which Ascend C APIs take which element types on each architecture
family. The simulator's headers and the search spaces' availability names are both made from it."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml

__all__ = ["api_support"]


@cache
def api_support() -> dict[str, Any]:
    """The table as read from tuner/data/api_support.yaml."""
    return yaml.safe_load(resources.files("tuner.data").joinpath("api_support.yaml").read_text())
