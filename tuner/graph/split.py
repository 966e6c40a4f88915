"""An operator that one kernel cannot take, as several kernels' worth of stages in one launch.

`lower()` makes one kernel of one iteration space. Two kinds of graph have more than one:
- outputs over different spaces (RoPE of q with 8 heads and of k with 2; a sum along each axis of one tensor), each
  computed apart from the others (what they share computed again by each);
- a value one layout computes that another must read whole (a softmax along the rows summed down the columns; a
  tensor centred by its column means, then normalised along its rows): the graph cut after that value, which the
  first stage writes to GM (an output, or the launch's workspace) and the next reads as an input, after every block
  has written it (PipeBarrier and SyncAll between the stages, `_lib/stages.j2`).

`lower_graph` lowers a graph whole where it can, else plans its stages: outputs apart first (greedily: an output
joins the first group it lowers with), then for a group that does not lower, or where the groups take too many
stages, a cut: of the cuts whose part before lowers as one kernel (its outputs apart, if need be) and whose rest has
a plan (one kernel first; cut again itself only where no such cut is found), the one of the fewest stages (at most
`MAX_STAGES`), then the fewest bytes through GM. A view or broadcast of the inputs is not cut through (a later stage
reads its source again). A plan tries at most `LOWERINGS` subgraphs. Every stage is its own kernel's primary variant
(`rows`, `cols`, `flat`, `total`, `chunks`; not `sweeps`, whose block count is its own), spread over all of the
launch's blocks."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tuner.data.dtypes import C_SIZES, C_TYPES
from tuner.graph.ir import OPS, Graph, Input, TensorType
from tuner.graph.lower import KernelTensor, Lowered, LoweringError, kernel_dtype, lower

__all__ = ["MAX_STAGES", "Stage", "Staged", "lower_graph"]

MAX_STAGES = 3  # each stage's knobs multiply the points of the launch's space
LOWERINGS = 120  # the most subgraphs a plan tries to lower (each takes milliseconds to tens of them)
Plan = list[tuple[Graph, Lowered]]  # stages in order: each one's graph and kernel
INTERMEDIATE = "intermediate"  # the kind of a stage's input that an earlier stage computes


@dataclass(frozen=True)
class Stage:
    """One stage: its graph, its kernel, and its GM arguments in its kernel's order (C expressions over the launch's
    arguments: `in_x`, `out1`, `workspace + 512`)."""

    graph: Graph
    lowered: Lowered
    args: tuple[str, ...]
    after: bool  # it reads what an earlier stage wrote
    index: int

    @property
    def prefix(self) -> str:
        """Its names' prefix among the launch's knobs, tiling fields and geometry."""
        return f"s{self.index}_"


@dataclass
class Staged:
    """A launch of several stages: its GM inputs and outputs as `Lowered` has them, the workspace it needs before
    the stages' own (intermediate values, `mid_bytes`), and each stage."""

    stages: list[Stage]
    ins: list[KernelTensor]
    outs: list[KernelTensor]
    mid_bytes: int
    layout: str = "staged"

    @property
    def shape(self) -> tuple[int, ...]:
        return max((s.lowered.shape for s in self.stages), key=math.prod)

    @property
    def work(self) -> int:
        """Vector passes over elements, for the roofline: every stage's."""
        return sum(s.lowered.work for s in self.stages)

    @property
    def accumulators(self) -> int:
        """32-byte workspace slots per block that the stages' cross-block steps take (partials and SyncAll's)."""
        return sum(len(s.lowered.totals) + 1 for s in self.stages if s.lowered.totals)

    def context(self) -> dict[str, int]:
        """Every stage's geometry, its names prefixed by the stage's (`s0_rows`, `s1_inner`)."""
        return {s.prefix + name: value for s in self.stages for name, value in s.lowered.context().items()}


def lower_graph(graph: Graph) -> Lowered | Staged:
    """The graph as one kernel, or as stages where one kernel cannot take it; the one-kernel LoweringError where
    no plan of stages lowers either."""
    try:
        return lower(graph)
    except LoweringError as whole:
        try:
            plan = _Planner(graph).plan(graph.outputs, frozenset(), cut=True)
        except _Exhausted:
            plan = None
        if plan is None or len(plan) < 2:
            raise whole from None
        return _staged(graph, plan)


class _Exhausted(Exception):
    """The planner tried as many kernels as it may (`LOWERINGS`)."""


class _Planner:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.made = {node.name: node for node in graph.nodes}
        self.order = {node.name: index for index, node in enumerate(graph.nodes)}
        self.types = graph.types()
        self.tried: dict[tuple[tuple[str, ...], frozenset[str], bool], Plan | None] = {}
        self.kernels: dict[tuple[tuple[str, ...], frozenset[str]], tuple[Graph, Lowered] | None] = {}

    def subgraph(self, outputs: tuple[str, ...], available: frozenset[str]) -> Graph:
        """The nodes `outputs` need, reading the `available` values (earlier stages' results) as inputs."""
        needed: set[str] = set()
        pending = [o for o in outputs if o not in available]
        while pending:
            name = pending.pop()
            if name in needed or name in available or name not in self.made:
                continue
            needed.add(name)
            pending.extend(o for o in self.made[name].operands if isinstance(o, str))
        nodes = tuple(n for n in self.graph.nodes if n.name in needed)
        used = {o for n in nodes for o in n.operands if isinstance(o, str)} | set(outputs)
        read = sorted((name for name in available if name in used), key=self.order.__getitem__)
        inputs = tuple(i for i in self.graph.inputs if i.name in used) + \
            tuple(Input(name, self.types[name], INTERMEDIATE) for name in read)
        return Graph(inputs, nodes, outputs)

    def kernel(self, outputs: tuple[str, ...], available: frozenset[str]) -> tuple[Graph, Lowered] | None:
        """The outputs as one kernel's primary variant, or None; _Exhausted past `LOWERINGS` tries."""
        key = (outputs, available)
        if key not in self.kernels:
            if len(self.kernels) >= LOWERINGS:
                raise _Exhausted
            graph = self.subgraph(outputs, available)
            try:
                lowered = lower(graph)
            except LoweringError:
                self.kernels[key] = None
            else:
                self.kernels[key] = None if lowered.layout == "sweeps" else \
                    (graph, replace(lowered, chunked=None, swept=None))
        return self.kernels[key]

    def plan(self, outputs: tuple[str, ...], available: frozenset[str], cut: bool) -> Plan | None:
        """Stages that compute `outputs` from the inputs and `available`, fewest first found; None if there are none
        within MAX_STAGES. Without `cut`, outputs apart only."""
        key = (outputs, available, cut)
        if key not in self.tried:
            self.tried[key] = None  # a plan that reaches itself again has none
            self.tried[key] = self._plan(outputs, available, cut)
        return self.tried[key]

    def _plan(self, outputs: tuple[str, ...], available: frozenset[str], cut: bool) -> Plan | None:
        whole = self.kernel(outputs, available)
        if whole is not None:
            return [whole]
        if len(outputs) > 1:
            groups: list[list[str]] = []
            for name in outputs:
                for group in groups:
                    if self.kernel(tuple(group + [name]), available) is not None:
                        group.append(name)
                        break
                else:
                    groups.append([name])
            if len(groups) > 1:
                stages: Plan | None = []
                for group in groups:
                    part = self.plan(tuple(group), available, cut)
                    if part is None or len(stages) + len(part) > MAX_STAGES:
                        stages = None
                        break
                    stages += part
                if stages is not None:
                    return stages
        return self._cut(outputs, available) if cut else None

    def _cut(self, outputs: tuple[str, ...], available: frozenset[str]) -> Plan | None:
        """Of the cuts of the outputs' nodes whose part before lowers alone and whose rest has a plan, the one of the
        fewest stages, then the fewest bytes through GM, then the latest: first with the rest one kernel (or its
        outputs apart), then with the rest cut again."""
        nodes = self.subgraph(outputs, available).nodes
        cuts: dict[tuple[str, ...], tuple[str, ...]] = {}  # crossing values -> the outputs after them, latest first
        for at in range(len(nodes) - 1, 0, -1):
            before = {n.name for n in nodes[:at]}
            read = {o for n in nodes[at:] for o in n.operands if isinstance(o, str)} | set(outputs)
            crossing = tuple(n.name for n in nodes[:at] if n.name in read and not self._of_inputs(n.name))
            rest = tuple(o for o in outputs if o not in before)
            if crossing and rest:
                cuts.setdefault(crossing, rest)
        for again in (False, True):
            best: tuple[tuple[int, int], Plan] | None = None
            for crossing, rest in cuts.items():
                first = self.plan(crossing, available, cut=False)
                if first is None or len(first) >= MAX_STAGES:
                    continue
                then = self.plan(rest, available | frozenset(crossing), cut=again)
                if then is not None and len(first) + len(then) <= MAX_STAGES:
                    cost = (len(first) + len(then), sum(_bytes(self.types[name]) for name in crossing))
                    if best is None or cost < best[0]:
                        best = cost, first + then
            if best is not None:
                return best[1]
        return None

    def _of_inputs(self, name: str) -> bool:
        """Whether a value only views or broadcasts the inputs (a later stage reads through it to them)."""
        node = self.made.get(name)
        if node is None:
            return True
        return OPS[node.op][0] == "layout" and node.op != "cat" and \
            all(self._of_inputs(o) for o in node.operands if isinstance(o, str))


def _bytes(value: TensorType) -> int:
    """A value's bytes in GM, rounded up to whole 32-byte blocks."""
    return -(-math.prod(value.shape) * C_SIZES[C_TYPES[kernel_dtype(value.dtype)]] // 32) * 32


def _staged(graph: Graph, plan: Plan) -> Staged:
    """The launch of a plan: its GM inputs (every stage's, once), outputs (the graph's, where the stage that computes
    each writes it), the intermediate values' places in the workspace, and each stage's arguments."""
    returned = {name: index for index, name in enumerate(graph.outputs)}
    written: dict[str, KernelTensor] = {}
    places: dict[str, str] = {}
    mid_bytes = 0
    for _, lowered in plan:
        for tensor in lowered.outs:
            if tensor.value in returned:
                written[tensor.value] = tensor
                places[tensor.value] = f"out{returned[tensor.value]}"
            else:
                places[tensor.value] = f"workspace + {mid_bytes}"
                mid_bytes += _bytes(TensorType(tensor.shape, tensor.dtype))
    ins: dict[str, KernelTensor] = {}
    stages, slots = [], 0
    for index, (stage_graph, lowered) in enumerate(plan):
        args = []
        for tensor in lowered.ins:
            if tensor.value in places:
                args.append(places[tensor.value])
            else:
                args.append(tensor.name)
                ins.setdefault(tensor.name, tensor)
        args += [places[tensor.value] for tensor in lowered.outs]
        if lowered.totals:
            args.append(f"workspace + {mid_bytes} + {slots} * GetBlockNum() * 32")
            slots += len(lowered.totals) + 1
        after = any(i.kind == INTERMEDIATE for i in stage_graph.inputs)
        stages.append(Stage(stage_graph, lowered, tuple(args), after, index))
    missing = [name for name in graph.outputs if name not in written]
    if missing:
        raise LoweringError(f"output {missing[0]} is not computed by any stage")
    outs = [replace(written[name], name=f"out{returned[name]}") for name in graph.outputs]
    return Staged(stages, list(ins.values()), outs, mid_bytes)
