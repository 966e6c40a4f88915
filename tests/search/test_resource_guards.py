"""What a run or a simulation would hold in memory, refused before anything is built when the machine cannot."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, simulation_bytes
from tuner.errors import UsageError
from tuner.ops import get_operator
from tuner.processes import MemoryLimitError, available_memory, check_memory
from tuner.search.config import run_memory_bytes
from tuner.search.loop import RunConfig, make_optimizer
from tuner.sim.args import check_simulation_memory, parse_arg

GIB = 2**30


def test_the_estimate_counts_input_sets_references_and_each_candidate_running_at_once():
    softmax = get_operator("softmax")
    n = 2048 * 4096
    # fp16: 3 sets x (2-byte input + 8 bytes of reference and tolerance); per candidate 2 x GM (4 bytes) +
    # 2 (inputs written) + 6 (outputs read back) + 8 (the check) bytes an element; making a set costs 40.
    assert run_memory_bytes(softmax, (2048, 4096), "float16", jobs=1) == 3 * 10 * n + max(40 * n, 24 * n)
    assert run_memory_bytes(softmax, (2048, 4096), "float16", jobs=4) == 3 * 10 * n + 4 * 24 * n
    assert run_memory_bytes(softmax, (2048, 4096), "float16", jobs=1, sets=1) == 10 * n + 40 * n
    # an operator's own shapes count: swiglu halves the last axis, rmsnorm's gamma is one row
    swiglu = run_memory_bytes(get_operator("swiglu"), (2048, 4096), "float16", jobs=2)
    assert swiglu < run_memory_bytes(softmax, (2048, 4096), "float16", jobs=2)


def test_the_estimate_of_the_red_teams_shape_is_far_beyond_8_gib():
    assert run_memory_bytes(get_operator("softmax"), (40000, 40000), "float16", jobs=2) > 100 * GIB


def _meminfo(tmp_path: Path, available_kib: int) -> Path:
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   {available_kib} kB\n")
    return path


def test_available_memory_is_memavailable_or_the_cgroup_room_when_lower(tmp_path: Path):
    meminfo = _meminfo(tmp_path, 8 * 2**20)  # 8 GiB
    v2 = tmp_path / "cg2"
    (v2 / "job").mkdir(parents=True)
    (v2 / "job" / "memory.max").write_text(f"{3 * GIB}\n")
    (v2 / "job" / "memory.current").write_text(f"{1 * GIB}\n")
    own = tmp_path / "cgroup"
    own.write_text("0::/job\n")
    assert available_memory(meminfo, own, v2) == (2 * GIB, "cgroup memory limit")
    (v2 / "job" / "memory.max").write_text("max\n")
    assert available_memory(meminfo, own, v2) == (8 * GIB, "MemAvailable")
    v1 = tmp_path / "cg1"
    (v1 / "memory" / "outer" / "inner").mkdir(parents=True)
    (v1 / "memory" / "outer" / "memory.limit_in_bytes").write_text(f"{4 * GIB}\n")  # an ancestor's limit binds
    (v1 / "memory" / "outer" / "memory.usage_in_bytes").write_text(f"{3 * GIB}\n")
    (v1 / "memory" / "outer" / "inner" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    (v1 / "memory" / "outer" / "inner" / "memory.usage_in_bytes").write_text(f"{GIB}\n")
    own.write_text("4:memory:/outer/inner\n1:cpu:/\n")
    assert available_memory(meminfo, own, v1) == (1 * GIB, "cgroup memory limit")
    assert available_memory(tmp_path / "none", tmp_path / "none", tmp_path / "none") is None


def test_check_memory_names_the_need_and_what_is_available():
    room = available_memory()
    assert room is not None
    check_memory(1024, "a tiny thing")
    with pytest.raises(MemoryLimitError, match=r"^a huge thing needs about [\d.]+ GiB of memory; this machine has "
                                               r"[\d.]+ GiB available \((MemAvailable|cgroup memory limit)\)$"):
        check_memory(room[0] + GIB, "a huge thing")


def test_an_optimize_that_cannot_fit_is_refused_before_any_file_or_input_set_is_made(tmp_path: Path):
    room = available_memory()
    assert room is not None
    shape = (46340, 46340)  # the largest square the 32-bit tiling fields address
    if run_memory_bytes(get_operator("softmax"), shape, "float32", 2) <= room[0]:
        pytest.skip(f"this machine has {room[0] / GIB:.0f} GiB available: the largest shape fits")
    config = RunConfig(op="softmax", shape=shape, dtype="float32", runs_dir=tmp_path / "runs")
    with pytest.raises(MemoryLimitError, match="softmax 46340x46340 float32 .* needs about .* available"):
        make_optimizer(config)
    assert not (tmp_path / "runs").exists()


def test_simulation_bytes_count_gm_scratch_files_and_the_copies_read_back():
    x = GmIn(np.zeros(1000, np.float16))
    out = GmOut(np.dtype(np.float32), (10, 100))
    assert simulation_bytes([x, out]) == 2 * 2000 + 4 * 4000
    huge = GmOut(np.dtype(np.float16), (99999999999999,))
    assert huge.nbytes == 2 * 99999999999999  # exact, where a product in int64 would wrap around
    with pytest.raises(MemoryLimitError, match="largest GM buffer: out"):
        check_simulation_memory([x, huge])


def test_out_paths_are_checked_when_parsed(tmp_path: Path):
    assert parse_arg(f"out={tmp_path / 'z.npy'}:float16:8x8").nbytes == 128
    with pytest.raises(UsageError, match="directory /nonexistent/dir does not exist"):
        parse_arg("out=/nonexistent/dir/z.npy:float16:8")
    with pytest.raises(UsageError, match="is a directory"):
        parse_arg(f"out={tmp_path}:float16:8")


@pytest.mark.parametrize(("content", "why"), [
    (b"", "is empty \\(0 bytes\\), not a .npy file"),
    (b"x = [1, 2, 3]\n", "is not a .npy file"),
    (None, "is not a readable .npy array"),  # the header of 4096 elements, and 10 bytes of them
])
def test_an_input_that_is_not_a_whole_npy_file_is_one_line(tmp_path: Path, content: bytes | None, why: str):
    path = tmp_path / "in.npy"
    if content is None:
        np.save(path, np.ones(4096, np.float16))
        content = path.read_bytes()[:138]
    path.write_bytes(content)
    with pytest.raises(UsageError, match=f"--arg in={path}: {path} {why}") as info:
        parse_arg(f"in={path}")
    assert "\n" not in str(info.value)


def test_a_valid_npy_input_is_loaded_whole(tmp_path: Path):
    array = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.save(tmp_path / "a.npy", array)
    arg = parse_arg(f"in={tmp_path / 'a.npy'}")
    assert isinstance(arg, GmIn) and not isinstance(arg.array, np.memmap) and arg.array.flags.c_contiguous
    np.testing.assert_array_equal(arg.array, array)
    assert math.prod(arg.array.shape) == 24
