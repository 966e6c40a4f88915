"""RMSNorm over the last axis: x / sqrt(mean(x^2) + eps) * gamma."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator


class RmsNorm(Operator):
    """y = x / sqrt(mean(x^2, dim=-1) + eps) * gamma; x is (..., cols), gamma is (cols,), y is like x."""

    name = "rmsnorm"
    description = "RMSNorm: x / sqrt(mean(x^2) + eps) * gamma over the last axis"
    inputs = ("x", "gamma")
    outputs = ("y",)
    options = {"eps": 1e-6}

    def eps(self) -> float:
        """The run's eps."""
        return float(self.opts["eps"])

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {"x": shape, "gamma": (shape[-1],)}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal rows mixed with large-magnitude rows (|x| in the hundreds: x^2 past the float16
        range), rows with mean >> std, and tiny rows whose mean square is comparable to eps; gamma around 1."""
        gen = torch.Generator().manual_seed(3000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = torch.arange(rows) % 4
        x[kind == 1] *= 150.0
        x[kind == 2] = 50.0 + 0.5 * x[kind == 2]
        x[kind == 3] *= 1e-3 * (1 + index)
        if rows == 1:  # a lone row still sees large and small values along it
            x[0, 1::3] *= 100.0
            x[0, 2::5] *= 1e-2
        gamma = 1.0 + 0.25 * torch.randn(cols, generator=gen, dtype=torch.float64)
        return {"x": x.to(DTYPES[dtype]).reshape(shape), "gamma": gamma.to(DTYPES[dtype])}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"].to(torch.float64)
        gamma = inputs["gamma"].to(torch.float64)
        return {"y": x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + self.eps()) * gamma}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Hugging Face's LlamaRMSNorm: normalize in float32, cast back to the dtype, then scale by gamma."""
        x = inputs["x"]
        x32 = x.to(torch.float32)
        normed = x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + self.eps())
        return {"y": inputs["gamma"] * normed.to(x.dtype)}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        """Read x and gamma once, write y once."""
        return (2 * math.prod(shape) + shape[-1]) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per element: square (binary), a repeat-reduce sum, scale by the row's 1/rms (scalar op) and multiply
        by gamma (binary); per row one sqrt; for 16-bit inputs a widening and a narrowing cast."""
        n, rows = math.prod(shape), math.prod(shape[:-1])
        casts = 2 * n if dtype != "float32" else 0
        return {("binary", "float"): 2 * n, ("reduce_sum_repeat", "float"): n, ("unary_simple", "float"): n + casts,
                ("exp_ln_sqrt", "float"): rows}
