"""SiLU (swish): x * sigmoid(x), elementwise."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator

# Large |x| per dtype: exp(-x) overflows float16 beyond |x| ~ 11 and float32 beyond ~ 88.
LARGE = {"float16": 6.0e4, "bfloat16": 1.0e30, "float32": 1.0e30}


class Silu(Operator):
    """y = x * sigmoid(x) = x / (1 + exp(-x)), any rank, viewed as one flat array (elementwise: the row
    structure does not matter, and a flat view gives even, aligned shares per block and the longest tiles)."""

    name = "silu"
    description = "elementwise y = x * sigmoid(x) (SiLU / swish), as one flat array"
    inputs = ("x",)
    outputs = ("y",)

    def view(self, shape: tuple[int, ...]) -> dict[str, int]:
        return {"n": math.prod(shape)}

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        return {**super().context(shape, dtype), "block_elems": 32 // DTYPE_BYTES[dtype]}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Normal values (std 4) mixed with large |x| where exp(-x) overflows the format (both signs: the
        result saturates to x, or to -0), moderately large values around the overflow edge, and zeros, by position;
        element 0 is ordinary and small (|x| < 4), so a one-element output is never equal to its input."""
        gen = torch.Generator().manual_seed(3000 + index)
        n = math.prod(shape)
        x = torch.randn(n, generator=gen, dtype=torch.float64) * 4.0
        kind = (torch.arange(n) + 3 * index) % 8
        kind[0] = 0
        x[0] = x[0].clamp(-4.0, 4.0)
        big = (kind == 2) | (kind == 5)
        sign = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(torch.float64)
        x[big] = (sign * torch.rand(n, generator=gen, dtype=torch.float64) * LARGE[dtype])[big]
        edge = kind == 3
        x[edge] = (sign * (8.0 + 100.0 * torch.rand(n, generator=gen, dtype=torch.float64)))[edge]
        x[kind == 7] = 0.0
        return {"x": x.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"].to(torch.float64)
        return {"y": x * torch.sigmoid(x)}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"y": torch.nn.functional.silu(inputs["x"])}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return 2 * math.prod(shape) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per element: Muls by -1 and Adds 1 (scalar ops), Exp, Div; in float, plus a cast up and one down for
        16-bit inputs (bfloat16 must compute in float on A2)."""
        n = math.prod(shape)
        casts = 2 * n if dtype != "float32" else 0
        return {("unary_simple", "float"): 2 * n + casts, ("exp_ln_sqrt", "float"): n, ("div", "float"): n}
