"""The eager-equivalent of a task: its graph run the way eager PyTorch runs it, one kernel per user-level aten call
back to back, each reading its inputs from GM and writing its results there.

The IR's nodes name their `origin`, the user's aten call before decomposition (every node of one softmax says
"softmax"). `eager_kernels` groups the nodes by origin and makes each group a graph of its own: its operands from
outside the group are its inputs, the values other groups use or the task returns are its outputs. Views and
broadcasts move no data, in eager mode as here: none is a kernel of its own, and a kernel reads through the ones
between it and the data (their nodes copied into it).

`time_eager` lowers each kernel with the same `lower()` and times it on the run's backend at a library schedule:
the best of a short coordinate search (`library_search`, about fifteen points) — the first draft (every vector core,
one buffer); each block count with the largest tiles that fit, as a library's tiling rule sizes its tiles; then every
tile size at the best count; double-buffered wherever that fits. Each kernel's inputs are the values the task itself
computes there (its own inputs drawn, the graph evaluated in torch), so a kernel sees the data it would in eager mode;
each is checked against the IR evaluated in float64. The eager-equivalent time is the sum over the kernels."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from tuner.backends.base import Backend
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.graph.evaluate import evaluate_graph
from tuner.graph.generate import write_project
from tuner.graph.ir import OPS, Graph, Input, Node
from tuner.graph.load import TORCH_DTYPES, Task
from tuner.graph.lower import lower
from tuner.graph.operator import GraphOperator
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import Evaluator, Measurement, RunInputs
from tuner.space.spaces import Knob, Variant, load_space, run_context

__all__ = ["EagerKernel", "EagerTime", "KernelOperator", "KernelTime", "eager_kernels", "library_search", "time_eager"]

DOUBLE_BUFFERED = {"buffer_num": 2}
SEARCH = 2  # part of a kept time's key: change it when `library_search` changes what it finds
@dataclass(frozen=True)
class EagerKernel:
    """One kernel eager mode runs: the user's call it stands for (`origin`) and its graph."""

    origin: str
    graph: Graph


def _moves_data(node: Node) -> bool:
    return OPS[node.op][0] != "layout" or node.op == "cat"  # a concatenation is a copy


def eager_kernels(graph: Graph) -> list[EagerKernel]:
    """The graph as eager mode runs it: one kernel per origin, in the order the graph first computes each."""
    made = {node.name: node for node in graph.nodes}
    groups: dict[str, list[Node]] = {}
    for node in graph.nodes:
        if _moves_data(node):
            groups.setdefault(node.origin or node.name, []).append(node)

    def read(value: object, through: set[str]) -> object:
        """The value a chain of views and broadcasts from `value` reads (their nodes added to `through`)."""
        while isinstance(value, str) and value in made and not _moves_data(made[value]):
            through.add(value)
            value = made[value].operands[0]
        return value

    reads: dict[str, list[str]] = {}  # origin -> the values it reads from outside, in order of first use
    views: dict[str, set[str]] = {}
    for origin, nodes in groups.items():
        own = {node.name for node in nodes}
        views[origin] = set()
        outside = [read(o, views[origin]) for node in nodes for o in node.operands]
        reads[origin] = list(dict.fromkeys(o for o in outside if isinstance(o, str) and o not in own))
    returned = {read(name, set()) for name in graph.outputs}
    used = returned.union(*reads.values())
    types = graph.types()
    kernels = []
    for origin, nodes in groups.items():
        own = {node.name for node in nodes}
        outputs = tuple(node.name for node in nodes if node.name in used)
        if not outputs:
            continue
        kept = tuple(node for node in graph.nodes if node.name in own or node.name in views[origin])
        inputs = tuple(Input(name, types[name], "input") for name in reads[origin])
        kernels.append(EagerKernel(origin, Graph(inputs, kept, outputs)))
    return kernels


class _GraphModule(torch.nn.Module):
    """A graph as a module: its inputs in order in, its outputs out; in float64 when given float64 tensors."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph

    def forward(self, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
        wide = any(t.dtype == torch.float64 for t in tensors)
        values = evaluate_graph(self.graph, dict(zip((i.name for i in self.graph.inputs), tensors, strict=True)),
                                wide)
        return tuple(values[name] for name in self.graph.outputs)


@dataclass(frozen=True)
class KernelTime:
    """One eager kernel timed: its best library schedule's time (µs) and knobs, or why it has none; the wall
    seconds its timing took."""

    origin: str
    time_us: float | None
    params: dict[str, Any] | None
    why_not: str
    seconds: float


@dataclass(frozen=True)
class EagerTime:
    """A task's eager-equivalent: its kernels, and the time of them all back to back, or why there is none."""

    kernels: tuple[KernelTime, ...]
    why_not: str

    @property
    def time_us(self) -> float | None:
        return None if self.why_not else sum(k.time_us or 0.0 for k in self.kernels)

    @property
    def seconds(self) -> float:
        return sum(k.seconds for k in self.kernels)


class KernelOperator(GraphOperator):
    """An eager kernel of a task as an operator (`<task>.<origin>`): its input set i the values the task's own set i
    gives there, its reference its graph in float64. LoweringError when it is no kernel alone."""

    def __init__(self, whole: GraphOperator, kernel: EagerKernel) -> None:
        self.whole, self._set = whole, 0
        shapes = [torch.empty(i.type.shape, dtype=TORCH_DTYPES[i.type.dtype]) for i in kernel.graph.inputs]
        task = Task(f"{whole.task.name}.{kernel.origin}", _GraphModule(kernel.graph), shapes, self._draw)
        super().__init__(task, kernel.graph, lower(kernel.graph), whole.source)

    def make_inputs(self, shape: tuple[int, ...], dtype: str, index: int) -> dict[str, torch.Tensor]:
        self._set = index
        return super().make_inputs(shape, dtype, index)

    def _draw(self) -> list[torch.Tensor]:
        whole = self.whole
        computed = evaluate_graph(whole.graph, whole.make_inputs(whole.shape, whole.dtype, self._set))
        return [computed[i.name] for i in self.graph.inputs]


def _thinned(values: list[int]) -> list[int]:
    """Powers of two and the largest, ascending."""
    return [v for v in values if v == max(values) or v & (v - 1) == 0]


def library_search(variant: Variant, context: Mapping[str, Any], draft: Mapping[str, Any],
                   measure: Callable[[dict[str, Any]], float | None]) -> tuple[dict[str, Any], float] | None:
    """A kernel's library schedule, found as a library's tiling rule would with a short coordinate search: the first
    draft; each block count (block_dim thinned to powers of two and the most) with the largest tiles that fit (the
    knobs that are neither structural nor block_dim, each at its largest feasible value); then, at the best count,
    each tile knob's values thinned likewise; every point double-buffered where that fits, infeasible ones skipped.
    `measure` gives a point's time, None when it gives no correct result; the best point and its time, None when
    none gave one."""
    tiles = [k for k in variant.knobs if not k.structural and k.name != "block_dim"]
    blocks = [k for k in variant.knobs if k.name == "block_dim"]
    timed: dict[str, tuple[dict[str, Any], float | None]] = {}

    def fitting(point: dict[str, Any]) -> dict[str, Any] | None:
        return next((p for p in ({**point, **DOUBLE_BUFFERED}, point) if variant.evaluate(p, context).feasible), None)

    def run(point: dict[str, Any] | None) -> None:
        key = json.dumps(point, sort_keys=True, default=str)
        if point is not None and key not in timed:
            timed[key] = (point, measure(point))

    def best() -> tuple[dict[str, Any], float] | None:
        done = [(point, us) for point, us in timed.values() if us is not None]
        return min(done, key=lambda item: item[1]) if done else None

    def ints(knob: Knob) -> list[int]:
        return sorted(v for v in knob.values(context) if isinstance(v, int))

    run(dict(draft) if variant.evaluate(draft, context).feasible else None)
    for count in (_thinned(ints(blocks[0])) if blocks else []):
        point = {**draft, "block_dim": count}
        for knob in tiles:
            largest = next((v for v in reversed(ints(knob)) if fitting({**point, knob.name: v})), None)
            point = point if largest is None else {**point, knob.name: largest}
        run(fitting(point))
    start = best()
    for knob in tiles:
        for value in _thinned(ints(knob)):
            run(fitting({**(start[0] if start else draft), knob.name: value}))
    return best()


def _time_kernel(op: GraphOperator, origin: str, backend: Backend, cache: CompileCache, root: Path) -> KernelTime:
    """The kernel's best library schedule, or the one kept under `root` when the kernel's space, template, library,
    SoC, backend and search are the ones it was timed with."""
    started = time.monotonic()
    write_project(root, op.name, op.lowered, op.graph, op.source.name)
    space = load_space(op.name, root)
    soc = get_soc(backend.soc)
    context = run_context(op, op.shape, op.dtype, soc)
    feasible = space.baseline(context)  # the first draft that fits (rows longer than UB holds: the chunked one)
    draft = feasible[0] if feasible else space.baselines[0]
    variant = space.variant(draft.variant)
    key = f"{variant.fingerprint(context)}:{backend.study_tag}:{soc.name}:{SEARCH}"
    kept = root / "time.json"
    if kept.is_file():
        record = json.loads(kept.read_text())
        if record.pop("key", None) == key:
            return KernelTime(**record)
    evaluator = Evaluator(space, variant, backend, cache, RunInputs(op, op.shape, op.dtype), context)
    failures: list[Measurement] = []
    fastest: list[float] = []

    def measure(params: dict[str, Any]) -> float | None:
        measured = evaluator.evaluate(params, best_us=min(fastest, default=None))
        if measured.value is None or measured.error_class is not None:
            failures.append(measured)
            return None
        fastest.append(measured.value)
        return measured.value

    best = library_search(variant, context, draft.params(variant, context), measure)
    seconds = time.monotonic() - started
    if best is not None:
        result = KernelTime(origin, best[1], best[0], "", seconds)
    elif failures:
        first = failures[0]
        result = KernelTime(origin, None, None, f"no schedule matched the reference ({first.error_class}: "
                                               f"{first.detail})", seconds)
    else:
        result = KernelTime(origin, None, None, "no feasible schedule among the first draft, its block counts and "
                                               "tile sizes", seconds)
    if all(m.error_class is None or m.error_class.deterministic for m in failures):  # not a Ctrl-C's verdict
        kept.write_text(json.dumps({"key": key, **asdict(result)}))
    return result


def time_eager(op: GraphOperator, backend: Backend, root: Path) -> EagerTime:
    """The task's eager-equivalent on `backend`: every kernel lowered first (one that cannot be lowered alone leaves
    the task without one, saying why), then each timed at its library schedule; each kernel's project and time are
    kept under `root` (a directory of the task's run) and reused by a later bench."""
    kernels = eager_kernels(op.graph)
    operators = []
    for kernel in kernels:
        try:
            operators.append((kernel.origin, KernelOperator(op, kernel)))
        except UsageError as exc:
            untimed = tuple(KernelTime(k.origin, None, None, "", 0.0) for k in kernels)
            return EagerTime(untimed, f"{kernel.origin} cannot be a kernel alone: {exc}")
    cache = CompileCache(backend)
    timed = tuple(_time_kernel(kernel, origin, backend, cache,
                               root / f"{origin}-{zlib.crc32(str(kernel.graph).encode()):08x}")
                  for origin, kernel in operators)
    failed = next((k for k in timed if k.time_us is None), None)
    return EagerTime(timed, f"{failed.origin}: {failed.why_not}" if failed else "")
