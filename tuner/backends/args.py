"""The arguments of a kernel launch, as every backend takes them: GM inputs and outputs, raw buffers, structs passed
by value and scalars. The contract's own types: the simulator underneath the backends takes them too."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tuner.errors import UsageError

SCALAR_TYPES = {"u32": ("<I", 4), "i32": ("<i", 4), "u64": ("<Q", 8), "i64": ("<q", 8), "f32": ("<f", 4)}


@dataclass(frozen=True)
class GmIn:
    """A GM buffer holding an array's bytes."""

    array: np.ndarray
    name: str = "in"
    kind = "pointer"


@dataclass(frozen=True)
class GmOut:
    """A zeroed GM buffer of `shape` x `dtype`, returned as an array after the run."""

    dtype: np.dtype
    shape: tuple[int, ...]
    name: str = "out"
    path: Path | None = None
    kind = "pointer"

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class GmShape:
    """A GM input known by its shape and dtype alone, for a timing-only run: no bytes are given, none are read."""

    dtype: np.dtype
    shape: tuple[int, ...]
    name: str = "in"
    kind = "pointer"

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class GmBytes:
    """A GM buffer holding raw bytes (e.g. a tiling struct read from GM)."""

    data: bytes
    name: str = "bytes"
    kind = "pointer"


@dataclass(frozen=True)
class Struct:
    """A struct passed by value; its bytes must match the parameter's size."""

    data: bytes
    kind = "record"


@dataclass(frozen=True)
class Scalar:
    """A scalar parameter: u32, i32, u64, i64 or f32."""

    type: str
    value: int | float

    @property
    def kind(self) -> str:
        return "floating" if self.type == "f32" else "integral"

    @property
    def data(self) -> bytes:
        fmt, _ = SCALAR_TYPES[self.type]
        try:
            return struct.pack(fmt, self.value)
        except struct.error as exc:
            raise UsageError(f"{self.type}={self.value}: {exc}") from None

    @property
    def size(self) -> int:
        return SCALAR_TYPES[self.type][1]


KernelArg = GmIn | GmOut | GmShape | GmBytes | Struct | Scalar


def pack_tiling(tiling: tuple[tuple[str, int], ...]) -> bytes:
    """A tiling struct as the kernel reads it from GM: its uint32 fields, little-endian, in order; UsageError for a
    field that is not a uint32."""
    for name, value in tiling:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32:
            raise UsageError(f"tiling field {name}={value!r} is not a uint32")
    return struct.pack(f"<{len(tiling)}I", *(value for _, value in tiling))


def simulation_bytes(args: list[KernelArg], *, timing_only: bool = False) -> int:
    """Memory a `tuner simulate` run of `args` takes beyond the inputs already loaded: each input once more in the
    simulator's GM and once in its scratch file; each output in GM, in its scratch file, read back and copied
    into an array (none of it in a timing-only run, which never touches an output's pages); raw buffers in GM
    and a file. An input given by its shape alone takes none."""
    total = 0
    for arg in args:
        if isinstance(arg, GmIn):
            total += 2 * arg.array.nbytes
        elif isinstance(arg, GmOut) and not timing_only:
            total += 4 * arg.nbytes
        elif isinstance(arg, GmBytes):
            total += 2 * len(arg.data)
    return total
