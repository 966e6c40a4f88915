"""Kernel arguments for the simulator: GM inputs and outputs, raw buffers, structs and scalars, and the
`--arg` text form the CLI accepts."""

from __future__ import annotations

import math
import os
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
NPY_MAGIC = b"\x93NUMPY"
_UNLIMITED = 1 << 60  # cgroup v1 writes "no limit" as a number near 2**63


class MemoryLimitError(UsageError):
    """Raised before a command starts when what it would hold in memory exceeds what the machine has free."""


def _meminfo_available(meminfo: Path) -> int | None:
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room(proc_cgroup: Path, cgroup_root: Path) -> int | None:
    """Bytes this process's memory cgroup (v2, or v1) may still take: its tightest limit less its usage."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    rooms = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, group = fields
        if controllers == "":
            base, limit_file, usage_file = cgroup_root, "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base, limit_file, usage_file = cgroup_root / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        directory = base / group.lstrip("/")
        for level in (directory, *directory.parents):  # a limit on any ancestor binds too
            limit, usage = _read_int(level / limit_file), _read_int(level / usage_file)
            if limit is not None and limit < _UNLIMITED and usage is not None:
                rooms.append(max(0, limit - usage))
            if level == base:
                break
    return min(rooms) if rooms else None


def available_memory(meminfo: Path = Path("/proc/meminfo"), proc_cgroup: Path = Path("/proc/self/cgroup"),
                     cgroup_root: Path = Path("/sys/fs/cgroup")) -> tuple[int, str] | None:
    """Bytes of memory this process can still get, and where that number comes from: MemAvailable, or the
    room left under the memory cgroup's limit when that is lower. None when neither can be read."""
    found = [(n, "MemAvailable") for n in [_meminfo_available(meminfo)] if n is not None]
    found += [(n, "cgroup memory limit") for n in [_cgroup_room(proc_cgroup, cgroup_root)] if n is not None]
    return min(found) if found else None


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def check_memory(needed: int, what: str) -> None:
    """MemoryLimitError when `needed` bytes (for `what`) exceed the memory available now."""
    room = available_memory()
    if room is not None and needed > room[0]:
        raise MemoryLimitError(f"{what} needs about {_gib(needed)} of memory; this machine has {_gib(room[0])} "
                               f"available ({room[1]})")


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


def simulation_bytes(args: list[KernelArg]) -> int:
    """Memory a `tuner simulate` run of `args` takes beyond the inputs already loaded: each input once more in the
    simulator's GM and once in its scratch file; each output in GM, in its scratch file, read back and copied
    into an array; raw buffers in GM and a file."""
    total = 0
    for arg in args:
        if isinstance(arg, GmIn):
            total += 2 * arg.array.nbytes
        elif isinstance(arg, GmOut):
            total += 4 * arg.nbytes
        elif isinstance(arg, GmBytes):
            total += 2 * len(arg.data)
    return total


def check_simulation_memory(args: list[KernelArg]) -> None:
    """MemoryLimitError, naming the largest buffer, when a `tuner simulate` run of `args` would not fit."""
    buffers = [(a.nbytes, a.name) for a in args if isinstance(a, GmOut)]
    buffers += [(a.array.nbytes, a.name) for a in args if isinstance(a, GmIn)]
    if buffers:
        size, name = max(buffers)
        check_memory(simulation_bytes(args), f"the simulation (largest GM buffer: {name}, {_gib(size)})")


def parse_arg(spec: str) -> KernelArg:
    """Parse one `--arg`: in=F.npy, out=F.npy:DTYPE:D0xD1, bytes=F, struct=F, u32=V, i32=V, u64=V, i64=V, f32=V."""
    key, sep, value = spec.partition("=")
    if not sep or not value:
        raise UsageError(f"--arg '{spec}': expected KIND=VALUE (in, out, bytes, struct, u32, i32, u64, i64, f32)")
    key = key.strip().lower()
    if key == "in":
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
