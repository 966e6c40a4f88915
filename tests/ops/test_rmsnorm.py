"""rmsnorm end to end on the simulator: both templates, unaligned, single-row and fewer-rows-than-cores
shapes, every dtype, the reference against torch, and the check rejecting wrong outputs."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import torch

from tuner.ops import get_operator
from tuner.search.loop import RunConfig

from .op_runs import ROW_CASES, check_tells_right_from_wrong, measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "budget"), [
    *ROW_CASES,
    ((1,), "float16", 3),        # one element: y rounds to gamma exactly, which is right, not a copy
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="rmsnorm", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1,
                       jobs=2)
    verified_run(config)
    if budget > 5:
        assert measured_variants(config, correct_only=True) == {"rows", "split"}


def test_reference_matches_torch_and_check_rejects_a_wrong_output():
    op = get_operator("rmsnorm")
    inputs = op.make_inputs((8, 37), "float16", 0)
    assert torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 0)["x"])  # reproducible by index
    assert not torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 1)["x"])
    assert inputs["gamma"].shape == (37,)
    ref = op.reference(inputs)["y"]
    x, gamma, eps = inputs["x"].double(), inputs["gamma"].double(), op.options["eps"]
    if hasattr(torch.nn.functional, "rms_norm"):
        want = torch.nn.functional.rms_norm(x, (37,), gamma, eps)
    else:
        want = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * gamma
    torch.testing.assert_close(ref, want, rtol=1e-12, atol=1e-12)
    expected = check_tells_right_from_wrong(op, inputs, "y", ref)
    no_gamma = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)  # gamma forgotten
    assert not op.check({"y": no_gamma.to(torch.float16)}, inputs, expected).ok
