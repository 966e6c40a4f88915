"""Lowering: a kernel IR graph as one kernel on the library's generated-kernel skeleton (`_lib/graph.j2`).

The kernel iterates over the graph's largest value, its *iteration shape*, coalesced (canonical.py). With no
reduction and every value either that many elements or one, the kernel is `flat` (tiles of the array). A reduction
over the last axis makes it `rows`: the iteration shape as rows x cols (cols its last axis), tiles of whole rows,
one value per row from the reduction. A reduction over the middle axis of [outer, red, inner] makes it `cols`: a
tile is all `red` rows of one outer index and `tile_cols` neighbouring columns of the inner axis (strided rows in
GM, `inner` apart), and the reduction folds the tile's rows into one (halves added onto halves), copied back to
every row so that what follows reads it as a tile. A reduction over every element makes it `total`: tiles of the
array as in `flat`, each reduced into a per-block accumulator; after its last tile every block writes its partials
to the GM workspace, SyncAll, and block 0 combines them and computes what follows the reduction (the `row` math,
once) and the one-value outputs; where what follows reads the whole tensor again, it is `sweeps`: the flat tiles in a
pass per depth of reduction, the blocks exchanging each pass's accumulators. A `rows` kernel also comes as `chunks`,
rows one at a time in chunks of a tile, in the same passes (`_chunked`), for rows longer than UB holds. Each value
is stored as one of

    full     a tile of the iteration shape            scalar   one number (a constant, or an input of one element)
    perrow   one value per row (a reduction's)        row      one row shared by all rows (an input such as a weight)

(a `table` input, one value per row from a few broadcast along the rows, such as a per-channel scale, is perrow:
loaded once, its values picked per row).

and each node is emitted either for the whole tile at once or, in `rows`, where it reads a per-row value or a
reduction, per row inside the tile's row loop. Everything is computed in fp32 (16-bit inputs cast up, outputs cast
down). What the lowering cannot take is a `LoweringError`: one line naming the operation, the value or the shape,
and the user's line where there is one."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field, replace

import torch

from tuner.data.dtypes import C_SIZES, C_TYPES
from tuner.data.socs import load_socs
from tuner.errors import UsageError
from tuner.graph.canonical import canonical
from tuner.graph.evaluate import EVALUATIONS
from tuner.graph.ir import OPS, Graph, Input, Node, Operand, TensorType

__all__ = ["STREAMED", "KernelTensor", "Lowered", "LoweringError", "kernel_dtype", "lower"]

CMP = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}
FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
UNARY_API = {"abs": "Abs", "exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "relu": "Relu"}
BINARY_API = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}
# where a node's math runs, in order: on the whole tile, per row of it, once after every tile (block 0, after the
# accumulators of reductions over everything are combined across blocks). A buffer freed in one is free to it and to
# the ones after it only: each runs before the next and would overwrite what a later one still reads
PHASES = ("tile", "row", "finish")
# the roles whose tiles are loaded into UB slots every tile (the others: loaded once, a scalar, or read by address)
STREAMED = ("full", "gather", "perrow", "percol", "perred", "indexed", "picked", "pooled", "scattered", "shared")
ROUNDING = {"round": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL", "trunc": "CAST_TRUNC"}
REDUCE_API = {"sum": "ReduceSum", "mean": "ReduceSum", "amax": "ReduceMax", "amin": "ReduceMin"}
# how partial results of a reduction combine (the vector API), and what an accumulator of them starts from
COMBINE = {"sum": "Add", "mean": "Add", "amax": "Max", "amin": "Min", "prod": "Mul"}
START = {"Add": "0.0f", "Max": "-__builtin_inff()", "Min": "__builtin_inff()"}
# vector passes over the data per element, by IR operation (the roofline's work)
PASSES = {"sigmoid": 4, "tanh": 6, "erf": 40, "sin": 26, "cos": 26, "atan": 37, "pow": 3, "where": 2, "log1p": 2,
          "expm1": 2, "logical_not": 2, **{op: 2 for op in CMP}}


class LoweringError(UsageError):
    """Raised for a graph the lowering cannot make one kernel of, naming what and where."""


class _SecondPass(LoweringError):
    """A reduction over every element used with the whole tensor again: it takes a second pass over the data."""


@dataclass(frozen=True)
class KernelTensor:
    """A GM argument of the kernel: `name` in the kernel, `value` the IR value (input or output) it holds."""

    name: str
    value: str
    dtype: str
    role: str  # full | perrow | row | scalar | gather | table | column | indexed | picked | pooled | scattered | index;
    # cols:
    # full | percol | perred | scalar
    shape: tuple[int, ...]  # the GM tensor's (a slice's: the whole tensor it is cut from)
    outer: bool = True  # percol: one row per outer index (else one row for all of them)
    offset: int = 0  # a slice: its first element in the tensor
    pitch: int = 0  # a slice along the last axis: the tensor's row length (its rows are `pitch` apart in GM)
    width: int = 0  # a slice narrower than the kernel's rows (a part of a concatenation): its row length
    shift: int = 0  # such a part loaded this many columns to the right in UB (it starts off a 32-byte boundary)

    def entry(self) -> dict[str, object]:
        return {"name": self.name, "type": C_TYPES[self.dtype], "role": self.role, "suffix": "_" + self.name,
                "local": self.name + "Local", "outer": self.outer, "offset": self.offset, "pitch": self.pitch,
                "width": str(self.width or "cols"), "shift": self.shift, "streamed": self.role in STREAMED}


@dataclass
class Lowered:
    """A kernel for one graph: its layout and geometry, its GM arguments in order (inputs, then outputs), and the
    template variables and math (`tile`, `row`) that `template.py` writes out."""

    layout: str  # flat | rows | cols | total | chunks | sweeps
    shape: tuple[int, ...]  # the iteration shape: any rank (flat), rows x cols (rows, chunks), outer x red x inner
    # (cols)
    ins: list[KernelTensor]
    outs: list[KernelTensor]
    out_values: dict[str, str]  # output name -> the fp32 buffer it is cast from
    values: int
    stats: int
    uses: set[str]
    gathers: dict[str, dict[str, list[int]]]
    tile: list[str]
    row: list[str]
    passes: int  # vector passes per element, for the roofline
    totals: list[dict[str, str]] = field(default_factory=list)  # each accumulator, its start and combination
    finish: list[str] = field(default_factory=list)  # the math once the accumulators are combined
    pass_count: int = 1  # chunks: the passes over each row
    row_group: int = 1  # rows: reductions over the last two axes, each over this many neighbouring rows (a group)
    segments: int = 1  # chunks over [segments, rows, cols]: a row is the segments of cols elements, rows * cols apart
    chunked: Lowered | None = None  # rows: the same graph over rows in chunks (a second variant), where it lowers
    swept: Lowered | None = None  # rows scanned or reduced: each row over several blocks in sweeps (a third variant)

    @property
    def rows(self) -> int:
        return math.prod(self.shape[:-1])

    @property
    def cols(self) -> int:
        return self.shape[-1]

    @property
    def total(self) -> int:
        return math.prod(self.shape)

    @property
    def work(self) -> int:
        """Vector passes over elements, for the roofline."""
        return self.passes * self.total

    @property
    def row_align(self) -> int:
        """Elements a row in UB is rounded up to: a 32-byte block of the narrowest tensor's type."""
        return 32 // min(C_SIZES[C_TYPES[t.dtype]] for t in self.ins + self.outs)

    def context(self) -> dict[str, int]:
        """The geometry a search space's expressions name: n (flat); rows, cols, row_stride (rows); outer, red,
        inner (cols); and those of its other variants'."""
        if self.swept is not None:
            return {**self.swept.context(), **replace(self, swept=None).context()}
        if self.layout == "sweeps":
            return {"n": self.total, "rows": self.rows, "cols": self.cols}
        if self.layout in ("flat", "total"):
            return {"n": self.total}
        if self.layout == "cols":
            return dict(zip(("outer", "red", "inner"), self.shape, strict=True))
        if self.segments > 1:
            return {"rows": self.shape[1], "cols": self.shape[2], "row_stride": self.shape[2]}
        return {"rows": self.rows, "cols": self.cols, "row_stride": -(-self.cols // self.row_align) * self.row_align}


def _most_cores() -> int:
    """The most vector cores of any SoC: with half as many rows, each row may take two blocks or more."""
    return max(int(soc.vector_cores.value) for soc in load_socs().values())


def _padded(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def _literal(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        return "__builtin_nanf(\"\")"
    if math.isinf(value):
        return "__builtin_inff()" if value > 0 else "-__builtin_inff()"
    return f"{value!r}f" if "e" in repr(value) or "." in repr(value) else f"{value!r}.0f"


@dataclass
class _Value:
    storage: str  # full | perrow | row | scalar
    phase: str  # tile | row | finish: where it is computed
    buffer: str = ""  # full / row: a tile buffer; perrow: a stat buffer; scalar: a C++ float expression
    dtype: str = "float32"
    number: float | None = None  # a constant scalar


@dataclass
class _Pool:
    """Buffers of one kind (`v` tile buffers, `s` per-row stat buffers), reused once their values are dead, within
    their phase and the ones after it (PHASES)."""

    prefix: str
    free: dict[str, list[str]] = field(default_factory=lambda: {"tile": [], "row": [], "finish": []})
    made: int = 0

    def take(self, phase: str) -> str:
        for kind in PHASES[:PHASES.index(phase) + 1]:
            if self.free[kind]:
                return self.free[kind].pop()
        self.made += 1
        return f"{self.prefix}{self.made - 1}"

    def give(self, name: str, phase: str) -> None:
        if name.startswith(self.prefix) and name[len(self.prefix):].isdigit():
            self.free[phase].append(name)


class _Emitter:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.types = graph.types()
        self.values: dict[str, _Value] = {}
        self.full, self.stat = _Pool("v"), _Pool("s")
        self.uses: set[str] = set()
        self.tile: list[str] = []
        self.row: list[str] = []
        self.finish: list[str] = []
        self.scalars_read: dict[tuple[str, str], str] = {}  # (per-row value, phase) -> its scalar there
        self.holders: dict[str, int] = {}  # buffer -> live values stored in it
        self.passes = 0
        self.totals: list[dict[str, str]] = []
        self.one_row = False  # chunks: the tile is part of one row, whose per-row values are scalars everywhere
        self.sweeps = False  # sweeps: the row is the whole tensor, its chunks every block's tiles
        self.segmented = False  # chunks over [A, C, B]: row c is A segments of B elements
        self.group = 1  # chunks: reductions over groups of this many neighbouring rows, each group taken as one row
        self.step = 0  # chunks, sweeps: the pass being emitted
        self.pinned: set[str] = set()  # buffers that outlive their values: accumulators and carries of chunks
        self.carries: dict[str, str] = {}  # sweeps: a scan -> the buffer its blocks' partials and its carry share
        self.shifts: dict[str, int] = {}  # an input -> the columns it is loaded to the right by (a part of a cat)

    # ---- where a value lives ------------------------------------------------------------------------------
    def ref(self, name: str, phase: str) -> str:
        value = self.values[name]
        if value.storage in ("full", "row"):
            return _region(value.buffer, phase)
        if value.storage == "perrow":
            return f"{value.buffer}[r * STAT]"
        return value.buffer

    def scalar(self, operand: Operand, phase: str) -> str | None:
        """A C++ float for a scalar operand (a number, a scalar input, or in the row loop a per-row value)."""
        if not isinstance(operand, str):
            return _literal(float(operand))
        value = self.values[operand]
        if value.storage == "scalar":
            return value.buffer
        if value.storage == "perrow" and (phase != "tile" or self.one_row):
            if (operand, phase) not in self.scalars_read:
                name = f"a{len(self.scalars_read)}"
                indent = "            " if phase == "row" else "        "
                self.lines(phase).append(indent + "VecToScalar();")
                self.lines(phase).append(f"{indent}const float {name} = {value.buffer}.GetValue(r * STAT);")
                self.scalars_read[operand, phase] = name
            return self.scalars_read[operand, phase]
        return None

    def lines(self, phase: str) -> list[str]:
        return {"tile": self.tile, "row": self.row, "finish": self.finish}[phase]

    def put(self, phase: str, call: str) -> None:
        indent = "            " if phase == "row" else "        "
        self.lines(phase).extend([indent + call, indent + "PipeBarrier<PIPE_V>();"])

    def macro(self, phase: str, text: str) -> None:
        self.lines(phase).append(text)

    # ---- buffers ------------------------------------------------------------------------------------------
    def hold(self, buffer: str) -> None:
        self.holders[buffer] = self.holders.get(buffer, 0) + 1

    def release(self, buffer: str, phase: str) -> None:
        if buffer not in self.holders:  # a folded number or a scalar expression: no buffer of its own
            return
        self.holders[buffer] -= 1
        if self.holders[buffer] == 0 and buffer not in self.pinned:
            self.full.give(buffer, phase)
            self.stat.give(buffer, phase)

    def temp(self, phase: str) -> str:
        name = self.full.take(phase)
        self.hold(name)
        return name


def _fail(node: Node, what: str) -> LoweringError:
    return LoweringError(f"{node.op} ({node.source or node.name}): {what}")


def _iteration_shape(graph: Graph) -> tuple[int, ...]:
    shapes = [i.type.shape for i in graph.inputs] + [n.type.shape for n in graph.nodes]
    return max(shapes, key=lambda s: (math.prod(s), len(s)), default=())


def kernel_dtype(dtype: str) -> str:
    """A tensor's type in the kernel: its own, int64 as int32 (the vector unit has no 64-bit integers; the operator
    checks that the values fit)."""
    return "int32" if dtype == "int64" else dtype


def _storage_of_input(shape: tuple[int, ...], space: tuple[int, ...], layout: str) -> str:
    if math.prod(shape) == 1 and (math.prod(space) > 1 or layout != "flat"):
        return "scalar"  # (a kernel over one element reads it as a tile: its math, and its output, one of those)
    if layout == "flat":
        return "full"
    padded = _padded(shape, len(space))
    if layout == "cols":
        if padded == space:
            return "full"
        if padded[1:] == (1, space[2]):
            return "percol"
        return "perred" if padded[1:] == (space[1], 1) else ""
    if padded == space:
        return "full"
    if padded[-1] == space[-1] and all(d == 1 for d in padded[:-1]):
        return "row"
    if padded[-1] == space[-1] and all(d in (1, s) for d, s in zip(padded, space, strict=True)):
        return "gather"
    if padded == space[:-1] + (1,):
        return "perrow"
    if padded[-1] == 1 and all(d in (1, s) for d, s in zip(padded[:-1], space[:-1], strict=True)):
        return "table"
    return ""


def _gather(shape: tuple[int, ...], space: tuple[int, ...]) -> dict[str, list[int]]:
    """The output's leading dims and the input's row stride along each (0 where the input broadcasts)."""
    padded = _padded(shape, len(space))
    strides, stride = [], 1
    for dim in reversed(padded[:-1]):
        strides.append(0 if dim == 1 else stride)
        stride *= dim
    return {"dims": list(space[:-1]), "strides": list(reversed(strides))}


def _layout(graph: Graph, space: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
    """The kernel's layout and its iteration shape (padded to the layout's rank)."""
    total = math.prod(space)
    everything = [n for n in graph.nodes if OPS[n.op][0] == "reduce" and n.attrs.get("total")]
    reductions = [n for n in graph.nodes if OPS[n.op][0] == "reduce" and not n.attrs.get("total")]
    reductions += [n for n in graph.nodes if OPS[n.op][0] == "scan"]
    if not reductions:
        flat = all(math.prod(t.shape) in (1, total) for t in graph.types().values())
        if flat:
            return ("total" if everything else "flat"), space
        return "rows", _padded(space, 2)
    axes = {d for n in reductions for d in n.attrs.get("dims", (n.attrs.get("dim"),))}
    if axes == {len(space) - 1}:
        return "rows", _padded(space, 2)
    if axes == {len(space) - 2, len(space) - 1} and len(space) >= 3 and not everything:
        return "rows", space  # the last two axes as groups of rows (a group norm whose weight varies along both)
    if axes == {0, 2} and len(space) == 3 and not everything:
        return "segments", space  # the outer and inner axes of [A, C, B] (a batch norm's batch statistics)
    if axes == {len(space) - 2} and not everything:
        return "cols", _padded(space, 3)
    node = reductions[0]
    if axes == set(range(len(space))):
        raise _fail(node, f"a reduction over every axis of {list(space)} (the operator's axes coalesced) that does "
                          "not fit one row: a full reduction needs a step across blocks, not lowered yet")
    raise _fail(node, f"a reduction over axes {sorted(axes)} of {list(space)} (the operator's axes coalesced): the "
                      "kernels reduce one run of neighbouring axes, the last or the one before the last so far")


@dataclass(frozen=True)
class _Slice:
    source: str  # the input it is cut from
    offset: int
    pitch: int
    index: str = ""  # rows gathered: the input holding each row's index into the source's rows
    take: dict[str, int] | None = None  # elements taken along an axis: the source as outer x length x inner, the
    # index's length along the axis (picks), and wrap (a negative index counts from the end)
    window: dict[str, object] | None = None  # a pool of the source: its spatial axes in and out and its arguments
    scatter: dict[str, int | str] | None = None  # sums of source rows (or elements) at their index: the source's rows
    # and whether an index is per row; with `base` (an input), each put over that input's values instead

    @property
    def by_rows(self) -> bool:
        """Read row by row: a slice of the last axis, or rows gathered by an index."""
        return bool(self.pitch or self.index or self.window or self.scatter)


def _slices_to_inputs(graph: Graph) -> Graph:
    """Each slice of a computed value moved onto what it is computed from: a pointwise operation (or a concatenation
    along another axis) over slices of its operands (an operand broadcast along the sliced axis as it is), down to
    slices of the inputs, which the kernel reads at an offset (a slice of a slice along the same axis: one slice). A
    slice of anything else stays as it is."""
    made = {n.name: n for n in graph.nodes}
    types = graph.types()
    cuts: dict[tuple[str, int, int, int], str] = {}
    nodes: list[Node] = []

    def cut(name: str, dim: int, start: int, stop: int, like: Node, called: str = "") -> str:
        key = (name, dim, start, stop)
        if key in cuts:
            return cuts[key]
        source = made.get(name)
        if source is not None and source.op == "slice" and source.attrs["dim"] == dim and source.attrs["step"] == 1:
            first = source.attrs["start"]
            return cut(str(source.operands[0]), dim, first + start, first + stop, like, called)
        shape = list(types[name].shape)
        shape[dim] = stop - start
        kind = TensorType(tuple(shape), types[name].dtype)
        cuts[key] = called or f"{name}_cut{dim}_{start}_{stop}"
        if source is None or not (OPS[source.op][0] == "pointwise" or
                                  (source.op == "cat" and source.attrs["dim"] != dim)):
            nodes.append(Node("slice", (name,), cuts[key], kind, {"dim": dim, "start": start, "stop": stop, "step": 1},
                              like.source, like.origin))
            return cuts[key]
        operands: list[Operand] = []
        for operand in source.operands:
            own = types[operand].shape if isinstance(operand, str) else ()
            at = dim - (len(shape) - len(own))
            operands.append(cut(operand, at, start, stop, like) if isinstance(operand, str) and at >= 0 and
                            own[at] != 1 else operand)
        nodes.append(Node(source.op, tuple(operands), cuts[key], kind, source.attrs, source.source, source.origin))
        return cuts[key]

    for node in graph.nodes:
        if node.op == "slice" and node.attrs["step"] == 1 and str(node.operands[0]) in made:
            name = cut(str(node.operands[0]), node.attrs["dim"], node.attrs["start"], node.attrs["stop"], node,
                       node.name)
            if name != node.name:  # the same slice made before
                nodes.append(Node("view", (name,), node.name, node.type, {}, node.source, node.origin))
        else:
            nodes.append(node)
    return Graph(graph.inputs, tuple(nodes), graph.outputs)


def _input_slices(graph: Graph) -> tuple[Graph, dict[str, _Slice]]:
    """Slices of the kernel's inputs, and rows of them gathered by an index input, as inputs of their own, read from
    the same GM tensor at an offset (a slice of leading axes of one, or of the first axis), as rows `pitch` apart (a
    slice of the last axis) or row by row at each index (embedding, index_select)."""
    inputs = {i.name: i for i in graph.inputs}
    made = {n.name: n for n in graph.nodes}
    values = inputs | made

    def read(name: Operand) -> Operand:
        """A value as the input it is (through views and broadcasts to its own shape)."""
        while isinstance(name, str) and name in made and made[name].op in ("view", "expand") and \
                made[name].type.shape == values[str(made[name].operands[0])].type.shape:
            name = made[name].operands[0]
        return name

    slices: dict[str, _Slice] = {}
    added, nodes = [], []
    for node in graph.nodes:
        if node.op in ("scatter_add", "scatter"):
            base, index, source = node.operands
            if read(index) not in inputs or read(source) not in inputs:
                raise _fail(node, "a scatter of a computed source or at computed indices")
            if node.op == "scatter" and read(base) not in inputs:
                raise _fail(node, "a scatter into a computed tensor; into an input is lowered so far")
            shape = inputs[str(read(source))].type.shape
            if len(node.type.shape) != 2 or shape[-1] != node.type.shape[-1] or (
                    not node.attrs["by_rows"] and inputs[str(read(index))].type.shape != shape):
                raise _fail(node, "a scatter into other than a matrix, of a source narrower than it, or with fewer "
                                  "indices than source elements")
            scatter = {"rows": shape[0], "by_rows": int(node.attrs["by_rows"])}
            if node.op == "scatter":  # the base's rows, each source row or element put over its place
                slices[node.name] = _Slice(str(read(source)), 0, 0, str(read(index)),
                                           scatter={**scatter, "base": str(read(base))})
                added.append(Input(node.name, node.type, inputs[str(read(source))].kind,
                                   inputs[str(read(source))].target))
                continue
            sums = f"{node.name}_sums"
            slices[sums] = _Slice(str(read(source)), 0, 0, str(read(index)), scatter=scatter)
            added.append(Input(sums, node.type, inputs[str(read(source))].kind, inputs[str(read(source))].target))
            scaled = f"{node.name}_scaled"
            nodes.append(Node("mul", (sums, node.attrs["alpha"]), scaled, node.type, {}, node.source, node.origin))
            nodes.append(Node("add", (base, scaled), node.name, node.type, {}, node.source, node.origin))
            continue
        if node.op in ("pool", "resample"):
            source = node.operands[0]
            while isinstance(source, str) and source in made and made[source].op == "view":  # the same elements
                source = made[source].operands[0]
            if source not in inputs:
                raise _fail(node, "a pool of a computed value; pools of the kernel's inputs are lowered so far")
            axes = len(node.attrs["kernel"] if node.op == "pool" else node.attrs["scales"])
            shape = values[str(node.operands[0])].type.shape
            window = {"mode": node.attrs["mode"], "in": list(shape[-axes:]), "out": list(node.type.shape[-axes:]),
                      "plane": math.prod(shape[-axes:]),
                      "strides": [math.prod(shape[len(shape) - axes + d + 1:]) for d in range(axes)]}
            if node.op == "pool":
                window |= {**{k: list(node.attrs[k]) for k in ("kernel", "stride", "padding", "dilation")},
                           "include": int(node.attrs["count_include_pad"]), "divisor": int(node.attrs["divisor"] or 0)}
            else:
                window |= {"scales": [_literal(s) for s in node.attrs["scales"]],
                           "align": int(node.attrs["align_corners"])}
            grid = ""
            if node.attrs["mode"] == "grid":  # the positions, read by address: [N, Ho, Wo, 2]
                grid = str(read(node.operands[1]))
                if grid not in inputs or len(shape) != 4:
                    raise _fail(node, "a grid sample at computed positions, or of other than [N, C, H, W]")
                window |= {"grid": f"in_{grid}", "channels": shape[1], "sampling": node.attrs["sampling"],
                           "padding": node.attrs["padding"]}
            slices[node.name] = _Slice(str(source), 0, 0, grid, window=window)
            added.append(Input(node.name, node.type, inputs[str(source)].kind, inputs[str(source)].target))
            continue
        if node.op == "take":
            source, index = (read(o) for o in node.operands)
            shape = values[str(node.operands[0])].type.shape
            if (source not in inputs or index not in inputs) and node.attrs["dim"] == len(shape) - 1 and \
                    node.type.shape[-1] == 1:
                nodes.append(node)  # one element of each row of a computed value: picked in the row loop (_pick)
                continue
            if source not in inputs or index not in inputs:
                raise _fail(node, "a take from a computed tensor or at computed indices; of inputs at an input's "
                                  "indices is lowered so far")
            shape, dim = inputs[str(source)].type.shape, node.attrs["dim"]
            if any(a != b for k, (a, b) in enumerate(zip(shape, node.type.shape, strict=True)) if k != dim):
                raise _fail(node, "an index smaller than the source along another axis than the one it picks along")
            take = {"outer": math.prod(shape[:dim]), "length": shape[dim], "inner": math.prod(shape[dim + 1:]),
                    "picks": node.type.shape[dim], "wrap": int(node.attrs["wrap"])}
            slices[node.name] = _Slice(str(source), 0, 0, str(index), take)
            added.append(Input(node.name, node.type, inputs[str(source)].kind, inputs[str(source)].target))
            continue
        if node.op == "rows":
            table, index = node.operands
            if table not in inputs or index not in inputs:
                raise _fail(node, "rows of a computed table, or at computed indices; of inputs at an input's "
                                  "indices are lowered so far")
            if len(inputs[str(table)].type.shape) != 2:
                raise _fail(node, f"rows of a {len(inputs[str(table)].type.shape)}-axis table (of a matrix so far)")
            slices[node.name] = _Slice(str(table), 0, 0, str(index))
            added.append(Input(node.name, node.type, inputs[str(table)].kind, inputs[str(table)].target))
            continue
        if node.op != "slice":
            nodes.append(node)
            continue
        source = node.operands[0]
        if source not in inputs:
            raise _fail(node, "a slice of a computed value; slices of the kernel's inputs are lowered so far")
        shape, dim = inputs[source].type.shape, node.attrs["dim"]
        inner = math.prod(shape[dim + 1:])
        if node.attrs["step"] != 1:
            raise _fail(node, f"a slice with step {node.attrs['step']}")
        if math.prod(shape[:dim]) == 1:
            slices[node.name] = _Slice(str(source), node.attrs["start"] * inner, 0)
        elif dim == len(shape) - 1:
            slices[node.name] = _Slice(str(source), node.attrs["start"], shape[-1])
        else:
            raise _fail(node, f"a slice along axis {dim} of {list(shape)}: slices along the last axis, or along "
                              "the first that is longer than one, are lowered so far")
        added.append(Input(node.name, node.type, inputs[source].kind, inputs[source].target))
    live = set(graph.outputs)
    for node in reversed(nodes):  # what no output needs any more (a broadcast a take read through) goes
        if node.name in live:
            live |= {o for o in node.operands if isinstance(o, str)}
    nodes = [n for n in nodes if n.name in live]
    used = {o for n in nodes for o in n.operands if isinstance(o, str)} | set(graph.outputs)
    kept = tuple(i for i in graph.inputs if i.name in used)
    inputs = {i.name: i for i in kept + tuple(added)}
    outputs = []
    for name in graph.outputs:  # an output that is an input as it is read (a slice, gathered rows): copied out
        if name in inputs:
            nodes.append(Node("cast", (name,), f"{name}_out", inputs[name].type))
            name = f"{name}_out"
        outputs.append(name)
    return Graph(kept + tuple(added), tuple(nodes), tuple(outputs)), slices


def lower(graph: Graph) -> Lowered:
    """The graph as one kernel; LoweringError for what it cannot take."""
    before = graph.types()
    graph, slices = _input_slices(_slices_to_inputs(graph))
    # every value's own type before coalescing: a slice's whole tensor and an index read by address too
    own = {**before, **graph.types()}
    graph, space = canonical(graph, _iteration_shape(graph), any(s.by_rows for s in slices.values()))
    layout, space = _layout(graph, space)
    if layout == "segments":  # each row (C) the A segments of B elements: the rows in chunks, in passes
        return _chunked(graph, space, own, slices, segmented=True)
    if layout == "flat" and any(s.by_rows for s in slices.values()):
        layout, space = "rows", _padded(space, 2)
    try:
        lowered = _lowered(graph, layout, space, own, slices)
    except _SecondPass:
        if layout != "total":
            raise
        graph = Graph(graph.inputs, tuple(replace(n, attrs={"dims": (len(space) - 1,), "keepdim": True})
                                          if n.attrs.get("total") else n for n in graph.nodes), graph.outputs)
        with contextlib.suppress(LoweringError):  # the tensor in passes over every block's tiles
            return _chunked(graph, _padded(space, 2), own, slices, sweeps=True)
        layout, space = "rows", _padded(space, 2)  # else one row, reduced whole by one block
        lowered = _lowered(graph, layout, space, own, slices)
    if layout == "rows":
        with contextlib.suppress(LoweringError):  # else rows that fit a tile only
            lowered.chunked = _chunked(graph, space, own, slices, group=lowered.row_group)
        if any(OPS[n.op][0] in ("scan", "reduce") for n in graph.nodes) and 2 * lowered.rows <= _most_cores():
            with contextlib.suppress(LoweringError):  # else a row's scans and reductions run on one block
                lowered.swept = _chunked(graph, space, own, slices, sweeps=True)
    return lowered


def _chunked(graph: Graph, space: tuple[int, ...], own: dict[str, TensorType], slices: dict[str, _Slice],
             sweeps: bool = False, segmented: bool = False, group: int = 1) -> Lowered:
    """The graph over rows taken one at a time in chunks of the tile's length, for rows longer than a tile holds.
    A row takes as many passes over its chunks as its reductions are deep: pass p computes, chunk by chunk, what the
    reductions of depth p + 1 reduce (into a per-row accumulator each), reading the deeper ones' values as scalars;
    the last pass computes and stores the outputs. What a pass needs of earlier values is computed again.
    `sweeps`: each row split over several blocks, its chunks the tiles of its blocks (one row the whole tensor: a
    reduction over everything used with the tensor again; or few rows reduced or scanned); after each pass the blocks
    of a row exchange their accumulators through the GM workspace. A scan takes a pass of its own before the one it
    runs in: each block sums its range of the scanned value, and the exchange leaves each block the sum of the
    ranges before its own, where its scan starts. Its inputs are rows, a row shared by all and single values.
    `segmented`: over [A, C, B] reduced along A and B (a batch norm's batch statistics), row c is the A segments of
    B elements at (a * C + c) * B. `group`: reductions over the last two axes (a group norm's), each group of that
    many neighbouring rows taken as one row of as many segments, its per-row values read for the segment's row."""
    em = _Emitter(graph)
    em.one_row, em.sweeps, em.segmented, em.group = True, sweeps, segmented, group
    segments = space[0] if segmented else 1
    ins: list[KernelTensor] = []
    roles = {"full": "full", "row": "shared", "perrow": "rowvalue", "table": "rowvalue", "scalar": "scalar"}
    if segments > 1:  # a value per row is one per channel, [1, C, 1]
        roles = {"full": "full", "scalar": "scalar", "table": "rowvalue"}
    if sweeps:  # each block's range of one row: the rows, a shared row and single values
        roles = {"full": "full", "row": "shared", "scalar": "scalar"}
    gathers: dict[str, dict[str, list[int]]] = {}
    for item in graph.inputs:
        stored = _storage_of_input(item.type.shape, space, "rows")
        role = roles.get(stored, "")
        if role == "rowvalue" and segments > 1 and _padded(item.type.shape, 3) != (1, space[1], 1):
            role = ""
        cut = slices.get(item.name)
        if segments > 1 and cut is not None:
            role = ""
        if not role or (cut is not None and (cut.index or cut.window)) or (cut is not None and cut.pitch and
                                                                            role != "full"):
            raise LoweringError(f"input {item.name} ({own[item.name]}) is read other than as the rows, one shared row, "
                                "a value per row or one value: not in chunks")
        source = cut.source if cut else item.name
        name = f"in_{item.name}"
        ins.append(KernelTensor(name, source, kernel_dtype(item.type.dtype), role, own[source].shape, True,
                                cut.offset if cut else 0, cut.pitch if cut else 0))
        if stored == "table" and segments == 1:  # the row's value at sum(index_d(row) * stride_d), as rows pick it
            gathers[name] = _gather(item.type.shape, space)
        storage = {"shared": "full", "rowvalue": "scalar"}.get(role, role)
        em.values[item.name] = _Value(storage, "tile", f"{name}S" if storage == "scalar" else f"{name}F",
                                      item.type.dtype)
    made = {n.name: n for n in graph.nodes}
    kind = {i.name: em.values[i.name].storage for i in graph.inputs}
    ready = {i.name: 0 for i in graph.inputs}
    for node in graph.nodes:
        operands = [o for o in node.operands if isinstance(o, str)]
        ready[node.name] = max((ready[o] for o in operands), default=0)
        if OPS[node.op][0] == "reduce":
            ready[node.name] += 1
            kind[node.name] = "perrow"
        else:
            kind[node.name] = _combine([kind[o] for o in operands])
            ready[node.name] += sweeps and OPS[node.op][0] == "scan"  # after the pass of the blocks' partials
    if any(kind[o] == "scalar" for o in graph.outputs) or ((sweeps or group > 1) and
                                                          any(kind[o] != "full" for o in graph.outputs)):
        raise LoweringError("an output of one value in a kernel over rows in chunks, or of one per row where its "
                            "rows are groups")
    last = max(ready[o] if kind[o] == "full" else max(ready[o] - 1, 0) for o in graph.outputs)
    base = dict(em.values)
    lines: list[str] = []
    for step in range(last + 1):
        em.step = step
        targets = [n.name for n in graph.nodes if OPS[n.op][0] in ("reduce", "scan") and
                   ready[n.name] == step + 1 and ready[str(n.operands[0])] == step]
        partials = {name for name in targets if OPS[made[name].op][0] == "scan"}  # sweeps: a scan's, its pass before
        targets += list(graph.outputs) if step == last else []
        needed, stack = set(), list(targets)
        while stack:
            name = stack.pop()
            if name in needed or name not in made:
                continue
            needed.add(name)
            node = made[name]
            if OPS[node.op][0] == "reduce" and name not in targets:
                continue  # reduced in an earlier pass: its accumulator
            if sweeps and OPS[node.op][0] == "scan" and name not in partials and ready[name] != step:
                raise LoweringError(f"the scan {name} is read in a pass after the one it runs in: not in sweeps")
            stack += [o for o in node.operands if isinstance(o, str)]
        nodes = [n for n in graph.nodes if n.name in needed]
        em.values = {**base, **{n.name: v for n in graph.nodes if OPS[n.op][0] == "reduce" and
                                (v := em.values.get(n.name)) is not None and n.name not in targets}}
        em.full.free = {"tile": [f"v{k}" for k in reversed(range(em.full.made))], "row": [], "finish": []}
        em.stat.free = {"tile": [f"s{k}" for k in reversed(range(em.stat.made)) if f"s{k}" not in em.pinned],
                        "row": [], "finish": []}
        em.holders, em.scalars_read, em.tile = {}, {}, []
        for value in em.values.values():
            em.hold(value.buffer)
        last_use = {}
        for index, node in enumerate(nodes):
            for operand in node.operands:
                if isinstance(operand, str):
                    last_use[operand] = index
        if step == last:
            last_use.update({name: len(nodes) for name in graph.outputs})
        for index, node in enumerate(nodes):
            if OPS[node.op][0] == "reduce" and node.name not in targets:
                continue
            partial = node.name in partials
            if partial:
                _scan_partial(em, node)
            else:
                _emit(em, node, space, "chunks")
            for operand in set(o for o in node.operands if isinstance(o, str)):
                if last_use.get(operand) == index:
                    em.release(em.values[operand].buffer, "tile")
            if node.name not in last_use and not partial:
                em.release(em.values[node.name].buffer, "tile")
        lines += [f"        if (pass == {step}) {{", *("    " + line for line in em.tile), "        }"]
    outs, out_values = [], {}
    for index, name in enumerate(graph.outputs):
        value = em.values[name]
        if name in base:
            raise LoweringError(f"output {index} ({name}) is an input as it is read: not in chunks")
        outs.append(KernelTensor(f"out{index}", name, kernel_dtype(em.types[name].dtype), value.storage,
                                 own[name].shape or (1,)))
        out_values[f"out{index}"] = value.buffer
    if sweeps:
        return Lowered("sweeps", (math.prod(space[:-1]), space[-1]), ins, outs, out_values, em.full.made,
                       em.stat.made, em.uses, {}, lines, [], max(em.passes, 1), em.totals, pass_count=last + 1)
    return Lowered("chunks", space, ins, outs, out_values, em.full.made, em.stat.made, em.uses, gathers, lines, [],
                   max(em.passes, 1), pass_count=last + 1, row_group=group, segments=segments)


def _lowered(graph: Graph, layout: str, space: tuple[int, ...], own: dict[str, TensorType],
             slices: dict[str, _Slice]) -> Lowered:
    emitter = _Emitter(graph)
    ins: list[KernelTensor] = []
    gathers: dict[str, dict[str, list[int]]] = {}
    for item in graph.inputs:
        role = _storage_of_input(item.type.shape, space, layout)
        cut = slices.get(item.name)
        narrow = (cut is None or cut.pitch) and layout == "rows" and _narrow(item.type.shape, space)
        if not narrow and cut is not None and not (cut.pitch or cut.by_rows) and layout == "rows" and \
                _narrow(item.type.shape, space):
            narrow, cut = True, replace(cut, pitch=item.type.shape[-1])  # rows of a part cut from the first axis
        if narrow:  # a part of a concatenation along the rows: rows of its own width (a slice's: its tensor's apart)
            role = "full"
            if cut is None:
                cut = _Slice(item.name, 0, item.type.shape[-1])
        if not role:
            raise LoweringError(f"input {item.name} of shape {list(own[item.name].shape)} does not broadcast to the "
                                f"kernel's {list(space)} as one of: " + ("the whole, a row of the inner axis, a value "
                                "per reduced row, one value"
                                if layout == "cols" else "the whole, a row per row, a value per row, one row, one "
                                "value"))
        outer = role not in ("percol", "perred") or _padded(item.type.shape, 3)[0] != 1
        if cut is not None and cut.pitch and not (cut.index or cut.window) and layout == "rows" and role == "perrow":
            role = "column"  # one element of each row (x[:, k:k + 1]): read per row on the scalar unit
        elif cut is not None and cut.by_rows and (layout != "rows" or role not in ("full", "row")):
            raise LoweringError(f"input {cut.source} is sliced along its last axis or gathered by rows ({item.name}, "
                                f"{item.type}) where the kernel reads it other than row by row")
        if cut is not None and (cut.index or cut.window):
            if role != "full":
                raise LoweringError(f"rows of {cut.source} gathered ({item.name}, {item.type}) are read other than "
                                    "as the kernel's rows")
            role = "scattered" if cut.scatter else "pooled" if cut.window else "picked" if cut.take else "indexed"
        source = cut.source if cut else item.name
        name = f"in_{item.name}"  # apart from every name of the skeleton's (maskBuf, blocks, ...)
        ins.append(KernelTensor(name, source, kernel_dtype(item.type.dtype), role, own[source].shape or (1,), outer,
                                cut.offset if cut else 0, cut.pitch if cut else 0,
                                item.type.shape[-1] if narrow else 0))
        buffer = {"scalar": f"{name}S", "perrow": f"{name}P", "table": f"{name}P", "column": f"{name}P"}.get(
            role, f"{name}F")
        storage = {"column": "perrow", "gather": "full", "percol": "full", "perred": "full", "table": "perrow",
                   "indexed": "full", "picked": "full", "pooled": "full", "scattered": "full"}.get(role, role)
        emitter.values[item.name] = _Value(storage, "tile", buffer, item.type.dtype)
        if role == "gather":
            gathers[name] = _gather(item.type.shape, space)
        elif role in ("indexed", "picked", "scattered"):
            gathers[name] = {"index": f"in_{cut.index}", **(cut.take or cut.scatter or {})}
            if cut.scatter and "base" in cut.scatter:
                gathers[name]["base"] = f"in_{cut.scatter['base']}"
        elif role == "pooled":
            gathers[name] = dict(cut.window or {})
        elif role == "table":
            gathers[name] = {**_gather(item.type.shape, space), "size": math.prod(item.type.shape)}
    by_address = [cut.index for cut in slices.values() if cut.index] + \
        [cut.scatter["base"] for cut in slices.values() if cut.scatter and "base" in cut.scatter]
    for index in dict.fromkeys(by_address):  # read by address only: indices, and what a scatter puts values over
        ins.append(KernelTensor(f"in_{index}", index, kernel_dtype(own[index].dtype), "index", own[index].shape))
    last_use = {}
    for index, node in enumerate(graph.nodes):
        for operand in node.operands:
            if isinstance(operand, str):
                last_use[operand] = index
    for name in graph.outputs:
        last_use[name] = len(graph.nodes)
    for value in emitter.values.values():
        emitter.hold(value.buffer)
    for index, node in enumerate(graph.nodes):
        _emit(emitter, node, space, layout)
        phase = emitter.values[node.name].phase
        for operand in set(o for o in node.operands if isinstance(o, str)):
            if last_use.get(operand) == index:
                emitter.release(emitter.values[operand].buffer, phase)
        if node.name not in last_use:
            emitter.release(emitter.values[node.name].buffer, phase)
    ins = [replace(t, shift=emitter.shifts[t.name[3:]]) if t.name[3:] in emitter.shifts else t for t in ins]
    outs, out_values = [], {}
    for index, name in enumerate(graph.outputs):
        value = emitter.values[name]
        role = value.storage
        if layout == "cols" and role == "full" and _padded(emitter.types[name].shape, 3) != space:
            role = "percol"
        if value.phase == "finish":
            role = "total"
        if role not in ("full", "perrow", "percol", "total") or name in {i.name for i in graph.inputs} or (
                layout == "rows" and role == "full" and _narrow(emitter.types[name].shape, space)):
            raise LoweringError(f"output {index} ({name}, {emitter.types[name]}) is not computed over the kernel's "
                                f"{list(space)}: an output must be a computed tensor of that shape or one value "
                                "per row")
        kernel_name = f"out{index}"
        outs.append(KernelTensor(kernel_name, name, kernel_dtype(emitter.types[name].dtype), role,
                                 own[name].shape or (1,)))
        out_values[kernel_name] = value.buffer
    grouped = len(space) >= 3 and any(OPS[n.op][0] == "reduce" and not n.attrs.get("total") and
                                      tuple(n.attrs["dims"]) == (len(space) - 2, len(space) - 1) for n in graph.nodes)
    return Lowered(layout, space, ins, outs, out_values, emitter.full.made, emitter.stat.made,
                   emitter.uses, gathers, emitter.tile, emitter.row, max(emitter.passes, 1), emitter.totals,
                   emitter.finish, row_group=space[-2] if layout == "rows" and grouped else 1)


def _combine(storages: list[str]) -> str:
    kinds = set(storages)
    if "full" in kinds or {"perrow", "row"} <= kinds:
        return "full"
    for kind in ("perrow", "row"):
        if kind in kinds:
            return kind
    return "scalar"


def _emit(em: _Emitter, node: Node, space: tuple[int, ...], layout: str) -> None:
    operands = [em.values[o] if isinstance(o, str) else None for o in node.operands]
    family = OPS[node.op][0]
    rows, total = layout in ("rows", "chunks"), layout == "total"
    phase = "row" if layout in ("rows", "total") and (family in ("reduce", "scan") or any(
        v is not None and (v.phase == "row" or v.storage == "perrow") for v in operands)) else "tile"
    if any(v is not None and v.phase == "finish" for v in operands):
        if any(v is not None and v.phase != "finish" and v.storage != "scalar" for v in operands):
            raise _SecondPass(f"{node.op} ({node.source or node.name}): the result of a reduction over every element "
                              "used with the tensor again (a second pass over it) is not lowered yet")
        phase = "finish"
    if node.op == "cat":
        _cat(em, node, space, layout, operands)
        return
    if family == "layout":
        source = operands[0]
        if source is None:
            raise _fail(node, "a view of a constant")
        if rows and node.op == "view" and source.storage == "full" and _padded(node.type.shape, len(space)) != space \
                and _padded(node.type.shape, len(space)) != _padded(em.types[str(node.operands[0])].shape, len(space)):
            raise _fail(node, f"a view from {list(space)} to {list(node.type.shape)} changes the rows of the kernel")
        em.values[node.name] = _Value(source.storage, source.phase, source.buffer, node.type.dtype, source.number)
        em.hold(source.buffer)
        return
    if family == "scan":
        _scan(em, node, space, layout)
        return
    if node.op == "take":
        _pick(em, node, space, layout)
        return
    if family == "reduce":
        if phase == "finish":
            raise _fail(node, "a reduction of the result of a reduction over every element")
        if node.attrs.get("total") and layout == "cols":
            raise _fail(node, "a reduction over every element in a kernel that reduces a middle axis")
        reduce = _accumulate if node.attrs.get("total") or total else \
            {"rows": _reduce, "cols": _fold_rows, "chunks": _accumulate_chunks}[layout]
        reduce(em, node, space)
        return
    storage = _combine([v.storage if v is not None else "scalar" for v in operands])
    if phase == "finish" and storage == "full":
        raise _SecondPass(f"{node.op} ({node.source or node.name}): the result of a reduction over every element "
                          "used with the whole tensor again (a second pass over it) is not lowered yet")
    padded = _padded(node.type.shape, len(space))
    repeated = bool(space) and padded[-1] == space[-1] and all(d in (1, s) for d, s in zip(padded, space, strict=True))
    if storage == "full" and rows and padded != space and not (layout == "rows" and (
            _narrow(node.type.shape, space) or repeated)):  # a value the same for every batch is computed for each
        raise _fail(node, f"a result of shape {list(node.type.shape)} inside a kernel over {list(space)}")
    for operand, value in zip(node.operands, operands, strict=True):
        padded = _padded(em.types[str(operand)].shape, len(space)) if value is not None else ()
        if storage == "full" and value is not None and value.storage == "perrow" and (
                padded[-1] != 1 or any(d not in (1, s) for d, s in zip(padded, space, strict=True))):
            raise _fail(node, f"{operand} ({em.types[str(operand)]}) broadcasts along the rows, not the columns")
    if storage == "scalar":
        if _scalar(em, node, operands):
            return
        if phase == "finish":
            raise _fail(node, "this operation on a value reduced over every element is not lowered (only + - * / "
                              "and negation)")
        storage = "full"  # on the vector unit: the one value in every element of the tile
    if storage == "row" and phase == "tile":
        storage = "full"  # computed on the replicated tile: the same layout
    pool = em.stat if storage == "perrow" else em.full
    buffer = pool.take(phase)
    em.hold(buffer)
    em.values[node.name] = _Value(storage, phase, buffer, node.type.dtype)
    count = "1" if storage == "perrow" else "cols" if phase != "tile" else "count"
    em.passes += PASSES.get(node.op, 1)
    _pointwise(em, node, phase, em.ref(node.name, phase), count)


def _scalar(em: _Emitter, node: Node, operands: list[_Value | None]) -> bool:
    """A node over constants and scalar inputs: folded where every operand is a number, else C++ on the scalar
    unit for the arithmetic the scalar unit has; False for the rest (an exp of a learnt scale)."""
    numbers = [float(o) if v is None else v.number for o, v in zip(node.operands, operands, strict=True)]
    if all(n is not None for n in numbers):  # folded as torch computes it
        args = [torch.tensor(n, dtype=torch.float64) for n in numbers]
        folded = _fold(node, args)
        em.values[node.name] = _Value("scalar", "tile", _literal(folded), node.type.dtype, folded)
        return True
    texts = [em.scalar(o, "tile") for o in node.operands]
    infix = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
    if node.op in infix and len(texts) == 2:
        expression = f"({texts[0]} {infix[node.op]} {texts[1]})"
    elif node.op == "neg":
        expression = f"(-{texts[0]})"
    elif node.op == "cast" and node.type.dtype in ("float32",):
        expression = str(texts[0])
    else:
        return False
    em.values[node.name] = _Value("scalar", "tile", expression, node.type.dtype)
    return True


def _fold(node: Node, args: list[torch.Tensor]) -> float:
    """A pointwise node over numbers, as torch computes it (`evaluate.EVALUATIONS`)."""
    if OPS[node.op][0] != "pointwise":
        raise _fail(node, "cannot fold this operation on constants")
    return float(EVALUATIONS[node.op](node, args))


def _reduce(em: _Emitter, node: Node, space: tuple[int, ...]) -> None:
    source = em.values[str(node.operands[0])]
    shape = em.types[str(node.operands[0])].shape
    last = len(shape) - 1
    grouped = node.attrs["dims"] == (last - 1, last) and node.op != "prod"
    if source.storage not in ("full", "row") or _padded(shape, len(space)) != space or \
            (node.attrs["dims"] != (last,) and not grouped):
        raise _fail(node, f"a reduction over axes {list(node.attrs['dims'])} of {list(shape)}: reductions over the "
                          "last axis of the kernel's rows, or over its last two as groups of rows, are lowered so far")
    buffer = em.stat.take("row")
    em.hold(buffer)
    em.values[node.name] = _Value("perrow", "row", buffer, node.type.dtype)
    em.uses.add("work")
    em.passes += 1
    dst = f"{buffer}[r * STAT]"
    if node.op == "prod":  # no vector product reduction: the scalar unit's, element by element
        em.macro("row", f"{{{{ scans.product_of_row('{buffer}', '{source.buffer}') }}}}")
        return
    em.put("row", f"{REDUCE_API[node.op]}({dst}, {em.ref(str(node.operands[0]), 'row')}, work, cols);")
    if grouped:  # every row's value first, then each group's combined into each of its rows, then the rest
        combine = COMBINE[node.op]
        scale = _literal(1.0 / (space[-1] * space[-2])) if node.op == "mean" else "1.0f"
        em.macro("row", "        }")
        em.macro("row", f"{{{{ reductions.combine_groups('{combine}', '{buffer}', {space[-2]}, '{scale}') }}}}")
        em.macro("row", "        for (uint32_t r = 0; r < n; ++r) {")
        em.scalars_read = {key: name for key, name in em.scalars_read.items() if key[1] != "row"}
    elif node.op == "mean":
        em.put("row", f"Muls({dst}, {dst}, {_literal(1.0 / space[-1])}, 1);")


def _scan(em: _Emitter, node: Node, space: tuple[int, ...], layout: str) -> None:
    """A running sum or product: along a row, element by element on the scalar unit (rows); across the tile's rows,
    a row at a time on the vector unit (cols)."""
    operand = str(node.operands[0])
    source = em.values[operand]
    if source.storage != "full" or layout not in ("rows", "cols", "chunks"):
        raise _fail(node, "a scan of a value that is not the whole tensor, or in a kernel without rows")
    phase = "row" if layout == "rows" else "tile"
    buffer = em.full.take(phase)
    em.hold(buffer)
    em.values[node.name] = _Value("full", phase, buffer, node.type.dtype)
    em.passes += 4
    op = "Add" if node.op == "cumsum" else "Mul"
    reverse = "true" if node.attrs["reverse"] else "false"
    if layout == "chunks":  # chunk after chunk, the running value carried from one to the next
        if node.attrs["reverse"] or em.group > 1:
            raise _fail(node, "a reversed scan along a row longer than a tile (the chunks run forwards), or a scan "
                              "in a kernel whose rows in chunks are groups of rows")
        carry = em.carries[node.name] if em.sweeps else _pinned_stat(em)  # sweeps: from the ranges before
        em.macro(phase, f"{{{{ scans.along_chunk('{op}', '{buffer}', '{source.buffer}', '{carry}', "
                        f"{'false' if em.sweeps else 'true'}) }}}}")
        return
    macro = "along_row" if layout == "rows" else "across_rows"
    em.macro(phase, f"{{{{ scans.{macro}('{op}', '{buffer}', '{source.buffer}', {reverse}) }}}}")


def _narrow(shape: tuple[int, ...], space: tuple[int, ...]) -> bool:
    """A value of the kernel's rows but fewer columns (a part of a concatenation along them): held in tiles of the
    kernel's row stride, its columns first, the rest of each row unused."""
    padded = _padded(shape, len(space))
    return padded[:-1] == space[:-1] and 1 < padded[-1] < space[-1]


def _cat(em: _Emitter, node: Node, space: tuple[int, ...], layout: str, operands: list[_Value | None]) -> None:
    """A concatenation along the rows: each part's columns copied to theirs, for all of the tile's rows at once; a
    part of one value filled with it. A vector copy starts on a 32-byte boundary: an input that starts off one is
    loaded that many columns to the right (`shifts`, DataCopyPad's left padding) and copied from the boundary before
    it, the part before it copied after it over what that took of its columns (the parts go last to first)."""
    widths = node.attrs["widths"]
    starts = [sum(widths[:k]) for k in range(len(widths))]
    if layout != "rows" or node.attrs["dim"] != len(node.type.shape) - 1 or \
            _padded(node.type.shape, len(space)) != space:
        raise _fail(node, "a concatenation other than along the last axis of the kernel's rows")
    scalars = [em.scalar(o, "tile") if v is None or v.storage == "scalar" else None
               for o, v in zip(node.operands, operands, strict=True)]
    if any(s is None and (v is None or v.storage != "full" or v.phase != "tile")
           for s, v in zip(scalars, operands, strict=True)):
        raise _fail(node, "a concatenation of other than whole tiles or single values (a part of one value per row, "
                          "or computed per row)")
    aligned = 32 // 4  # fp32 elements in a 32-byte block: where a vector operation may start
    inputs = {i.name for i in em.graph.inputs}
    uses = {o: sum(o in n.operands for n in em.graph.nodes) for o in node.operands if isinstance(o, str)}
    for operand, start, scalar in zip(node.operands, starts, scalars, strict=True):
        if scalar is None and start % aligned:
            if operand not in inputs or uses[operand] != 1 or operand in em.graph.outputs:
                raise _fail(node, f"a concatenation with a part at column {start}, off a 32-byte boundary of fp32, "
                                  "that is computed or read elsewhere too (an input read only here is lowered)")
            em.shifts[str(operand)] = start % aligned
    buffer = em.full.take("tile")
    em.hold(buffer)
    em.values[node.name] = _Value("full", "tile", buffer, node.type.dtype)
    em.passes += 1
    for operand, value, start, width, scalar in reversed(list(zip(node.operands, operands, starts, widths, scalars,
                                                                  strict=True))):
        if scalar is not None:
            em.macro("tile", f"{{{{ columns.fill('{buffer}', '{scalar}', {start}, {width}) }}}}")
            continue
        shift = em.shifts.get(str(operand), 0)
        em.macro("tile", f"{{{{ columns.place('{buffer}', '{value.buffer}', {start - shift}, {width + shift}) }}}}")


def _pick(em: _Emitter, node: Node, space: tuple[int, ...], layout: str) -> None:
    """One element of each row at the row's index (a per-row value), on the scalar unit: a loss's value at its
    target class."""
    source, index = node.operands
    shape = em.types[str(source)].shape
    if layout != "rows" or em.values[str(source)].storage != "full" or _padded(shape, 2) != space:
        raise _fail(node, "a take from a computed value other than one element of each of the kernel's rows")
    buffer = em.stat.take("row")
    em.hold(buffer)
    em.values[node.name] = _Value("perrow", "row", buffer, node.type.dtype)
    at = em.scalar(index, "row")
    if at is None:
        raise _fail(node, "a take at indices that are not one per row")
    wrap = " k = k < 0 ? k + static_cast<int64_t>(cols) : k;" if node.attrs["wrap"] else ""
    for line in ("VecToScalar();",
                 f"{{ int64_t k = static_cast<int64_t>({at});{wrap} "
                 f"{buffer}.SetValue(r * STAT, {em.values[str(source)].buffer}.GetValue(r * rowStride + k)); }}",
                 "ScalarToVec();"):
        em.macro("row", "            " + line)


def _accumulate(em: _Emitter, node: Node, space: tuple[int, ...]) -> None:
    """A reduction over every element into the block's accumulator, a buffer of its own that every tile (flat
    tiles: each reduced into `part`) or every row (rows: its value, or its row reduced into `part`) adds to; the
    accumulators are combined across blocks before the finishing math."""
    operand = str(node.operands[0])
    source = em.values[operand]
    if node.op not in REDUCE_API:
        raise _fail(node, f"a {node.op} over every element (a product across blocks) is not lowered yet")
    em.stat.made += 1
    accumulator = f"{em.stat.prefix}{em.stat.made - 1}"
    em.hold(accumulator)
    em.values[node.name] = _Value("perrow", "finish", accumulator, node.type.dtype)
    em.uses.update({"work", "part"})
    em.passes += 1
    combine = COMBINE[node.op]
    start = START[combine]
    em.totals.append({"acc": accumulator, "start": start, "combine": combine})
    if source.storage == "full" and source.phase == "tile" and len(space) == 1:
        em.put("tile", f"{REDUCE_API[node.op]}(part, {source.buffer}, work, count);")
        em.put("tile", f"{combine}({accumulator}, {accumulator}, part, 1);")
    elif source.storage == "full":
        em.put("row", f"{REDUCE_API[node.op]}(part, {em.ref(operand, 'row')}, work, cols);")
        em.put("row", f"{combine}({accumulator}, {accumulator}, part, 1);")
    elif source.storage == "perrow":
        em.put("row", f"{combine}({accumulator}, {accumulator}, {em.ref(operand, 'row')}, 1);")
    else:
        raise _fail(node, "a reduction over every element of a value that is neither the tensor nor one per row")
    if node.op == "mean":
        count = math.prod(em.types[operand].shape)
        em.put("finish", f"Muls({accumulator}, {accumulator}, {_literal(1.0 / count)}, 1);")


def _pinned_stat(em: _Emitter) -> str:
    """A per-row buffer of its own that keeps its value from chunk to chunk and pass to pass."""
    em.stat.made += 1
    buffer = f"{em.stat.prefix}{em.stat.made - 1}"
    em.pinned.add(buffer)
    em.hold(buffer)
    return buffer


def _accumulate_chunks(em: _Emitter, node: Node, space: tuple[int, ...]) -> None:
    """A reduction along a row taken in chunks: each chunk reduced into `part` and combined into the row's
    accumulator, started again at the row's first chunk and complete after its last."""
    operand = str(node.operands[0])
    source = em.values[operand]
    shape = em.types[operand].shape
    along = (0, 2) if em.segmented else (len(shape) - 2, len(shape) - 1) if em.group > 1 else (len(shape) - 1,)
    if node.op not in REDUCE_API or source.storage != "full" or _padded(shape, len(space)) != space or \
            tuple(node.attrs["dims"]) != along:
        raise _fail(node, f"a {node.op} over axes {list(node.attrs['dims'])} of {list(shape)} in a kernel over rows "
                          "in chunks (sums, means, maxima and minima along the row are lowered)")
    accumulator = _pinned_stat(em)
    em.values[node.name] = _Value("perrow", "tile", accumulator, node.type.dtype)
    em.uses.update({"work", "part"})
    em.passes += 1
    combine = COMBINE[node.op]
    start = START[combine]
    if em.sweeps:  # started once, combined across blocks after its pass (the skeleton's Exchange)
        scale = _literal(1.0 / space[-1]) if node.op == "mean" else "1.0f"
        em.totals.append({"acc": accumulator, "start": start, "combine": combine, "pass": str(em.step),
                          "scale": scale})
    else:
        em.put("tile", f"if (c == 0) {{ Duplicate({accumulator}, {start}, 8); }}")
    em.put("tile", f"{REDUCE_API[node.op]}(part, {source.buffer}, work, count);")
    em.put("tile", f"{combine}({accumulator}, {accumulator}, part, 1);")
    if node.op == "mean" and not em.sweeps:
        count = space[-1] * (space[0] if em.segmented else em.group)
        em.put("tile", f"if (c + 1 == chunkCount) {{ Muls({accumulator}, {accumulator}, "
                       f"{_literal(1.0 / count)}, 1); }}")


def _scan_partial(em: _Emitter, node: Node) -> None:
    """Sweeps: the pass before a scan's sums the block's range of the scanned value into a buffer of the scan's own;
    the exchange after it leaves there what the ranges of the blocks before sum to, the scan's carry into its
    range."""
    if node.op != "cumsum" or node.attrs["reverse"]:
        raise _fail(node, "a scan across blocks other than a forward running sum (a product's partials have no "
                          "vector reduction)")
    source = em.values[str(node.operands[0])]
    carry = _pinned_stat(em)
    em.carries[node.name] = carry
    em.uses.update({"work", "part"})
    em.passes += 1
    em.totals.append({"acc": carry, "start": START["Add"], "combine": "Add", "pass": str(em.step), "scale": "1.0f",
                      "prefix": True})
    em.put("tile", f"ReduceSum(part, {source.buffer}, work, count);")
    em.put("tile", f"Add({carry}, {carry}, part, 1);")


def _fold_rows(em: _Emitter, node: Node, space: tuple[int, ...]) -> None:
    """A reduction over the `red` rows of a cols tile, folded into its first row and copied to every row."""
    source = em.values[str(node.operands[0])]
    if source.storage != "full":
        raise _fail(node, "a reduction of a value that is not a whole tile")
    buffer = em.full.take("tile")
    em.hold(buffer)
    em.values[node.name] = _Value("full", "tile", buffer, node.type.dtype)
    em.passes += 2
    api = COMBINE[node.op]
    scale = _literal(1.0 / space[1]) if node.op == "mean" else "1.0f"
    em.macro("tile", f"{{{{ reductions.fold_rows('{api}', '{buffer}', '{source.buffer}', '{scale}') }}}}")


def _tensor(em: _Emitter, operand: Operand, phase: str, count: str, temps: list[str]) -> str:
    """A tensor reference for an operand, a scalar one filled into a scratch buffer (Duplicate)."""
    if isinstance(operand, str) and em.values[operand].storage in ("full", "row"):
        return em.ref(operand, phase)
    if isinstance(operand, str) and em.values[operand].storage == "perrow" and count == "1":
        return em.ref(operand, phase)
    text = em.scalar(operand, phase)
    buffer = em.temp(phase)
    temps.append(buffer)
    ref = _region(buffer, phase)
    em.put(phase, f"Duplicate({ref}, {text}, {count});")
    return ref


def _bool(em: _Emitter, operand: Operand, phase: str, count: str, temps: list[str]) -> str:
    """A 0/1 tensor for an operand taken as a truth value: a bool value as it is, anything else compared with 0."""
    if isinstance(operand, str) and em.types[operand].dtype == "bool":
        return _tensor(em, operand, phase, count, temps)
    source = _tensor(em, operand, phase, count, temps)
    buffer = em.temp(phase)
    temps.append(buffer)
    ref = _region(buffer, phase)
    _flag(em, phase, ref, f"Compares(mask, {source}, 0.0f, CMPMODE::NE, AlignUp({count}, 64));", count)
    return ref


def _region(buffer: str, phase: str) -> str:
    """A tile buffer as the math addresses it: whole in the tile's math, row r's part in the row loop."""
    return f"{buffer}[r * rowStride]" if phase != "tile" else buffer


def _mask(em: _Emitter, phase: str, compare: str) -> None:
    """A Compare into the bit mask (`compare`: the whole call)."""
    em.uses.update({"mask", "ones"})
    em.put(phase, compare)


def _flag(em: _Emitter, phase: str, dst: str, compare: str, count: str) -> None:
    """dst = 1.0 where `compare` sets the mask's bit, else 0.0: a truth value as the kernel's fp32 math holds it."""
    _mask(em, phase, compare)
    em.put(phase, f"Select({dst}, mask, ones, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});")


def _pointwise(em: _Emitter, node: Node, phase: str, dst: str, count: str) -> None:
    op, operands = node.op, node.operands
    temps: list[str] = []
    scal = [em.scalar(o, phase) if not isinstance(o, str) or em.values[o].storage == "scalar" or
            (em.values[o].storage == "perrow" and count != "1") else None for o in operands]

    def tensor(i: int) -> str:
        return _tensor(em, operands[i], phase, count, temps)

    if op in UNARY_API:
        em.put(phase, f"{UNARY_API[op]}({dst}, {tensor(0)}, {count});")
    elif op == "neg":
        em.put(phase, f"Muls({dst}, {tensor(0)}, -1.0f, {count});")
    elif op == "reciprocal":
        em.uses.add("ones")
        em.put(phase, f"Div({dst}, ones, {tensor(0)}, {count});")
    elif op in ("sigmoid", "tanh"):
        em.uses.add("ones")
        em.macro(phase, f"{{{{ elementwise.{op}('{dst}', '{tensor(0)}', '{count}', 'ones') }}}}")
    elif op == "erf":
        em.uses.update({"ones", "mask"})
        x = tensor(0)
        t, u = em.temp(phase), em.temp(phase)
        temps += [t, u]
        em.macro(phase, f"{{{{ elementwise.erf('{dst}', '{x}', '{_region(t, phase)}', '{_region(u, phase)}', "
                        f"'{count}', 'ones', 'mask') }}}}")
    elif op in ("sin", "cos"):
        x = tensor(0)
        t, u, w = em.temp(phase), em.temp(phase), em.temp(phase)
        temps += [t, u, w]
        em.macro(phase, f"{{{{ elementwise.sine('{dst}', '{x}', '{_region(t, phase)}', '{_region(u, phase)}', "
                        f"'{_region(w, phase)}', '{count}', {math.pi / 2 if op == 'cos' else 0.0!r}) }}}}")
    elif op == "atan":
        em.uses.add("ones")
        x = tensor(0)
        t, u, w = em.temp(phase), em.temp(phase), em.temp(phase)
        temps += [t, u, w]
        em.macro(phase, f"{{{{ elementwise.arctangent('{dst}', '{x}', '{_region(t, phase)}', '{_region(u, phase)}', "
                        f"'{_region(w, phase)}', '{count}', 'ones') }}}}")
    elif op in ("log1p", "expm1"):
        if op == "log1p":
            em.put(phase, f"Adds({dst}, {tensor(0)}, 1.0f, {count});")
            em.put(phase, f"Ln({dst}, {dst}, {count});")
        else:
            em.put(phase, f"Exp({dst}, {tensor(0)}, {count});")
            em.put(phase, f"Adds({dst}, {dst}, -1.0f, {count});")
    elif op == "clamp":
        source = tensor(0)
        low, high = node.attrs.get("min"), node.attrs.get("max")
        if low is None and high is None:
            em.put(phase, f"Muls({dst}, {source}, 1.0f, {count});")
        if low is not None:
            em.put(phase, f"Maxs({dst}, {source}, {_literal(low)}, {count});")
            source = dst
        if high is not None:
            em.put(phase, f"Mins({dst}, {source}, {_literal(high)}, {count});")
    elif op == "cast":
        _cast(em, node, phase, dst, tensor(0), count, temps)
    elif op in ROUNDING:  # through int32, rounded as the mode says
        whole = em.temp(phase)
        temps.append(whole)
        ref = _region(f"{whole}.ReinterpretCast<int32_t>()", phase)
        em.put(phase, f"Cast({ref}, {tensor(0)}, RoundMode::{ROUNDING[op]}, {count});")
        em.put(phase, f"Cast({dst}, {ref}, RoundMode::CAST_NONE, {count});")
    elif op in BINARY_API:
        _binary(em, node, phase, dst, count, scal, tensor)
    elif op == "pow":
        _power(em, node, phase, dst, count, scal, tensor)
    elif op in CMP:
        _compare(em, node, phase, dst, count, scal, tensor)
    elif op in ("logical_and", "logical_or", "logical_not"):
        flags = [_bool(em, o, phase, count, temps) for o in operands]
        if op == "logical_not":
            em.put(phase, f"Muls({dst}, {flags[0]}, -1.0f, {count});")
            em.put(phase, f"Adds({dst}, {dst}, 1.0f, {count});")
        else:
            em.put(phase, f"{'Mul' if op == 'logical_and' else 'Max'}({dst}, {flags[0]}, {flags[1]}, {count});")
    elif op == "where":
        condition = _bool(em, operands[0], phase, count, temps)
        _mask(em, phase, f"Compares(mask, {condition}, 0.5f, CMPMODE::GT, AlignUp({count}, 64));")
        if scal[1] is None and scal[2] is None:
            em.put(phase, f"Select({dst}, mask, {tensor(1)}, {tensor(2)}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});")
        elif scal[2] is not None:
            em.put(phase, f"Select({dst}, mask, {tensor(1)}, {scal[2]}, SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});")
        else:
            _mask(em, phase, f"Compares(mask, {condition}, 0.5f, CMPMODE::LT, AlignUp({count}, 64));")
            em.put(phase, f"Select({dst}, mask, {tensor(2)}, {scal[1]}, SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});")
    else:
        raise _fail(node, "not lowered yet")
    for buffer in temps:
        em.release(buffer, phase)


def _cast(em: _Emitter, node: Node, phase: str, dst: str, source: str, count: str, temps: list[str]) -> None:
    target = node.type.dtype
    if target == "float32":
        em.put(phase, f"Muls({dst}, {source}, 1.0f, {count});")
    elif target in ("float16", "bfloat16"):
        narrow = em.temp(phase)
        temps.append(narrow)
        kind = C_TYPES[target]
        ref = _region(f"{narrow}.ReinterpretCast<{kind}>()", phase)
        em.put(phase, f"Cast({ref}, {source}, RoundMode::CAST_RINT, {count});")
        em.put(phase, f"Cast({dst}, {ref}, RoundMode::CAST_NONE, {count});")
    elif target == "bool":
        _flag(em, phase, dst, f"Compares(mask, {source}, 0.0f, CMPMODE::NE, AlignUp({count}, 64));", count)
    else:
        whole = em.temp(phase)
        temps.append(whole)
        ref = _region(f"{whole}.ReinterpretCast<int32_t>()", phase)
        em.put(phase, f"Cast({ref}, {source}, RoundMode::CAST_TRUNC, {count});")
        em.put(phase, f"Cast({dst}, {ref}, RoundMode::CAST_NONE, {count});")


def _binary(em: _Emitter, node: Node, phase: str, dst: str, count: str, scal: list[str | None], tensor) -> None:
    op = node.op
    if scal[0] is None and scal[1] is None:
        em.put(phase, f"{BINARY_API[op]}({dst}, {tensor(0)}, {tensor(1)}, {count});")
    elif scal[1] is not None:  # tensor op scalar
        x, s = tensor(0), scal[1]
        if op == "add":
            em.put(phase, f"Adds({dst}, {x}, {s}, {count});")
        elif op == "sub":
            em.put(phase, f"Adds({dst}, {x}, -({s}), {count});")
        elif op == "mul":
            em.put(phase, f"Muls({dst}, {x}, {s}, {count});")
        elif op == "div":
            em.put(phase, f"Muls({dst}, {x}, 1.0f / ({s}), {count});")
        else:
            em.put(phase, f"{'Maxs' if op == 'maximum' else 'Mins'}({dst}, {x}, {s}, {count});")
    else:  # scalar op tensor
        s, x = scal[0], tensor(1)
        if op in ("add", "mul", "maximum", "minimum"):
            api = {"add": "Adds", "mul": "Muls", "maximum": "Maxs", "minimum": "Mins"}[op]
            em.put(phase, f"{api}({dst}, {x}, {s}, {count});")
        elif op == "sub":
            em.put(phase, f"Muls({dst}, {x}, -1.0f, {count});")
            em.put(phase, f"Adds({dst}, {dst}, {s}, {count});")
        else:
            em.put(phase, f"Duplicate({dst}, {s}, {count});")
            em.put(phase, f"Div({dst}, {dst}, {x}, {count});")


def _power(em: _Emitter, node: Node, phase: str, dst: str, count: str, scal: list[str | None], tensor) -> None:
    exponent = node.operands[1]
    if scal[0] is None and not isinstance(exponent, str):
        em.uses.add("ones")
        em.macro(phase, f"{{{{ elementwise.power('{dst}', '{tensor(0)}', {float(exponent)!r}, '{count}', 'ones') }}}}")
    elif scal[0] is None:
        em.put(phase, f"Ln({dst}, {tensor(0)}, {count});")
        em.put(phase, f"Mul({dst}, {dst}, {tensor(1)}, {count});")
        em.put(phase, f"Exp({dst}, {dst}, {count});")
    else:
        base = node.operands[0]
        if isinstance(base, str):
            raise _fail(node, "a one-element input raised to a tensor power is not lowered")
        em.put(phase, f"Muls({dst}, {tensor(1)}, {_literal(math.log(float(base)))}, {count});")
        em.put(phase, f"Exp({dst}, {dst}, {count});")


def _compare(em: _Emitter, node: Node, phase: str, dst: str, count: str, scal: list[str | None], tensor) -> None:
    op = node.op
    if scal[0] is None and scal[1] is None:
        compare = f"Compare(mask, {tensor(0)}, {tensor(1)}, CMPMODE::{CMP[op]}, AlignUp({count}, 64));"
    elif scal[1] is not None:
        compare = f"Compares(mask, {tensor(0)}, {scal[1]}, CMPMODE::{CMP[op]}, AlignUp({count}, 64));"
    else:
        compare = f"Compares(mask, {tensor(1)}, {scal[0]}, CMPMODE::{CMP[FLIPPED[op]]}, AlignUp({count}, 64));"
    _flag(em, phase, dst, compare, count)
