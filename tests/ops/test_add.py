"""add end to end on the simulator: both templates, aligned, unaligned, tiny shapes, every dtype, the checks."""

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
    ((16, 256), "float16", 7),   # aligned, both variants
    ((3, 37), "float32", 4),     # last dim not a multiple of 32 bytes
    ((3, 37), "bfloat16", 4),    # unaligned, computed in fp32
    ((1,), "float16", 4),        # a single element
    ((4, 40), "bfloat16", 4),    # fewer rows (and 32-byte blocks) than vector cores
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="add", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1)
    verified_run(config)
    if budget > 5:
        assert measured_variants(config) == {"stream", "interleaved"}


def test_too_many_elements_is_a_one_line_usage_error():
    with pytest.raises(UsageError) as info:
        get_operator("add").check_shape((65536, 32768))
    assert "2147483647" in str(info.value) and "\n" not in str(info.value)


def test_check_rejects_a_wrong_output():
    op = get_operator("add")
    inputs = op.make_inputs((8, 37), "float16", 0)
    assert torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 0)["x"])
    assert not torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 1)["x"])
    assert float(inputs["x"].abs().max()) > 1000.0  # large magnitudes are in every set
    ref = op.reference(inputs)["z"]
    # changed well beyond atol (scaled by the largest |output|)
    expected = check_tells_right_from_wrong(op, inputs, "z", ref, scale=2.0, shift=10.0)
    assert not op.check({"z": inputs["x"].clone()}, inputs, expected).ok  # y forgotten
