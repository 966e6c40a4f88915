"""add_rmsnorm end to end on the simulator: both templates, unaligned, single-row, fewer-rows-than-cores and
too-long-for-UB shapes, the reference against torch, and the check rejecting wrong, missing or swapped outputs."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import torch

from tuner.ops import get_operator
from tuner.ops.base import Expected
from tuner.search.loop import RunConfig

from .op_runs import ROW_CASES, measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "budget"), [
    *ROW_CASES,
    ((1,), "float16", 3),        # one element: y rounds to gamma exactly, which is right, not a copy
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="add_rmsnorm", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs",
                       seed=1, jobs=2)
    verified_run(config)
    if budget > 5:  # both measured; the second variant's lone trial may be a float16 sum of squares that overflows
        # on the large-magnitude rows (compute=native), rightly wrong, so correctness is the best kernel's
        assert measured_variants(config) == {"rows", "split"}


def test_rows_too_long_for_ub_go_through_the_split_kernel(tmp_path: Path):
    config = RunConfig(op="add_rmsnorm", shape=(2, 100000), dtype="float32", budget=2, runs_dir=tmp_path / "runs",
                       seed=1, jobs=2)
    summary = verified_run(config)
    assert summary.best is not None and summary.best.variant == "split"
    assert measured_variants(config) == {"split"}


def _inputs_and_expected(dtype: str) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor], dict[str, Expected]]:
    op = get_operator("add_rmsnorm")
    inputs = op.make_inputs((10, 37), dtype, 0)
    ref = op.reference(inputs)
    return inputs, ref, {name: Expected.of(value, dtype) for name, value in ref.items()}


def test_reference_matches_torch():
    op = get_operator("add_rmsnorm")
    inputs, ref, _ = _inputs_and_expected("float16")
    assert torch.equal(inputs["residual"], op.make_inputs((10, 37), "float16", 0)["residual"])  # reproducible
    assert not torch.equal(inputs["x"], op.make_inputs((10, 37), "float16", 1)["x"])
    assert inputs["gamma"].shape == (37,) and inputs["residual"].shape == (10, 37)
    total = inputs["x"].double() + inputs["residual"].double()
    gamma, eps = inputs["gamma"].double(), op.options["eps"]
    if hasattr(torch.nn.functional, "rms_norm"):
        want = torch.nn.functional.rms_norm(total, (37,), gamma, eps)
    else:
        want = total / torch.sqrt(total.pow(2).mean(-1, keepdim=True) + eps) * gamma
    torch.testing.assert_close(ref["y"], want, rtol=1e-12, atol=1e-12)
    assert torch.equal(ref["x_sum"], (inputs["x"] + inputs["residual"]).double())  # the sum stored in the dtype


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_check_accepts_normalizing_the_fp32_sum_or_the_rounded_one(dtype: str):
    """A fused kernel normalizes its fp32 sum; a two-pass kernel may normalize the x_sum it reads back."""
    op = get_operator("add_rmsnorm")
    inputs, ref, expected = _inputs_and_expected(dtype)
    gamma = inputs["gamma"].float()
    for total in (inputs["x"].float() + inputs["residual"].float(), ref["x_sum"].float()):
        y = total * torch.rsqrt(total.square().mean(-1, keepdim=True) + op.options["eps"]) * gamma
        outputs = {"y": y.to(inputs["x"].dtype), "x_sum": ref["x_sum"].to(inputs["x"].dtype)}
        verdict = op.check(outputs, inputs, expected)
        assert verdict.ok, verdict.detail


def test_check_rejects_a_wrong_y_a_wrong_sum_and_swapped_outputs():
    op = get_operator("add_rmsnorm")
    inputs, ref, expected = _inputs_and_expected("float16")
    y, x_sum = ref["y"].to(torch.float16), ref["x_sum"].to(torch.float16)
    assert op.check({"y": y, "x_sum": x_sum}, inputs, expected).ok
    wrong = y.clone()
    wrong[3, 5] = wrong[3, 5] * 1.1 + 1.0
    verdict = op.check({"y": wrong, "x_sum": x_sum}, inputs, expected)
    assert not verdict.ok and verdict.detail.startswith("y:")
    verdict = op.check({"y": y, "x_sum": inputs["x"]}, inputs, expected)  # the add forgotten
    assert not verdict.ok and verdict.detail.startswith("x_sum:")
    x = inputs["x"].double()
    x_only = x * torch.rsqrt(x.square().mean(-1, keepdim=True) + op.options["eps"]) * inputs["gamma"].double()
    assert not op.check({"y": x_only.to(torch.float16), "x_sum": x_sum}, inputs, expected).ok  # normalized x alone
    assert not op.check({"y": x_sum, "x_sum": y}, inputs, expected).ok
