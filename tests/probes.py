"""What tests look at from outside a process: its resident memory while a block runs, and the processes still
running an executable. Importable from every test package (pytest puts tests/ on the path)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def peak_growth() -> Iterator[list[int]]:
    """The most this process's resident memory grew above its start while the block ran (sampled)."""
    start, peak, done = _rss(), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _rss() - start)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()
        peak[0] = max(peak[0], _rss() - start)


def running(exe: Path | str, *, under: bool = False) -> list[int]:
    """Live processes (not zombies) running the executable `exe`, or with `under`, any executable below it."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            target = os.readlink(proc / "exe")
        except OSError:  # gone, a zombie, or not ours
            continue
        if proc.name.isdigit() and (target.startswith(str(exe)) if under else target == str(exe)):
            found.append(int(proc.name))
    return found
