"""Kernel arguments for the simulator: GM inputs and outputs, raw buffers, structs and scalars, and the
`--arg` text form the CLI accepts."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from tuner.errors import UsageError

_DTYPES = {
    "float16": np.float16, "half": np.float16, "fp16": np.float16,
    "float32": np.float32, "float": np.float32, "fp32": np.float32,
    "bfloat16": ml_dtypes.bfloat16, "bfloat16_t": ml_dtypes.bfloat16, "bf16": ml_dtypes.bfloat16,
    "int8": np.int8, "int8_t": np.int8, "uint8": np.uint8, "uint8_t": np.uint8,
    "int16": np.int16, "int16_t": np.int16, "uint16": np.uint16, "uint16_t": np.uint16,
    "int32": np.int32, "int32_t": np.int32, "uint32": np.uint32, "uint32_t": np.uint32,
    "int64": np.int64, "int64_t": np.int64, "uint64": np.uint64, "uint64_t": np.uint64,
    "float64": np.float64, "double": np.float64,
}
_SCALARS = {"u32": ("<I", 4), "i32": ("<i", 4), "u64": ("<Q", 8), "i64": ("<q", 8), "f32": ("<f", 4)}


def parse_dtype(name: str) -> np.dtype:
    """numpy dtype for a name such as float16, half, bfloat16 or int32."""
    try:
        return np.dtype(_DTYPES[name.strip().lower()])
    except KeyError:
        raise UsageError(f"unknown dtype '{name}' (known: {', '.join(sorted(_DTYPES))})") from None


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
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


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
        fmt, _ = _SCALARS[self.type]
        try:
            return struct.pack(fmt, self.value)
        except struct.error as exc:
            raise UsageError(f"{self.type}={self.value}: {exc}") from None

    @property
    def size(self) -> int:
        return _SCALARS[self.type][1]


KernelArg = GmIn | GmOut | GmBytes | Struct | Scalar


def _read(path: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"no such file: {path}")
    return p


def parse_arg(spec: str) -> KernelArg:
    """Parse one `--arg`: in=F.npy, out=F.npy:DTYPE:D0xD1, bytes=F, struct=F, u32=V, i32=V, u64=V, i64=V, f32=V."""
    key, sep, value = spec.partition("=")
    if not sep or not value:
        raise UsageError(f"--arg '{spec}': expected KIND=VALUE (in, out, bytes, struct, u32, i32, u64, i64, f32)")
    key = key.strip().lower()
    if key == "in":
        path = _read(value)
        try:
            array = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise UsageError(f"--arg {spec}: cannot read a .npy array: {exc}") from None
        return GmIn(np.ascontiguousarray(array), name=path.name)
    if key == "out":
        parts = value.split(":")
        if len(parts) != 3:
            raise UsageError(f"--arg {spec}: expected out=FILE.npy:DTYPE:D0xD1x...")
        try:
            shape = tuple(int(d) for d in parts[2].lower().split("x"))
        except ValueError:
            raise UsageError(f"--arg {spec}: shape '{parts[2]}' is not like 8x2048") from None
        if any(d <= 0 for d in shape):
            raise UsageError(f"--arg {spec}: every dimension must be positive")
        return GmOut(parse_dtype(parts[1]), shape, name=Path(parts[0]).name, path=Path(parts[0]))
    if key == "bytes":
        path = _read(value)
        return GmBytes(path.read_bytes(), name=path.name)
    if key == "struct":
        return Struct(_read(value).read_bytes())
    if key in _SCALARS:
        try:
            number: int | float = float(value) if key == "f32" else int(value, 0)
        except ValueError:
            raise UsageError(f"--arg {spec}: '{value}' is not a {'number' if key == 'f32' else 'integer'}") from None
        return Scalar(key, number)
    raise UsageError(f"--arg '{spec}': unknown kind '{key}' (in, out, bytes, struct, u32, i32, u64, i64, f32)")


def check_signature(args: list[KernelArg], params: list[dict], kernel: str) -> None:
    """Match the arguments against the kernel's parameters (count, pointer/scalar kind, sizes)."""
    if len(args) != len(params):
        raise UsageError(f"kernel '{kernel}' takes {len(params)} parameters, {len(args)} --arg given")
    for i, (arg, param) in enumerate(zip(args, params, strict=True)):
        want, size = param["kind"], param["size"]
        got = arg.kind
        if want == "pointer" and got != "pointer":
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a pointer (GM_ADDR): give in=, out= or bytes=")
        if want != "pointer" and got == "pointer":
            raise UsageError(f"parameter {i + 1} of '{kernel}' is passed by value ({size} bytes): give a scalar "
                             "(u32=, i32=, u64=, i64=, f32=) or struct=")
        if isinstance(arg, Struct) and len(arg.data) != size:
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a {size}-byte value; struct file has "
                             f"{len(arg.data)} bytes")
        if isinstance(arg, Scalar) and (want != got or arg.size != size):
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a {size}-byte {want} value; {arg.type}= does "
                             "not match")
