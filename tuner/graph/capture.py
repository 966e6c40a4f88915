"""Capture: a PyTorch module and example inputs, traced on CPU with `torch.export` and decomposed to core aten
(and further, through torch's own decompositions, for the composite operations in `DECOMPOSED`: softmax, the
norms, the activations), as a kernel IR `Graph` (ir.py). Variance (`var_mean`, `var`) becomes its mean, difference,
square and sum here; `repeat` a view, a broadcast and a view; an `as_strided` that reads its contiguous source in
order a view. An aten operation outside the IR, or a dtype outside `DTYPES`, is a `CaptureError`: one line naming it
and the line of the user's code it comes from."""

from __future__ import annotations

import math
import operator
import re
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import torch
from torch._decomp import get_decompositions

from tuner.errors import UsageError
from tuner.graph.ir import DTYPES, OPS, Graph, Input, Node, Operand, TensorType

__all__ = ["ATEN", "CaptureError", "capture"]


class CaptureError(UsageError):
    """Raised when a module cannot become a kernel IR graph: an operation or dtype outside the IR, or a module
    that torch.export cannot trace."""


# aten overload -> IR operation. Scalar overloads take a Python number as their second operand.
ATEN: dict[str, str] = {
    **{f"aten.{op}.default": op for op in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid",
                                           "tanh", "relu", "erf", "sin", "cos", "atan", "logical_not", "logical_and",
                                           "logical_or", "maximum", "minimum")},
    **{f"aten.{op}.{form}": op for op in ("add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge")
       for form in ("Tensor", "Scalar")},
    "aten.pow.Tensor_Scalar": "pow", "aten.pow.Tensor_Tensor": "pow", "aten.pow.Scalar": "pow",
    "aten.log1p.default": "log1p", "aten.expm1.default": "expm1",
    **{f"aten.{op}.default": op for op in ("round", "floor", "ceil", "trunc")},
    "aten.where.self": "where",
    "aten.clamp.default": "clamp", "aten.clamp_min.default": "clamp", "aten.clamp_max.default": "clamp",
    "aten._to_copy.default": "cast",
    "aten.sum.dim_IntList": "sum", "aten.sum.default": "sum", "aten.mean.dim": "mean", "aten.mean.default": "mean",
    "aten.amax.default": "amax", "aten.amin.default": "amin", "aten.prod.dim_int": "prod",
    **{f"aten.{op}": "view" for op in ("view.default", "_unsafe_view.default", "reshape.default", "unsqueeze.default",
                                       "squeeze.dims", "squeeze.dim", "squeeze.default", "clone.default",
                                       "alias.default")},
    "aten.expand.default": "expand",
}
assert set(ATEN.values()) <= set(OPS)
# checks torch.export inserts (of a tensor's metadata, of a symbolic size): they compute nothing
CHECKS = frozenset({"aten._assert_tensor_metadata.default", "aten._assert_scalar.default"})
RANDOM = frozenset({"aten.native_dropout.default", "aten.bernoulli.p", "aten.bernoulli.default", "aten.rand.default",
                    "aten.randn.default", "aten.rand_like.default", "aten.randn_like.default"})
VARIANCE = frozenset({"aten.var_mean.correction", "aten.var.correction"})
# a tensor filled with one value -> the position of that value among its arguments
FILLS = {"aten.full.default": 1, "aten.full_like.default": 1}
# rewritten into IR operations: x != x; clamp between tensors; any / all as amax / amin of truth values; the index
# of the extreme value as the least index where the value is the extreme
NAN_TEST = "aten.isnan.default"
TENSOR_CLAMP = frozenset({"aten.clamp.Tensor", "aten.clamp_min.Tensor", "aten.clamp_max.Tensor"})
TRUTH_REDUCTIONS = {f"aten.{op}.{form}": ("amax" if op == "any" else "amin")
                    for op in ("any", "all") for form in ("dim", "dims", "default")}
INDEX_REDUCTIONS = {"aten.argmax.default": "amax", "aten.argmin.default": "amin"}
EXTREMES = {"aten.max.dim": "amax", "aten.min.dim": "amin"}  # (values, indices) along one axis
# one operation as a few of the IR's: sign; logarithms and powers of 2 and 10 through e; the extreme of every element
COMPOSITES = frozenset({"aten.sign.default", "aten.log2.default", "aten.log10.default", "aten.exp2.default",
                        "aten.max.default", "aten.min.default"})
ARANGES = frozenset({"aten.arange.default", "aten.arange.start", "aten.arange.start_step"})  # positions, an input
GLOBAL_MAX_POOL = "aten.adaptive_max_pool2d.default"  # to (1, 1): the maximum of each plane, with its indices
SCANS = {"aten.cumsum.default": "cumsum", "aten.cumprod.default": "cumprod"}
ROW_GATHERS = frozenset({"aten.embedding.default", "aten.index_select.default"})
TAKE = "aten.gather.default"
# -> the IR operation, and whether an index is per row (else per element)
SCATTERS = {"aten.index_add.default": ("scatter_add", True), "aten.scatter_add.default": ("scatter_add", False),
            "aten.index_copy.default": ("scatter", True), "aten.scatter.src": ("scatter", False)}
RESAMPLES = {"aten.upsample_nearest2d.vec": "nearest", "aten.upsample_bilinear2d.vec": "bilinear",
             "aten.upsample_bicubic2d.vec": "bicubic", "aten.upsample_nearest3d.vec": "nearest",
             "aten.upsample_trilinear3d.vec": "trilinear"}
INTERPOLATED = frozenset({"bilinear", "bicubic", "trilinear"})  # the modes with an align_corners argument
GRID_SAMPLE = "aten.grid_sampler_2d.default"  # (input, grid, interpolation, padding, align_corners)
GRID_MODES, GRID_PADDINGS = {0: "bilinear", 1: "nearest"}, {0: "zeros", 1: "border"}
# pools: aten overload -> (mode, the position of each argument: kernel, stride, padding, dilation, ceil_mode,
# count_include_pad, divisor_override; None where it has none)
POOLS = {"aten.avg_pool2d.default": ("avg", (1, 2, 3, None, 4, 5, 6)), "aten.avg_pool3d.default": ("avg", (1, 2, 3,
         None, 4, 5, 6)), "aten.max_pool2d_with_indices.default": ("max", (1, 2, 3, 4, 5, None, None)),
         "aten.max_pool3d_with_indices.default": ("max", (1, 2, 3, 4, 5, None, None))}
WRAP = "aten.remainder.Scalar"  # take_along_dim's index % length: a negative index counted from the end
FLIP = "aten.flip.default"
SLICES = frozenset({"aten.slice.Tensor", "aten.split_with_sizes.default", "aten.split.Tensor", "aten.select.int"})
STRIDED = "aten.as_strided.default"  # a view where it reads its source's elements in order (group norm's affine)
CAT = "aten.cat.default"  # cat(tensors, dim)
REPEAT = "aten.repeat.default"  # a broadcast along new axes, viewed (instance norm's affine weight, once per sample)
_aten = torch.ops.aten
# operations the IR holds whole, which core aten would otherwise decompose (a scan into slices and additions)
KEPT = (_aten.cumsum.default, _aten.cumprod.default, _aten.index_add.default, _aten.index_copy.default,
        _aten.upsample_bicubic2d.vec, _aten.upsample_nearest3d.vec, _aten.upsample_trilinear3d.vec,
        _aten.grid_sampler_2d.default)
# composite operations torch decomposes into the IR's own (its decompositions of these stay within core aten)
DECOMPOSED = (_aten._softmax, _aten._log_softmax, _aten.native_layer_norm, _aten.native_group_norm,
              _aten._native_batch_norm_legit_no_training, _aten._native_batch_norm_legit,
              _aten._native_batch_norm_legit_functional, _aten.triu, _aten.tril,
              _aten.linalg_vector_norm, _aten.logsumexp, _aten.gelu, _aten.silu, _aten.hardswish, _aten.hardsigmoid,
              _aten.hardtanh, _aten.elu, _aten.leaky_relu, _aten.softplus, _aten.mish, _aten.selu, _aten.celu)

_TORCH_DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
                 torch.int32: "int32", torch.int64: "int64", torch.bool: "bool"}
_KINDS = {"USER_INPUT": "input", "PARAMETER": "parameter", "BUFFER": "buffer", "CONSTANT_TENSOR": "buffer"}
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in \S+\n\s*(.*)')


def _where(node: torch.fx.Node) -> str:
    """The innermost frame of the user's code in a node's stack trace: "file.py:12: the line"."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    mine = [f for f in frames if "/torch/" not in f[0]] or frames
    if not mine:
        return ""
    path, line, code = mine[-1]
    return f"{path.rsplit('/', 1)[-1]}:{line}: {code.strip()}"


def _origin(node: torch.fx.Node) -> str:
    """The exported graph's node, before decomposition, that `node` is (part of): eager mode's one kernel."""
    history = node.meta.get("from_node") or []
    return str(getattr(history[0], "name", node.name)) if history else node.name


def _type(node: torch.fx.Node, what: str) -> TensorType:
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor):
        raise CaptureError(f"{what} is not a tensor ({type(value).__name__}); the kernel IR holds tensors only")
    if value.dtype not in _TORCH_DTYPES:
        where = _where(node)
        raise CaptureError(f"{what} has dtype {str(value.dtype).removeprefix('torch.')}, outside the kernel IR's "
                           f"dtypes ({', '.join(DTYPES)}){f' ({where})' if where else ''}")
    return TensorType(tuple(int(d) for d in value.shape), _TORCH_DTYPES[value.dtype])


def _operand(arg: Any, names: dict[torch.fx.Node, Operand], where: str) -> Operand:
    if isinstance(arg, torch.fx.Node):
        if arg not in names:  # a flip read by anything but a scan along its axis
            raise CaptureError(f"{arg.target} ({_where(arg) or where}) is outside the kernel IR where it is used "
                               "(a flip is taken only around a scan of its axis, a remainder only as take_along_dim's "
                               "wrap of an index)")
        return names[arg]
    if isinstance(arg, (bool, int, float)):
        return arg
    raise CaptureError(f"an operand {arg!r} is neither a tensor nor a number ({where})")


def _dims(arg: Any, rank: int) -> tuple[int, ...]:
    """Reduced axes as torch gives them (None or [] for all of them, negatives from the end), ascending."""
    if arg is None or (isinstance(arg, (list, tuple)) and not arg):
        return tuple(range(rank))
    dims = arg if isinstance(arg, (list, tuple)) else [arg]
    return tuple(sorted({int(d) % max(rank, 1) for d in dims}))


def _reduction(op: str, fx: torch.fx.Node, names: dict[torch.fx.Node, Operand], where: str) -> Node:
    source = fx.args[0]
    rank = len(source.meta["val"].shape)
    dims = _dims(fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("dim"), rank)
    keepdim = bool(fx.args[2] if len(fx.args) > 2 else fx.kwargs.get("keepdim", False))
    wanted = fx.kwargs.get("dtype")
    node_type = _type(fx, f"the result of {fx.target}")
    if wanted is not None and _TORCH_DTYPES.get(wanted) != node_type.dtype:
        raise CaptureError(f"{fx.target} with dtype={wanted} ({where}) is outside the kernel IR")
    return Node(op=op, operands=(_operand(source, names, where),), name=str(names[fx]), type=node_type,
                attrs={"dims": dims, "keepdim": keepdim}, source=where, origin=_origin(fx))


def _node(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    target = str(fx.target)
    where = _where(fx)
    op = ATEN.get(target)
    if op is None:
        if target in RANDOM:
            raise CaptureError(f"{target}{f' ({where})' if where else ''}: the forward draws random numbers (a dropout "
                               "in training mode); put the module in eval mode (self.eval()) or make it p=0")
        known = ", ".join(sorted(set(ATEN.values())))
        raise CaptureError(f"{target}{f' ({where})' if where else ''} is outside the kernel IR (it holds: {known})")
    if OPS[op][0] == "reduce":
        return _reduction(op, fx, names, where)
    args = list(fx.args)
    attrs: dict[str, Any] = {}
    if op == "clamp":
        low = args[1] if len(args) > 1 else fx.kwargs.get("min")
        high = args[2] if len(args) > 2 else fx.kwargs.get("max")
        if target == "aten.clamp_max.default":
            low, high = None, low
        attrs = {"min": low, "max": high}
        args = args[:1]
    elif op == "cast":
        unsupported = {k: v for k, v in fx.kwargs.items() if k not in ("dtype", "layout", "device", "memory_format")}
        if unsupported:
            raise CaptureError(f"{target} with {unsupported} ({where}) is outside the kernel IR")
    elif OPS[op][0] == "layout":
        args = args[:1]  # the new shape is the node's type
    elif fx.kwargs.get("alpha", 1) != 1:
        raise CaptureError(f"{target} with alpha={fx.kwargs['alpha']} ({where}) is outside the kernel IR")
    operands = tuple(_operand(a, names, where) for a in args)
    arity = OPS[op][1]
    if len(operands) != arity:
        raise CaptureError(f"{target} with {len(operands)} operands ({where}) is outside the kernel IR")
    return Node(op=op, operands=operands, name=str(names[fx]), type=_type(fx, f"the result of {target}"),
                attrs=attrs, source=where, origin=_origin(fx))


def _variance(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> tuple[list[Node], dict[int, str]]:
    """var_mean / var over some axes as IR nodes: mean, difference, square, sum, divided by the count less the
    correction; the values a getitem of the result picks, by index (var_mean: 0 the variance, 1 the mean)."""
    where = _where(fx)
    source = fx.args[0]
    value = source.meta["val"]
    shape = tuple(int(d) for d in value.shape)
    dims = _dims(fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("dim"), len(shape))
    correction = fx.kwargs.get("correction", 1)
    keepdim = bool(fx.kwargs.get("keepdim", False))
    dtype = _TORCH_DTYPES.get(value.dtype)
    if dtype is None or not dtype.startswith(("float", "bfloat")):
        raise CaptureError(f"{fx.target} of a {value.dtype} tensor ({where}) is outside the kernel IR")
    kept = tuple(1 if i in dims else d for i, d in enumerate(shape))
    dropped = tuple(d for i, d in enumerate(shape) if i not in dims)
    count = math.prod(shape[i] for i in dims)
    base, origin = f"{fx.name}_", _origin(fx)
    x = _operand(source, names, where)
    full, reduced = TensorType(shape, dtype), TensorType(kept, dtype)
    nodes = [Node("mean", (x,), base + "mean", reduced, {"dims": dims, "keepdim": True}, where, origin),
             Node("sub", (x, base + "mean"), base + "diff", full, {}, where, origin),
             Node("mul", (base + "diff", base + "diff"), base + "square", full, {}, where, origin),
             Node("sum", (base + "square",), base + "sum", reduced, {"dims": dims, "keepdim": True}, where, origin),
             Node("div", (base + "sum", max(count - (correction or 0), 0)), base + "var", reduced, {}, where, origin)]
    picks = {0: base + "var", 1: base + "mean"}
    if not keepdim:
        for index, name in list(picks.items()):
            nodes.append(Node("view", (name,), name + "_flat", TensorType(dropped, dtype), {}, where, origin))
            picks[index] = name + "_flat"
    return nodes, picks


def _slices(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> tuple[list[Node], dict[int, str]]:
    """slice (one node), select (a slice of one, viewed without its axis) and split / split_with_sizes / chunk (a
    slice per piece, picked by index) as IR slices."""
    where, origin = _where(fx), _origin(fx)
    source = fx.args[0]
    shape = tuple(int(d) for d in source.meta["val"].shape)
    x = _operand(source, names, where)
    if str(fx.target) == "aten.select.int":
        dim = int(fx.args[1]) % len(shape)
        index = int(fx.args[2]) % shape[dim]
        result = _type(fx, f"the result of {fx.target}")
        kept = TensorType(tuple(1 if i == dim else d for i, d in enumerate(shape)), result.dtype)
        return [Node("slice", (x,), f"{fx.name}_kept", kept, {"dim": dim, "start": index, "stop": index + 1,
                                                               "step": 1}, where, origin),
                Node("view", (f"{fx.name}_kept",), fx.name, result, {}, where, origin)], {}
    if str(fx.target) == "aten.slice.Tensor":
        args = list(fx.args) + [None] * (5 - len(fx.args))
        dim = int(args[1] or 0) % len(shape)
        start, stop, step = args[2] or 0, args[3], args[4] or 1
        start, stop = slice(start, stop).indices(shape[dim])[:2]
        node = Node("slice", (x,), fx.name, _type(fx, f"the result of {fx.target}"),
                    {"dim": dim, "start": start, "stop": stop, "step": int(step)}, where, origin)
        return [node], {}
    dim = int(fx.args[2] if len(fx.args) > 2 else fx.kwargs.get("dim", 0)) % len(shape)
    sizes = fx.args[1]
    if isinstance(sizes, int):
        sizes = [min(sizes, shape[dim] - k) for k in range(0, shape[dim], sizes)]
    nodes, picks, start = [], {}, 0
    for index, size in enumerate(sizes):
        piece = tuple(int(size) if i == dim else d for i, d in enumerate(shape))
        name = f"{fx.name}_{index}"
        nodes.append(Node("slice", (x,), name, TensorType(piece, _type(source, "a split's input").dtype),
                          {"dim": dim, "start": start, "stop": start + int(size), "step": 1}, where, origin))
        picks[index] = name
        start += int(size)
    return nodes, picks


def _rewritten(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> tuple[list[Node], list[Input]]:
    """The aten operations the IR holds as other operations (NAN_TEST, TENSOR_CLAMP, TRUTH_REDUCTIONS,
    INDEX_REDUCTIONS): their nodes, the last one making the result, and any index input they read."""
    target, where, origin = str(fx.target), _where(fx), _origin(fx)
    x = _operand(fx.args[0], names, where)
    shape = tuple(int(d) for d in fx.args[0].meta["val"].shape)
    result = _type(fx, f"the result of {target}")
    base = f"{fx.name}_"

    def node(op: str, operands: tuple[Operand, ...], name: str, dtype: str, node_shape: tuple[int, ...],
             attrs: dict[str, Any] | None = None) -> Node:
        return Node(op, operands, name, TensorType(node_shape, dtype), attrs or {}, where, origin)

    if target == NAN_TEST:
        return [node("ne", (x, x), fx.name, "bool", result.shape)], []
    if target in TENSOR_CLAMP:
        low = fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("min")
        high = fx.args[2] if len(fx.args) > 2 else fx.kwargs.get("max")
        if target == "aten.clamp_max.Tensor":
            low, high = None, low
        nodes, value = [], x
        for op, bound in (("maximum", low), ("minimum", high)):
            if bound is not None:
                nodes.append(node(op, (value, _operand(bound, names, where)), base + op, result.dtype, result.shape))
                value = base + op
        nodes[-1] = replace(nodes[-1], name=fx.name)
        return nodes, []
    dims = _dims(fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("dim"), len(shape))
    keepdim = bool(fx.args[2] if len(fx.args) > 2 else fx.kwargs.get("keepdim", False))
    if target in TRUTH_REDUCTIONS:
        truth = x
        nodes = []
        if _type(fx.args[0], "an operand").dtype != "bool":
            nodes.append(node("ne", (x, 0), base + "truth", "bool", shape))
            truth = base + "truth"
        nodes.append(node(TRUTH_REDUCTIONS[target], (truth,), fx.name, "bool", result.shape,
                          {"dims": dims, "keepdim": keepdim}))
        return nodes, []
    if len(dims) != 1 and math.prod(shape[d] for d in dims) != math.prod(shape):
        raise CaptureError(f"{target} over several axes ({where}) is outside the kernel IR")
    return _index_of(fx, x, dims, keepdim, INDEX_REDUCTIONS[target], fx.name, result)


def _index_of(fx: torch.fx.Node, x: Operand, dims: tuple[int, ...], keepdim: bool, extreme: str, name: str,
              result: TensorType) -> tuple[list[Node], list[Input]]:
    """The first index of the extreme (`amax` or `amin`) of x along `dims`: where x is its extreme, the positions
    along the axes (an index input), else past the end; their minimum."""
    where, origin, base = _where(fx), _origin(fx), f"{name}_"
    shape = tuple(int(d) for d in fx.args[0].meta["val"].shape)
    kept = tuple(1 if i in dims else d for i, d in enumerate(shape))
    axis_shape = tuple(d if i in dims else 1 for i, d in enumerate(shape))
    index = Input(base + "index", TensorType(axis_shape, "float32"), "index")
    dtype = _type(fx.args[0], "an operand").dtype
    count = float(math.prod(axis_shape))

    def node(op: str, operands: tuple[Operand, ...], node_name: str, node_dtype: str, node_shape: tuple[int, ...],
             attrs: dict[str, Any] | None = None) -> Node:
        return Node(op, operands, node_name, TensorType(node_shape, node_dtype), attrs or {}, where, origin)

    nodes = [node(extreme, (x,), base + "extreme", dtype, kept, {"dims": dims, "keepdim": True}),
             node("eq", (x, base + "extreme"), base + "at", "bool", shape),
             node("where", (base + "at", index.name, count), base + "candidate", "float32", shape),
             node("amin", (base + "candidate",), base + "first", "float32", result.shape,
                  {"dims": dims, "keepdim": keepdim}),
             node("cast", (base + "first",), name, result.dtype, result.shape)]
    return nodes, [index]


def _composite(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> list[Node]:
    """A COMPOSITES operation as IR nodes, the last one making its result."""
    target, where, origin = str(fx.target), _where(fx), _origin(fx)
    x = _operand(fx.args[0], names, where)
    result = _type(fx, f"the result of {target}")
    shape = tuple(int(d) for d in fx.args[0].meta["val"].shape)

    def node(op: str, operands: tuple[Operand, ...], name: str, dtype: str = result.dtype,
             node_shape: tuple[int, ...] = result.shape, attrs: dict[str, Any] | None = None) -> Node:
        return Node(op, operands, name, TensorType(node_shape, dtype), attrs or {}, where, origin)

    if target in ("aten.max.default", "aten.min.default"):
        return [node("amax" if "max" in target else "amin", (x,), fx.name,
                     attrs={"dims": tuple(range(len(shape))), "keepdim": False})]
    if target == "aten.sign.default":
        return [node("gt", (x, 0), f"{fx.name}_above", "bool"), node("lt", (x, 0), f"{fx.name}_below", "bool"),
                node("cast", (f"{fx.name}_above",), f"{fx.name}_plus"),
                node("cast", (f"{fx.name}_below",), f"{fx.name}_minus"),
                node("sub", (f"{fx.name}_plus", f"{fx.name}_minus"), fx.name)]
    if target == "aten.exp2.default":
        return [node("mul", (x, math.log(2.0)), f"{fx.name}_scaled"), node("exp", (f"{fx.name}_scaled",), fx.name)]
    base = 2.0 if target == "aten.log2.default" else 10.0
    return [node("log", (x,), f"{fx.name}_natural"), node("mul", (f"{fx.name}_natural", 1.0 / math.log(base)), fx.name)]


def _arange(fx: torch.fx.Node) -> tuple[list[Node], Input]:
    """torch.arange as positions 0, 1, ... (an index input the kernel reads) times its step plus its start, in its
    dtype (triu / tril masks compare two of them)."""
    where, origin = _where(fx), _origin(fx)
    result = _type(fx, f"the result of {fx.target}")
    args = [float(a) for a in fx.args]
    start, step = (0.0, 1.0) if len(args) == 1 else (args[0], args[2] if len(args) > 2 else 1.0)
    positions = Input(f"{fx.name}_positions", TensorType(result.shape, "float32"), "index")
    value, nodes = positions.name, []
    for op, operand in (("mul", step), ("add", start)):
        if operand != (1.0 if op == "mul" else 0.0):
            nodes.append(Node(op, (value, operand), f"{fx.name}_{op}", TensorType(result.shape, "float32"), {},
                              where, origin))
            value = nodes[-1].name
    nodes.append(Node("cast", (value,), fx.name, result, {}, where, origin))
    return nodes, positions


def _extreme_with_index(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]
                        ) -> tuple[list[Node], list[Input], dict[int, str]]:
    """torch.max / torch.min along an axis: its values (amax / amin) and its indices (as argmax / argmin), the two
    results a getitem picks."""
    where = _where(fx)
    x = _operand(fx.args[0], names, where)
    shape = tuple(int(d) for d in fx.args[0].meta["val"].shape)
    dims = _dims(fx.args[1], len(shape))
    keepdim = bool(fx.args[2] if len(fx.args) > 2 else fx.kwargs.get("keepdim", False))
    values, indices = fx.meta["val"]
    dtype = _type(fx.args[0], "an operand").dtype
    extreme = EXTREMES[str(fx.target)]
    first = Node(extreme, (x,), f"{fx.name}_values", TensorType(tuple(int(d) for d in values.shape), dtype),
                 {"dims": dims, "keepdim": keepdim}, where, _origin(fx))
    nodes, inputs = _index_of(fx, x, dims, keepdim, extreme, f"{fx.name}_indices",
                              TensorType(tuple(int(d) for d in indices.shape), "int64"))
    return [first, *nodes], inputs, {0: first.name, 1: nodes[-1].name}


def _scan(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand], flips: dict[torch.fx.Node, tuple[Operand, int]]
          ) -> Node:
    """cumsum / cumprod along one axis; over a flip of that axis, a reversed scan of the flip's operand (the flip of
    its result, which reverse scans end with, is then the scan itself)."""
    where = _where(fx)
    source = fx.args[0]
    rank = len(source.meta["val"].shape)
    dim = int(fx.args[1] if len(fx.args) > 1 else fx.kwargs["dim"]) % max(rank, 1)
    result = _type(fx, f"the result of {fx.target}")
    if fx.kwargs.get("dtype") is not None and _TORCH_DTYPES.get(fx.kwargs["dtype"]) != result.dtype:
        raise CaptureError(f"{fx.target} with dtype={fx.kwargs['dtype']} ({where}) is outside the kernel IR")
    reverse = source in flips and flips[source][1] == dim
    operand = flips[source][0] if reverse else _operand(source, names, where)
    return Node(SCANS[str(fx.target)], (operand,), fx.name, result, {"dim": dim, "reverse": reverse}, where,
                _origin(fx))


def _row_gather(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """embedding(table, index) and index_select(table, 0, index) as rows(table, index)."""
    where = _where(fx)
    if str(fx.target) == "aten.embedding.default":
        table, index = fx.args[0], fx.args[1]
        if any(fx.args[2:]) and fx.args[2:] != (-1,):
            raise CaptureError(f"{fx.target} with padding_idx or scaling ({where}) is outside the kernel IR")
    else:
        table, dim, index = fx.args[0], int(fx.args[1]), fx.args[2]
        if dim % len(table.meta["val"].shape) != 0:
            raise CaptureError(f"{fx.target} along axis {dim} ({where}) is outside the kernel IR (along the first)")
    return Node("rows", (_operand(table, names, where), _operand(index, names, where)), fx.name,
                _type(fx, f"the result of {fx.target}"), {}, where, _origin(fx))


def _take(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand], wraps: dict[torch.fx.Node, tuple[Operand, int]]
          ) -> Node:
    """torch.gather(source, dim, index) as take(source, index); an index wrapped by % the axis's length first (as
    take_along_dim wraps it) as take's own wrap."""
    where = _where(fx)
    source, index = fx.args[0], fx.args[2]
    shape = tuple(int(d) for d in source.meta["val"].shape)
    dim = int(fx.args[1]) % len(shape)
    wrap = index in wraps and wraps[index][1] == shape[dim]
    operand = wraps[index][0] if wrap else _operand(index, names, where)
    if fx.kwargs.get("sparse_grad"):
        raise CaptureError(f"{fx.target} with sparse_grad ({where}) is outside the kernel IR")
    return Node("take", (_operand(source, names, where), operand), fx.name, _type(fx, f"the result of {fx.target}"),
                {"dim": dim, "wrap": wrap}, where, _origin(fx))


def _cat(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """torch.cat of tensors along one axis (an empty part, which torch skips, is dropped)."""
    where = _where(fx)
    node_type = _type(fx, f"the result of {fx.target}")
    dim = int(fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("dim", 0)) % len(node_type.shape)
    parts = [p for p in fx.args[0] if math.prod(p.meta["val"].shape) > 0]
    widths = [int(p.meta["val"].shape[dim]) for p in parts]  # a part filled with one value is that number
    return Node("cat", tuple(_operand(p, names, where) for p in parts), fx.name, node_type,
                {"dim": dim, "widths": widths}, where, _origin(fx))


def _pool(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """avg_pool2d/3d and max_pool2d/3d_with_indices (its values; 1-d pools come as 2-d ones of a height of one) as
    pool(x) with every argument spelled out."""
    where = _where(fx)
    mode, positions = POOLS[str(fx.target)]
    defaults = ([], [], 0, 1, False, True, None)
    values = [fx.args[p] if p is not None and p < len(fx.args) else d for p, d in zip(positions, defaults, strict=True)]
    kernel = [int(k) for k in values[0]]
    axes = len(kernel)

    def per_axis(value: Any, default: list[int]) -> list[int]:
        if isinstance(value, (list, tuple)) and value:
            return [int(v) for v in value] * (axes if len(value) == 1 else 1)
        return default if isinstance(value, (list, tuple)) else [int(value)] * axes

    attrs = {"mode": mode, "kernel": kernel, "stride": per_axis(values[1], kernel), "padding": per_axis(values[2], [0] *
             axes), "dilation": per_axis(values[3], [1] * axes), "ceil_mode": bool(values[4]),
             "count_include_pad": bool(values[5]), "divisor": values[6]}
    value = fx.meta["val"][0] if mode == "max" else fx.meta["val"]
    if value.dtype not in _TORCH_DTYPES:
        raise CaptureError(f"{fx.target} of {value.dtype} ({where}) is outside the kernel IR")
    return Node("pool", (_operand(fx.args[0], names, where),), fx.name,
                TensorType(tuple(int(d) for d in value.shape), _TORCH_DTYPES[value.dtype]), attrs, where, _origin(fx))


def _resample(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """upsample_nearest2d/3d, upsample_bilinear2d, upsample_bicubic2d and upsample_trilinear3d (F.interpolate) as
    resample(x), with the scale per axis torch computes: the inverse of a given scale factor, else the input's size
    over the result's (for align_corners, the spans between the corner pixels)."""
    where = _where(fx)
    mode = RESAMPLES[str(fx.target)]
    interpolated = mode in INTERPOLATED
    align = bool(fx.args[2]) if interpolated and len(fx.args) > 2 else False
    factors = fx.args[3 if interpolated else 2] if len(fx.args) > (3 if interpolated else 2) else None
    result = _type(fx, f"the result of {fx.target}")
    axes = 3 if str(fx.target).endswith("3d.vec") else 2
    sizes = tuple(int(d) for d in fx.args[0].meta["val"].shape[-axes:])
    scales = []
    for axis in range(axes):
        into, out = sizes[axis], result.shape[-axes + axis]
        if align:
            scales.append((into - 1) / (out - 1) if out > 1 else 0.0)
        else:
            scales.append(1.0 / float(factors[axis]) if factors else into / out)
    return Node("resample", (_operand(fx.args[0], names, where),), fx.name, result,
                {"mode": mode, "align_corners": align, "scales": [float(torch.tensor(s, dtype=torch.float32))
                                                                  for s in scales]}, where, _origin(fx))


def _grid_sample(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """grid_sampler_2d (F.grid_sample) as resample(x, grid) with mode "grid": each output pixel the source sampled
    (bilinear or nearest) where the grid says, zeros or the border outside."""
    where = _where(fx)
    source, grid, interpolation, padding, align = fx.args[:5]
    if int(interpolation) not in GRID_MODES or int(padding) not in GRID_PADDINGS:
        raise CaptureError(f"grid_sample with mode {int(interpolation)} and padding {int(padding)} ({where}) is "
                           "outside the kernel IR (bilinear or nearest, zeros or border padding)")
    return Node("resample", (_operand(source, names, where), _operand(grid, names, where)), fx.name,
                _type(fx, f"the result of {fx.target}"),
                {"mode": "grid", "sampling": GRID_MODES[int(interpolation)], "padding": GRID_PADDINGS[int(padding)],
                 "align_corners": bool(align), "scales": [1.0, 1.0]}, where, _origin(fx))


def _scatter(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """index_add(base, 0, index, source, alpha) and scatter_add(base, 0, index, source) as scatter_add;
    index_copy(base, 0, index, source) and scatter(base, 0, index, source) as scatter."""
    where = _where(fx)
    base, dim, index, source = fx.args[:4]
    if int(dim) % len(base.meta["val"].shape) != 0:
        raise CaptureError(f"{fx.target} along axis {dim} ({where}) is outside the kernel IR (along the first)")
    op, by_rows = SCATTERS[str(fx.target)]
    attrs = {"by_rows": by_rows}
    if op == "scatter_add":
        attrs["alpha"] = fx.args[4] if len(fx.args) > 4 else fx.kwargs.get("alpha", 1)
    return Node(op, tuple(_operand(a, names, where) for a in (base, index, source)), fx.name,
                _type(fx, f"the result of {fx.target}"), attrs, where, _origin(fx))


def _strided_view(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> Node:
    """as_strided(x, size, stride, offset) that reads every element of a contiguous x in order (torch's group norm
    reads its [N, G, C/G, 1] scales as [N, C] so) as view(x); any other as a CaptureError."""
    where = _where(fx)
    source = fx.args[0]
    value = source.meta["val"]
    size = [int(d) for d in fx.args[1]]
    stride = [int(s) for s in fx.args[2]]
    offset = fx.args[3] if len(fx.args) > 3 else fx.kwargs.get("storage_offset")
    contiguous = [math.prod(size[i + 1:]) for i in range(len(size))]
    in_order = all(s == c for s, c, d in zip(stride, contiguous, size, strict=True) if d != 1)
    if not (value.is_contiguous() and in_order and math.prod(size) == value.numel()
            and offset in (None, value.storage_offset())):
        raise CaptureError(f"{fx.target} of size {size} and stride {stride} ({where}) is outside the kernel IR (an "
                           "as_strided is taken only as a view of all its source's elements in order)")
    return Node("view", (_operand(source, names, where),), fx.name, _type(fx, f"the result of {fx.target}"), {},
                where, _origin(fx))


def _repeat(fx: torch.fx.Node, names: dict[torch.fx.Node, Operand]) -> list[Node]:
    """x.repeat(r0, r1, ...) as views and a broadcast: x viewed with an axis of one before each of its axes repeated
    (its shape aligned right on the repeats), broadcast along those to [r0, s0, r1, s1, ...], viewed as the result."""
    where, origin = _where(fx), _origin(fx)
    source = fx.args[0]
    repeats = [int(r) for r in fx.args[1]]
    shape = [int(d) for d in source.meta["val"].shape]
    shape = [1] * (len(repeats) - len(shape)) + shape
    result = _type(fx, f"the result of {fx.target}")
    placed = [d for r, s in zip(repeats, shape, strict=True) for d in ([1, s] if r != 1 else [s])]
    repeated = [d for r, s in zip(repeats, shape, strict=True) for d in ([r, s] if r != 1 else [s])]
    x = _operand(source, names, where)
    nodes = [Node("view", (x,), f"{fx.name}_placed", TensorType(tuple(placed), result.dtype), {}, where, origin),
             Node("expand", (f"{fx.name}_placed",), f"{fx.name}_repeated", TensorType(tuple(repeated), result.dtype),
                  {}, where, origin),
             Node("view", (f"{fx.name}_repeated",), fx.name, result, {}, where, origin)]
    return nodes


def _flip_axis(fx: torch.fx.Node) -> int | None:
    dims = fx.args[1] if len(fx.args) > 1 else fx.kwargs.get("dims")
    rank = len(fx.args[0].meta["val"].shape)
    return int(dims[0]) % rank if isinstance(dims, (list, tuple)) and len(dims) == 1 else None


def capture(module: torch.nn.Module, inputs: Sequence[Any]) -> Graph:
    """The module's forward on `inputs` (tensors and Python constants) as a kernel IR graph."""
    try:
        with warnings.catch_warnings():  # torch's own deprecation notes about its internals are not the user's
            warnings.simplefilter("ignore", FutureWarning)
            table = torch.export.default_decompositions()
            table.update(get_decompositions(list(DECOMPOSED)))
            for kept in KEPT:
                table.pop(kept, None)
            exported = torch.export.export(module, tuple(inputs)).run_decompositions(table)
    except Exception as exc:  # torch.export reports an untraceable forward with many classes
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CaptureError(f"torch.export cannot trace the module's forward: {first}") from None
    graph = exported.graph
    specs = {spec.arg.name: spec for spec in exported.graph_signature.input_specs
             if hasattr(spec.arg, "name")}
    names: dict[torch.fx.Node, Operand] = {}
    tuples: dict[torch.fx.Node, dict[int, str]] = {}
    flips: dict[torch.fx.Node, tuple[Operand, int]] = {}  # a flip of one axis, which only a scan may read
    reversed_scans: dict[str, int] = {}  # a reversed scan's value -> its axis
    wraps: dict[torch.fx.Node, tuple[Operand, int]] = {}  # an index % a length, which only a take may read
    inputs_ir: list[Input] = []
    nodes: list[Node] = []
    outputs: tuple[str, ...] = ()
    for fx in graph.nodes:
        target = str(fx.target)
        if fx.op == "placeholder":
            spec = specs.get(fx.name)
            if spec is None or isinstance(spec.arg, torch.export.graph_signature.ConstantArgument):
                continue  # a Python number among the inputs: torch.export bakes it into the graph as a constant
            names[fx] = fx.name
            kind = _KINDS.get(spec.kind.name)
            if kind is None:
                raise CaptureError(f"input {fx.name} is a {spec.kind.name.lower()}, which the kernel IR does not hold")
            inputs_ir.append(Input(fx.name, _type(fx, f"input {fx.name}"), kind, spec.target))
        elif fx.op == "call_function" and target in CHECKS:
            continue
        elif fx.op == "call_function" and target == "aten.scalar_tensor.default":
            names[fx] = fx.args[0]  # a constant: its uses take the number
        elif fx.op == "call_function" and target in FILLS:
            names[fx] = fx.args[FILLS[target]]  # a tensor of one value: its uses broadcast the number
        elif fx.op == "call_function" and target in {NAN_TEST, *TENSOR_CLAMP, *TRUTH_REDUCTIONS,
                                                     *INDEX_REDUCTIONS}:
            made, indices = _rewritten(fx, names)
            nodes += made
            inputs_ir += indices
            names[fx] = fx.name
        elif fx.op == "call_function" and target in ARANGES:
            names[fx] = fx.name
            made, positions = _arange(fx)
            nodes += made
            inputs_ir.append(positions)
        elif fx.op == "call_function" and target in COMPOSITES:
            names[fx] = fx.name
            nodes += _composite(fx, names)
        elif fx.op == "call_function" and target == GLOBAL_MAX_POOL:
            if any(int(d) != 1 for d in fx.args[1]):
                raise CaptureError(f"{target} to {list(fx.args[1])} ({_where(fx)}) is outside the kernel IR (to (1, "
                                   "1), the maximum of each plane, it is taken)")
            shape = tuple(int(d) for d in fx.args[0].meta["val"].shape)
            values = fx.meta["val"][0]
            node = Node("amax", (_operand(fx.args[0], names, _where(fx)),), f"{fx.name}_values",
                        TensorType(tuple(int(d) for d in values.shape), _type(fx.args[0], "an operand").dtype),
                        {"dims": (len(shape) - 2, len(shape) - 1), "keepdim": True}, _where(fx), _origin(fx))
            nodes.append(node)
            tuples[fx] = {0: node.name}
        elif fx.op == "call_function" and target in EXTREMES:
            made, indices, picks = _extreme_with_index(fx, names)
            nodes += made
            inputs_ir += indices
            tuples[fx] = picks
        elif fx.op == "call_function" and target == FLIP and _flip_axis(fx) is not None:
            source, axis = fx.args[0], _flip_axis(fx)
            if isinstance(names.get(source), str) and reversed_scans.get(str(names[source])) == axis:
                names[fx] = names[source]  # the flip back after a reversed scan
            else:
                flips[fx] = (_operand(source, names, _where(fx)), axis)
        elif fx.op == "call_function" and target in SCATTERS:
            names[fx] = fx.name
            nodes.append(_scatter(fx, names))
        elif fx.op == "call_function" and target in RESAMPLES:
            names[fx] = fx.name
            nodes.append(_resample(fx, names))
        elif fx.op == "call_function" and target == GRID_SAMPLE:
            names[fx] = fx.name
            nodes.append(_grid_sample(fx, names))
        elif fx.op == "call_function" and target in POOLS:
            node = _pool(fx, names)
            nodes.append(node)
            if node.attrs["mode"] == "max":
                tuples[fx] = {0: node.name}  # its values; the indices are outside the kernel IR
            else:
                names[fx] = node.name
        elif fx.op == "call_function" and target == WRAP and isinstance(fx.args[1], int):
            wraps[fx] = (_operand(fx.args[0], names, _where(fx)), int(fx.args[1]))
        elif fx.op == "call_function" and target == TAKE:
            names[fx] = fx.name
            nodes.append(_take(fx, names, wraps))
        elif fx.op == "call_function" and target in ROW_GATHERS:
            names[fx] = fx.name
            nodes.append(_row_gather(fx, names))
        elif fx.op == "call_function" and target in SCANS:
            node = _scan(fx, names, flips)
            nodes.append(node)
            names[fx] = node.name
            if node.attrs["reverse"]:
                reversed_scans[node.name] = node.attrs["dim"]
        elif fx.op == "call_function" and target == CAT:
            names[fx] = fx.name
            nodes.append(_cat(fx, names))
        elif fx.op == "call_function" and target == REPEAT:
            names[fx] = fx.name
            nodes += _repeat(fx, names)
        elif fx.op == "call_function" and target == STRIDED:
            names[fx] = fx.name
            nodes.append(_strided_view(fx, names))
        elif fx.op == "call_function" and target in SLICES:
            made, picks = _slices(fx, names)
            nodes += made
            if picks:
                tuples[fx] = picks
            else:
                names[fx] = made[0].name
        elif fx.op == "call_function" and target in VARIANCE:
            made, picks = _variance(fx, names)
            nodes += made
            if target == "aten.var.correction":
                names[fx] = picks[0]
            else:
                tuples[fx] = picks
        elif fx.op == "call_function" and fx.target is operator.getitem and fx.args[0] in tuples:
            picks = tuples[fx.args[0]]
            if int(fx.args[1]) not in picks:
                raise CaptureError(f"result {fx.args[1]} of {fx.args[0].target} ({_where(fx)}) is outside the kernel "
                                   "IR (a max pool's indices)")
            names[fx] = picks[int(fx.args[1])]
        elif fx.op == "call_function":
            names[fx] = fx.name
            nodes.append(_node(fx, names))
        elif fx.op == "output":
            results = fx.args[0] if isinstance(fx.args[0], (tuple, list)) else (fx.args[0],)
            kinds = [spec.kind.name for spec in exported.graph_signature.output_specs]
            if len(kinds) == len(results):  # the forward's own results, not the buffers it updates (batch norm's)
                results = tuple(r for r, kind in zip(results, kinds, strict=True) if kind == "USER_OUTPUT")
            if not all(isinstance(r, torch.fx.Node) and isinstance(names.get(r), str) for r in results):
                raise CaptureError("the forward returns something other than tensors it computes or reads")
            outputs = tuple(str(names[r]) for r in results)
        else:
            raise CaptureError(f"a {fx.op} node ({fx.target}) is outside the kernel IR")
    live = set(outputs)  # what an output needs: a result the forward drops (torch.max's indices) goes
    for node in reversed(nodes):
        if node.name in live:
            live.update(o for o in node.operands if isinstance(o, str))
    return Graph(inputs=tuple(i for i in inputs_ir if i.kind != "index" or i.name in live),
                 nodes=tuple(n for n in nodes if n.name in live), outputs=outputs)
