"""An exclusive lock on a file for the length of a block: how processes and threads share a build cache."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tuner.errors import ToolchainError


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `path` (created if missing) while the block runs; a lock that cannot be
    created (a full disk, a read-only cache) is a ToolchainError, one line."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a")  # noqa: SIM115 (closed below, after the block)
    except OSError as exc:
        raise ToolchainError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
