"""Elementwise add of two tensors of the same shape."""

from __future__ import annotations

import math

import torch

from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator

# Large-magnitude inputs per dtype, kept so that x + y stays finite (float16 saturates at 65504).
LARGE = {"float16": 3.0e4, "bfloat16": 1.0e30, "float32": 1.0e30}


class Add(Operator):
    """z = x + y, same shape, any rank.

    The kernels see the tensors as one flat array of n elements: an elementwise op has no use for the row
    structure, and a flat view lets every block take an even, 32-byte-aligned share and every tile be as long
    as UB allows, whatever the last dimension is (a 3x37 tensor is one 111-element stream with a single
    unaligned tail, rather than three unaligned rows).
    """

    name = "add"
    description = "elementwise z = x + y (same shape), as one flat array"
    inputs = ("x", "y")
    outputs = ("z",)

    def view(self, shape: tuple[int, ...]) -> dict[str, int]:
        return {"n": math.prod(shape)}

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        return {**super().context(shape, dtype), "block_elems": 32 // DTYPE_BYTES[dtype]}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Standard-normal values mixed with large-magnitude pairs (sum still finite), near-cancelling pairs
        (y = -x + small) and zeros, by position (element 0 is ordinary); no element where one addend vanishes
        next to the other, so that a correct result is never equal to an input (which reads as a copy)."""
        gen = torch.Generator().manual_seed(2000 + index)
        n = math.prod(shape)
        x = torch.randn(n, generator=gen, dtype=torch.float64)
        y = torch.randn(n, generator=gen, dtype=torch.float64)
        kind = (torch.arange(n) + 3 * index) % 8
        kind[0] = 0
        big = (kind == 2) | (kind == 3)
        x[big] = (torch.rand(n, generator=gen, dtype=torch.float64)[big] * 2 - 1) * LARGE[dtype]
        y[big] = (torch.rand(n, generator=gen, dtype=torch.float64)[big] * 2 - 1) * LARGE[dtype]
        y[kind == 5] = -x[kind == 5] * (1 + 1e-2 * y[kind == 5])
        absorbed = y.abs() < x.abs() * 2**-7
        y[absorbed] = 0.75 * x[absorbed]
        absorbed = x.abs() < y.abs() * 2**-7
        x[absorbed] = 0.75 * y[absorbed]
        x[kind == 7] = 0.0
        return {"x": x.to(DTYPES[dtype]).reshape(shape), "y": y.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"z": inputs["x"].to(torch.float64) + inputs["y"].to(torch.float64)}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"z": inputs["x"] + inputs["y"]}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return 3 * math.prod(shape) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """One Add per element; bfloat16 has no arithmetic on A2, so two casts up and one down around a float Add."""
        n = math.prod(shape)
        if dtype == "bfloat16":
            return {("binary", "float"): n, ("unary_simple", "float"): 3 * n}
        return {("binary", "half" if dtype == "float16" else "float"): n}
