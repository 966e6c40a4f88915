"""Residual add fused with RMSNorm over the last axis (torch_npu's npu_add_rms_norm): the normalized sum and
the sum itself."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator


class AddRmsNorm(Operator):
    """s = x + residual; y = s / sqrt(mean(s^2, dim=-1) + eps) * gamma; outputs (y, x_sum = s in the dtype).

    x and residual are (..., cols), gamma is (cols,). As in the framework, `x_sum` is the sum stored in the
    dtype (the float64 sum of the inputs, rounded once). `y` is computed from the exact float64 sum, not from
    the rounded `x_sum`: a fused kernel naturally normalizes its fp32 sum, a two-pass one may normalize the
    `x_sum` it re-reads, and both lie within half a unit in the last place of the exact sum, which the
    tolerances (about two units) absorb.
    """

    name = "add_rmsnorm"
    description = "Add + RMSNorm: x_sum = x + residual, y = x_sum / sqrt(mean(x_sum^2) + eps) * gamma"
    inputs = ("x", "residual", "gamma")
    outputs = ("y", "x_sum")
    options = {"eps": 1e-6}

    def eps(self) -> float:
        """The run's eps."""
        return float(self.opts["eps"])

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {"x": shape, "residual": shape, "gamma": (shape[-1],)}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Rows of five kinds: standard normal; a residual that dominates (|s| in the hundreds: s^2 past the
        float16 range, and x alone normalizes to nonsense); mean >> std; tiny rows whose mean square is
        comparable to eps; x and residual nearly cancelling (the sum far smaller than either). Gamma around 1."""
        gen = torch.Generator().manual_seed(5000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        residual = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = torch.arange(rows) % 5
        residual[kind == 1] *= 200.0
        x[kind == 2] = 50.0 + 0.5 * x[kind == 2]
        x[kind == 3] *= 1e-3 * (1 + index)
        residual[kind == 3] *= 1e-3
        x[kind == 4] *= 40.0
        residual[kind == 4] = -x[kind == 4] + residual[kind == 4]
        if rows == 1:  # a lone row still sees large, small and cancelling values along it
            residual[0, 1::3] *= 100.0
            x[0, 2::5] *= 1e-2
            residual[0, 3::7] = 0.5 - x[0, 3::7]
        gamma = 1.0 + 0.25 * torch.randn(cols, generator=gen, dtype=torch.float64)
        to = DTYPES[dtype]
        return {"x": x.to(to).reshape(shape), "residual": residual.to(to).reshape(shape), "gamma": gamma.to(to)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        total = inputs["x"].to(torch.float64) + inputs["residual"].to(torch.float64)
        gamma = inputs["gamma"].to(torch.float64)
        y = total * torch.rsqrt(total.square().mean(dim=-1, keepdim=True) + self.eps()) * gamma
        return {"y": y, "x_sum": total.to(inputs["x"].dtype).to(torch.float64)}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The residual add in the dtype, then Hugging Face's LlamaRMSNorm of the sum (normalized in float32,
        cast back to the dtype, scaled by gamma)."""
        x_sum = inputs["x"] + inputs["residual"]
        s32 = x_sum.to(torch.float32)
        normed = s32 * torch.rsqrt(s32.pow(2).mean(dim=-1, keepdim=True) + self.eps())
        return {"y": inputs["gamma"] * normed.to(x_sum.dtype), "x_sum": x_sum}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        """Read x, residual and gamma once, write y and x_sum once."""
        return (4 * math.prod(shape) + shape[-1]) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per element: the add, square and multiply by gamma (binary), a repeat-reduce sum and the scale by
        the row's 1/rms (scalar op); per row one sqrt; for 16-bit inputs two widening and two narrowing casts."""
        n, rows = math.prod(shape), math.prod(shape[:-1])
        casts = 4 * n if dtype != "float32" else 0
        return {("binary", "float"): 3 * n, ("reduce_sum_repeat", "float"): n, ("unary_simple", "float"): n + casts,
                ("exp_ln_sqrt", "float"): rows}
