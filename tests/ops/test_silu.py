"""silu end to end on the simulator: both templates, aligned, unaligned, tiny shapes, every dtype, the checks."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import torch

from tuner.errors import UsageError
from tuner.ops import get_operator
from tuner.search.loop import RunConfig

from .op_runs import check_tells_right_from_wrong, measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "budget"), [
    ((16, 256), "float16", 7),   # aligned, both variants (native is float16 only)
    ((3, 37), "float16", 6),     # last dim not a multiple of 32 bytes, both variants
    ((3, 37), "float32", 4),
    ((1,), "bfloat16", 4),       # a single element
    ((4, 40), "bfloat16", 4),    # fewer rows (and 32-byte blocks) than vector cores
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="silu", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1)
    verified_run(config)
    if budget > 5:
        assert measured_variants(config) == {"fp32", "native"}


def test_too_many_elements_is_a_one_line_usage_error():
    with pytest.raises(UsageError) as info:
        get_operator("silu").check_shape((2, 1024, 1024, 1024))
    assert "2147483647" in str(info.value) and "\n" not in str(info.value)


def test_inputs_reach_where_naive_exp_overflows():
    x = get_operator("silu").make_inputs((64, 37), "float16", 0)["x"].to(torch.float64)
    assert float(x.min()) < -12.0 and float(x.max()) > 12.0  # exp(-x) overflows float16 below x ~ -11
    assert torch.isfinite(x).all()


def test_check_rejects_a_wrong_output():
    op = get_operator("silu")
    inputs = op.make_inputs((8, 37), "float16", 0)
    assert torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 0)["x"])
    ref = op.reference(inputs)["y"]
    # changed well beyond atol (scaled by the largest |output|)
    expected = check_tells_right_from_wrong(op, inputs, "y", ref, scale=2.0, shift=10.0)
    sigmoid_only = torch.sigmoid(inputs["x"].to(torch.float64)).to(torch.float16)  # x * forgotten
    assert not op.check({"y": sigmoid_only}, inputs, expected).ok
