"""The compile cache remembers verdicts on sources, never the machine's troubles: a compiler stopped by its time
limit, a full disk, a file cut short or a record that does not parse are built again; the kernel caches are
capped, least recently used first."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tuner.backends import SimBackend
from tuner.data.socs import get_soc
from tuner.errors import ToolchainError
from tuner.processes import Limits
from tuner.search.compile_cache import CompileCache
from tuner.sim import build
from tuner.sim.build import evict_kernels, kernels_dir

from .disks import fill, tmpfs

GOOD = '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void probe(GM_ADDR x)\n{\n}\n'
BROKEN = GOOD.replace("{\n}", "{\n    this is not C++;\n}")


def _cache(tmp_path: Path) -> CompileCache:
    return CompileCache(SimBackend("Ascend910B2"), root=tmp_path)


def test_a_compile_error_is_remembered(tmp_path: Path):
    cache = _cache(tmp_path)
    first = cache.build(BROKEN, "probe")
    again = cache.build(BROKEN, "probe")
    assert first.error is not None and not first.cached
    assert again.error is not None and again.cached and again.error.summary == first.error.summary


def test_a_compiler_stopped_by_its_time_limit_is_not_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    build.runtime_dir(), build.soc_dir(get_soc("Ascend910B2"))  # built before the limit is cut
    cache = _cache(tmp_path)
    source = GOOD.replace("{\n}", "{\n    // slow\n}")
    monkeypatch.setattr(build, "COMPILE_LIMITS", Limits(wall_s=0.01, cpu_s=60, memory_bytes=4 << 30))
    stopped = cache.build(source, "probe")
    assert stopped.error is not None and not stopped.error.cacheable and "ran longer than" in stopped.error.summary
    assert not list(tmp_path.glob("builds/*/compile_error.json"))
    monkeypatch.undo()
    assert cache.build(source, "probe").artifact is not None


def test_a_source_cut_short_is_written_again(tmp_path: Path):
    cache = _cache(tmp_path)
    built = cache.build(GOOD, "probe")
    built.source_path.write_text("")  # what a full disk leaves
    again = cache.build(GOOD, "probe")
    assert again.artifact is not None and again.source_path.read_text() == GOOD


def test_an_unreadable_error_record_is_dropped(tmp_path: Path):
    cache = _cache(tmp_path)
    failed = cache.build(BROKEN, "probe")
    record = failed.source_path.parent / "compile_error.json"
    record.write_text('{"summary": ')
    again = cache.build(BROKEN, "probe")
    assert again.error is not None and not again.cached and record.exists()


@pytest.fixture
def small_disk(tmp_path: Path):
    with tmpfs(tmp_path / "disk", "48m") as mount:
        yield mount


def test_a_full_disk_is_the_machines_error_and_is_not_remembered(small_disk: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TUNER_CACHE_DIR", str(small_disk))
    cache = CompileCache(SimBackend("Ascend910B2"))
    assert cache.build(GOOD, "probe").artifact is not None  # runtime, SoC files and one kernel fit
    filler = fill(small_disk)
    source = GOOD.replace("{\n}", "{\n    // another\n}")
    with pytest.raises(ToolchainError, match="No space left on device.*nothing was cached"):
        cache.build(source, "probe")
    assert not list((small_disk / "builds").glob("*/compile_error.json"))
    filler.unlink()
    assert cache.build(source, "probe").artifact is not None


def _entry(parent: Path, name: str, size: int, age_s: float) -> Path:
    entry = parent / name
    entry.mkdir(parents=True)
    (entry / "app").write_bytes(b"\0" * size)
    then = time.time() - age_s
    os.utime(entry, (then, then))
    return entry


def test_the_kernel_caches_are_capped_least_recently_used_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path))
    oldest = _entry(kernels_dir(False), "a", 4000, 7200)
    untrusted = _entry(kernels_dir(True), "b", 4000, 3600)
    recent = _entry(kernels_dir(False), "c", 4000, 60)  # in use by a run, perhaps
    half_built = _entry(kernels_dir(False), "d.tmp1234", 4000, 9000)
    assert evict_kernels(max_bytes=9000) == [oldest, untrusted]
    assert recent.exists() and half_built.exists()
    assert evict_kernels(max_bytes=0) == []  # what is left is too recent or in progress
