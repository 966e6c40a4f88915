"""reduce_sum end to end on small shapes: every variant's kernels are correct, the check rejects wrong sums."""

from __future__ import annotations

import optuna
import pytest
import torch

from tuner.ops.base import Expected
from tuner.ops.reduce_sum import ReduceSum
from tuner.search.loop import RunConfig

from .op_runs import measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize("shape,dtype,budget", [
    ((16, 256), "float16", 6),
    ((3, 37), "bfloat16", 4),
    ((1000,), "float32", 4),
    ((5, 300), "float16", 4),
    ((2, 100000), "bfloat16", 4),
])
def test_best_kernel_is_verified(tmp_path, shape, dtype, budget):
    config = RunConfig(op="reduce_sum", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1)
    summary = verified_run(config)
    if shape == (16, 256):
        assert measured_variants(config, correct_only=True) == {"rows", "split"}
    if shape == (2, 100000):
        assert summary.best.attrs["variant"] == "split"  # rows that long do not fit UB whole


def test_check_rejects_a_wrong_sum_and_accepts_cancellation_rounding():
    op = ReduceSum()
    shape = (12, 64)
    inputs = op.make_inputs(shape, "float16", 0)
    ref = op.reference(inputs)["y"]
    expected = {"y": Expected.of(ref, "float16")}
    good = ref.to(torch.float16)
    assert op.check({"y": good}, inputs, expected).ok
    # the cancelling row (kind 3) may be off by a rounding of its magnitudes, far more than of its tiny sum
    slack = good.clone()
    slack[3] = float(ref[3]) + 1e-4 * float(inputs["x"][3].double().abs().sum())
    assert op.check({"y": slack}, inputs, expected).ok
    wrong = good.clone()
    wrong[7] = float(ref[7]) + 0.05 * float(inputs["x"][7].double().abs().sum())
    assert not op.check({"y": wrong}, inputs, expected).ok
    assert op.output_shapes((1000,)) == {"y": (1,)}
