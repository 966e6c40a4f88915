"""Broken disks for tests: a small tmpfs (full, or read-only) and a database with a damaged page."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted on `path` for the block; the test is skipped where mounting is not permitted."""
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip() or proc.returncode}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def remount(path: Path, mode: str) -> None:
    """Make the tmpfs at `path` read-only ("ro") or writable again ("rw")."""
    subprocess.run(["mount", "-o", f"remount,{mode}", str(path)], check=True)


def fill(directory: Path) -> Path:
    """Write a file in `directory` until its disk is full; returns it (delete it to free the space)."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError:
        pass
    try:  # the last bytes a tmpfs has are smaller than a chunk
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    os.close(fd)
    return filler


def checkpoint(db: Path) -> None:
    """Move what the write-ahead log holds into the database file itself."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def damage(db: Path, table: str = "trials") -> str:
    """Overwrite the cells of the first page of `table` with garbage; returns the file's digest afterwards."""
    checkpoint(db)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    with open(db, "r+b") as handle:
        handle.seek((root - 1) * page_size + 8)
        handle.write(bytes(range(256)) * ((page_size - 16) // 256))
    return digest(db)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
