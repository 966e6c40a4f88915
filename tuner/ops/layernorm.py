"""LayerNorm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta, biased variance."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator

# Spread of the mean >> std rows around 1000: two units in the last place of 1000 in the 16-bit formats, so
# their rows stay varied instead of rounding to a constant (float32 keeps a mean / std ratio of 10^4).
OFFSET_SPREAD = {"float32": 0.1, "float16": 1.0, "bfloat16": 8.0}


class LayerNorm(Operator):
    """y = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta along the last axis, var biased (as torch's
    layer_norm); x is (..., cols), gamma and beta are (cols,), y is like x."""

    name = "layernorm"
    description = "LayerNorm: (x - mean) / sqrt(var + eps) * gamma + beta over the last axis"
    inputs = ("x", "gamma", "beta")
    outputs = ("y",)
    options = {"eps": 1e-5}

    def eps(self) -> float:
        """The run's eps."""
        return float(self.opts["eps"])

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {"x": shape, "gamma": (shape[-1],), "beta": (shape[-1],)}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal rows, large-magnitude rows ((x - mean)^2 past the float16 range), rows with
        mean >> std (1000 + a small spread: a one-pass E[x^2] - E[x]^2 in fp32 cancels to noise there) and
        tiny rows whose variance is comparable to eps; the kinds rotate with `index`, so a single row is of
        another kind in each input set. gamma around 1, beta around 0."""
        gen = torch.Generator().manual_seed(4000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = (torch.arange(rows) + index) % 4
        x[kind == 1] *= 150.0
        x[kind == 2] = 1000.0 + OFFSET_SPREAD[dtype] * x[kind == 2]
        x[kind == 3] *= 3e-3
        gamma = 1.0 + 0.25 * torch.randn(cols, generator=gen, dtype=torch.float64)
        beta = 0.5 * torch.randn(cols, generator=gen, dtype=torch.float64)
        return {"x": x.to(DTYPES[dtype]).reshape(shape), "gamma": gamma.to(DTYPES[dtype]),
                "beta": beta.to(DTYPES[dtype])}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"].to(torch.float64)
        centered = x - x.mean(dim=-1, keepdim=True)
        var = centered.square().mean(dim=-1, keepdim=True)
        gamma, beta = inputs["gamma"].to(torch.float64), inputs["beta"].to(torch.float64)
        return {"y": centered * torch.rsqrt(var + self.eps()) * gamma + beta}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"]
        return {"y": torch.nn.functional.layer_norm(x, (x.shape[-1],), inputs["gamma"], inputs["beta"],
                                                    self.eps())}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        """Read x, gamma and beta once, write y once."""
        return (2 * math.prod(shape) + 2 * shape[-1]) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """The least a two-pass kernel does per element: two repeat-reduce sums (mean, sum of squares), the
        shift by the mean and the scale by 1/std (scalar ops), the square, gamma and beta (binary); per row one
        sqrt; for 16-bit inputs a widening and a narrowing cast."""
        n, rows = math.prod(shape), math.prod(shape[:-1])
        casts = 2 * n if dtype != "float32" else 0
        return {("binary", "float"): 3 * n, ("reduce_sum_repeat", "float"): 2 * n,
                ("unary_simple", "float"): 2 * n + casts, ("exp_ln_sqrt", "float"): rows}
