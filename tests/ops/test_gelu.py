"""gelu end to end on the simulator: both formulas (option approximate), both variants, aligned, unaligned and
tiny shapes, every dtype; the accuracy of the composed erf and tanh, the reference and the checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import optuna
import pytest
import torch

from tuner.backends import SimBackend
from tuner.backends.args import pack_tiling
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.ops import get_operator
from tuner.ops.base import Expected
from tuner.search.evaluate import kernel_args
from tuner.search.loop import RunConfig
from tuner.search.roofline import roofline
from tuner.space.render import render_kernel
from tuner.space.spaces import load_space, run_context

from .op_runs import measured_variants, verified_run

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(("shape", "dtype", "approximate", "budget"), [
    ((16, 256), "float16", "none", 7),   # aligned, both variants
    ((16, 256), "bfloat16", "tanh", 7),
    ((3, 37), "float32", "none", 4),     # last dim not a multiple of 32 bytes
    ((3, 37), "float16", "tanh", 4),
    ((1,), "bfloat16", "none", 4),       # a single element
    ((1, 45), "float32", "tanh", 4),     # a single row, unaligned
    ((5, 4), "float32", "none", 4),      # fewer elements than vector cores
])
def test_optimize_finds_a_verified_kernel(tmp_path: Path, shape, dtype, approximate, budget):
    config = RunConfig(op="gelu", shape=shape, dtype=dtype, budget=budget, runs_dir=tmp_path / "runs", seed=1,
                       options={"approximate": approximate})
    summary = verified_run(config)
    op = get_operator("gelu").with_options({"approximate": approximate})
    assert summary.roofline_us == pytest.approx(roofline(op, shape, dtype, get_soc("Ascend910B2")).bound_us)
    if budget > 5:
        assert measured_variants(config, correct_only=True) == {"contiguous", "interleaved"}


def _run_baseline_kernel(x: np.ndarray, approximate: str, workdir: Path) -> np.ndarray:
    """y of the float32 baseline kernel on the simulator for a flat x."""
    op = get_operator("gelu").with_options({"approximate": approximate})
    space = load_space("gelu")
    context = run_context(op, x.shape, "float32", get_soc("Ascend910B2"))
    baseline, params = space.baseline(context)
    variant = space.variant(baseline.variant)
    point = variant.evaluate(params, context)
    source = render_kernel(variant.template, kernel=space.kernel, dtype="float32", struct=space.tiling_struct,
                           tiling_fields=[name for name, _ in variant.tiling], structural=variant.structural(params),
                           options=op.opts)
    path = workdir / "gelu.cpp"
    path.write_text(source)
    backend = SimBackend("Ascend910B2")
    artifact = backend.build(path, space.kernel)
    run = backend.run(artifact, kernel_args(space, {"x": x}, {"y": x.shape}, "float32", pack_tiling(point.tiling)),
                      point.block_dim)
    assert run.ok, run.faults
    return run.outputs[0]


@pytest.mark.parametrize(("approximate", "max_abs", "max_rel"), [
    ("none", 2.4e-7, 4.0e-6),   # the bounds stated in Gelu's docstring and in search_spaces/gelu.yaml
    ("tanh", 5.2e-7, 1.3e-5),
])
def test_float32_kernel_meets_its_stated_accuracy_on_a_dense_grid(tmp_path: Path, approximate, max_abs, max_rel):
    x = np.linspace(-10.0, 10.0, 2_000_001).astype(np.float32)
    got = _run_baseline_kernel(x, approximate, tmp_path).astype(np.float64)
    op = get_operator("gelu").with_options({"approximate": approximate})
    want = op.reference({"x": torch.from_numpy(x)})["y"].numpy()
    err = np.abs(got - want)
    nonzero = want != 0.0
    assert err.max() <= max_abs
    assert (err[nonzero] / np.abs(want[nonzero])).max() <= max_rel


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_reference_is_torchs_gelu(approximate):
    op = get_operator("gelu").with_options({"approximate": approximate})
    x = torch.cat([torch.linspace(-40.0, 40.0, 100_001, dtype=torch.float64),
                   op.make_inputs((64, 37), "float32", 0)["x"].flatten().to(torch.float64)])
    ref = op.reference({"x": x})["y"]
    torch.testing.assert_close(ref, torch.nn.functional.gelu(x, approximate=approximate), rtol=1e-12, atol=1e-14)
    tail = (x < -8.0) & (x > -20.0)  # torch's float64 gelu cancels to (almost) zero; the reference keeps a size
    assert (ref[tail] < 0.0).all()


def test_inputs_are_hard_and_reproducible():
    op = get_operator("gelu")
    x = op.make_inputs((64, 37), "float16", 0)["x"].to(torch.float64)
    assert torch.equal(x, op.make_inputs((64, 37), "float16", 0)["x"].to(torch.float64))
    assert not torch.equal(x, op.make_inputs((64, 37), "float16", 1)["x"].to(torch.float64))
    assert float(x.min()) < -30.0 and float(x.max()) > 30.0  # the tanh form's exp(-2u) overflows below -9.5
    assert ((x.abs() < 1e-3) & (x != 0)).any() and (x == 0).any() and ((x > -6) & (x < -1)).sum() > 100
    assert torch.isfinite(x).all()
    for index in range(3):  # gelu(x) of a lone element must differ from x, even in bfloat16
        lone = op.make_inputs((1,), "bfloat16", index)
        assert not torch.equal(op.reference(lone)["y"].to(torch.bfloat16), lone["x"])


def test_check_rejects_a_wrong_output():
    op = get_operator("gelu")
    inputs = op.make_inputs((8, 37), "float32", 0)
    x = inputs["x"].to(torch.float64)
    ref = op.reference(inputs)["y"]
    expected = {"y": Expected.of(ref, "float32")}
    assert op.check({"y": ref.to(torch.float32)}, inputs, expected).ok
    tanh = torch.nn.functional.gelu(x, approximate="tanh")
    tolerance = expected["y"].atol + expected["y"].rtol * ref.abs()
    assert ((tanh - ref).abs() > tolerance).any()  # the two formulas differ beyond float32's tolerance here
    assert not op.check({"y": tanh.to(torch.float32)}, inputs, expected).ok
    tanh_op = op.with_options({"approximate": "tanh"})
    assert not tanh_op.check({"y": ref.to(torch.float32)}, inputs, {"y": Expected.of(tanh, "float32")}).ok
    wrong = ref.clone()
    wrong[3, 5] = wrong[3, 5] * 1.001 + 1e-3
    verdict = op.check({"y": wrong.to(torch.float32)}, inputs, expected)
    assert not verdict.ok and "y" in verdict.detail


def test_a_bad_approximate_is_a_one_line_usage_error():
    with pytest.raises(UsageError) as info:
        get_operator("gelu").with_options({"approximate": "fast"})
    assert str(info.value) == "gelu option approximate=fast: expected one of none, tanh"
    with pytest.raises(UsageError, match="approximate=Tanh"):
        _ = RunConfig(op="gelu", options={"approximate": "Tanh"}).run_name
    assert RunConfig(op="gelu", options={"approximate": "tanh"}).run_name.endswith("-sim-approximate=tanh")
    assert RunConfig(op="gelu", options={"approximate": "none"}).run_name.endswith("-sim")
