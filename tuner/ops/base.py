"""What an operator is to the tuner: inputs, a torch reference, tolerances, and the work it must do."""

from __future__ import annotations

import copy
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import torch

from tuner.errors import UsageError

DTYPES = {"float16": torch.float16, "float32": torch.float32, "bfloat16": torch.bfloat16}
DTYPE_BYTES = {"float16": 2, "float32": 4, "bfloat16": 2, "int32": 4, "bool": 1}
NUMPY_DTYPES = {"float16": np.dtype(np.float16), "float32": np.dtype(np.float32),
                "bfloat16": np.dtype(ml_dtypes.bfloat16), "int32": np.dtype(np.int32), "bool": np.dtype(np.bool_)}
# rtol-dominant tolerances against a float64 reference: about two units in the last place of each format; integers
# and truth values exactly (within half a unit).
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "int32": 0.0, "bool": 0.0}
# Spacing of the smallest subnormals: below it, a correctly rounded result has no relative accuracy left.
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "int32": 0.5, "bool": 0.5}
MAX_DIMS = 8
MAX_ELEMENTS = 2**31 - 1  # tiling fields are uint32 element counts


class UnsupportedShapeError(UsageError):
    """Raised for a shape an operator cannot serve, with the reason."""


def parse_shape(text: str) -> tuple[int, ...]:
    """'4096x4096' (or '4096,4096') as a tuple; UsageError for anything else."""
    cleaned = text.strip().lower()
    parts = re.split(r"\s*[x,*×]\s*", cleaned)
    if not re.fullmatch(r"\d+(\s*[x,*×]\s*\d+)*", cleaned) or len(parts) > MAX_DIMS:
        raise UsageError(f"malformed shape '{text}': expected positive integers joined by 'x', e.g. 4096x4096")
    shape = tuple(int(p) for p in parts)
    if any(d < 1 for d in shape):
        raise UsageError(f"malformed shape '{text}': every dimension must be at least 1")
    return shape


def shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in shape)


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A CPU tensor as a numpy array of the same element type (bfloat16 through ml_dtypes)."""
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def to_torch(array: np.ndarray) -> torch.Tensor:
    """A numpy array (bfloat16 included) as a CPU tensor."""
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        return torch.from_numpy(np.ascontiguousarray(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array))


@dataclass(frozen=True)
class Check:
    """Verdict on one output set: correct or not, the worst error (absolute, and as a fraction of the allowed
    error: at most 1 passes), and why not."""

    ok: bool
    max_abs_err: float
    max_err_ratio: float
    detail: str = ""


@dataclass(frozen=True)
class Expected:
    """A float64 reference prepared once for fast checks: its float32 copy and 1 / allowed error per element."""

    ref32: torch.Tensor
    inverse_tolerance: torch.Tensor
    rtol: float
    atol: float
    varies: bool

    @classmethod
    def of(cls, ref: torch.Tensor, dtype: str, rtol: float | None = None,
           slack: torch.Tensor | None = None) -> Expected:
        """`slack`: an error allowed on top of the tolerance, per element (PyTorch's own, where an operator's
        arithmetic rounds to its dtype on the way). An infinite or NaN reference element is matched exactly."""
        rtol = RTOL[dtype] if rtol is None else rtol
        magnitude = ref.abs()
        finite = torch.isfinite(ref)
        scale = float(magnitude[finite].max()) if bool(finite.any()) else 0.0
        atol = max(rtol * 1e-2 * scale, TINY[dtype])
        rounded = ref.to(getattr(torch, dtype)).to(torch.float64)  # as the output's dtype holds it
        varies = ref.numel() > 1 and float(rounded.max()) != float(rounded.min())
        allowed = atol + rtol * magnitude + (slack if slack is not None else 0.0)
        inverse = torch.where(finite & torch.isfinite(allowed), 1.0 / allowed, 1.0 / atol)
        return cls(ref.to(torch.float32), inverse.to(torch.float32), rtol, atol, varies)


def _first(mask: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(mask.flatten().nonzero()[0]), tuple(mask.shape)))


def compare(name: str, got: torch.Tensor, expected: Expected) -> Check:
    """rtol-dominant comparison with a float64 reference; atol scales with the output's magnitude.

    Differences are taken in float32: its rounding (6e-8 relative) is far below every tolerance used here.
    """
    if got.numel() == 0:
        return Check(True, 0.0, 0.0)
    got32 = got.to(torch.float32)
    same = (got32 == expected.ref32) | (torch.isnan(got32) & torch.isnan(expected.ref32))  # infinities, NaN
    err = (got32 - expected.ref32).abs_().masked_fill_(same, 0.0)
    max_abs = float(err.max())  # NaN propagates through max
    if math.isnan(max_abs):
        first = _first(torch.isnan(err))
        return Check(False, math.inf, math.inf, f"{name}: got {float(got32[first]):.6g} at {first}, expected "
                                                f"{float(expected.ref32[first]):.6g}")
    ratio = err.mul_(expected.inverse_tolerance)
    max_ratio = float(ratio.max())
    if max_ratio > 1.0:
        outside = ratio > 1.0
        first = _first(outside)
        detail = (f"{name}: {int(outside.sum())} of {ratio.numel()} elements outside rtol={expected.rtol:g}, "
                  f"atol={expected.atol:.3g}; first at {first}: got {float(got32[first]):.6g}, "
                  f"expected {float(expected.ref32[first]):.6g}")
        return Check(False, max_abs, max_ratio, detail)
    low, high = torch.aminmax(got32)
    if expected.varies and float(low) == float(high):
        return Check(False, max_abs, max_ratio, f"{name}: constant output")
    return Check(True, max_abs, max_ratio)


class Operator(ABC):
    """One operator: its inputs and outputs, torch reference, tolerances and compulsory work."""

    name: str
    description: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    dtypes: tuple[str, ...] = ("float16", "float32", "bfloat16")
    # Options of the operator itself (not knobs): name -> default; a run fixes their values (`--option`).
    options: dict[str, float | str] = {}

    def __init__(self) -> None:
        self.opts: dict[str, float | str] = dict(self.options)

    def with_options(self, given: Mapping[str, str | float]) -> Operator:
        """A copy of this operator with the given option values (strings from the command line are parsed
        as the default's type); UsageError for an unknown option, a value of the wrong kind or a number that is
        not finite."""
        bound = copy.copy(self)
        bound.opts = dict(self.options)
        for name, raw in given.items():
            if name not in self.options:
                known = ", ".join(self.options) or "none"
                raise UsageError(f"{self.name} has no option '{name}' (options: {known})")
            default = self.options[name]
            if isinstance(default, float):
                try:
                    bound.opts[name] = float(raw)
                except ValueError:
                    raise UsageError(f"option {name}={raw}: not a number") from None
                if not math.isfinite(bound.opts[name]):
                    raise UsageError(f"option {name}={raw}: not a finite number")
            else:
                bound.opts[name] = str(raw)
        return bound

    def changed_options(self) -> dict[str, float | str]:
        """The options whose value differs from the default (they become part of the run's name)."""
        return {k: v for k, v in self.opts.items() if v != self.options[k]}

    def check_dtype(self, dtype: str) -> None:
        if dtype not in self.dtypes:
            raise UsageError(f"{self.name} does not support dtype '{dtype}' (supported: {', '.join(self.dtypes)})")

    def check_shape(self, shape: tuple[int, ...]) -> None:
        """Raise UnsupportedShapeError naming why the operator cannot serve `shape`; operators with limits of
        their own extend this one, which every kernel shares: tiling fields are uint32 element counts."""
        if math.prod(shape) > MAX_ELEMENTS:
            raise UnsupportedShapeError(f"{self.name}: {math.prod(shape)} elements exceed the {MAX_ELEMENTS} that "
                                        "32-bit tiling fields address")

    def view(self, shape: tuple[int, ...]) -> dict[str, int]:
        """The shape as the search space sees it, the dimensions its expressions name: by default the last-axis view,
        `rows` x `cols`. A dispatch table (tuner.search.dispatch) measures distances between shapes in it."""
        return {"rows": math.prod(shape[:-1]), "cols": shape[-1]}

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        """Names the search space's expressions see for this shape and dtype: the view, the dtype and its size."""
        return {**self.view(shape), "dtype": dtype, "dtype_bytes": DTYPE_BYTES[dtype]}

    @abstractmethod
    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Input set number `index`: random, reproducible, and hard in the ways kernels get wrong."""

    @abstractmethod
    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The outputs, computed in float64 by torch."""

    @abstractmethod
    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """What a PyTorch user runs for this operator: torch's own functions at the inputs' dtype (on whatever
        device the inputs are), outputs in the input dtype. The NPU backend times it as `torch_us` and runs it
        on the device as torch_npu's reference.

        Never float64 (NPUs lack it) and no moves between devices; output names and shapes are `reference`'s."""

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        """Shape of every input for a run of `shape` (all of it by default; e.g. a norm's gamma is (cols,))."""
        return {name: shape for name in self.inputs}

    def output_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {name: shape for name in self.outputs}

    def input_dtypes(self, dtype: str) -> dict[str, str]:
        """Each input's dtype in a run of `dtype` (all of them `dtype`, unless the operator says otherwise)."""
        return {name: dtype for name in self.inputs}

    def output_dtypes(self, dtype: str) -> dict[str, str]:
        """Each output's dtype in a run of `dtype` (all of them `dtype`, unless the operator says otherwise)."""
        return {name: dtype for name in self.outputs}

    def expected(self, name: str, reference: torch.Tensor, dtype: str) -> Expected:
        """Output `name`'s float64 reference prepared for checks at the run's `dtype` (the tolerances of the output's
        own dtype)."""
        return Expected.of(reference, self.output_dtypes(dtype)[name])

    def expectations(self, inputs: dict[str, torch.Tensor], dtype: str) -> dict[str, Expected]:
        """Every output's reference on one input set, prepared for checks."""
        return {name: self.expected(name, ref, dtype) for name, ref in self.reference(inputs).items()}

    def check(self, outputs: dict[str, torch.Tensor], inputs: dict[str, torch.Tensor],
              expected: dict[str, Expected]) -> Check:
        """Compare every output with its reference; operators add structural checks on top."""
        worst_abs = worst_ratio = 0.0
        for name, want in expected.items():
            for input_name, tensor in inputs.items():
                if tensor.shape == outputs[name].shape and torch.equal(outputs[name], tensor) and \
                        not torch.equal(want.ref32.to(tensor.dtype), tensor):  # a copy is right only if the answer is
                    return Check(False, worst_abs, worst_ratio, f"{name}: a copy of input {input_name}")
            verdict = compare(name, outputs[name], want)
            if not verdict.ok:
                return verdict
            worst_abs, worst_ratio = max(worst_abs, verdict.max_abs_err), max(worst_ratio, verdict.max_err_ratio)
        return Check(True, worst_abs, worst_ratio)

    @abstractmethod
    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        """Bytes that any kernel must move between GM and the core (read each input, write each output once)."""

    @abstractmethod
    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Elements per (instruction class, compute dtype) a kernel must push through the vector unit."""
