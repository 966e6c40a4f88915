"""Time that cannot be faked: a kernel's own scalar code is charged to its scalar pipe (issue 13, item 5).

The kernels in tests/sim/kernels/scalar/ do work outside the Ascend C API: loops over UB and GM through raw
pointers, GetValue/SetValue loops, a softmax that calls no API at all. The simulator counts what their code
executes (basic blocks, loads and stores of UB and GM, GM through a model of the scalar data cache) and charges
it at the cost table's rates (tuner/data/costs/overheads.yaml); these tests hold it to that, to determinism,
and to Huawei's measured scalar Add. Times are simulated, Ascend910B2 model.
"""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from tuner.backends import SimBackend
from tuner.backends.args import GmIn, GmOut, Scalar, pack_tiling
from tuner.backends.base import Profile
from tuner.data.costs import load_overheads
from tuner.data.socs import get_soc
from tuner.errors import CompileError
from tuner.ops import get_operator
from tuner.ops.base import Expected
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import SUSPECT_SPEEDUP, Evaluator, RunInputs, kernel_args
from tuner.sim.build import INCLUDE_DIR, KERNEL_FLAGS, compiler, soc_dir
from tuner.sim.run import SimResult, simulate
from tuner.space.spaces import load_space, run_context

KERNELS = Path(__file__).resolve().parent / "kernels" / "scalar"
EXEMPT = "__attribute__((no_sanitize_coverage, no_sanitize_address))"  # TUNER_SIM_UNCHARGED, spelt out
SOC = "Ascend910B2"
COSTS = load_overheads(get_soc(SOC).vector_costs)
MHZ = get_soc(SOC).clock_mhz.value

# Huawei's Add study, case 0 (asc-devkit examples/01_simd_cpp_api/05_best_practices/00_vector_compute/
# add_high_performance/README.md): 8192 x 8192 half added by GetValue/SetValue loops on one AIV of an
# Atlas A2 training part, Task Duration 1239689.1 µs measured.
HUAWEI_SCALAR_ADD_US = 1239689.1
HUAWEI_SCALAR_ADD_ELEMENTS = 8192 * 8192


def ok(result: SimResult) -> SimResult:
    assert result.ok, [f.text for f in result.faults]
    assert result.time_source == f"simulated, {SOC} model"
    return result


def scalar_add(tiles: int, access: int, tile: int = 4096) -> tuple[SimResult, int]:
    """The scalar Add over `tiles` tiles on one block; access 0: GetValue/SetValue, 1: raw UB pointers."""
    total = tiles * tile
    rng = np.random.default_rng(tiles)
    x, y = (rng.standard_normal(total).astype(np.float16) for _ in range(2))
    args = [GmIn(x), GmIn(y), GmOut(np.dtype(np.float16), (total,)), Scalar("u32", total), Scalar("u32", tile)]
    result = ok(simulate(KERNELS / "scalar_add.cpp", "scalar_add", 1, args, soc=SOC, defines=[f"ACCESS={access}"]))
    want = (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(result.outputs[0], want)
    return result, total


LOOP_TILE = 16384  # floats: 64 KB of GM, twice the scalar data cache
READ_UB, READ_GM, READ_GM_STRIDED, WRITE_UB, WRITE_GM = range(5)  # MODE of scalar_loop.cpp


def scalar_loop(iters: int, mode: int) -> SimResult:
    """y = x + 1 by the API after `iters` iterations of a scalar loop that reads or writes UB or GM (`mode`)."""
    x = np.random.default_rng(7).standard_normal(LOOP_TILE).astype(np.float32)
    args = [GmIn(x), GmOut(np.dtype(np.float32), (LOOP_TILE,)), GmOut(np.dtype(np.float32), (LOOP_TILE,)),
            Scalar("u32", LOOP_TILE), Scalar("u32", iters)]
    result = ok(simulate(KERNELS / "scalar_loop.cpp", "scalar_loop", 1, args, soc=SOC, defines=[f"MODE={mode}"]))
    np.testing.assert_array_equal(result.outputs[0], x + np.float32(1))
    scratch = result.outputs[1]
    if mode in (WRITE_UB, WRITE_GM):
        written = min(iters, LOOP_TILE)
        np.testing.assert_array_equal(scratch[:written], np.arange(written, dtype=np.float32))
    else:
        stride = 16 if mode == READ_GM_STRIDED else 1
        picked = x[(np.arange(iters, dtype=np.int64) * stride) % LOOP_TILE]
        np.testing.assert_allclose(scratch[0], picked.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
    return result


def cycles(result: SimResult) -> float:
    return result.task_duration_us * MHZ


def test_a_scalar_loop_costs_in_proportion_to_its_trip_count() -> None:
    """Each further 4000 iterations of a UB loop add the same time; the loop's first iterations partly hide
    under the tile's copy-in (the scalar unit runs while MTE2 copies), so the steps are taken after it."""
    t = [cycles(scalar_loop(n, READ_UB)) for n in (0, 4000, 8000, 12000)]
    assert t[0] < t[1] < t[2] < t[3]
    step = t[2] - t[1]
    assert t[3] - t[2] == pytest.approx(step, abs=1.0)  # the report rounds to 0.1 ns
    per_iteration = step / 4000
    # at least one basic block and one UB read each, and only a few blocks of loop control (to the report's
    # rounding)
    assert 0.999 * (COSTS["scalar_block_cycles"] + COSTS["get_value_cycles"]) <= per_iteration
    assert per_iteration <= 4 * COSTS["scalar_block_cycles"] + COSTS["get_value_cycles"]


def loop_cost(mode: int, n: int = 8000) -> float:
    """Cycles that the loop's iterations n/2 .. n add (the fixed part of the kernel cancels)."""
    return cycles(scalar_loop(n, mode)) - cycles(scalar_loop(n // 2, mode))


def test_raw_gm_loads_go_through_the_data_cache() -> None:
    """The same loop reading GM instead of UB costs one data-cache hit per read (a hit costs what a UB read
    does) plus a line brought in from GM every 64 bytes: per 16 sequential floats, or per read at a stride of
    64 bytes over 64 KB, twice the cache, so that LRU keeps none of them."""
    n = 8000
    ub, gm, strided = (loop_cost(mode, n) for mode in (READ_UB, READ_GM, READ_GM_STRIDED))
    assert COSTS["dcache_hit_cycles"] == COSTS["get_value_cycles"]
    fill = COSTS["dcache_miss_cycles"]
    assert gm - ub == pytest.approx(n // 2 * fill / 16, rel=1e-3)
    assert strided - ub == pytest.approx(n // 2 * fill, rel=1e-3)


def test_raw_stores_are_charged() -> None:
    """A loop storing through a UB pointer costs what the one loading does (set_value_cycles = get_value_cycles);
    through a __gm__ pointer, a line is also brought into the data cache every 16 floats."""
    n = 8000
    assert COSTS["set_value_cycles"] == COSTS["get_value_cycles"] == COSTS["dcache_hit_cycles"]
    ub_store = loop_cost(WRITE_UB, n)
    assert ub_store == pytest.approx(loop_cost(READ_UB, n), rel=0.15)  # the loops' own control differs a little
    assert loop_cost(WRITE_GM, n) - ub_store == pytest.approx(n // 2 * COSTS["dcache_miss_cycles"] / 16, rel=1e-3)


def scalar_softmax(rows: int, cols: int, blocks: int) -> SimResult:
    op = get_operator("softmax")
    x = op.make_inputs((rows, cols), "float16", 0)["x"]
    args = [GmIn(x.numpy()), GmOut(np.dtype(np.float16), (rows, cols)), Scalar("u32", rows), Scalar("u32", cols)]
    result = ok(simulate(KERNELS / "scalar_softmax.cpp", "scalar_softmax", blocks, args, soc=SOC))
    expected = {name: Expected.of(ref, "float16") for name, ref in op.reference({"x": x}).items()}
    check = op.check({"y": torch.from_numpy(result.outputs[0])}, {"x": x}, expected)
    assert check.ok, check.detail
    return result


def test_the_same_kernel_gets_the_same_time_however_loaded_the_host() -> None:
    """Counts, not host time: two launches side by side (each block a thread, on a busy machine) and one alone
    give the same report, block by block."""
    results: list[SimResult] = []
    threads = [threading.Thread(target=lambda: results.append(scalar_softmax(50, 777, blocks=24)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.append(scalar_softmax(50, 777, blocks=24))
    reports = [(r.task_duration_us, r.report["blocks"]) for r in results]
    assert reports[0] == reports[1] == reports[2]


def test_scalar_add_matches_huaweis_measurement_per_element() -> None:
    """The scalar Add of Huawei's study, on 16 tiles of 4096 instead of 16384: per element within 20% of the
    measured 1239689.1 µs / 8192² (the costs were calibrated to it), through GetValue/SetValue and through raw
    UB pointers alike (the same scalar loads and stores on the NPU)."""
    measured = HUAWEI_SCALAR_ADD_US / HUAWEI_SCALAR_ADD_ELEMENTS
    per_element = {}
    for access in (0, 1):
        result, total = scalar_add(16, access)
        per_element[access] = result.task_duration_us / total
        assert per_element[access] == pytest.approx(measured, rel=0.20)
    assert per_element[0] == pytest.approx(per_element[1], rel=1e-9)


def api_softmax_baseline(shape: tuple[int, int]) -> float:
    """The packaged softmax's baseline (the expert configuration `tuner optimize softmax` starts from), µs."""
    op = get_operator("softmax")
    space = load_space("softmax")
    backend = SimBackend(SOC)
    context = run_context(op, shape, "float16", get_soc(SOC))
    baseline, params = space.baseline(context)
    evaluator = Evaluator(space, space.variant(baseline.variant), backend, CompileCache(backend),
                          RunInputs(op, shape, "float16"), context)
    outcome = evaluator.evaluate(params)
    assert outcome.ok, outcome.detail
    assert "suspect" not in outcome.attrs
    return outcome.value


@pytest.mark.parametrize("shape", [(77, 1000), (256, 1024)])
def test_a_scalar_softmax_is_far_slower_than_the_api_softmax(shape: tuple[int, int]) -> None:
    scalar = scalar_softmax(*shape, blocks=min(shape[0], get_soc(SOC).vector_cores.value)).task_duration_us
    assert scalar > 10 * api_softmax_baseline(shape)


def _instrumented_lines(source: Path, kernel: str, tmp_path: Path) -> dict[str, int]:
    """Instrumentation calls in `source` built as `build_kernel` builds it (with the entry that registers it),
    counted by the file their code comes from."""
    entry = tmp_path / "entry.cpp"
    entry.write_text(f'#include "{source}"\n#include "tuner_sim/entry.h"\nTUNER_SIM_ENTRY({kernel})\n')
    obj = tmp_path / "entry.o"
    subprocess.run([compiler(), *KERNEL_FLAGS, "-g", "-I", str(INCLUDE_DIR), "-I", str(soc_dir(get_soc(SOC))),
                    "-c", str(entry), "-o", str(obj)], check=True, capture_output=True)
    listing = subprocess.run(["objdump", "-dlr", "--no-show-raw-insn", str(obj)], check=True, capture_output=True,
                             text=True).stdout
    counts: dict[str, int] = {}
    where = ""
    for line in listing.splitlines():
        if m := re.match(r"^(/\S+):\d+", line):
            where = m[1]
        elif re.search(r"R_X86_64_PLT32\s+(__sanitizer_cov_trace_pc|__asan_(load|store)\w+)", line):
            counts[where] = counts.get(where, 0) + 1
    return counts


@pytest.mark.parametrize(("source", "kernel"), [
    (KERNELS / "scalar_loop.cpp", "scalar_loop"),
    (Path(__file__).resolve().parent / "kernels" / "samples" / "softmax_custom.cpp", "softmax_custom"),
    (Path(__file__).resolve().parent / "kernels" / "idioms" / "softmax_rows.cpp", "softmax_rows"),
])
def test_the_simulators_own_code_is_not_charged(source: Path, kernel: str, tmp_path: Path) -> None:
    """What an API call costs is the model's: no basic block or access of the simulator's headers is counted
    as the kernel's code. fp16.h is the exception by design: half and bfloat16_t are the kernel's own values,
    so reading one out of UB or GM is the kernel's access."""
    counts = _instrumented_lines(source, kernel, tmp_path)
    assert counts.get(str(source), 0) > 0
    headers = {f: n for f, n in counts.items() if f.startswith(str(INCLUDE_DIR)) and not f.endswith("/fp16.h")}
    assert headers == {}


def test_a_kernel_cannot_mark_its_own_code_as_the_simulators(tmp_path: Path) -> None:
    source = tmp_path / "exempt.cpp"
    text = (KERNELS / "scalar_softmax.cpp").read_text()
    source.write_text(text.replace("__aicore__ inline float ScalarExp", "TUNER_SIM_UNCHARGED inline float ScalarExp"))
    with pytest.raises(CompileError, match="TUNER_SIM_UNCHARGED"):
        simulate(source, "scalar_softmax", 1, [], soc=SOC)


@pytest.mark.parametrize(("op_name", "shape"), [("softmax", (256, 1024)), ("rmsnorm", (77, 1000))])
def test_api_only_kernels_change_by_their_own_scalar_code_only(op_name: str, shape: tuple[int, int],
                                                                  tmp_path: Path) -> None:
    """A packaged template's baseline against the same source with every function of its own exempt from the
    instrumentation (what TUNER_SIM_UNCHARGED does for the simulator's headers): charging its code costs at least
    the tiling struct's read from GM, one data-cache line brought in before the first API call, and little more,
    since the rest of its scalar code runs while the copies do."""
    op = get_operator(op_name)
    space = load_space(op_name)
    backend = SimBackend(SOC)
    context = run_context(op, shape, "float16", get_soc(SOC))
    baseline, params = space.baseline(context)
    variant = space.variant(baseline.variant)
    inputs = RunInputs(op, shape, "float16", sets=1)
    source = Evaluator(space, variant, backend, CompileCache(backend), inputs, context).render(params)
    point = variant.evaluate(params, context)
    args = kernel_args(space, inputs.arrays[0], inputs.output_shapes, "float16", pack_tiling(point.tiling))
    uncharged = source.replace("__aicore__", f"__aicore__ {EXEMPT}")
    times = {}
    for name, text in (("charged", source), ("uncharged", uncharged)):
        path = tmp_path / f"{name}.cpp"
        path.write_text(text)
        profile = backend.profile(backend.build(path, space.kernel), args, point.block_dim)
        assert profile.run.ok and profile.source == f"simulated, {SOC} model"
        times[name] = profile.time_us
    extra = times["charged"] - times["uncharged"]
    assert COSTS["dcache_miss_cycles"] / MHZ <= extra <= 0.03 * times["uncharged"]


class _TooFast(SimBackend):
    """A backend whose times are 1000 times better than the model's (what a cheat would make them), counting
    its launches."""

    def __init__(self) -> None:
        super().__init__(SOC)
        self.launches = 0

    def run(self, artifact, args, block_dim):
        self.launches += 1
        return super().run(artifact, args, block_dim)

    def profile(self, artifact, args, block_dim, trace=None, gate_us=None) -> Profile:
        self.launches += 1
        profile = super().profile(artifact, args, block_dim, trace)
        profile.time_us /= 1000
        return profile


def _evaluate_baseline(backend: SimBackend, shape: tuple[int, int], **kwargs):
    op = get_operator("softmax")
    space = load_space("softmax")
    context = run_context(op, shape, "float16", get_soc(SOC))
    baseline, params = space.baseline(context)
    evaluator = Evaluator(space, space.variant(baseline.variant), backend, CompileCache(backend),
                          RunInputs(op, shape, "float16"), context)
    return evaluator, evaluator.evaluate(params, **kwargs)


def test_a_candidate_faster_than_the_roofline_is_verified_again_and_flagged() -> None:
    backend = _TooFast()
    evaluator, outcome = _evaluate_baseline(backend, (64, 1024), best_us=0.0)
    assert outcome.ok
    assert outcome.value < evaluator.roofline_us
    assert outcome.attrs["suspect"].startswith("faster than the roofline: ")
    assert f"simulated, {SOC} model" in outcome.attrs["suspect"]
    # timed once, then every input set run again, the timed one too; without the suspicion a candidate slower
    # than the best so far (best_us 0) would get none
    assert backend.launches == 1 + 3 and outcome.attrs["verified_sets"] == 3


def test_a_candidate_far_faster_than_the_baseline_is_flagged() -> None:
    backend = SimBackend(SOC)
    shape = (64, 1024)
    _, honest = _evaluate_baseline(backend, shape)
    assert "suspect" not in honest.attrs
    _, flagged = _evaluate_baseline(backend, shape, baseline_us=honest.value * SUSPECT_SPEEDUP * 1.01)
    assert flagged.ok
    assert flagged.attrs["suspect"].startswith(f"more than {SUSPECT_SPEEDUP:g}x faster than the baseline: ")
    assert flagged.attrs["verified_sets"] == 3
    _, close = _evaluate_baseline(backend, shape, baseline_us=honest.value * SUSPECT_SPEEDUP * 0.99)
    assert "suspect" not in close.attrs


def memcpy_copy(total: int, copy: int) -> SimResult:
    x = np.random.default_rng(3).standard_normal(total).astype(np.float32)
    args = [GmIn(x), GmOut(np.dtype(np.float32), (total,)), Scalar("u32", total), Scalar("u32", 4096)]
    result = ok(simulate(KERNELS / "memcpy_copy.cpp", "memcpy_copy", 1, args, soc=SOC, defines=[f"COPY={copy}"]))
    np.testing.assert_array_equal(result.outputs[0], x)
    return result


def test_a_bulk_memcpy_between_gm_and_ub_is_scalar_work_not_free():
    # memcpy of a variable length stays a call that GCC's instrumentation does not see; build.py points it at
    # the runtime's charged wrapper, so copying by memcpy costs the scalar unit at least what the same words
    # read and written by a loop would cost, far more than DataCopy
    by_api = memcpy_copy(4 * 4096, 0).task_duration_us
    small, large = memcpy_copy(4 * 4096, 1).task_duration_us, memcpy_copy(8 * 4096, 1).task_duration_us
    accesses = 4 * (4 * 4096 * 4 // 8)  # 8 bytes at a time: read from GM, written to UB, read again, written back
    floor_us = accesses * min(COSTS["get_value_cycles"], COSTS["set_value_cycles"], COSTS["dcache_hit_cycles"]) / MHZ
    assert small > floor_us and small > 5 * by_api
    assert large == pytest.approx(2 * small, rel=0.1)
