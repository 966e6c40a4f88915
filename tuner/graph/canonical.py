"""The iteration space coalesced: a graph rewritten over the fewest axes that keep its broadcasts and reductions.

Every value's axes are first laid on the space's *atoms*, the common refinement of all the shapes as TensorIterator
would see them: an input's axes longer than one are atoms of their own; a pointwise operation's operands, right aligned
as torch broadcasts, share the atoms of each axis where they span it (an atom met under two names is one); a view that
only merges or splits neighbouring axes maps the runs of atoms of its source onto its own axes, splitting an atom where
one of its axes ends inside it (instance norm's [2, 16, 30, 30] viewed as [1, 32, 30, 30]: 32 is the atoms 2 and 16;
group norm's [3, 24, 13, 13] as [3, 6, 4, 169]: the 24 splits into 6 and 4); a reduction keeps its reduced axes as ones,
`keepdim` or not, since both hold the same elements in the same order, and a scan's axis is kept apart as a reduced one
is; a broadcast (`expand`) is its source on atoms of its new axes that it is *hollow* along (it only repeats its source
there, and so does a view of it: the repeat of instance norm's [C] weight over the batch is a [C] weight viewed as
[N*C], and what is computed from hollow atoms alone is hollow on them too). The space is the atoms in the order of the
graph's largest value, each value's shape over them its own size where it spans an atom and one elsewhere. Then two
neighbouring atoms merge where every value spans both or neither and both are reduced or neither, as TensorIterator
coalesces dimensions. Softmax over `dim=1` of [8, 77, 130] becomes a reduction over the middle axis of [8, 77, 130];
`sum(dim=(1, 2))` of [6, 31, 45] one over the last axis of [6, 1395]; F.instance_norm of [2, 16, 30, 30] (torch's batch
norm over the axes 0, 2 and 3 of its [1, 32, 30, 30] view) one over the last axis of [32, 900].

The kernel's tensors keep their own shapes (`lower` reads them from the original graph); only the IR's types and
reduction axes change, and broadcasts become implicit. A graph this cannot align (a view that regroups elements across
its axes' boundaries, such as [4, 6] as [6, 4]; two reductions over different axes; an output, or a reduction, of a
broadcast; an operation outside the pointwise, reduction, scan, view and broadcast families) is returned as it is, and
the lowering says what it cannot take."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from tuner.graph.ir import OPS, Graph, Node, TensorType

__all__ = ["canonical"]

Run = tuple[int, ...]  # the atoms one axis of a value spans, in order
Axes = tuple[Run | None, ...]  # a value's axes, each its run of atoms, or None where it is one (or broadcast)


def _everything(types: Mapping[str, TensorType], node: Node) -> bool:
    """A reduction over every element of its operand (a loss's mean, a norm of the whole tensor)."""
    operand = node.operands[0]
    return isinstance(operand, str) and set(node.attrs["dims"]) == set(range(len(types[operand].shape)))


class _Atoms:
    """The space's atoms: axes that views split (an atom becomes two, in row-major order) and broadcasts identify
    (an atom becomes another); every run is read through both, so what a later node finds holds for the earlier."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.same: dict[int, int] = {}  # an atom -> the one it was found to be
        self.parts: dict[int, tuple[int, int]] = {}  # an atom -> the two it was split into

    def new(self, size: int) -> int:
        self.sizes.append(size)
        return len(self.sizes) - 1

    def _find(self, atom: int) -> int:
        while atom in self.same:
            atom = self.same[atom]
        return atom

    def leaves(self, runs: Iterable[Run | None]) -> list[int]:
        """The atoms the runs span now, in order."""
        found: list[int] = []
        pending = deque(a for run in runs if run for a in run)
        while pending:
            atom = self._find(pending.popleft())
            if atom in self.parts:
                pending.extendleft(reversed(self.parts[atom]))
            else:
                found.append(atom)
        return found

    def _split(self, atom: int, first: int) -> tuple[int, int]:
        """An atom as two: its outer `first` and the rest, which vary faster."""
        parts = self.new(first), self.new(self.sizes[atom] // first)
        self.parts[atom] = parts
        return parts

    def _next(self, pending: deque[int]) -> int:
        """The next atom of a walk that is not split (its parts go first)."""
        atom = self._find(pending.popleft())
        while atom in self.parts:
            pending.extendleft(reversed(self.parts[atom]))
            atom = self._find(pending.popleft())
        return atom

    def unify(self, one: Run, other: Run) -> bool:
        """Two runs found to be the same axis: their atoms made one, split to their common refinement; False where
        they have none."""
        left, right = deque(self.leaves([one])), deque(self.leaves([other]))
        while left and right:
            a, b = self._next(left), self._next(right)
            if a == b:
                continue
            if self.sizes[a] < self.sizes[b]:
                a, b, left, right = b, a, right, left
            if self.sizes[a] % self.sizes[b]:
                return False
            if self.sizes[a] != self.sizes[b]:
                a, rest = self._split(a, self.sizes[b])
                left.appendleft(rest)
            self.same[b] = a
        return not left and not right

    def regroup(self, source: Axes, shape: tuple[int, ...]) -> Axes | None:
        """A view's axes: its source's atoms, in order, cut into runs of `shape`'s axes (an atom split where an axis
        ends inside it); None where an axis ends inside an atom that does not divide."""
        pending = deque(self.leaves(source))
        axes: list[Run | None] = []
        for size in shape:
            run: list[int] = []
            while size > 1:
                if not pending:
                    return None
                atom = self._next(pending)
                if size % self.sizes[atom] == 0:
                    run.append(atom)
                    size //= self.sizes[atom]
                elif self.sizes[atom] % size == 0:
                    first, rest = self._split(atom, size)
                    run.append(first)
                    pending.appendleft(rest)
                    size = 1
                else:
                    return None
            axes.append(tuple(run) or None)
        return tuple(axes) if not pending else None


def _pointwise(atoms: _Atoms, operands: Sequence[Axes], rank: int) -> Axes | None:
    """A broadcast's axes: its operands right-aligned, each axis the run its operands share there."""
    axes: list[Run | None] = [None] * rank
    for operand in operands:
        offset = rank - len(operand)
        if offset < 0:
            return None
        for i, run in enumerate(operand):
            if run is None:
                continue
            if axes[i + offset] is None:
                axes[i + offset] = run
            elif not atoms.unify(axes[i + offset] or (), run):
                return None
    return tuple(axes)


class _Laid:
    """Every value's axes over the atoms, the atoms it only broadcasts over (*hollow*: an expand's new axes, and
    what is computed from them alone), and the atoms reduced or scanned."""

    def __init__(self) -> None:
        self.atoms = _Atoms()
        self.axes: dict[str, Axes] = {}
        self.hollow: dict[str, Run] = {}
        self.reduced: list[tuple[str, list[Run | None]]] = []  # each reduction's operand and the runs it reduces

    def fresh(self, shape: tuple[int, ...]) -> Axes:
        return tuple((self.atoms.new(d),) if d != 1 else None for d in shape)

    def lay(self, node: Node, types: Mapping[str, TensorType]) -> bool:
        """The axes and the hollow atoms of the value a node makes; False where it does not lay on the atoms."""
        family = OPS[node.op][0]
        tensors = [o for o in node.operands if isinstance(o, str)]
        sources = [self.axes[o] for o in tensors]
        shape = node.type.shape
        hollow: Run = ()
        axes: Axes | None
        if family == "pointwise":
            axes = _pointwise(self.atoms, sources, len(shape))
            if axes is not None:  # hollow where every operand that spans the atom is hollow there
                spans = [(set(self.atoms.leaves(self.axes[o])), set(self.atoms.leaves([self.hollow[o]])))
                         for o in tensors]
                hollow = tuple(a for a in self.atoms.leaves(axes)
                               if all(a in empty for atoms, empty in spans if a in atoms))
        elif family == "reduce" and _everything(types, node):
            self.reduced.append((tensors[0], []))
            axes = (None,) * len(shape)
        elif family == "reduce":
            dims = node.attrs["dims"]
            self.reduced.append((tensors[0], [sources[0][d] for d in dims]))
            kept = tuple(None if i in dims else run for i, run in enumerate(sources[0]))
            axes = kept if len(shape) == len(kept) else tuple(run for i, run in enumerate(kept) if i not in dims)
        elif family == "scan":
            self.reduced.append((tensors[0], [sources[0][node.attrs["dim"]]]))
            axes, hollow = sources[0], self.hollow[tensors[0]]
        elif node.op == "expand":
            source, offset = sources[0], len(shape) - len(sources[0])
            runs: list[Run | None] = []
            for i, d in enumerate(shape):
                run = source[i - offset] if i >= offset else None
                if run is None and d != 1:  # an axis it is broadcast along
                    run = (self.atoms.new(d),)
                    hollow += run
                runs.append(run)
            axes, hollow = tuple(runs), self.hollow[tensors[0]] + hollow
        elif node.op == "view":
            axes, hollow = self.atoms.regroup(sources[0], shape), self.hollow[tensors[0]]
        elif node.op == "take" and node.attrs["dim"] == len(shape) - 1 == len(sources[0]) - 1 and shape[-1] == 1:
            self.reduced.append((tensors[0], [sources[0][-1]]))  # one element of each row: the row stays whole
            axes = sources[0][:-1] + (None,)
        else:
            return False  # slices, gathers and windows of computed values: the lowering names them
        if axes is None:
            return False
        self.axes[node.name], self.hollow[node.name] = axes, hollow
        return True


def _aligned(graph: Graph, space: tuple[int, ...]
             ) -> tuple[tuple[int, ...], dict[str, tuple[int, ...]], frozenset[int], int] | None:
    """The atoms' sizes in the order of the largest value (one of shape `space`), each value's shape over them (one
    where it is hollow), the atoms reduced or scanned, and where the atoms of that value's last axis begin; None
    where a value does not lay on them."""
    laid = _Laid()
    types = graph.types()
    for item in graph.inputs:
        laid.axes[item.name], laid.hollow[item.name] = laid.fresh(item.type.shape), ()
    if not all(laid.lay(node, types) for node in graph.nodes):
        return None
    atoms = laid.atoms
    widest = [name for name, t in types.items() if t.shape == space
              and math.prod(atoms.sizes[a] for a in atoms.leaves(laid.axes[name])) == math.prod(space)]
    if not widest:
        return None
    order = {atom: k for k, atom in enumerate(atoms.leaves(laid.axes[widest[0]]))}
    sizes = tuple(atoms.sizes[a] for a in order)
    aligned: dict[str, tuple[int, ...]] = {}
    for name, axes in laid.axes.items():
        at = [order.get(a, -1) for a in atoms.leaves(axes)]
        if any(k < 0 for k in at) or at != sorted(set(at)):
            return None  # an atom outside the largest value, twice in one value, or out of its order
        spanned = set(at) - {order[a] for a in atoms.leaves([laid.hollow[name]])}
        aligned[name] = tuple(size if k in spanned else 1 for k, size in enumerate(sizes))
    if any(atoms.leaves([laid.hollow[name]]) for name in graph.outputs) or \
            {k for shape in aligned.values() for k, d in enumerate(shape) if d != 1} != set(range(len(sizes))):
        return None  # an output that is a broadcast (stored whole), or an axis only broadcast over
    reduced: set[int] | None = None
    for operand, runs in laid.reduced:
        if atoms.leaves([laid.hollow[operand]]):
            return None  # a reduction of a broadcast counts its copies
        if not runs:
            continue  # over every element
        dims = {order[a] for a in atoms.leaves(runs)}
        if aligned[operand] != sizes or (reduced is not None and dims != reduced):
            return None
        reduced = dims
    last = laid.axes[widest[0]][-1] if space else None
    return sizes, aligned, frozenset(reduced or ()), len(sizes) - len(atoms.leaves([last]))


def _groups(sizes: Sequence[int], shapes: Iterable[tuple[int, ...]], reduced: frozenset[int],
            alone: int) -> list[list[int]]:
    """The atoms in runs that coalesce; a run begins at atom `alone`."""
    shapes = list(shapes)
    groups: list[list[int]] = []
    for atom in range(len(sizes)):
        if groups and atom != alone:
            last = groups[-1][-1]
            same_reduction = (last in reduced) == (atom in reduced)
            same_span = all((s[last] == 1) == (s[atom] == 1) for s in shapes)
            if same_reduction and same_span:
                groups[-1].append(atom)
                continue
        groups.append([atom])
    return groups


def canonical(graph: Graph, space: tuple[int, ...], last_alone: bool = False) -> tuple[Graph, tuple[int, ...]]:
    """The graph over its coalesced space, and that space (the graph and `space` as they are where the values do not
    align); `last_alone`: the last axis stays an axis of its own (an input is read as rows of it)."""
    found = _aligned(graph, space) if space else None  # a graph of single values has nothing to coalesce
    if found is None:
        return graph, space
    sizes, aligned, reduced, last = found
    groups = _groups(sizes, aligned.values(), reduced, last if last_alone else -1)
    if last_alone and last < len(sizes) and [g for g in groups if last in g][0] != list(range(last, len(sizes))):
        return graph, space  # the rows an input is read as would not be the kernel's rows

    def merged(shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(math.prod(shape[i] for i in group) for group in groups) or (1,)

    new_space = merged(sizes)
    reduced_groups = tuple(k for k, group in enumerate(groups) if group[0] in reduced)
    if any(OPS[n.op][0] == "scan" for n in graph.nodes) and len(reduced_groups) != 1:
        return graph, space  # a scan along an axis that does not coalesce into one
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
