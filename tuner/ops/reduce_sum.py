"""Sum over the last axis."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, TINY, Check, Expected, Operator, compare


class ReduceSum(Operator):
    """y = x.sum(dim=-1); a 1-D x gives a one-element y of shape (1,)."""

    name = "reduce_sum"
    description = "sum over the last axis"
    inputs = ("x",)
    outputs = ("y",)

    def output_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {"y": tuple(shape[:-1]) or (1,)}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal rows mixed with large-mean rows (mean >> std), rows of mixed signs that cancel to a
        tiny sum, and constant rows. Large means are capped so that every row's sum stays representable."""
        gen = torch.Generator().manual_seed(2000 + index)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        x = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
        kind = torch.arange(rows) % 6
        mean = min(100.0, 2e4 / cols) * (1 + index % 3)  # row sums stay below 6e4, inside float16
        x[kind == 1] = mean + x[kind == 1] * mean * 1e-2
        signs = torch.where(torch.arange(cols) % 2 == 0, 1.0, -1.0).to(torch.float64)
        x[kind == 3] = mean * signs + x[kind == 3] * 0.1  # +-mean alternating: the sum cancels
        x[kind == 5] = 0.5
        return {"x": x.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"].to(torch.float64)
        return {"y": x.sum(dim=-1).reshape(self.output_shapes(tuple(x.shape))["y"])}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        x = inputs["x"]
        return {"y": x.sum(dim=-1).reshape(self.output_shapes(tuple(x.shape))["y"])}

    def check(self, outputs: dict[str, torch.Tensor], inputs: dict[str, torch.Tensor],
              expected: dict[str, Expected]) -> Check:
        """rtol-dominant, but relative to sum(|x|) of each row rather than |sum|: a sum that cancels is tiny,
        and the rounding any order of additions makes scales with the magnitudes added, not with the result.
        The dtype's rtol comes from the reference's Expected; atol is 1% of rtol x max sum(|x|)."""
        want = expected["y"]
        dtype = next(k for k, v in DTYPES.items() if v == inputs["x"].dtype)
        x = inputs["x"].to(torch.float64)
        magnitude = x.abs().sum(dim=-1).reshape(want.ref32.shape)
        scale = float(magnitude.max()) if magnitude.numel() else 0.0
        atol = max(want.rtol * 1e-2 * scale, TINY[dtype])
        inverse = (1.0 / (atol + want.rtol * magnitude)).to(torch.float32)
        return compare("y", outputs["y"], Expected(want.ref32, inverse, want.rtol, atol, want.varies))

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return (math.prod(shape) + math.prod(self.output_shapes(shape)["y"])) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Every element passes one repeat-reduce sum (VCADD) in fp32; 16-bit inputs are cast to fp32 first."""
        n = math.prod(shape)
        work: dict[tuple[str, str], int] = {("reduce_sum_repeat", "float"): n}
        if dtype != "float32":
            work[("unary_simple", "float")] = n
        return work
