"""The iteration space coalesced: a graph rewritten over the fewest axes that keep its broadcasts and reductions.

Every value is first aligned to the graph's largest shape, its *space* (an input right-aligned as torch broadcasts;
a scan's axis is kept apart as a reduced one is;
a reduction keeps its reduced axes as ones, `keepdim` or not, since both hold the same elements in the same order;
a pointwise result is its operands' broadcast; a squeeze, unsqueeze or broadcast (`expand`) is its source). Axes of
one are dropped, and two neighbouring axes merge where every value spans both or neither and both are reduced or
neither, as TensorIterator coalesces dimensions. Softmax over `dim=1` of [8, 77, 130] becomes a reduction over the
middle axis of [8, 77, 130]; `sum(dim=(1, 2))` of [6, 31, 45] one over the last axis of [6, 1395]; instance norm's
axes 0, 2 and 3 of [1, 32, 30, 30] the last of [32, 900].

The kernel's tensors keep their own shapes (`lower` reads them from the original graph); only the IR's types and
reduction axes change, and broadcasts become implicit. A graph this cannot align (a view that regroups elements, two
reductions over different axes) is returned as it is, and the lowering says what it cannot take."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from tuner.graph.ir import OPS, Graph, Node, TensorType

__all__ = ["canonical"]


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(max(dims) for dims in zip(*shapes, strict=True))


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def _everything(types: Mapping[str, TensorType], node: Node) -> bool:
    """A reduction over every element of its operand (a loss's mean, a norm of the whole tensor)."""
    operand = node.operands[0]
    return isinstance(operand, str) and set(node.attrs["dims"]) == set(range(len(types[operand].shape)))


def _placed(graph: Graph, rank: int) -> dict[str, tuple[int, ...]]:
    """Values that an unsqueeze later places on other axes than torch's right-aligned ones (batch norm's [C]
    parameters, computed on and then viewed as [C, 1, 1]): their shape over the space's axes, from the last use
    back through the pointwise math of the same shape."""
    types = graph.types()
    placed: dict[str, tuple[int, ...]] = {}
    for node in reversed(graph.nodes):
        tensors = [o for o in node.operands if isinstance(o, str)]
        if node.op == "view" and tensors and _squeezed(types[tensors[0]].shape) == _squeezed(node.type.shape) \
                and len(types[tensors[0]].shape) < len(node.type.shape) <= rank:
            shape = placed.get(node.name, (1,) * (rank - len(node.type.shape)) + tuple(node.type.shape))
            placed.setdefault(tensors[0], shape)
        elif OPS[node.op][0] == "pointwise" and node.name in placed:
            for operand in tensors:
                if types[operand].shape == node.type.shape:
                    placed.setdefault(operand, placed[node.name])
    return placed


def _aligned(graph: Graph, space: tuple[int, ...]) -> tuple[dict[str, tuple[int, ...]], frozenset[int]] | None:
    """Each value's shape over the space's axes, and the reduced axes; None where a value does not align."""
    rank = len(space)
    types = graph.types()
    placed = _placed(graph, rank)
    aligned: dict[str, tuple[int, ...]] = {}
    for item in graph.inputs:
        shape = item.type.shape
        if len(shape) > rank:
            return None
        aligned[item.name] = placed.get(item.name, (1,) * (rank - len(shape)) + tuple(shape))
    reduced: set[int] | None = None
    for node in graph.nodes:
        sources = [aligned[o] for o in node.operands if isinstance(o, str)]
        family = OPS[node.op][0]
        if family == "reduce" and _everything(types, node):
            shape = (1,) * rank
        elif family == "reduce":
            source = node.operands[0]
            if sources[0] != space or not isinstance(source, str):
                return None
            shift = rank - len(types[source].shape)
            dims = {d + shift for d in node.attrs["dims"]}
            if reduced is not None and dims != reduced:
                return None
            reduced = dims
            shape = tuple(1 if i in dims else d for i, d in enumerate(space))
        elif family == "scan":
            source = node.operands[0]
            if sources[0] != space or not isinstance(source, str):
                return None
            dims = {node.attrs["dim"] + rank - len(types[source].shape)}
            if reduced is not None and dims != reduced:
                return None
            reduced = dims
            shape = space
        elif family == "layout":
            if not sources:
                return None
            shape = sources[0]
            if node.op == "view" and _squeezed(node.type.shape) != _squeezed(shape):
                return None
        else:
            shape = _broadcast(sources) if sources else (1,) * rank
        if node.op != "expand" and math.prod(shape) != math.prod(node.type.shape):
            return None
        aligned[node.name] = shape
    return aligned, frozenset(reduced or ())


def _groups(space: tuple[int, ...], shapes: list[tuple[int, ...]], reduced: frozenset[int],
            last_alone: bool) -> list[list[int]]:
    """The space's axes (those longer than one) in runs that coalesce."""
    axes = [i for i, d in enumerate(space) if d != 1]
    groups: list[list[int]] = []
    for axis in axes:
        if groups and not (last_alone and axis == len(space) - 1):
            last = groups[-1][-1]
            same_reduction = (last in reduced) == (axis in reduced)
            same_span = all((s[last] == 1) == (s[axis] == 1) for s in shapes)
            if same_reduction and same_span:
                groups[-1].append(axis)
                continue
        groups.append([axis])
    return groups


def canonical(graph: Graph, space: tuple[int, ...], last_alone: bool = False) -> tuple[Graph, tuple[int, ...]]:
    """The graph over its coalesced space, and that space (the graph and `space` as they are where the values do not
    align); `last_alone`: the last axis stays an axis of its own (an input is read as rows of it)."""
    found = _aligned(graph, space) if space else None  # a graph of single values has nothing to coalesce
    if found is None or any(n.op == "expand" and n.name in graph.outputs for n in graph.nodes):
        return graph, space
    aligned, reduced = found
    groups = _groups(space, list(aligned.values()), reduced, last_alone) or [[len(space) - 1]]

    def merged(shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(math.prod(shape[i] for i in group) for group in groups)

    new_space = merged(space)
    reduced_groups = tuple(k for k, group in enumerate(groups) if group[0] in reduced)
    inputs = tuple(replace(i, type=TensorType(merged(aligned[i.name]), i.type.dtype)) for i in graph.inputs)
    types = graph.types()
    nodes = []
    for node in graph.nodes:
        node_type = TensorType(merged(aligned[node.name]), node.type.dtype)
        if OPS[node.op][0] == "reduce" and _everything(types, node):
            node = replace(node, attrs={"dims": tuple(range(len(new_space))), "keepdim": True, "total": True})
        elif OPS[node.op][0] == "reduce":
            node = replace(node, attrs={**node.attrs, "dims": reduced_groups, "keepdim": True})
        elif OPS[node.op][0] == "scan":
            node = replace(node, attrs={**node.attrs, "dim": reduced_groups[0]})
        elif node.op == "expand":
            node = replace(node, op="view")
        nodes.append(replace(node, type=node_type))
    return Graph(inputs=inputs, nodes=tuple(nodes), outputs=graph.outputs), new_space
