"""Capture: a PyTorch module and example inputs, traced on CPU with `torch.export` and decomposed to core aten,
as a kernel IR `Graph` (ir.py). An aten operation outside the IR, or a dtype outside `DTYPES`, is a
`CaptureError`: one line naming it and the line of the user's code it comes from."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any

import torch

from tuner.errors import UsageError
from tuner.graph.ir import DTYPES, OPS, Graph, Input, Node, Operand, TensorType

__all__ = ["ATEN", "CaptureError", "capture"]


class CaptureError(UsageError):
    """Raised when a module cannot become a kernel IR graph: an operation or dtype outside the IR, or a module
    that torch.export cannot trace."""


# aten overload -> IR operation. Scalar overloads take a Python number as their second operand.
ATEN: dict[str, str] = {
    **{f"aten.{op}.default": op for op in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid",
                                           "tanh", "relu", "erf", "sin", "cos", "logical_not", "logical_and",
                                           "logical_or", "maximum", "minimum")},
    **{f"aten.{op}.{form}": op for op in ("add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge")
       for form in ("Tensor", "Scalar")},
    "aten.pow.Tensor_Scalar": "pow", "aten.pow.Tensor_Tensor": "pow", "aten.pow.Scalar": "pow",
    "aten.where.self": "where",
    "aten.clamp.default": "clamp", "aten.clamp_min.default": "clamp", "aten.clamp_max.default": "clamp",
    "aten._to_copy.default": "cast",
}
assert set(ATEN.values()) <= set(OPS)
# checks torch.export inserts (of a tensor's metadata, of a symbolic size): they compute nothing
CHECKS = frozenset({"aten._assert_tensor_metadata.default", "aten._assert_scalar.default"})

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


def _type(node: torch.fx.Node, what: str) -> TensorType:
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor):
        raise CaptureError(f"{what} is not a tensor ({type(value).__name__}); the kernel IR holds tensors only")
    if value.dtype not in _TORCH_DTYPES:
        where = _where(node)
        raise CaptureError(f"{what} has dtype {str(value.dtype).removeprefix('torch.')}, outside the kernel IR's "
                           f"dtypes ({', '.join(DTYPES)}){f' ({where})' if where else ''}")
    return TensorType(tuple(int(d) for d in value.shape), _TORCH_DTYPES[value.dtype])


def _operand(arg: Any, names: dict[torch.fx.Node, str], where: str) -> Operand:
    if isinstance(arg, torch.fx.Node):
        return names[arg]
    if isinstance(arg, (bool, int, float)):
        return arg
    raise CaptureError(f"an operand {arg!r} is neither a tensor nor a number ({where})")


def _node(fx: torch.fx.Node, names: dict[torch.fx.Node, str]) -> Node:
    target = str(fx.target)
    where = _where(fx)
    op = ATEN.get(target)
    if op is None:
        known = ", ".join(sorted(set(ATEN.values())))
        raise CaptureError(f"{target}{f' ({where})' if where else ''} is outside the kernel IR (it holds: {known})")
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
        unsupported = {k: v for k, v in fx.kwargs.items() if k not in ("dtype", "layout", "device")}
        if unsupported:
            raise CaptureError(f"{target} with {unsupported} ({where}) is outside the kernel IR")
    elif fx.kwargs.get("alpha", 1) != 1:
        raise CaptureError(f"{target} with alpha={fx.kwargs['alpha']} ({where}) is outside the kernel IR")
    operands = tuple(_operand(a, names, where) for a in args)
    arity = OPS[op][1]
    if len(operands) != arity:
        raise CaptureError(f"{target} with {len(operands)} operands ({where}) is outside the kernel IR")
    return Node(op=op, operands=operands, name=names[fx], type=_type(fx, f"the result of {target}"),
                attrs=attrs, source=where)


def capture(module: torch.nn.Module, inputs: Sequence[Any]) -> Graph:
    """The module's forward on `inputs` (tensors and Python constants) as a kernel IR graph."""
    try:
        with warnings.catch_warnings():  # torch's own deprecation notes about its internals are not the user's
            warnings.simplefilter("ignore", FutureWarning)
            exported = torch.export.export(module.eval(), tuple(inputs)).run_decompositions()
    except Exception as exc:  # torch.export reports an untraceable forward with many classes
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CaptureError(f"torch.export cannot trace the module's forward: {first}") from None
    graph = exported.graph
    specs = {spec.arg.name: spec for spec in exported.graph_signature.input_specs
             if hasattr(spec.arg, "name")}
    names: dict[torch.fx.Node, str] = {}
    inputs_ir: list[Input] = []
    nodes: list[Node] = []
    outputs: tuple[str, ...] = ()
    for fx in graph.nodes:
        if fx.op == "placeholder":
            spec = specs.get(fx.name)
            if spec is None or isinstance(spec.arg, torch.export.graph_signature.ConstantArgument):
                continue  # a Python number among the inputs: torch.export bakes it into the graph as a constant
            names[fx] = fx.name
            kind = _KINDS.get(spec.kind.name)
            if kind is None:
                raise CaptureError(f"input {fx.name} is a {spec.kind.name.lower()}, which the kernel IR does not hold")
            inputs_ir.append(Input(fx.name, _type(fx, f"input {fx.name}"), kind, spec.target))
        elif fx.op == "call_function" and str(fx.target) in CHECKS:
            continue
        elif fx.op == "call_function":
            names[fx] = fx.name
            nodes.append(_node(fx, names))
        elif fx.op == "output":
            results = fx.args[0] if isinstance(fx.args[0], (tuple, list)) else (fx.args[0],)
            if not all(isinstance(r, torch.fx.Node) and r in names for r in results):
                raise CaptureError("the forward returns something other than tensors it computes or reads")
            outputs = tuple(names[r] for r in results)
        else:
            raise CaptureError(f"a {fx.op} node ({fx.target}) is outside the kernel IR")
    return Graph(inputs=tuple(inputs_ir), nodes=tuple(nodes), outputs=outputs)
