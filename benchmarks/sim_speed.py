"""Simulator speed against the targets of the simulator issue (host wall time of the simulator itself).

    python benchmarks/sim_speed.py [--repeat 3]

Targets: an 8192x8192 half add over 48 blocks in <= 3 s; a 4096x4096 half softmax (rows resident in UB)
in <= 1 s; a warm compile (runtime prebuilt, new kernel source) in <= 3 s. The times are host seconds spent
simulating, not device times; the modelled device time of each kernel is printed beside them.
Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.data.socs import get_soc
from tuner.sim.build import build_kernel, runtime_dir, soc_dir
from tuner.sim.run import simulate

KERNELS = Path(__file__).resolve().parent / "kernels"
SOC = "Ascend910B1"


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_add(repeat: int) -> tuple[float, float]:
    n = 8192 * 8192
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32).astype(np.float16)
    y = rng.standard_normal(n, dtype=np.float32).astype(np.float16)
    args = [GmIn(x, "x"), GmIn(y, "y"), GmOut(np.dtype(np.float16), (n,), "z"), Scalar("u32", n), Scalar("u32", 8192)]
    simulate(KERNELS / "add_blocks.cpp", "add_blocks", 48, args, soc=SOC)  # compile outside the timing
    seconds, result = _best(lambda: simulate(KERNELS / "add_blocks.cpp", "add_blocks", 48, args, soc=SOC), repeat)
    assert result.ok and np.array_equal(result.outputs[0], x + y), "add gave wrong results"
    return seconds, result.task_duration_us


def bench_softmax(repeat: int) -> tuple[float, float]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4096, 4096), dtype=np.float32).astype(np.float16)
    args = [GmIn(a, "x"), GmOut(np.dtype(np.float16), a.shape, "y"), Scalar("u32", 4096), Scalar("u32", 4096)]
    simulate(KERNELS / "softmax_rows.cpp", "softmax_rows", 48, args, soc=SOC)
    seconds, result = _best(lambda: simulate(KERNELS / "softmax_rows.cpp", "softmax_rows", 48, args, soc=SOC), repeat)
    af = a.astype(np.float32)
    e = np.exp(af - af.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert result.ok and np.allclose(result.outputs[0].astype(np.float32), ref, rtol=2e-3, atol=1e-5)
    return seconds, result.task_duration_us


def bench_warm_compile(repeat: int) -> float:
    soc = get_soc(SOC)
    runtime_dir()
    soc_dir(soc)
    text = (KERNELS / "softmax_rows.cpp").read_text()
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            src = Path(tmp) / f"softmax_{i}_{time.time_ns()}.cpp"  # a new source: never in the kernel cache
            src.write_text(text + f"\n// variant {i} {time.time_ns()}\n")
            start = time.perf_counter()
            exe = build_kernel(src, "softmax_rows", soc)
            times.append(time.perf_counter() - start)
            assert not exe.cached
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    add_s, add_us = bench_add(repeat)
    sm_s, sm_us = bench_softmax(repeat)
    compile_s = bench_warm_compile(repeat)
    rows = [
        ("8192x8192 half add, 48 blocks", add_s, 3.0, f"{add_us:.1f} us (simulated, {SOC} model)"),
        ("4096x4096 half softmax, 48 blocks", sm_s, 1.0, f"{sm_us:.1f} us (simulated, {SOC} model)"),
        ("warm compile (new source)", compile_s, 3.0, "-"),
    ]
    print(f"{'case':<36} {'host s':>8} {'target s':>9} {'ratio':>6}  modelled device time")
    missed = 0
    for name, seconds, target, modelled in rows:
        ratio = seconds / target
        missed += ratio > 1
        print(f"{name:<36} {seconds:>8.3f} {target:>9.1f} {ratio:>6.2f}  {modelled}")
    print("all targets met" if not missed else f"{missed} target(s) missed")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
