"""GELU, exact (erf) or tanh-approximated as torch.nn.functional.gelu's `approximate` chooses, elementwise."""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch

from tuner.errors import UsageError
from tuner.ops.base import DTYPE_BYTES, DTYPES, Operator

APPROXIMATIONS = ("none", "tanh")
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class Gelu(Operator):
    """y = x * Phi(x) (approximate='none') or 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ('tanh'), any rank,
    viewed as one flat array.

    The Ascend C basic APIs have no Erf or Tanh, so the kernels compose them, in fp32. Errors are against torch in
    float64 over 2,000,001 points of [-10, 10]; the kernel's are measured on the simulator and asserted by
    tests/search/test_op_gelu.py.
    - none: gelu = Relu(x) - |x| q, q = erfc(|x| / sqrt2) / 2 from the Chebyshev fit of Numerical Recipes (erfcc,
      relative error of erfc < 1.2e-7) times exp(-x^2 / 2). The formula in float64 errs by at most 1.4e-8
      absolute and 1.05e-7 relative; the float32 kernel by at most 2.4e-7 absolute and 4.0e-6 relative (from
      rounding x^2 where exp(-x^2 / 2) is tiny), inside float32's rtol of 1e-5. Abramowitz & Stegun 7.1.26 would
      err by 1.6e-3 relative at x = -5, too much for float32.
    - tanh: gelu = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3); exp overflows to inf for very negative x
      and x / inf gives the -0 limit, exp underflows to 0 for very positive x and gives x. The float32 kernel errs
      by at most 5.2e-7 absolute and 1.3e-5 relative, from rounding 2u (up to 88); over 1e-5 only for x < -8.8,
      where the output is under 1e-26, far below the absolute tolerance.
    """

    name = "gelu"
    description = "elementwise GELU, erf-exact or tanh-approximated (option approximate), as one flat array"
    inputs = ("x",)
    outputs = ("y",)
    options = {"approximate": "none"}

    def with_options(self, given: Mapping[str, str | float]) -> Operator:
        """The base's parsing, then `approximate` must be one of torch's two values."""
        bound = super().with_options(given)
        if bound.opts["approximate"] not in APPROXIMATIONS:
            raise UsageError(f"gelu option approximate={bound.opts['approximate']}: expected one of "
                             f"{', '.join(APPROXIMATIONS)}")
        return bound

    def view(self, shape: tuple[int, ...]) -> dict[str, int]:
        return {"n": math.prod(shape)}

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        return {**super().context(shape, dtype), "block_elems": 32 // DTYPE_BYTES[dtype]}

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Normal values mixed, by position, with large |x| (8 to 40, both signs: exp(-x^2 / 2) underflows and
        the tanh form's exp(-2u) overflows float32), the negative tail (-6 to -1, where the output is small but
        must keep its relative accuracy), values near zero (1e-5 to 0.1, both signs) and zeros; element 0 is
        ordinary (0.25 <= |x| <= 2.25, where even bfloat16 keeps gelu(x) apart from x), so a one-element output
        is never equal to its input."""
        gen = torch.Generator().manual_seed(4000 + index)
        n = math.prod(shape)
        x = torch.randn(n, generator=gen, dtype=torch.float64) * 3.0
        kind = (torch.arange(n) + 3 * index) % 8
        kind[0] = 0
        sign = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(torch.float64)
        uniform = torch.rand(n, generator=gen, dtype=torch.float64)
        x[0] = sign[0] * (0.25 + 2.0 * uniform[0])
        x[kind == 2] = (sign * (8.0 + 32.0 * uniform))[kind == 2]
        x[kind == 4] = (-1.0 - 5.0 * uniform)[kind == 4]
        x[kind == 5] = (sign * 10.0 ** (-5.0 + 4.0 * uniform))[kind == 5]
        x[kind == 7] = 0.0
        return {"x": x.to(DTYPES[dtype]).reshape(shape)}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """torch's gelu in float64, written as x erfc(-x / sqrt2) / 2 and x sigmoid(2u): the same functions,
        but accurate in the negative tail, where 1 + erf and 1 + tanh cancel to zero."""
        x = inputs["x"].to(torch.float64)
        if self.opts["approximate"] == "tanh":
            return {"y": x * torch.sigmoid(2.0 * SQRT_2_OVER_PI * (x + 0.044715 * x.pow(3)))}
        return {"y": 0.5 * x * torch.special.erfc(-x / math.sqrt(2.0))}

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"y": torch.nn.functional.gelu(inputs["x"], approximate=str(self.opts["approximate"]))}

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return 2 * math.prod(shape) * DTYPE_BYTES[dtype]

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Per element, in float, plus a cast up and one down for 16-bit inputs. none: Abs twice, Muls 3 times,
        Adds 10 times, Reciprocal, Relu (17 simple), Mul 11 times, Add, Sub (13 binary), Exp. tanh: Muls, Adds
        twice (3 simple), Mul twice, Exp, Div."""
        n = math.prod(shape)
        casts = 2 * n if dtype != "float32" else 0
        if self.opts["approximate"] == "tanh":
            return {("unary_simple", "float"): 3 * n + casts, ("binary", "float"): 2 * n,
                    ("exp_ln_sqrt", "float"): n, ("div", "float"): n}
        return {("unary_simple", "float"): 17 * n + casts, ("binary", "float"): 13 * n, ("exp_ln_sqrt", "float"): n}
