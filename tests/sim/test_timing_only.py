"""`--timing-only`: the checks and the model without the arithmetic or the outputs' bytes, for shapes too large to
hold. Its time must equal the full run's on kernels whose control flow does not depend on the data, its faults
must be the full run's, and an input given by its shape alone is refused anywhere the bytes are needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, GmShape, Scalar
from tuner.errors import UsageError
from tuner.sim.args import parse_arg
from tuner.sim.project import parse_input_specs, simulate_project
from tuner.sim.run import simulate

HERE = Path(__file__).resolve().parent
ADD = HERE / "kernels" / "add_custom.cpp"
MEMORY = HERE / "kernels" / "faults" / "memory.cpp"  # test_faults.py's kernel: one bug per BUG value
N_MEM = 1024
SOC = "Ascend910B2"


def _add_args(x, y, n: int) -> list:
    return [x, y, GmOut(np.dtype(np.float16), (n,), "z"), Scalar("u32", n), Scalar("u32", 4)]


def _times(report: dict) -> list[tuple]:
    return [(b["block_id"], b["aiv_time_us"], b["aiv_vec_ratio"], b["aiv_mte2_ratio"], b["aiv_mte3_ratio"],
             b["gm_to_ub_bytes"], b["ub_to_gm_bytes"]) for b in report["blocks"]]


def test_timing_only_times_an_add_exactly_as_the_full_run():
    n = 8 * 4096
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(n).astype(np.float16) for _ in range(2))
    full = simulate(ADD, "add_custom", 8, _add_args(GmIn(x, "x"), GmIn(y, "y"), n), soc=SOC)
    assert full.ok and np.array_equal(full.outputs[0], x + y)
    shaped = [GmShape(np.dtype(np.float16), (n,), name) for name in "xy"]
    fast = simulate(ADD, "add_custom", 8, _add_args(*shaped, n), soc=SOC, timing_only=True)
    assert fast.ok and fast.outputs == []
    assert fast.report["timing_only"] is True and full.report["timing_only"] is False
    assert fast.task_duration_us == full.task_duration_us
    assert _times(fast.report) == _times(full.report)


def test_timing_only_reports_the_full_runs_faults():
    args = [GmShape(np.dtype(np.float32), (N_MEM,), "x"), GmOut(np.dtype(np.float32), (N_MEM,), "z"),
            Scalar("u32", N_MEM)]
    for bug in (5, 6):  # a GM read past its buffer; a vector write past its UB buffer
        x = np.random.default_rng(bug).standard_normal(N_MEM).astype(np.float32)
        full = simulate(MEMORY, "mem_fault", 1, [GmIn(x, "x"), *args[1:]], defines=[f"BUG={bug}"])
        fast = simulate(MEMORY, "mem_fault", 1, args, defines=[f"BUG={bug}"], timing_only=True)
        assert [f.text for f in fast.faults] == [f.text for f in full.faults] != []


def test_an_input_given_by_shape_needs_timing_only():
    shaped = [GmShape(np.dtype(np.float16), (4096,), name) for name in "xy"]
    with pytest.raises(UsageError, match="input x is given by its shape alone: that needs --timing-only"):
        simulate(ADD, "add_custom", 8, _add_args(*shaped, 4096), soc=SOC)


def test_shape_specs_parse_and_bad_ones_say_why(tmp_path):
    assert parse_arg("in=float32[4096,393216]") == GmShape(np.dtype(np.float32), (4096, 393216),
                                                           "float32[4096,393216]")
    assert parse_arg("in=half[ 8 ]").shape == (8,)
    with pytest.raises(UsageError, match=r"shape \[4096,x\] is not a list of positive integers"):
        parse_arg("in=float32[4096,x]")
    with pytest.raises(UsageError, match="unknown dtype 'float33'"):
        parse_arg("in=float33[8]")
    with pytest.raises(UsageError, match="no such file"):
        parse_arg("in=float32")
    spec = parse_input_specs(["x=bfloat16[2,3]"])["x"]
    assert isinstance(spec, GmShape) and spec.name == "x" and spec.nbytes == 12


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tuner.cli", "simulate", *args], cwd=cwd, capture_output=True,
                          text=True)


def test_the_cli_times_a_kernel_from_shapes_and_writes_nothing(tmp_path):
    n = 8 * 4096
    common = [str(ADD), "--kernel", "add_custom", "--block-dim", "8", "--soc", SOC]
    outs = ["--arg", "out=z.npy:float16:32768", "--arg", f"u32={n}", "--arg", "u32=4"]
    proc = _cli(*common, "--arg", f"in=float16[{n}]", "--arg", f"in=float16[{n}]", *outs, "--timing-only",
                "--json", "r.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "simulated, Ascend910B2 model" in proc.stdout
    assert "timing only: the arithmetic was skipped and no output was written" in proc.stdout
    assert not (tmp_path / "z.npy").exists()
    assert json.loads((tmp_path / "r.json").read_text())["timing_only"] is True
    proc = _cli(*common, "--arg", f"in=float16[{n}]", "--arg", f"in=float16[{n}]", *outs, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: input float16[32768] is given by its shape alone: that needs --timing-only"


def test_a_project_runs_timing_only_on_input_shapes():
    project = HERE / "projects" / "add_custom"
    x = np.ones((8, 2048), np.float16)
    full = simulate_project(project, {"x": x, "y": x}, {}, SOC)
    shapes = parse_input_specs(["x=float16[8,2048]", "y=float16[8,2048]"])
    fast = simulate_project(project, shapes, {}, SOC, timing_only=True)
    assert fast.ok and fast.outputs == {}
    assert fast.task_duration_us == full.task_duration_us
    with pytest.raises(UsageError, match="needs --timing-only"):
        simulate_project(project, shapes, {}, SOC)
