"""Physics the timing model must obey, as tests that fail when it stops obeying it.

Each test runs real kernels (`tuner/sim/validation_kernels/`) through `simulate()` and compares modelled
times within one SoC model: more bytes take longer, double buffering overlaps balanced pipes and only those,
blocks scale until the chip's GM bandwidth is spent, small copies are startup-bound, and fp16 Exp costs what
msKPP measured relative to fp32. Absolute agreement with measurements is `python -m tuner.sim.validate`'s job.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.data.socs import get_soc
from tuner.sim import validate
from tuner.sim.run import SimResult, simulate
from tuner.sim.validate import KERNELS, repeat_cycles, run_copies

KB = 1024
SOC = "Ascend910B1"


def ok(result: SimResult) -> SimResult:
    assert result.ok, [f.text for f in result.faults]
    return result


def slowest(result: SimResult, field: str = "aiv_time_us") -> float:
    """The largest per-block value of a report field (the block time by default, without the head cost)."""
    return max(b[field] for b in result.report["blocks"])


def stream(tile: int, work: int, buffers: int, tiles: int = 16) -> SimResult:
    """Float tiles GM -> UB -> (1 + work) Exp -> GM on one block, through queues of `buffers` buffers."""
    total = tile * tiles
    x = np.zeros(total, np.float32)
    args = [GmIn(x), GmOut(np.dtype(np.float32), (total,)), Scalar("u32", total), Scalar("u32", tile),
            Scalar("u32", work)]
    return ok(simulate(KERNELS / "stream.cpp", "stream", 1, args, soc=SOC, defines=[f"BUFFER_NUM={buffers}"]))


@pytest.mark.parametrize("direction", ["gm_to_ub", "ub_to_gm"])
def test_more_bytes_take_more_time(direction: str) -> None:
    times = [ok(run_copies(direction, kb * KB, soc=SOC)).task_duration_us for kb in (4, 32, 128)]
    assert times[0] < times[1] < times[2], times


def test_double_buffering_overlaps_balanced_copy_and_compute() -> None:
    """With copy-in and compute about equal per tile, two buffers let MTE2 run under V: clearly faster."""
    tile = 4096  # 16 KB of float per copy

    def compute_covers_copy_in(work: int) -> bool:
        r = stream(tile, work, 1)
        return slowest(r, "aiv_vec_time_us") >= slowest(r, "aiv_mte2_time_us")

    work = next(w for w in range(32) if compute_covers_copy_in(w))  # the fewest Exp passes that balance MTE2
    single, double = slowest(stream(tile, work, 1)), slowest(stream(tile, work, 2))
    assert single >= 1.3 * double, (work, single, double)


def test_double_buffering_gains_nothing_when_compute_dominates() -> None:
    """Many Exp passes on small tiles: V is busy >10x longer than MTE2, so hiding the copies gains < 5%."""
    tile, work = 1024, 400  # 4 KB copies, 401 Exp calls per tile
    single, double = stream(tile, work, 1), stream(tile, work, 2)
    assert slowest(single, "aiv_vec_time_us") > 10 * slowest(single, "aiv_mte2_time_us")
    assert 1.0 <= slowest(single) / slowest(double) < 1.05, (slowest(single), slowest(double))


def test_more_blocks_saturate_at_gm_bandwidth() -> None:
    """Elementwise half add over ~66 MB of GM traffic: linear in blocks while each block's own copy rate is the
    limit, flat once the blocks together reach the chip's GM bandwidth, and never past it. The kernel keeps its
    tensors out of L2 (SetL2CacheHint), so every byte moves through HBM."""
    tile = 8192  # 16 KB copies
    total = 48 * tile * 28  # 28 tiles per block at 48 blocks; divides evenly at 1, 8, 24 and 48
    x = np.zeros(total, np.float16)
    traffic = 3 * total * x.itemsize
    runs = {}
    for blocks in (1, 8, 24, 48):
        args = [GmIn(x), GmIn(x), GmOut(np.dtype(np.float16), (total,)), Scalar("u32", total), Scalar("u32", tile)]
        runs[blocks] = ok(simulate(KERNELS / "add.cpp", "add", blocks, args, soc=SOC))
    t = {blocks: r.task_duration_us for blocks, r in runs.items()}
    assert t[1] / t[8] >= 0.8 * 8, t  # roughly proportional
    assert t[24] / t[48] < 1.3, t  # much less than the 2x more blocks
    # Task Duration minus the head cost (msprof: Task Duration - aiv_time) leaves the slowest block's time.
    head = t[48] - slowest(runs[48])
    achieved_gbps = traffic / ((t[48] - head) * 1e3)
    gm_gbps = get_soc(SOC).gm_bandwidth_gbps.value
    assert 0.5 * gm_gbps < achieved_gbps <= gm_gbps * (1 + 1e-3), (achieved_gbps, gm_gbps)  # 1e-3: report rounding


def test_small_copies_are_overhead_bound_and_overlap_their_start_ups() -> None:
    """A 1 KB DataCopy on its own is mostly start-up (< 20% of the plateau rate); a 64 KB one streams (> 70%); 16
    back-to-back 1 KB copies overlap their start-ups (asc-devkit's data_copy README: 128-byte copies stream at one
    per 20 cycles), so they move several times the lone copy's rate.

    Rates are end to end, minus an empty launch, so issue and start-up both count; the plateau is the rate of
    16 copies of 128 KB, the largest one UB holds.
    """
    empty = ok(run_copies("gm_to_ub", KB, copies=0, soc=SOC)).task_duration_us

    def gbps(nbytes: int, copies: int) -> float:
        return copies * nbytes / ((ok(run_copies("gm_to_ub", nbytes, copies=copies, soc=SOC)).task_duration_us
                                   - empty) * 1e3)

    plateau = gbps(128 * KB, 16)
    alone = gbps(KB, 1)
    assert alone < 0.2 * plateau, (alone, plateau)
    assert gbps(KB, 16) > 3 * alone, (gbps(KB, 16), alone)
    assert gbps(64 * KB, 16) > 0.7 * plateau, (gbps(64 * KB, 16), plateau)


def test_fp16_exp_costs_twice_fp32_per_byte() -> None:
    """fp16 Exp costs twice fp32 Exp per byte, the same per element.

    The issue text says "twice per element"; the data says per byte: msKPP measured ~66 B/cycle for fp16 Exp
    against ~128 B/cycle for fp32 (ascend_hw.md §2.3), i.e. 4 cycles per 128-element fp16 repeat and 2 per
    64-element fp32 repeat. Both readings are tested as the data states them.
    """
    half, single = repeat_cycles("Exp", "half", SOC), repeat_cycles("Exp", "float", SOC)  # per 256-byte repeat
    assert half / single == pytest.approx(2.0, rel=0.1)
    assert (half / 128) / (single / 64) == pytest.approx(1.0, rel=0.1)


def test_validation_table_is_within_its_band_and_the_docs_show_the_current_model() -> None:
    """The generated table (docs/model_validation.md, up to the best-practice section benchmarks/model_cases.py
    writes) passes, and is what the current model gives (bar the simulator-version hash, which also covers the host
    compiler)."""
    soc = "Ascend910B1"
    copies = {direction: validate.copy_points(direction, soc) for direction in ("gm_to_ub", "ub_to_gm")}
    instructions = validate.instruction_points(soc)
    assert not validate.outside_band(copies, instructions)
    command = f"python -m tuner.sim.validate docs/model_validation.md --soc {soc}"
    fresh = validate.report_markdown(soc, copies, instructions, command)
    committed = (Path(__file__).resolve().parents[2] / "docs" / "model_validation.md").read_text()
    committed = committed.split(validate.CASES_BEGIN)[0].rstrip("\n")  # the best-practice section is another's
    version = re.compile(r"simulator version `[0-9a-f]+`")
    assert version.sub("", committed) == version.sub("", fresh.rstrip("\n")), f"regenerate it: {command}"
