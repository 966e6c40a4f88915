"""layernorm end to end on the simulator: both templates, unaligned, single-row, fewer-rows-than-cores and
longer-than-UB rows, every dtype; the reference against torch; the check rejecting wrong outputs, among them
a one-pass variance; LLM hidden sizes served and 310P refusals in one line."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import torch

from tuner.data.socs import get_soc
from tuner.ops import get_operator
from tuner.ops.base import Expected, UnsupportedShapeError
from tuner.search.loop import RunConfig, optimize
from tuner.space.spaces import load_space, run_context

from .op_runs import ROW_CASES, check_tells_right_from_wrong, measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "budget"), [
    *ROW_CASES,
    ((2, 100_000), "float32", 3),  # a row longer than UB holds: only `split` serves it
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, budget):
    config = RunConfig(op="layernorm", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1,
                       jobs=2)
    summary = verified_run(config)
    if budget > 5:
        # Both variants are measured; at 16x256 float16 the split variant's sampled points (seed 1) all compute
        # in float16, which layernorm's variance cannot afford within fp16's tolerance, so only rows is sure to
        # be correct.
        assert measured_variants(config) == {"rows", "split"}
        assert "rows" in measured_variants(config, correct_only=True)
    if shape[-1] == 100_000:
        assert set(summary.skipped) == {"rows"} and "unified buffer" in summary.skipped["rows"]
        assert summary.best is not None and summary.best.variant == "split"


def _inputs64(inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return inputs["x"].double(), inputs["gamma"].double(), inputs["beta"].double()


def test_reference_matches_torch_and_check_rejects_a_wrong_output():
    op = get_operator("layernorm")
    inputs = op.make_inputs((8, 37), "float16", 0)
    assert torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 0)["x"])  # reproducible by index
    assert not torch.equal(inputs["x"], op.make_inputs((8, 37), "float16", 1)["x"])
    assert inputs["gamma"].shape == inputs["beta"].shape == (37,)
    ref = op.reference(inputs)["y"]
    x, gamma, beta = _inputs64(inputs)
    eps = op.options["eps"]
    torch.testing.assert_close(ref, torch.nn.functional.layer_norm(x, (37,), gamma, beta, eps), rtol=1e-12,
                               atol=1e-12)
    expected = check_tells_right_from_wrong(op, inputs, "y", ref)
    no_beta = torch.nn.functional.layer_norm(x, (37,), gamma, None, eps)
    assert not op.check({"y": no_beta.to(torch.float16)}, inputs, expected).ok


def _fp32_layernorm(inputs: dict[str, torch.Tensor], eps: float, *, one_pass: bool) -> torch.Tensor:
    """LayerNorm in float32 arithmetic: the variance as E[x^2] - E[x]^2, or from exactly centred values (the
    kernels' method: x minus the rounded mean, then that mean's correction)."""
    x = inputs["x"].float()
    gamma, beta = inputs["gamma"].float(), inputs["beta"].float()
    mean = x.mean(dim=-1, keepdim=True)
    if one_pass:
        var = x.square().mean(dim=-1, keepdim=True) - mean.square()
        return (x - mean) / torch.sqrt(var + eps) * gamma + beta
    centred = x - mean
    shift = centred.mean(dim=-1, keepdim=True)
    var = centred.square().mean(dim=-1, keepdim=True) - shift.square()
    return (centred - shift) / torch.sqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_check_rejects_a_one_pass_variance_on_rows_with_mean_far_above_std(dtype):
    op = get_operator("layernorm")
    shape = (8, 256)
    for index in range(3):
        inputs = op.make_inputs(shape, dtype, index)
        x = inputs["x"].double()
        ratio = x.mean(dim=-1).abs() / x.std(dim=-1)
        assert float(ratio.max()) > 100  # some rows have mean >> std
        expected = {"y": Expected.of(op.reference(inputs)["y"], dtype)}
        one_pass = _fp32_layernorm(inputs, op.options["eps"], one_pass=True).to(inputs["x"].dtype)
        assert not op.check({"y": one_pass}, inputs, expected).ok
        centred = _fp32_layernorm(inputs, op.options["eps"], one_pass=False).to(inputs["x"].dtype)
        assert op.check({"y": centred}, inputs, expected).ok


@pytest.mark.parametrize("cols", [4096, 5120, 8192])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_llm_hidden_sizes_are_served_by_whole_rows(cols, dtype):
    op, soc = get_operator("layernorm"), get_soc("Ascend910B2")
    space = load_space("layernorm")
    context = run_context(op, (4096, cols), dtype, soc)
    found = space.baseline(context)
    assert found is not None and found[0].variant == "rows"
    assert space.variant("split").feasible_points(context)


@pytest.mark.parametrize(("shape", "dtype", "reason"), [
    ((4, 37), "float16", "unaligned rows need DataCopyPad"),  # and 310P has no DataCopyPad
    ((4, 256), "bfloat16", "has no Cast between the dtype and float"),
])
def test_310p_refuses_what_it_cannot_run_in_one_line(tmp_path: Path, shape, dtype, reason):
    config = RunConfig(op="layernorm", shape=shape, dtype=dtype, soc="Ascend310P3", budget=2,
                       runs_dir=tmp_path / "runs")
    with pytest.raises(UnsupportedShapeError) as info:
        optimize(config)
    message = str(info.value)
    assert reason in message and "\n" not in message
