"""A user's operator as an `Operator`: a task loaded, captured and lowered to one kernel (or to stages of one launch,
`split.py`), its inputs drawn as the task draws them, its reference the task's own forward in float64. Where capture
or lowering refuses the task and an LLM is to write the kernel instead (`graph_operator(..., unlowered=True)`), the
operator is the same without a generated template: its GM arguments (`in_<name>` for the forward's tensors,
parameters and buffers, `out0`, ...) come from the IR, or from the task itself where it was not captured, and its
project holds a search space with no variant (`write`), which a kernel the LLM writes joins as a rewrite does."""

from __future__ import annotations

import copy
import inspect
import math
from dataclasses import replace
from pathlib import Path

import torch
import yaml

from tuner.graph.capture import CaptureError, capture
from tuner.graph.generate import KERNEL, TILING_STRUCT, project_files, write_project
from tuner.graph.ir import DTYPES, Graph, Input, TensorType
from tuner.graph.load import TORCH_DTYPES, Task, TaskError, load_function, load_task, parse_inputs
from tuner.graph.lower import KernelTensor, Lowered, LoweringError
from tuner.graph.split import Staged, lower_graph
from tuner.ops.base import DTYPE_BYTES, RTOL, Expected, Operator, shape_text

__all__ = ["GRAPH_RTOL", "UNLOWERED_MARK", "GraphOperator", "graph_operator"]

# float32 at least as strict as atol = rtol = 1e-4 (the floor); 16-bit as for the packaged operators
GRAPH_RTOL = {**RTOL, "float32": 1e-4}
SEED = 20_000
# the first line of the search space an operator without a generated template writes (no variant yet)
UNLOWERED_MARK = "# tuner: no generated kernel"


class GraphOperator(Operator):
    """One task's operator. `name` is the file's stem (and `.function`); inputs are the kernel's GM inputs (the
    forward's tensors, the module's parameters and buffers), outputs `out0`, `out1`, ... `lowered` is None where the
    tuner could not make the kernel itself (`refusal` says why: the CaptureError or LoweringError), and `graph` is
    None where the task was not captured."""

    def __init__(self, task: Task, graph: Graph | None, lowered: Lowered | Staged | None, source: Path,
                 refusal: str = "", names: list[str] | None = None) -> None:
        super().__init__()
        self.task, self.graph, self.lowered, self.source, self.refusal = task, graph, lowered, source, refusal
        self.name = task.name
        declared = graph.inputs if graph is not None else _task_inputs(task, names)
        ins, outs = (lowered.ins, lowered.outs) if lowered is not None else _ports(task, graph, declared)
        self.ins, self.outs = list(ins), list(outs)
        narrowed = [i.name for i in declared if i.type.dtype == "int64"]
        how = "no generated kernel: an LLM writes it" if lowered is None else f"{lowered.layout} kernel" \
            if isinstance(lowered, Lowered) else f"{len(lowered.stages)} stages: " + \
            ", ".join(f"{s.lowered.layout} kernel" for s in lowered.stages)
        self.description = f"{task.name}, generated from {source.name} ({how}" + \
            (f"; int64 {', '.join(narrowed)} read as int32)" if narrowed else ")")
        self.inputs = tuple(dict.fromkeys(t.value for t in self.ins))  # a sliced tensor once
        self.outputs = tuple(t.name for t in self.outs)
        floats = [t.dtype for t in self.ins + self.outs if t.dtype in RTOL and RTOL[t.dtype] > 0]
        self.dtype = min(floats or ["float32"], key=lambda d: (DTYPE_BYTES[d], d != "float16"))
        self.dtypes = (self.dtype,)
        self.shape = lowered.shape if lowered is not None else max((t.shape for t in self.outs), key=math.prod)
        self._forward = [i.name for i in declared if i.kind == "input"]
        self._shapes = [i.type.shape for i in declared if i.kind == "input"]
        self._targets = {i.name: i.target for i in declared if i.kind in ("parameter", "buffer")}
        self._indices = {i.name: i.type.shape for i in declared if i.kind == "index"}
        self._wide = set(narrowed)

    @property
    def run_label(self) -> str:
        """The name, function and forward's shapes a run of it is called by: `my_op-8x64.64-float16`."""
        return f"{self.name}-{'.'.join(shape_text(shape) for shape in self._shapes)}-{self.dtype}"

    def write(self, root: Path) -> None:
        """The generated template and search space under `root` (kept where a user has edited them), and a copy of
        the task file (`task.py`) that later commands make the operator again from. Without a generated template,
        the space names the kernel and its arguments and holds no variant; a later run that lowers the task
        replaces that file with its generated one."""
        space = root / "search_spaces" / f"{self.name}.yaml"
        if self.lowered is not None:
            if space.is_file() and space.read_text().startswith(UNLOWERED_MARK):
                space.unlink()
            write_project(root, self.name, self.lowered, self.graph, self.source.name)
        elif not space.is_file():
            space.parent.mkdir(parents=True, exist_ok=True)
            partial = space.with_name(space.name + ".partial")
            partial.write_text(self._unlowered_space())
            partial.replace(space)
        copy_path = root / "task.py"
        if not copy_path.exists():
            partial = root / "task.py.partial"
            partial.write_bytes(self.source.read_bytes())
            partial.replace(copy_path)

    def templates(self) -> dict[str, str]:
        """The generated templates, by their paths in a project (`templates/ascendc/<op>/<variant>/...`): two shapes
        whose templates are the same text share its builds. None without a generated kernel."""
        if self.lowered is None or self.graph is None:
            return {}
        files = project_files(Path(), self.name, self.lowered, self.graph, self.source.name)
        return {str(path): text for path, text in files.items() if path.parts[0] == "templates"}

    def _unlowered_space(self) -> str:
        args = [{"name": t.name, "kind": "in", "tensor": t.value} for t in self.ins] + \
               [{"name": t.name, "kind": "out", "tensor": t.name} for t in self.outs] + \
               [{"name": "tiling", "kind": "tiling"}]
        space = {"op": self.name, "kernel": KERNEL, "tiling_struct": TILING_STRUCT, "args": args, "variants": {}}
        return (f"{UNLOWERED_MARK} for {self.source.name} ({self.refusal}).\n# The kernel an LLM writes joins the "
                "run as a variant under variants/; a run that lowers the task replaces this file.\n") + \
            yaml.safe_dump(space, sort_keys=False, width=120)

    def context(self, shape: tuple[int, ...], dtype: str) -> dict[str, int | str]:
        block_elems = 32 // DTYPE_BYTES[self.dtype]
        context: dict[str, int | str] = {"dtype": self.dtype, "dtype_bytes": DTYPE_BYTES[self.dtype],
                                         "block_elems": block_elems, "stat": block_elems}
        if self.lowered is not None:
            context.update(self.lowered.context())
        else:  # every GM tensor's element count, for the expressions of the space an LLM declares
            context.update({f"elems_{t.name}": math.prod(t.shape) for t in self.ins + self.outs})
        return context

    def check_shape(self, shape: tuple[int, ...]) -> None:
        super().check_shape(self.shape)

    def input_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {t.value: t.shape for t in self.ins}

    def output_shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {t.name: t.shape for t in self.outs}

    def input_dtypes(self, dtype: str) -> dict[str, str]:
        return {t.value: t.dtype for t in self.ins}

    def output_dtypes(self, dtype: str) -> dict[str, str]:
        return {t.name: t.dtype for t in self.outs}

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
        tensors = iter(inputs[name].reshape(shape) for name, shape in zip(self._forward, self._shapes, strict=True))
        return [next(tensors) if isinstance(value, torch.Tensor) else value for value in self.task.inputs]

    def _module(self, inputs: dict[str, torch.Tensor], dtype: torch.dtype | None) -> torch.nn.Module:
        """The task's module with its parameters, buffers and tensor attributes set from `inputs` (at `dtype` where
        given)."""
        module = copy.deepcopy(self.task.module)
        state = module.state_dict()
        for name, target in self._targets.items():
            if name not in inputs:  # a buffer the forward does not read is not the kernel's
                continue
            value = inputs[name]
            value = value.to(dtype) if dtype is not None and value.is_floating_point() else value
            if target in state:
                state[target] = value.reshape(state[target].shape)
            else:  # a plain tensor attribute (a constant of the export)
                owner, _, attribute = target.rpartition(".")
                held = getattr(module.get_submodule(owner), attribute)
                setattr(module.get_submodule(owner), attribute, value.reshape(held.shape))
        module.load_state_dict(state, strict=False)
        return module  # in the mode the task made it: a batch norm in training normalizes by the batch's statistics

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        """Set `index`: the task's own draw, seeded per set; parameters and buffers as the module holds them."""
        torch.manual_seed(SEED + index)
        drawn = [v for v in self.task.draw() if isinstance(v, torch.Tensor)]
        values = dict(zip(self._forward, drawn, strict=True))
        state = self.task.module.state_dict()
        for name, target in self._targets.items():
            owner, _, attribute = target.rpartition(".")
            held = state[target] if target in state else getattr(self.task.module.get_submodule(owner), attribute)
            values[name] = held.detach().clone()
        for name, index_shape in self._indices.items():
            values[name] = torch.arange(math.prod(index_shape), dtype=torch.float32).reshape(index_shape)
        return {t.value: _narrowed(values[t.value].reshape(t.shape), t.dtype, t.value) for t in self.ins}

    def _outputs(self, result: object) -> dict[str, torch.Tensor]:
        results = result if isinstance(result, (tuple, list)) else (result,)
        return {t.name: r.reshape(t.shape) for t, r in zip(self.outs, results, strict=True)}

    def _declared(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The inputs as the forward declares them: int64 again where the kernel reads int32 (torch.gather and
        take_along_dim take int64 indices only)."""
        return {k: v.to(torch.int64) if k in self._wide else v for k, v in inputs.items()}

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
        return sum(math.prod(t.shape) * DTYPE_BYTES[t.dtype] for t in self.ins + self.outs)

    def vector_work(self, shape: tuple[int, ...], dtype: str) -> dict[tuple[str, str], int]:
        """Every element of the iteration space through the math's vector passes, in fp32 (without a generated
        kernel, one pass over every output element)."""
        if self.lowered is None:
            return {("unary_simple", "float"): sum(math.prod(t.shape) for t in self.outs)}
        return {("unary_simple", "float"): self.lowered.work}


def _dtype_name(value: torch.Tensor, what: str) -> str:
    name = next((n for n, d in TORCH_DTYPES.items() if d == value.dtype), str(value.dtype).removeprefix("torch."))
    if name not in DTYPES:
        raise TaskError(f"{what} is {name}, which no kernel reads or writes (known: {', '.join(DTYPES)})")
    return name


def _task_inputs(task: Task, names: list[str] | None) -> tuple[Input, ...]:
    """The kernel's inputs of a task that was not captured, named as capture names them: the module's parameters
    (`p_<path>`) and buffers (`b_<path>`), then the forward's tensors by their parameter names (or `names`, a
    function's as the command line gave them)."""
    module = task.module
    inputs = [Input(f"p_{target.replace('.', '_')}", TensorType(tuple(p.shape), _dtype_name(p, f"parameter {target}")),
                    "parameter", target) for target, p in module.named_parameters()]
    state = module.state_dict()
    inputs += [Input(f"b_{target.replace('.', '_')}", TensorType(tuple(b.shape), _dtype_name(b, f"buffer {target}")),
                     "buffer", target) for target, b in module.named_buffers() if target in state]
    tensors = [v for v in task.inputs if isinstance(v, torch.Tensor)]
    if names is None:
        parameters = list(inspect.signature(module.forward).parameters.values())
        positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [positional[i] if i < len(positional) else f"args_{i}" for i, v in enumerate(task.inputs)
                 if isinstance(v, torch.Tensor)]
    for name, value in zip(names, tensors, strict=True):
        inputs.append(Input(name, TensorType(tuple(value.shape), _dtype_name(value, f"input {name}")), "input"))
    return tuple(inputs)


def _kernel_dtype(dtype: str) -> str:
    return "int32" if dtype == "int64" else dtype  # the vector unit has no 64-bit integers, as the lowering reads them


def _ports(task: Task, graph: Graph | None, declared: tuple[Input, ...]) -> tuple[list[KernelTensor],
                                                                                list[KernelTensor]]:
    """The GM arguments of a kernel the tuner did not generate: `in_<name>` for every input, whole, then `out0`,
    ... with the forward's results' types (the IR's where it was captured, else those of one call of the
    forward)."""
    ins = [KernelTensor(f"in_{i.name}", i.name, _kernel_dtype(i.type.dtype), "full", i.type.shape) for i in declared]
    if graph is not None:
        types = graph.types()
        results = [types[name] for name in graph.outputs]
    else:
        try:
            with torch.no_grad():
                returned = copy.deepcopy(task.module)(*task.inputs)
        except Exception as exc:
            raise TaskError(f"{task.name}: calling the forward raised {type(exc).__name__}: {exc}") from None
        returned = returned if isinstance(returned, (tuple, list)) else (returned,)
        if not all(isinstance(r, torch.Tensor) for r in returned):
            raise TaskError(f"{task.name}: the forward returns something other than tensors")
        results = [TensorType(tuple(r.shape), _dtype_name(r, f"output {k}")) for k, r in enumerate(returned)]
    outs = [KernelTensor(f"out{k}", f"out{k}", _kernel_dtype(t.dtype), "full", t.shape) for k, t in enumerate(results)]
    return ins, outs


def _narrowed(tensor: torch.Tensor, dtype: str, name: str) -> torch.Tensor:
    """An input as the kernel takes it: int64 as int32 where its values fit, contiguous."""
    if tensor.dtype == torch.int64 and dtype == "int32":
        info = torch.iinfo(torch.int32)
        if tensor.numel() and (int(tensor.min()) < info.min or int(tensor.max()) > info.max):
            raise TaskError(f"input {name} holds int64 values beyond int32, which the kernel reads them as")
        tensor = tensor.to(torch.int32)
    return tensor.contiguous()


def graph_operator(path: Path, function: str | None = None, inputs: str | None = None,
                   name: str | None = None, *, unlowered: bool = False) -> GraphOperator:
    """The operator of a task file (KernelBench format), or of one function of a file with `inputs` described
    (`x=float16[4096,4096], ...`), called `name` where given (a run's copy of the file keeps the original's name);
    TaskError, CaptureError or LoweringError in one line otherwise. With `unlowered` (an LLM is there to write the
    kernel), a task that capture or lowering refuses is still an operator, without a generated kernel."""
    task = load_function(path, function, inputs or "") if function else load_task(path)
    if name:
        task = replace(task, name=name)
    names = [name for name, value in parse_inputs(inputs or "") if isinstance(value, tuple)] if function else None
    graph = None
    try:
        graph = capture(task.module, task.inputs)
        if names is not None:
            graph = _named(graph, names)
        return GraphOperator(task, graph, lower_graph(graph), path)
    except (CaptureError, LoweringError) as exc:
        if not unlowered:
            raise
        return GraphOperator(task, graph, None, path, refusal=str(exc), names=names)


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
