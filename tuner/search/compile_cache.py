"""Builds keyed by rendered source, kernel, backend version and SoC; file-locked, failures remembered.

The backend keeps its own artifact cache; this layer gives every rendered source one stable path (so the
backend's key is the content), lets only one process compile a given source at a time, and stores compile
errors so a broken source is never compiled twice. Only verdicts on the source are remembered: a compiler
stopped by its time limit, or one that failed for want of disk or memory (a ToolchainError), is not; every file
is written whole or not at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from tuner.backends.base import Artifact, Backend
from tuner.errors import CompileError
from tuner.filelock import file_lock
from tuner.paths import cache_root
from tuner.sim.build import machine_error


@dataclass(frozen=True)
class Build:
    """A build's result: the artifact, or the compile error; with its time and whether it came from cache."""

    source_hash: str
    source_path: Path
    artifact: Artifact | None
    error: CompileError | None
    seconds: float
    cached: bool


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except (OSError, UnicodeDecodeError):
        return False


def _write_atomic(path: Path, text: str) -> None:
    """Write a cache file whole or not at all (a temporary sibling renamed into place); a machine that cannot
    (a full disk) is a ToolchainError, one line."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise machine_error(exc, path.parent) from None
    finally:
        tmp.unlink(missing_ok=True)


def _saved_failure(path: Path) -> CompileError | None:
    """The compile error remembered at `path`; an unreadable record is dropped (the source is built again)."""
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
        return CompileError(str(saved["summary"]), str(saved["diagnostics"]))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        path.unlink(missing_ok=True)
        return None


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


class CompileCache:
    """Compiles rendered sources through a backend, at most once per (source, kernel, backend version, SoC)."""

    def __init__(self, backend: Backend, root: Path | None = None) -> None:
        self.backend = backend
        self.root = (root or cache_root()) / "builds"

    def build(self, source: str, kernel: str) -> Build:
        digest = source_hash(source)
        key = hashlib.sha256("\0".join((source, kernel, self.backend.name, self.backend.version,
                                        self.backend.soc)).encode()).hexdigest()[:20]
        directory = self.root / key
        source_path = directory / "kernel.cpp"
        failure = directory / "compile_error.json"
        start = time.perf_counter()
        with file_lock(self.root / f"{key}.lock"):
            saved = _saved_failure(failure)
            if saved is not None:
                return Build(digest, source_path, None, saved, time.perf_counter() - start, True)
            if not _holds(source_path, source):  # absent, or cut short by a full disk
                _write_atomic(source_path, source)
            try:
                artifact = self.backend.build(source_path, kernel)
            except CompileError as exc:
                if exc.cacheable:
                    _write_atomic(failure, json.dumps({"summary": exc.summary, "diagnostics": exc.diagnostics}))
                return Build(digest, source_path, None, exc, time.perf_counter() - start, False)
        return Build(digest, source_path, artifact, None, time.perf_counter() - start, artifact.cached)
