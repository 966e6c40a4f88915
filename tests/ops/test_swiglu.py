"""swiglu end to end on the simulator: both templates, unaligned and tiny shapes, every dtype, the shape check."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import torch

from tuner.errors import UsageError
from tuner.ops import get_operator
from tuner.search.loop import RunConfig, optimize

from .op_runs import check_tells_right_from_wrong, measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "budget"), [
    ((16, 256), "float16", 6),   # aligned rows, both variants
    ((3, 74), "float32", 4),     # h = 37: half-rows not a multiple of 32 bytes
    ((1, 74), "bfloat16", 4),    # a single row
    ((4, 512), "bfloat16", 4),   # fewer rows than vector cores
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="swiglu", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1,
                       jobs=2)
    verified_run(config)
    if budget > 5:
        assert measured_variants(config) == {"rows", "cols"}


def test_odd_last_dim_is_a_one_line_usage_error(tmp_path: Path):
    with pytest.raises(UsageError) as info:
        optimize(RunConfig(op="swiglu", shape=(4, 75), budget=4, runs_dir=tmp_path / "runs"))
    assert "even" in str(info.value) and "\n" not in str(info.value)


def test_check_rejects_a_wrong_output():
    op = get_operator("swiglu")
    assert op.output_shapes((2, 3, 74)) == {"y": (2, 3, 37)}
    inputs = op.make_inputs((8, 74), "float16", 0)
    assert torch.equal(inputs["x"], op.make_inputs((8, 74), "float16", 0)["x"])  # reproducible by index
    assert not torch.equal(inputs["x"], op.make_inputs((8, 74), "float16", 1)["x"])
    ref = op.reference(inputs)["y"]
    expected = check_tells_right_from_wrong(op, inputs, "y", ref)
    a = inputs["x"].chunk(2, -1)[0]  # a alone (silu forgotten, b ignored) is wrong too
    assert not op.check({"y": a.contiguous()}, inputs, expected).ok
