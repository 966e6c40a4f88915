"""Softmax over the last axis."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Check, Expected, Operator


class Softmax(Operator):
    """y = exp(x - max(x)) / sum(exp(x - max(x))) along the last axis."""

    name = "softmax"
    description = "softmax over the last axis"
    inputs = ("x",)
    outputs = ("y",)

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal rows mixed with peaky rows, large-magnitude rows (mean >> std, which overflow exp
        without the max subtraction) and constant rows (ties)."""
        gen = torch.Generator().manual_seed(1000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = torch.arange(rows) % 8
        x[kind == 2] *= 10.0
        x[kind == 5] = x[kind == 5] * 20.0 + 1000.0 * (1 + index)
        x[kind == 7] = 3.0
        return {"x": x.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"y": torch.softmax(inputs["x"].to(torch.float64), dim=-1)}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"y": torch.softmax(inputs["x"], dim=-1)}

    def check(self, outputs: dict[str, torch.Tensor], inputs: dict[str, torch.Tensor],
              expected: dict[str, Expected]) -> Check:
        verdict = super().check(outputs, inputs, expected)
        if not verdict.ok:
            return verdict
        sums = outputs["y"].sum(dim=-1, dtype=torch.float32)
        off = (sums - 1.0).abs()
        if bool((off > 1e-2).any()):
            row = int(off.flatten().argmax())
            return Check(False, verdict.max_abs_err, verdict.max_err_ratio,
                         f"y: row {row} sums to {float(sums.flatten()[row]):.6g}, not 1")
        return verdict

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return 2 * math.prod(shape) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per element: max and sum (binary passes), subtract and scale (scalar ops), exp; casts for 16-bit."""
        n = math.prod(shape)
        casts = 2 * n if dtype != "float32" else 0
        return {("binary", "float"): 2 * n, ("unary_simple", "float"): 2 * n + casts, ("exp_ln_sqrt", "float"): n}
