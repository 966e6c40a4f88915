"""The `--arg` text form of kernel arguments that `tuner simulate` accepts, and the check of arguments against a
compiled kernel's signature (the argument types themselves are the backend contract's: tuner/backends/args.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import ml_dtypes
import numpy as np

from tuner.backends.args import SCALAR_TYPES, GmBytes, GmIn, GmOut, GmShape, KernelArg, Scalar, Struct, simulation_bytes
from tuner.errors import UsageError
from tuner.processes import check_memory, gib

_DTYPES = {
    "float16": np.float16, "half": np.float16, "fp16": np.float16,
    "float32": np.float32, "float": np.float32, "fp32": np.float32,
    "bfloat16": ml_dtypes.bfloat16, "bfloat16_t": ml_dtypes.bfloat16, "bf16": ml_dtypes.bfloat16,
    "int8": np.int8, "int8_t": np.int8, "uint8": np.uint8, "uint8_t": np.uint8,
    "int16": np.int16, "int16_t": np.int16, "uint16": np.uint16, "uint16_t": np.uint16,
    "int32": np.int32, "int32_t": np.int32, "uint32": np.uint32, "uint32_t": np.uint32,
    "int64": np.int64, "int64_t": np.int64, "uint64": np.uint64, "uint64_t": np.uint64,
    "float64": np.float64, "double": np.float64, "bool": np.bool_,
}
NPY_MAGIC = b"\x93NUMPY"
# An input given by its shape alone, for a timing-only run: float32[4096,393216].
SHAPE_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\]]*)\]\s*")
KINDS = "in, out, bytes, zeros, struct, u32, i32, u64, i64, f32"


def check_output_path(path: Path, what: str) -> None:
    """UsageError unless a file can be written at `path`: its directory exists and is writable, and it is not a
    directory itself."""
    parent = path.parent
    if path.is_dir():
        raise UsageError(f"{what}: {path} is a directory")
    if not parent.is_dir():
        raise UsageError(f"{what}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{what}: directory {parent} is not writable")


def parse_dtype(name: str) -> np.dtype:
    """numpy dtype for a name such as float16, half, bfloat16 or int32."""
    try:
        return np.dtype(_DTYPES[name.strip().lower()])
    except KeyError:
        raise UsageError(f"unknown dtype '{name}' (known: {', '.join(sorted(_DTYPES))})") from None


def _read(path: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"no such file: {path}")
    return p


def _load_npy(path: Path, spec: str) -> np.ndarray:
    """The array in a .npy file, after checking that the file is one and that its data fits in memory."""
    with open(path, "rb") as handle:
        magic = handle.read(len(NPY_MAGIC))
    if not magic:
        raise UsageError(f"--arg {spec}: {path} is empty (0 bytes), not a .npy file")
    if magic != NPY_MAGIC:
        raise UsageError(f"--arg {spec}: {path} is not a .npy file (it does not start with numpy's magic bytes)")
    try:
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise UsageError(f"--arg {spec}: {path} is not a readable .npy array ({exc})") from None
    check_memory(mapped.nbytes, f"--arg {spec} ({mapped.nbytes} bytes)")
    return np.array(mapped, order="C")


def parse_shape_spec(text: str, what: str) -> GmShape | None:
    """The GmShape of `DTYPE[D0,D1,...]` (an input given by its shape alone), None when `text` is not of that
    form (a file name); UsageError for a bad dtype or dimension."""
    match = SHAPE_SPEC.fullmatch(text)
    if match is None:
        return None
    dims = [d.strip() for d in match.group(2).split(",")]
    if not all(d.isdigit() and int(d) > 0 for d in dims):
        raise UsageError(f"{what}: shape [{match.group(2)}] is not a list of positive integers like [4096,393216]")
    return GmShape(parse_dtype(match.group(1)), tuple(int(d) for d in dims), name=text.strip())


def check_simulation_memory(args: list[KernelArg], *, timing_only: bool = False) -> None:
    """MemoryLimitError, naming the largest buffer, when a `tuner simulate` run of `args` would not fit."""
    buffers = [] if timing_only else [(a.nbytes, a.name) for a in args if isinstance(a, GmOut)]
    buffers += [(a.array.nbytes, a.name) for a in args if isinstance(a, GmIn)]
    buffers += [(len(a.data), a.name) for a in args if isinstance(a, GmBytes)]
    if buffers:
        size, name = max(buffers)
        check_memory(simulation_bytes(args, timing_only=timing_only),
                     f"the simulation (largest GM buffer: {name}, {gib(size)})")


def parse_arg(spec: str) -> KernelArg:
    """Parse one `--arg`: in=F.npy, in=DTYPE[D0,D1] (an input given by its shape alone, for --timing-only),
    out=F.npy:DTYPE:D0xD1, bytes=F, zeros=N, struct=F, u32=V, i32=V, u64=V, i64=V, f32=V. zeros=N is a GM buffer
    of N zeroed bytes that is not read back (a workspace)."""
    key, sep, value = spec.partition("=")
    if not sep or not value:
        raise UsageError(f"--arg '{spec}': expected KIND=VALUE ({KINDS})")
    key = key.strip().lower()
    if key == "in":
        shaped = parse_shape_spec(value, f"--arg {spec}")
        if shaped is not None and not Path(value).is_file():
            return shaped
        path = _read(value)
        return GmIn(_load_npy(path, spec), name=path.name)
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
        out = GmOut(parse_dtype(parts[1]), shape, name=Path(parts[0]).name, path=Path(parts[0]))
        check_output_path(Path(parts[0]), f"--arg {spec}")
        return out
    if key == "bytes":
        path = _read(value)
        return GmBytes(path.read_bytes(), name=path.name)
    if key == "zeros":
        try:
            size = int(value, 0)
        except ValueError:
            size = 0
        if size < 1:
            raise UsageError(f"--arg {spec}: '{value}' is not a positive number of bytes")
        check_memory(size, f"--arg {spec} ({size} bytes)")
        return GmBytes(bytes(size), name="zeros")
    if key == "struct":
        return Struct(_read(value).read_bytes())
    if key in SCALAR_TYPES:
        try:
            number: int | float = float(value) if key == "f32" else int(value, 0)
        except ValueError:
            raise UsageError(f"--arg {spec}: '{value}' is not a {'number' if key == 'f32' else 'integer'}") from None
        return Scalar(key, number)
    raise UsageError(f"--arg '{spec}': unknown kind '{key}' ({KINDS})")


def check_signature(args: list[KernelArg], params: list[dict], kernel: str) -> None:
    """Match the arguments against the kernel's parameters (count, pointer/scalar kind, sizes)."""
    if len(args) != len(params):
        raise UsageError(f"kernel '{kernel}' takes {len(params)} parameters, {len(args)} --arg given")
    for i, (arg, param) in enumerate(zip(args, params, strict=True)):
        want, size = param["kind"], param["size"]
        got = arg.kind
        if want == "pointer" and got != "pointer":
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a pointer (GM_ADDR): give in=, out=, bytes= or "
                             "zeros=")
        if want != "pointer" and got == "pointer":
            raise UsageError(f"parameter {i + 1} of '{kernel}' is passed by value ({size} bytes): give a scalar "
                             "(u32=, i32=, u64=, i64=, f32=) or struct=")
        if isinstance(arg, Struct) and len(arg.data) != size:
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a {size}-byte value; struct file has "
                             f"{len(arg.data)} bytes")
        if isinstance(arg, Scalar) and (want != got or arg.size != size):
            raise UsageError(f"parameter {i + 1} of '{kernel}' is a {size}-byte {want} value; {arg.type}= does "
                             "not match")
