"""SwiGLU over the last axis: silu of the first half times the second half."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator, UnsupportedShapeError


class Swiglu(Operator):
    """a, b = x.chunk(2, -1); y = silu(a) * b with silu(a) = a / (1 + exp(-a)); x is (..., 2h), y is (..., h)."""

    name = "swiglu"
    description = "SwiGLU: silu(a) * b with a, b the two halves of the last axis"
    inputs = ("x",)
    outputs = ("y",)

    def check_shape(self, shape: tuple[int, ...]) -> None:
        if shape[-1] % 2:
            raise UnsupportedShapeError(f"swiglu: the last dimension ({shape[-1]}) must be even, "
                                        "since x splits into two halves a and b")
        super().check_shape(shape)

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        return {**super().context(shape, dtype), "h": shape[-1] // 2}

    def output_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {"y": (*shape[:-1], shape[-1] // 2)}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal rows mixed with wide rows (|a| up to ~40: exp(-a) far past the float16 range, silu
        saturating at a and at 0) and large-magnitude rows (|a|, |b| in the hundreds, |y| below the float16
        maximum)."""
        gen = torch.Generator().manual_seed(2000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = torch.arange(rows) % 4
        x[kind == 1] *= 10.0
        x[kind == 3] = (torch.rand(int((kind == 3).sum()), cols, generator=gen, dtype=torch.float64) - 0.5) * 400.0
        if rows == 1:  # a lone row still sees every regime: normal, wide and large values along it
            x[0, 1::3] *= 10.0
            x[0, 2::5] *= 60.0
        return {"x": x.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        a, b = inputs["x"].to(torch.float64).chunk(2, dim=-1)
        return {"y": torch.nn.functional.silu(a) * b}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        a, b = inputs["x"].chunk(2, dim=-1)
        return {"y": torch.nn.functional.silu(a) * b}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        """Read x once, write y (half its size) once."""
        n = math.prod(shape)
        return (n + n // 2) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per output element: negate and add one (scalar ops), exp, divide, multiply by b; for 16-bit
        inputs two widening casts and one narrowing cast."""
        n = math.prod(shape) // 2
        casts = 3 * n if dtype != "float32" else 0
        return {("unary_simple", "float"): 2 * n + casts, ("exp_ln_sqrt", "float"): n, ("div", "float"): n,
                ("binary", "float"): n}
