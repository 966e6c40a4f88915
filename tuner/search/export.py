"""Exporting a tuned kernel: the source, its tiling, how to call it, and how to run it in the simulator or build it
with CANN, in one directory a user can take away (`runs/<run>/best/`).

An `ExportBundle` holds everything the export says about one kernel, checked when it is made; `write_export`
writes every file from it, each from a template of templates/export/: `kernel.json` says how to call the kernel,
`run_sim.sh` re-runs it with `tuner simulate`, `launcher.cpp` + `CMakeLists.txt` are the kernel-launch project
the NPU backend's packaging makes (tuner/backends/npu/package.py; not built here: no CANN toolkit), and
`run.sh -r cpu|npu|tuner-sim [-v SOC_VERSION]` is the CANN samples' entry point to all three. Nothing is written
per operator: the arguments come from the search space's `args`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuner.backends.args import pack_tiling
from tuner.backends.npu.package import LaunchArg, launch_project, render_template
from tuner.data.dtypes import C_TYPES
from tuner.errors import UsageError
from tuner.sim.args import parse_dtype
from tuner.space.spaces import ARG_KINDS, ArgSpec

__all__ = ["ExportBundle", "ExportError", "export_arguments", "write_export"]

KERNEL_FILE = "kernel.cpp"
TILING_FILE = "tiling.bin"
SIM_BACKENDS = ("sim", "simulator")
SCRIPTS = ("run_sim.sh", "run.sh")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SOC_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")  # it is written into run.sh and run_sim.sh


class ExportError(UsageError):
    """Raised when what the search hands over cannot describe a callable kernel, or the export cannot be written."""


def _c_type(dtype: str) -> str:
    if dtype not in C_TYPES:
        raise ExportError(f"dtype '{dtype}' has no C type (known: {', '.join(sorted(C_TYPES))})")
    return C_TYPES[dtype]


def export_arguments(specs: tuple[ArgSpec, ...], dtype: str, shape: tuple[int, ...],
                     output_shapes: Mapping[str, tuple[int, ...]],
                     input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                     dtypes: Mapping[str, str] | None = None, workspace_bytes: int = 0) -> tuple[LaunchArg, ...]:
    """The kernel's parameters in order, each tensor with its shape and dtype: an output has the shape the
    operator gives its tensor, an input the one `input_shapes` names or else the run's `shape`; a tensor's dtype is
    the one `dtypes` names, else `dtype`; a workspace has the exported point's `workspace_bytes`
    (`SearchSpace.workspace_bytes`)."""
    arguments = []
    for spec in specs:
        if spec.kind == "workspace":
            arguments.append(LaunchArg(spec.name, spec.kind, nbytes=int(workspace_bytes)))
            continue
        if spec.kind not in ("in", "out"):
            arguments.append(LaunchArg(spec.name, spec.kind))
            continue
        tensor = spec.tensor or spec.name
        if spec.kind == "in":
            dims = (input_shapes or {}).get(tensor, shape)
        elif tensor in output_shapes:
            dims = output_shapes[tensor]
        else:
            raise ExportError(f"output argument '{spec.name}' carries '{tensor}', which has no output shape "
                              f"(known: {', '.join(sorted(output_shapes)) or 'none'})")
        kind = (dtypes or {}).get(tensor, dtype)
        arguments.append(LaunchArg(spec.name, spec.kind, tensor, tuple(int(d) for d in dims), kind, _c_type(kind),
                                   parse_dtype(kind).itemsize))
    return tuple(arguments)


def _check_arguments(arguments: tuple[LaunchArg, ...]) -> None:
    """Known kinds, distinct C identifiers, tensors whose names can name files, shapes of at least one element, a
    workspace of at least one byte, an output."""
    seen: set[str] = set()
    for i, arg in enumerate(arguments):
        if arg.kind not in ARG_KINDS:
            raise ExportError(f"argument {i + 1} ('{arg.name}') has kind '{arg.kind}'; expected in, out, tiling or "
                              "workspace")
        if not _IDENT.match(arg.name):
            raise ExportError(f"argument {i + 1}: '{arg.name}' is not a C identifier")
        if arg.name in seen:
            raise ExportError(f"argument name '{arg.name}' appears twice")
        seen.add(arg.name)
        if arg.kind == "workspace" and arg.nbytes < 1:
            raise ExportError(f"workspace '{arg.name}' has {arg.nbytes} bytes; expected at least 1")
        if arg.kind in ("tiling", "workspace"):
            continue
        if not _IDENT.match(arg.tensor):  # it names files: input/<tensor>.bin, <tensor>.npy
            raise ExportError(f"argument '{arg.name}' carries '{arg.tensor}', which is not an identifier")
        if not arg.shape or any(d < 1 for d in arg.shape):
            raise ExportError(f"argument '{arg.name}': shape {arg.shape} is empty or has a dimension below 1")
    if not any(arg.kind == "out" for arg in arguments):
        raise ExportError("the kernel has no output argument")


def _jsonable(value: Any) -> Any:
    """numpy scalars and tuples in knob values as plain JSON."""
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class ExportBundle:
    """One tuned kernel as an export describes it: the source and its entry, the arguments in order (from
    `export_arguments`), the tiling values and struct, the launch, the SoC and backend, the time and where it came
    from, and the trial it came from. `untrusted`: an LLM wrote some of it (kernel.json says so, run_sim.sh runs it
    in the sandbox). The tiling holds the shape, so the kernel serves inputs of exactly these shapes. Checked when
    made: ExportError (a UsageError) names the first thing that cannot describe a callable kernel."""

    source: str
    kernel: str
    arguments: tuple[LaunchArg, ...]
    tiling: tuple[tuple[str, int], ...]
    tiling_struct: str
    block_dim: int
    op: str
    shape: tuple[int, ...]
    dtype: str
    soc: str
    backend: str
    time_us: float | None
    time_source: str
    variant: str
    params: Mapping[str, Any]
    run: str
    study: str
    trial: int
    untrusted: bool = False

    def __post_init__(self) -> None:
        _c_type(self.dtype)
        if not _IDENT.match(self.kernel):
            raise ExportError(f"kernel entry '{self.kernel}' is not a C identifier")
        if not _SOC_NAME.match(self.soc):
            raise ExportError(f"SoC '{self.soc}' is not a SoC name (letters, digits, '_', '.', '-')")
        if not 1 <= int(self.block_dim) <= 65535:
            raise ExportError(f"block_dim {self.block_dim} is outside [1, 65535]")
        _check_arguments(self.arguments)
        if not self.tiling_bytes and any(a.kind == "tiling" for a in self.arguments):
            raise ExportError("the kernel takes a tiling buffer but the tiling struct has no fields")

    @property
    def tiling_bytes(self) -> bytes:
        return pack_tiling(self.tiling)

    @property
    def time_label(self) -> str:
        """Where time_us came from; a simulator's time is never called measured."""
        if self.backend.lower() in SIM_BACKENDS and not self.time_source.lower().startswith("simulated"):
            return f"simulated, {self.soc} model"
        return self.time_source

    @property
    def plain_params(self) -> dict[str, Any]:
        return _jsonable(dict(self.params))

    def description(self) -> dict[str, Any]:
        """kernel.json: how to call the kernel, and where it and its time came from."""
        return {
            "entry": self.kernel, "source": KERNEL_FILE, "block_dim": int(self.block_dim), "defines": [],
            "soc": self.soc, "op": self.op, "shape": [int(d) for d in self.shape], "dtype": self.dtype,
            "variant": self.variant, "params": self.plain_params, "time_us": self.time_us,
            "time_source": self.time_label, "run": self.run, "study": self.study, "trial": int(self.trial),
            "arguments": [_described(a) for a in self.arguments], "untrusted": self.untrusted,
        }


def _described(arg: LaunchArg) -> dict[str, Any]:
    """One entry of kernel.json's `arguments`: a tensor (in/out), the tiling buffer (bytes from a file) or the
    workspace (that many zeroed bytes)."""
    if arg.kind == "tiling":
        return {"name": arg.name, "kind": "bytes", "file": TILING_FILE}
    if arg.kind == "workspace":
        return {"name": arg.name, "kind": "workspace", "bytes": arg.nbytes}
    return {"name": arg.name, "kind": arg.kind, "dtype": arg.dtype, "shape": list(arg.shape), "tensor": arg.tensor}


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=2) + "\n"


def write_export(bundle: ExportBundle, dest: Path) -> Path:
    """Write every file of the export of `bundle` to `dest` (created; files overwritten) and return `dest`;
    ExportError when it cannot be written."""
    context = {"b": bundle, "tiling_file": TILING_FILE}
    texts = {
        KERNEL_FILE: bundle.source,
        "tiling.json": _json({"struct": bundle.tiling_struct, "fields": dict(bundle.tiling)}),
        "kernel.json": _json(bundle.description()),
        **{name: render_template(f"{name}.j2", **context) for name in SCRIPTS},
        **launch_project(kernel=bundle.kernel, block_dim=int(bundle.block_dim), soc=bundle.soc,
                         arguments=bundle.arguments, tiling=bundle.tiling, tiling_struct=bundle.tiling_struct),
        "README.md": render_template("README.md.j2", **context),
    }
    dest = Path(dest)
    try:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / TILING_FILE).write_bytes(bundle.tiling_bytes)
        for name, text in texts.items():
            (dest / name).write_text(text)
        for name in SCRIPTS:
            (dest / name).chmod(0o755)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise ExportError(f"cannot write the export to {dest}: {where}{exc.strerror or exc}") from None
    return dest
