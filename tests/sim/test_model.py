"""The first-cut timing model ranks kernels the way the hardware's structure says it must.

Ratios within one run of the model, not absolute times: the model is analytic (simulated, SoC model).
"""

from __future__ import annotations

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.sim.run import SimResult, simulate
from tuner.sim.validate import KERNELS

STREAM = KERNELS / "stream.cpp"


def run(total: int, tile: int, work: int, blocks: int = 1, buffers: int = 2, soc: str = "Ascend910B1") -> SimResult:
    x = np.random.default_rng(total).standard_normal(total).astype(np.float32)
    args = [GmIn(x), GmOut(np.dtype(np.float32), (total,)), Scalar("u32", total), Scalar("u32", tile),
            Scalar("u32", work)]
    result = simulate(STREAM, "stream", blocks, args, soc=soc, defines=[f"BUFFER_NUM={buffers}"])
    assert result.ok, [f.text for f in result.faults]
    return result


def pipe_time(result: SimResult, pipe: str) -> float:
    return max(b[f"aiv_{pipe}_time_us"] for b in result.report["blocks"])


def block_time(result: SimResult) -> float:
    """The slowest block, without the launch's head cost."""
    return max(b["aiv_time_us"] for b in result.report["blocks"])


def test_more_bytes_take_more_time() -> None:
    assert run(64 * 1024, 2048, 1).task_duration_us > run(16 * 1024, 2048, 1).task_duration_us


def test_double_buffering_overlaps_balanced_pipes() -> None:
    balanced = 0
    for work in range(0, 12):  # find the Exp count that balances copy-in against compute
        r = run(32 * 1024, 4096, work)
        if pipe_time(r, "vec") >= pipe_time(r, "mte2"):
            balanced = work
            break
    single = block_time(run(64 * 1024, 4096, balanced, buffers=1))
    double = block_time(run(64 * 1024, 4096, balanced, buffers=2))
    assert double < 0.75 * single


def test_double_buffering_gains_little_when_one_pipe_dominates() -> None:
    single = block_time(run(64 * 1024, 4096, 40, buffers=1))
    double = block_time(run(64 * 1024, 4096, 40, buffers=2))
    assert double <= single
    assert double > 0.85 * single


def test_small_copies_are_overhead_bound() -> None:
    """Same bytes in 256-byte tiles cost far more than in 16 KiB tiles (per-copy startup, per-call issue)."""
    small = run(32 * 1024, 64, 0).task_duration_us
    large = run(32 * 1024, 4096, 0).task_duration_us
    assert small > 4 * large


def test_more_blocks_help_until_gm_bandwidth_saturates() -> None:
    total = 48 * 64 * 1024
    t = {blocks: run(total, 8192, 0, blocks=blocks).task_duration_us for blocks in (1, 8, 48)}
    assert t[8] < t[1] / 4
    assert t[48] <= t[8]
    read_bytes = total * 4  # the writes land in L2 (write-back, 192 MiB), the reads come from HBM
    assert t[48] >= read_bytes / 1600e3  # never faster than the chip's HBM bandwidth (1.6 TB/s, in bytes/us)


@pytest.mark.parametrize("soc", ["Ascend910B4", "Ascend950PR_9589"])
def test_every_number_names_its_soc_model(soc: str) -> None:
    r = run(16 * 1024, 2048, 1, soc=soc)
    assert r.time_source == f"simulated, {soc} model"
    assert r.report["time_source"] == f"simulated, {soc} model"
