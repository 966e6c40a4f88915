"""Where the tuner keeps what it builds."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """Where builds are cached: $TUNER_CACHE_DIR, else ~/.cache/tuner."""
    root = os.environ.get("TUNER_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "tuner"
