"""A user's operator as an `Operator`: a task loaded, captured and lowered to one kernel, its inputs drawn as the
task draws them, its reference the task's own forward in float64."""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from pathlib import Path

import torch

from tuner.graph.capture import capture
from tuner.graph.generate import write_project
from tuner.graph.ir import Graph
from tuner.graph.load import Task, TaskError, load_function, load_task, parse_inputs
from tuner.graph.lower import Lowered, lower
from tuner.ops.base import DTYPE_BYTES, RTOL, Expected, Operator, shape_text

__all__ = ["GRAPH_RTOL", "GraphOperator", "graph_operator"]

# float32 at least as strict as atol = rtol = 1e-4 (the floor); 16-bit as for the packaged operators
GRAPH_RTOL = {**RTOL, "float32": 1e-4}
SEED = 20_000


class GraphOperator(Operator):
    """One task's operator. `name` is the file's stem (and `.function`); inputs are the kernel's GM inputs (the
    forward's tensors, the module's parameters and buffers), outputs `out0`, `out1`, ..."""

    def __init__(self, task: Task, graph: Graph, lowered: Lowered, source: Path) -> None:
        super().__init__()
        self.task, self.graph, self.lowered, self.source = task, graph, lowered, source
        self.name = task.name
        narrowed = [i.name for i in graph.inputs if i.type.dtype == "int64"]
        self.description = f"{task.name}, generated from {source.name} ({lowered.layout} kernel" + \
            (f"; int64 {', '.join(narrowed)} read as int32)" if narrowed else ")")
        self.inputs = tuple(dict.fromkeys(t.value for t in lowered.ins))  # a sliced tensor once
        self.outputs = tuple(t.name for t in lowered.outs)
        floats = [t.dtype for t in lowered.ins + lowered.outs if t.dtype in RTOL and RTOL[t.dtype] > 0]
        self.dtype = min(floats or ["float32"], key=lambda d: (DTYPE_BYTES[d], d != "float16"))
        self.dtypes = (self.dtype,)
        self.shape = lowered.shape
        self._forward = [i.name for i in graph.inputs if i.kind == "input"]
        self._targets = {i.name: i.target for i in graph.inputs if i.kind in ("parameter", "buffer")}
        self._indices = {i.name: i.type.shape for i in graph.inputs if i.kind == "index"}

    @property
    def run_label(self) -> str:
        """The name, function and forward's shapes a run of it is called by: `my_op-8x64.64-float16`."""
        shapes = ".".join(shape_text(i.type.shape) for i in self.graph.inputs if i.kind == "input")
        return f"{self.name}-{shapes}-{self.dtype}"

    def write(self, root: Path) -> None:
        """The generated template and search space under `root` (kept where a user has edited them), and a copy of
        the task file (`task.py`) that later commands make the operator again from."""
        write_project(root, self.name, self.lowered, self.graph, self.source.name)
        copy_path = root / "task.py"
        if not copy_path.exists():
            partial = root / "task.py.partial"
            partial.write_bytes(self.source.read_bytes())
            partial.replace(copy_path)

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        block_elems = 32 // DTYPE_BYTES[self.dtype]
        context: dict[str, int | str] = {"dtype": self.dtype, "dtype_bytes": DTYPE_BYTES[self.dtype],
                                         "block_elems": block_elems, "stat": block_elems}
        context.update(self.lowered.context())
        return context

    def check_shape(self, shape: tuple[int, ...]) -> None:
        super().check_shape(self.shape)

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {t.value: t.shape for t in self.lowered.ins}

    def output_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {t.name: t.shape for t in self.lowered.outs}

    def input_dtypes(self, dtype: str) -> dict[str, str]:
        return {t.value: t.dtype for t in self.lowered.ins}

    def output_dtypes(self, dtype: str) -> dict[str, str]:
        return {t.name: t.dtype for t in self.lowered.outs}

    def expected(self, name: str, reference: torch.Tensor, dtype: str) -> Expected:
        out_dtype = self.output_dtypes(dtype)[name]
        return Expected.of(reference, out_dtype, GRAPH_RTOL[out_dtype])

    def expectations(self, inputs: dict[str, torch.Tensor], dtype: str) -> dict[str, Expected]:
        """The float64 references, each output allowed its tolerance plus PyTorch's own error in the task's dtypes
        (a forward that rounds to float16 on the way loses what no kernel that rounds the same way can get back;
        a kernel as close to PyTorch as the tolerance is as close to float64 as this allows)."""
        references = self.reference(inputs)
        try:
            native = self.torch_native(inputs)
        except RuntimeError:  # the forward does not run in its own dtypes on CPU: no slack
            native = {}
        expectations = {}
        for name, reference in references.items():
            out_dtype = self.output_dtypes(dtype)[name]
            slack = (native[name].to(torch.float64) - reference).abs() if name in native else None
            expectations[name] = Expected.of(reference, out_dtype, GRAPH_RTOL[out_dtype], slack)
        return expectations

    def _arguments(self, inputs: dict[str, torch.Tensor]) -> list[object]:
        """The forward's arguments for a set of kernel inputs: its tensors in order, its constants as the task has
        them."""
        tensors = iter(inputs[name] for name in self._forward)
        return [next(tensors) if isinstance(value, torch.Tensor) else value for value in self.task.inputs]

    def _module(self, inputs: dict[str, torch.Tensor], dtype: torch.dtype | None) -> torch.nn.Module:
        """The task's module with its parameters and buffers set from `inputs` (at `dtype` where given)."""
        module = copy.deepcopy(self.task.module)
        state = module.state_dict()
        for name, target in self._targets.items():
            if target in state and name in inputs:  # a buffer the forward does not read is not the kernel's
                value = inputs[name]
                state[target] = value.to(dtype) if dtype is not None and value.is_floating_point() else value
        module.load_state_dict(state, strict=False)
        return module.eval()

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Set `index`: the task's own draw, seeded per set; parameters and buffers as the module holds them."""
        torch.manual_seed(SEED + index)
        drawn = [v for v in self.task.draw() if isinstance(v, torch.Tensor)]
        values = dict(zip(self._forward, drawn, strict=True))
        state = self.task.module.state_dict()
        for name, target in self._targets.items():
            values[name] = state[target].detach().clone()
        for name, index_shape in self._indices.items():
            values[name] = torch.arange(math.prod(index_shape), dtype=torch.float32).reshape(index_shape)
        return {t.value: _narrowed(values[t.value], t.dtype, t.value) for t in self.lowered.ins}

    def _outputs(self, result: object) -> dict[str, torch.Tensor]:
        results = result if isinstance(result, (tuple, list)) else (result,)
        return {t.name: r.reshape(t.shape) for t, r in zip(self.lowered.outs, results, strict=True)}

    def _declared(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The inputs as the forward declares them: int64 again where the kernel reads int32 (torch.gather and
        take_along_dim take int64 indices only)."""
        wide = {i.name for i in self.graph.inputs if i.type.dtype == "int64"}
        return {k: v.to(torch.int64) if k in wide else v for k, v in inputs.items()}

    def reference(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The task's forward on CPU in float64 (every floating tensor, parameters included), or in float32 where
        it does not run in float64 (a forward that casts to float32 on the way mixes the two)."""
        failure = ""
        for wide_dtype in (torch.float64, torch.float32):
            wide = {k: v.to(wide_dtype) if v.is_floating_point() else v for k, v in self._declared(inputs).items()}
            try:
                with torch.no_grad():
                    module = self._module(wide, wide_dtype).to(wide_dtype)
                    out = self._outputs(module(*self._arguments(wide)))
            except RuntimeError as exc:
                failure = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                continue
            return {k: v.to(torch.float64) for k, v in out.items()}
        raise TaskError(f"{self.source.name}: the forward does not run on CPU in float64 or float32 ({failure})")

    def torch_native(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        with torch.no_grad():
            declared = self._declared(inputs)
            return self._outputs(self._module(declared, None)(*self._arguments(declared)))

    def compulsory_bytes(self, shape: tuple[int, ...], dtype: str) -> int:
        return sum(math.prod(t.shape) * DTYPE_BYTES[t.dtype] for t in self.lowered.ins + self.lowered.outs)

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Every element of the iteration space through the math's vector passes, in fp32."""
        return {("unary_simple", "float"): self.lowered.passes * self.lowered.total}


def _narrowed(tensor: torch.Tensor, dtype: str, name: str) -> torch.Tensor:
    """An input as the kernel takes it: int64 as int32 where its values fit, contiguous."""
    if tensor.dtype == torch.int64 and dtype == "int32":
        info = torch.iinfo(torch.int32)
        if tensor.numel() and (int(tensor.min()) < info.min or int(tensor.max()) > info.max):
            raise TaskError(f"input {name} holds int64 values beyond int32, which the kernel reads them as")
        tensor = tensor.to(torch.int32)
    return tensor.contiguous()


def graph_operator(path: Path, function: str | None = None, inputs: str | None = None,
                   name: str | None = None) -> GraphOperator:
    """The operator of a task file (KernelBench format), or of one function of a file with `inputs` described
    (`x=float16[4096,4096], ...`), called `name` where given (a run's copy of the file keeps the original's name);
    TaskError, CaptureError or LoweringError in one line otherwise."""
    task = load_function(path, function, inputs or "") if function else load_task(path)
    if name:
        task = replace(task, name=name)
    graph = capture(task.module, task.inputs)
    if function:
        graph = _named(graph, [name for name, value in parse_inputs(inputs or "") if isinstance(value, tuple)])
    return GraphOperator(task, graph, lower(graph), path)


def _named(graph: Graph, names: list[str]) -> Graph:
    """The graph with its forward inputs called as the command line named them (torch.export calls a function's
    positional arguments args_0, args_1, ...)."""
    forward = [i.name for i in graph.inputs if i.kind == "input"]
    renames = dict(zip(forward, names, strict=False))
    if not renames:
        return graph

    def rename(operand: object) -> object:
        return renames.get(operand, operand) if isinstance(operand, str) else operand

    return Graph(inputs=tuple(replace(i, name=renames.get(i.name, i.name)) for i in graph.inputs),
                 nodes=tuple(replace(n, operands=tuple(rename(o) for o in n.operands)) for n in graph.nodes),
                 outputs=tuple(renames.get(o, o) for o in graph.outputs))
