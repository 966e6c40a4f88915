"""A tuned operator called like a torch function (`TunedOp`), and the exported package that registers it as
`torch.ops.tuner.<op>` (`write_torch_package`).

The package holds the dispatch table (`tuner.search.dispatch`), the source of every build the table's rule can pick
for a shape in its range (`exported_builds`), copies of the rewritten variants its buckets use, and the table's CANN
custom-operator project. On CPU a call picks the kernel for the inputs' shape, builds it (cached) and runs it on the
simulator, with the simulator's checks (slow: for tests, and for pipelines without a device); on an NPU it calls the
CANN operator once the user has built and installed that project (`tuner.search.aclnn`; untried here);
`torch.compile` sees the op through its fake kernel, which gives the outputs' shapes and dtypes without running
anything.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tuner.backends import make_backend
from tuner.backends.args import pack_tiling
from tuner.backends.npu.package import render_template
from tuner.errors import UsageError
from tuner.ops.base import shape_text, to_numpy, to_torch
from tuner.search.aclnn import AclnnOp, NpuOpUnavailable
from tuner.search.builds import build_key, exported_builds
from tuner.search.cann_op import CannExportError, op_type_of, write_cann_project
from tuner.search.compile_cache import CompileCache
from tuner.search.dispatch import Choice, Dispatcher, DispatchTable, NoKernelForShape
from tuner.search.evaluate import kernel_args

__all__ = ["KernelFault", "TunedOp", "op_identifier", "write_torch_package"]

BUILDS_DIR = "builds"
CANN_DIR = "cann_op"  # the CANN custom-operator project of the same table: the NPU path, once built and installed
NPU_FILE = "npu.json"  # the CANN operator's type, or why the table has none
RUNS_DIR = "runs"  # each bucket's run: its rewritten variants, and a generated operator's project
TASK_FILE = "task.py"
_TORCH_DTYPES = {torch.float16: "float16", torch.float32: "float32", torch.bfloat16: "bfloat16"}


class KernelFault(RuntimeError):
    """The simulator found a fault in the tuned kernel at a shape (an out-of-bounds access, a race): the outputs
    cannot be trusted."""


def op_identifier(table: DispatchTable) -> str:
    """The name `torch.ops.tuner.<name>` registers: the operator's, as a Python identifier (`ops.scaled` → `ops_scaled`
    for a function generated from PyTorch)."""
    return re.sub(r"\W", "_", table.op)


class TunedOp:
    """`op(*inputs)` → the outputs, computed by the kernel the table picks for the inputs' shape, on the simulator.
    The inputs are the operator's, in the order of its kernel's `in` arguments; the first carries the shape."""

    def __init__(self, dispatcher: Dispatcher, sources: Mapping[str, str], backend: Any = None,
                 npu: Mapping[str, str] | None = None) -> None:
        self.dispatcher, self.sources = dispatcher, dict(sources)
        self.table = dispatcher.table
        self._backend = backend
        self.npu = dict(npu or {"refused": "the op was not loaded from an exported package"})
        self._aclnn: AclnnOp | None = None
        space = next(iter(dispatcher.spaces.values()))
        self.inputs = [a.tensor or a.name for a in space.args if a.kind == "in"]
        self.outputs = [a.tensor or a.name for a in space.args if a.kind == "out"]

    @classmethod
    def load(cls, directory: Path) -> TunedOp:
        """The op an exported package holds (`write_torch_package`)."""
        table = DispatchTable.read(directory)
        if table.task is not None:
            table = replace(table, task={**table.task, "path": str(directory / TASK_FILE)})
        sources = {p.stem: p.read_text() for p in sorted((directory / BUILDS_DIR).glob("*.cpp"))}
        return cls(Dispatcher.load(table, directory / RUNS_DIR), sources, npu=json.loads((directory / NPU_FILE)
                                                                                         .read_text()))

    @property
    def backend(self):
        if self._backend is None:
            self._backend = make_backend("sim", self.table.soc)
        return self._backend

    def check(self, tensors: Sequence[torch.Tensor]) -> tuple[Choice, str]:
        """The choice and build for these inputs; UsageError (one line) for a wrong count, shape or dtype."""
        name = f"torch.ops.tuner.{op_identifier(self.table)}"
        if len(tensors) != len(self.inputs):
            raise UsageError(f"{name} takes {len(self.inputs)} tensors ({', '.join(self.inputs)}), got {len(tensors)}")
        shape = tuple(int(d) for d in tensors[0].shape)
        dtype = _TORCH_DTYPES.get(tensors[0].dtype, str(tensors[0].dtype))
        choice = self.dispatcher.choose(shape, dtype)
        op = self.dispatcher.op_for(shape)
        expected_shapes = op.input_shapes(shape)
        expected_dtypes = op.input_dtypes(self.table.dtype)
        for tensor_name, tensor in zip(self.inputs, tensors, strict=True):
            want = tuple(expected_shapes.get(tensor_name, shape))
            if tuple(tensor.shape) != want:
                raise UsageError(f"{name}: {tensor_name} has shape {shape_text(tuple(tensor.shape))}, expected "
                                 f"{shape_text(want)} for x of shape {shape_text(shape)}")
            want_dtype = expected_dtypes.get(tensor_name, self.table.dtype)
            if _TORCH_DTYPES.get(tensor.dtype) != want_dtype:
                raise UsageError(f"{name}: {tensor_name} is {tensor.dtype}, expected {want_dtype}")
        key = build_key(choice)
        if key not in self.sources:
            raise NoKernelForShape(f"{name}: shape {shape_text(shape)} needs build {key}, which the export does not "
                                   "hold; tune the shape with --shapes and export again")
        return choice, key

    def output_like(self, tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """Empty outputs of the right shapes and dtypes (the fake kernel's answer)."""
        shape = tuple(int(d) for d in tensors[0].shape)
        op = self.dispatcher.op_for(shape)
        shapes, dtypes = op.output_shapes(shape), op.output_dtypes(self.table.dtype)
        inverse = {v: k for k, v in _TORCH_DTYPES.items()}
        return [tensors[0].new_empty(shapes.get(n, shape), dtype=inverse[dtypes.get(n, self.table.dtype)])
                for n in self.outputs]

    def __call__(self, *tensors: torch.Tensor) -> list[torch.Tensor]:
        choice, key = self.check(tensors)
        space = self.dispatcher.space(choice.bucket)
        build = CompileCache(self.backend).build(self.sources[key], space.kernel)
        if build.artifact is None:
            raise KernelFault(f"build {key} does not compile here: {build.error.summary if build.error else ''}")
        shape = tuple(int(d) for d in tensors[0].shape)
        op = self.dispatcher.op_for(shape)
        arrays = {n: np.ascontiguousarray(to_numpy(t.detach().cpu())) for n, t in zip(self.inputs, tensors,
                                                                                         strict=True)}
        args = kernel_args(space, arrays, op.output_shapes(shape), self.table.dtype, pack_tiling(choice.point.tiling),
                           op.output_dtypes(self.table.dtype), space.workspace_bytes(choice.point))
        result = self.backend.run(build.artifact, args, choice.point.block_dim)
        if result.faults:
            raise KernelFault(f"torch.ops.tuner.{op_identifier(self.table)} at {shape_text(shape)}: {result.faults[0]}")
        return [to_torch(a) for a in result.outputs]

    def on_npu(self, *tensors: torch.Tensor) -> list[torch.Tensor]:
        """The outputs computed on the NPU by the package's CANN operator (its `cann_op/`, built and installed), on
        torch_npu's current stream; the same checks as on CPU first."""
        self.check(tensors)
        if self._aclnn is None:
            if "op_type" not in self.npu:
                raise NpuOpUnavailable(f"torch.ops.tuner.{op_identifier(self.table)} has no NPU kernel: "
                                       f"{self.npu['refused']}")
            self._aclnn = AclnnOp(self.npu["op_type"])
        import torch_npu  # noqa: F401  (torch.npu)

        inputs = [t.contiguous() for t in tensors]
        outputs = self.output_like(inputs)
        self._aclnn(inputs, outputs, torch.npu.current_stream().npu_stream)
        return outputs


def write_torch_package(dispatcher: Dispatcher, runs_dir: Path, dest: Path) -> Path:
    """Write the installable package of `torch.ops.tuner.<op>` to `dest`: pyproject.toml, the module (registration,
    fake kernel), the dispatch table, every build's source, the rewritten variants its buckets use, and the CANN
    project of the same table for the NPU path (or, in npu.json, why the table has none)."""
    table = dispatcher.table
    op = op_identifier(table)
    package = f"tuner_op_{op}"
    root = dest / package
    builds = exported_builds(dispatcher)
    try:
        for stale in (BUILDS_DIR, CANN_DIR):
            if (root / stale).exists():
                shutil.rmtree(root / stale)
        (root / BUILDS_DIR).mkdir(parents=True)
        table.write(root)
        for key, build in builds.items():
            (root / BUILDS_DIR / f"{key}.cpp").write_text(build.source)
        for run in {b.run for b in table.buckets}:
            for part in ("variants", "project"):
                if (runs_dir / run / part).is_dir():
                    shutil.copytree(runs_dir / run / part, root / RUNS_DIR / run / part, dirs_exist_ok=True)
        if table.task is not None:
            shutil.copyfile(table.task["path"], root / TASK_FILE)
        space = next(iter(dispatcher.spaces.values()))
        try:
            write_cann_project(dispatcher, root / CANN_DIR)
            npu = {"op_type": op_type_of(space.kernel)}
        except CannExportError as exc:
            npu = {"refused": str(exc)}
        (root / NPU_FILE).write_text(json.dumps(npu) + "\n")
        inputs = [a.tensor or a.name for a in space.args if a.kind == "in"]
        outputs = [a.tensor or a.name for a in space.args if a.kind == "out"]
        context = {"op": op, "package": package, "table": table, "inputs": inputs, "outputs": outputs,
                   "builds": sorted(builds), "npu": npu}
        (root / "__init__.py").write_text(render_template("torch/__init__.py.j2", **context))
        (dest / "pyproject.toml").write_text(render_template("torch/pyproject.toml.j2", **context))
        (dest / "README.md").write_text(render_template("torch/README.md.j2", **context))
    except OSError as exc:
        raise UsageError(f"cannot write the package to {dest}: {exc.strerror or exc}") from None
    return dest
