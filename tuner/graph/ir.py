"""The kernel IR: a user's operator as a list of tensor operations the tuner knows how to lower.

A `Graph` has named inputs (the forward's tensors, then the module's parameters and buffers, each with its
kind), a list of `Node`s in an order where every operand comes first, and the names of its outputs. A node is
one IR operation (`op`, a name of `OPS`) over operands that are value names or Python scalars, with its
attributes and the type of the one value it makes. Types are static: a shape of ints and a dtype of `DTYPES`;
broadcasting follows torch's rules and each node's type is the one torch computed when the graph was captured.

The IR is deliberately small, and grows by family (issue 15): today pointwise operations, reductions, scans, windows
(max and average pools), gathers (rows at an index: embedding, index_select; elements along an axis: gather,
take_along_dim) and the layout operations (a view to another shape of the same elements, a broadcast, a slice along
one axis, a concatenation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DTYPES", "OPS", "Graph", "Input", "Node", "Operand", "TensorType"]

DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "bool")

# IR operation -> (family, number of tensor-or-scalar operands, 0 for any). Attributes are named in each op's comment.
OPS: dict[str, tuple[str, int]] = {
    # unary arithmetic and the activations
    "neg": ("pointwise", 1), "abs": ("pointwise", 1), "exp": ("pointwise", 1), "log": ("pointwise", 1),
    "sqrt": ("pointwise", 1), "rsqrt": ("pointwise", 1), "reciprocal": ("pointwise", 1),
    "sigmoid": ("pointwise", 1), "tanh": ("pointwise", 1), "relu": ("pointwise", 1), "erf": ("pointwise", 1),
    "sin": ("pointwise", 1), "cos": ("pointwise", 1), "atan": ("pointwise", 1), "logical_not": ("pointwise", 1),
    "log1p": ("pointwise", 1), "expm1": ("pointwise", 1),
    "round": ("pointwise", 1), "floor": ("pointwise", 1), "ceil": ("pointwise", 1), "trunc": ("pointwise", 1),
    # binary arithmetic
    "add": ("pointwise", 2), "sub": ("pointwise", 2), "mul": ("pointwise", 2), "div": ("pointwise", 2),
    "pow": ("pointwise", 2), "maximum": ("pointwise", 2), "minimum": ("pointwise", 2),
    # comparisons (a bool result)
    "eq": ("pointwise", 2), "ne": ("pointwise", 2), "lt": ("pointwise", 2), "le": ("pointwise", 2),
    "gt": ("pointwise", 2), "ge": ("pointwise", 2),
    "logical_and": ("pointwise", 2), "logical_or": ("pointwise", 2),
    # ternary: where(condition, a, b)
    "where": ("pointwise", 3),
    # clamp(x); attrs: min, max (either may be None)
    "clamp": ("pointwise", 1),
    # cast(x) to the node's dtype
    "cast": ("pointwise", 1),
    # reductions; attrs: dims (the reduced axes, ascending, non-negative), keepdim; total (canonical.py: over every
    # element of the operand)
    "sum": ("reduce", 1), "mean": ("reduce", 1), "amax": ("reduce", 1), "amin": ("reduce", 1), "prod": ("reduce", 1),
    # rows(table, index): the table's rows (along its first axis) at each index, the result index.shape + a row
    "rows": ("gather", 2),
    # take(source, index): the source's elements along axis `dim` at each index (torch.gather, take_along_dim), the
    # result the index's shape; attrs: dim, wrap (a negative index counts from the end)
    "take": ("gather", 2),
    # scatter_add(base, index, source): base plus alpha times each source row (index_add: `by_rows`, one index per
    # row) or element (scatter_add: an index per element) added at its index along the first axis; attrs: alpha,
    # by_rows
    "scatter_add": ("gather", 3),
    # scatter(base, index, source): base with each source row (index_copy: `by_rows`) or element (scatter) put at its
    # index along the first axis, a later one over an earlier at the same index; attrs: by_rows
    "scatter": ("gather", 3),
    # pool(x): max or average over windows of x's last len(kernel) axes; attrs: mode (max | avg), kernel, stride,
    # padding, dilation, ceil_mode, count_include_pad, divisor (None: the window's count) -- the result's shape says
    # how many windows
    "pool": ("window", 1),
    # resample(x): x's last len(scales) axes resampled to the result's size; attrs: mode (nearest | bilinear | bicubic
    # | trilinear), align_corners, scales (per axis, the source's pixels per result pixel as torch computes them);
    # resample(x, grid) with mode grid: F.grid_sample of [N, C, H, W] at the grid's [N, Ho, Wo, 2] positions (x, y in
    # -1..1); attrs also sampling (bilinear | nearest), padding (zeros | border)
    "resample": ("window", 0),
    # scans along one axis; attrs: dim, reverse (from the end of the axis back)
    "cumsum": ("scan", 1), "cumprod": ("scan", 1),
    # view(x): the same elements in the node's shape; expand(x): x broadcast to the node's shape
    "view": ("layout", 1), "expand": ("layout", 1),
    # slice(x); attrs: dim, start, stop (0 <= start < stop <= the axis's length), step
    "slice": ("layout", 1),
    # cat(a, b, ...): the operands one after the other along axis `dim` (any number of them; a number: that value
    # all along its part); attrs: dim, widths (each part's length along dim)
    "cat": ("layout", 0),
}


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    dtype: str

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(map(str, self.shape))}]"


Operand = str | int | float | bool  # a value's name, or a scalar constant


@dataclass(frozen=True)
class Input:
    """A tensor the kernel reads: a forward input (`kind` "input"), a module parameter or buffer."""

    name: str
    type: TensorType
    kind: str  # "input", "parameter", "buffer" or "index" (the positions 0, 1, ... along its one axis longer than one)
    target: str | None = None  # the module attribute a parameter or buffer comes from ("norm.weight")


@dataclass(frozen=True)
class Node:
    op: str
    operands: tuple[Operand, ...]
    name: str  # the value it makes
    type: TensorType
    attrs: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""  # where in the user's code it comes from ("my_op.py:12: return x * torch.sigmoid(x)")
    origin: str = ""  # the user's aten call it is part of, before decomposition ("softmax", "gelu", "mul_1")


@dataclass(frozen=True)
class Graph:
    inputs: tuple[Input, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[str, ...]

    def types(self) -> dict[str, TensorType]:
        """Every value's type, by name."""
        return {**{i.name: i.type for i in self.inputs}, **{n.name: n.type for n in self.nodes}}

    def families(self) -> set[str]:
        return {OPS[n.op][0] for n in self.nodes}

    def __str__(self) -> str:
        lines = [f"input {i.name}: {i.type} ({i.kind}{f' {i.target}' if i.target else ''})" for i in self.inputs]
        for node in self.nodes:
            attrs = "".join(f", {k}={v}" for k, v in node.attrs.items())
            lines.append(f"{node.name}: {node.type} = {node.op}({', '.join(map(str, node.operands))}{attrs})")
        lines.append(f"output {', '.join(self.outputs)}")
        return "\n".join(lines)
