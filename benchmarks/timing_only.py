"""`tuner simulate --timing-only` at the field's shapes, and its time checked against the full run.

    python benchmarks/timing_only.py [--rows 4096]

1. Equality: kernels whose control flow and addresses do not depend on the data (an elementwise unary, a half
   add, a row softmax) run in full and timing-only on the same shapes; the modelled task time and every block's
   pipe times must be identical.
2. Scale: a 4096x393216 float32 elementwise kernel (6.4 GB in, 6.4 GB out), its input given by shape alone,
   timed in <= 120 host seconds with the simulator's peak resident memory <= 16 GB.
Times printed as "simulated" are the model's (Ascend910B2 model); host seconds are this machine's wall time.
Exits 1 when a time differs or a target is missed.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from tuner.backends.args import GmIn, GmOut, GmShape, KernelArg, Scalar
from tuner.sim.run import SimResult, simulate

KERNELS = Path(__file__).resolve().parent / "kernels"
SOC = "Ascend910B2"
BLOCKS = 48
COLS = 393216
TARGET_S = 120.0
TARGET_GB = 16.0


def _run(name: str, kernel: str, args: list[KernelArg], timing_only: bool) -> SimResult:
    result = simulate(KERNELS / f"{name}.cpp", kernel, BLOCKS, args, soc=SOC, timeout_s=900, timing_only=timing_only)
    if not result.ok:
        raise SystemExit(f"{kernel}: {[f.text for f in result.faults]}")
    return result


def _pipes(result: SimResult) -> list[tuple]:
    keys = ("aiv_time_us", "aiv_vec_ratio", "aiv_scalar_ratio", "aiv_mte2_ratio", "aiv_mte3_ratio")
    return [tuple(b[k] for k in keys) for b in result.report["blocks"]]


def _shaped(args: list[KernelArg]) -> list[KernelArg]:
    return [GmShape(a.array.dtype, a.array.shape, a.name) if isinstance(a, GmIn) else a for a in args]


def scale_args(rows: int) -> list[KernelArg]:
    """The scale case's arguments: its input by shape alone, tiles of 8192 floats, y = relu(x) * 0.5."""
    n = rows * COLS
    return [GmShape(np.dtype(np.float32), (rows, COLS), "x"), GmOut(np.dtype(np.float32), (n,), "y"),
            Scalar("u64", n), Scalar("u32", 8192), Scalar("f32", 0.5)]


def equality_cases() -> list[tuple[str, str, list[KernelArg]]]:
    rng = np.random.default_rng(0)
    n = 64 * COLS
    x32 = rng.standard_normal(n, dtype=np.float32)
    h = (2048 * 4096,)
    x16, y16 = (rng.standard_normal(h, dtype=np.float32).astype(np.float16) for _ in range(2))
    rows = rng.standard_normal((1024, 4096), dtype=np.float32).astype(np.float16)
    return [
        ("scale_relu_blocks", "64x393216 float32 scale-relu",
         [GmIn(x32, "x"), GmOut(np.dtype(np.float32), (n,), "y"), Scalar("u64", n), Scalar("u32", 8192),
          Scalar("f32", 0.5)]),
        ("add_blocks", "2048x4096 half add",
         [GmIn(x16, "x"), GmIn(y16, "y"), GmOut(np.dtype(np.float16), h, "z"), Scalar("u32", h[0]),
          Scalar("u32", 8192)]),
        ("softmax_rows", "1024x4096 half softmax",
         [GmIn(rows, "x"), GmOut(np.dtype(np.float16), rows.shape, "y"), Scalar("u32", 1024), Scalar("u32", 4096)]),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=4096, help="rows of the scale case (of 393216 float32 each)")
    rows = parser.parse_args().rows
    failed = 0

    _run("scale_relu_blocks", "scale_relu_blocks", scale_args(8), True)  # compile outside the timing
    start = time.perf_counter()
    big = _run("scale_relu_blocks", "scale_relu_blocks", scale_args(rows), True)
    seconds = time.perf_counter() - start
    peak_gb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e9  # the simulator process
    gb_in = rows * COLS * 4 / 1e9
    ok = seconds <= TARGET_S and peak_gb <= TARGET_GB
    failed += not ok
    print(f"scale: {rows}x{COLS} float32 scale-relu ({gb_in:.1f} GB in), timing-only: {seconds:.1f} host s "
          f"(target {TARGET_S:.0f}), simulator peak RSS {peak_gb:.2f} GB (target {TARGET_GB:.0f}), "
          f"{big.task_duration_us:.1f} us simulated ({SOC} model) {'ok' if ok else 'MISSED'}")

    print(f"{'case':<30} {'full host s':>11} {'timing-only s':>13} {'simulated us':>13}  equal")
    for name, label, case in equality_cases():
        full = _run(name, name, case, False)
        fast = _run(name, name, _shaped(case), True)
        equal = full.task_duration_us == fast.task_duration_us and _pipes(full) == _pipes(fast)
        failed += not equal
        print(f"{label:<30} {full.run_seconds:>11.2f} {fast.run_seconds:>13.2f} {full.task_duration_us:>13.1f}  "
              f"{'yes' if equal else f'NO (timing-only {fast.task_duration_us:.1f})'}")
    print("all checks passed" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
