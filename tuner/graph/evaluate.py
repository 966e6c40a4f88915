"""The kernel IR evaluated in torch: every value of a graph computed from its inputs, each node as torch computes
it (in the node's dtype, or every floating value in float64 for a reference). The eager-equivalent of a task
(tuner/search/eager.py) checks each of its kernels against its own graph this way."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from tuner.graph.ir import Graph, Node
from tuner.graph.load import TORCH_DTYPES

__all__ = ["EVALUATIONS", "Evaluation", "evaluate_graph"]

Evaluation = Callable[[Node, list[torch.Tensor]], torch.Tensor]


def _unary(fn: Callable[[torch.Tensor], torch.Tensor]) -> Evaluation:
    return lambda node, args: fn(args[0])


def _binary(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Evaluation:
    return lambda node, args: fn(args[0], args[1])


def _reduction(fn: Callable[..., torch.Tensor]) -> Evaluation:
    return lambda node, args: fn(args[0], dim=node.attrs["dims"], keepdim=node.attrs["keepdim"])


def _where(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    return torch.where(args[0] if args[0].dtype == torch.bool else args[0] != 0, args[1], args[2])


def _slice(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    at = node.attrs
    return args[0][(slice(None),) * at["dim"] + (slice(at["start"], at["stop"], at.get("step", 1)),)]


def _prod(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    out = args[0]
    for dim in sorted(node.attrs["dims"], reverse=True):
        out = torch.prod(out, dim=dim, keepdim=True)
    return out if node.attrs["keepdim"] else out.reshape(node.type.shape)


def _scan(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    scan = torch.cumsum if node.op == "cumsum" else torch.cumprod
    dim = node.attrs["dim"]
    if node.attrs["reverse"]:
        return scan(args[0].flip(dim), dim).flip(dim)
    return scan(args[0], dim)


def _take(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    index = args[1].long()
    if node.attrs["wrap"]:
        index = index % args[0].shape[node.attrs["dim"]]
    return torch.gather(args[0], node.attrs["dim"], index)


def _cat(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    """The parts along the axis, a number as a part of its width filled with it."""
    dim, shape = node.attrs["dim"], list(node.type.shape)
    parts = []
    for part, width in zip(args, node.attrs["widths"], strict=True):
        shape[dim] = width
        parts.append(part.expand(shape) if part.dim() == 0 else part)
    return torch.cat(parts, dim)


def _scatter_add(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    base, index, source = args[0], args[1].long(), args[2].to(args[0].dtype)
    if node.attrs["by_rows"]:
        return base.index_add(0, index, source, alpha=node.attrs["alpha"])
    return base.scatter_add(0, index, source)


def _scatter(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    base, index, source = args[0], args[1].long(), args[2].to(args[0].dtype)
    if node.attrs["by_rows"]:
        return base.index_copy(0, index, source)
    return base.scatter(0, index, source)


def _pool(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    at = node.attrs
    axes = len(at["kernel"])
    if at["mode"] == "max":
        pool = (torch.nn.functional.max_pool2d if axes == 2 else torch.nn.functional.max_pool3d)
        return pool(args[0], at["kernel"], at["stride"], at["padding"], at["dilation"], at["ceil_mode"])
    pool = torch.nn.functional.avg_pool2d if axes == 2 else torch.nn.functional.avg_pool3d
    return pool(args[0], at["kernel"], at["stride"], at["padding"], at["ceil_mode"], at["count_include_pad"],
                at["divisor"])


def _resample(node: Node, args: list[torch.Tensor]) -> torch.Tensor:
    if node.attrs["mode"] == "grid":
        return torch.nn.functional.grid_sample(args[0], args[1].to(args[0].dtype), mode=node.attrs["sampling"],
                                               padding_mode=node.attrs["padding"],
                                               align_corners=node.attrs["align_corners"])
    align = node.attrs["align_corners"] if node.attrs["mode"] != "nearest" else None
    axes = len(node.attrs["scales"])
    return torch.nn.functional.interpolate(args[0], size=tuple(node.type.shape[-axes:]), mode=node.attrs["mode"],
                                           align_corners=align)


# IR operation -> how torch computes it; the result is cast to the node's dtype (so a cast is the identity)
EVALUATIONS: dict[str, Evaluation] = {
    **{op: _unary(fn) for op, fn in {
        "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
        "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
        "relu": torch.relu, "erf": torch.erf, "sin": torch.sin, "cos": torch.cos, "atan": torch.atan,
        "logical_not": torch.logical_not,
        "log1p": torch.log1p, "expm1": torch.expm1, "round": torch.round, "floor": torch.floor, "ceil": torch.ceil,
        "trunc": torch.trunc, "cast": lambda x: x}.items()},
    **{op: _binary(fn) for op, fn in {
        "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
        "maximum": torch.maximum, "minimum": torch.minimum, "eq": torch.eq, "ne": torch.ne, "lt": torch.lt,
        "le": torch.le, "gt": torch.gt, "ge": torch.ge, "logical_and": torch.logical_and,
        "logical_or": torch.logical_or}.items()},
    **{op: _reduction(fn) for op, fn in {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax,
                                         "amin": torch.amin}.items()},
    "prod": _prod, "cumsum": _scan, "cumprod": _scan, "take": _take, "scatter_add": _scatter_add, "scatter": _scatter,
    "pool": _pool, "resample": _resample, "rows": lambda node, args: args[0][args[1].long()],
    "where": _where, "slice": _slice, "cat": _cat,
    "clamp": lambda node, args: torch.clamp(args[0], node.attrs.get("min"), node.attrs.get("max")),
    "view": lambda node, args: args[0].reshape(node.type.shape),
    "expand": lambda node, args: args[0].expand(node.type.shape),
}


def evaluate_graph(graph: Graph, values: Mapping[str, torch.Tensor], wide: bool = False) -> dict[str, torch.Tensor]:
    """Every value of `graph` computed in torch from its inputs (`values`, by name): each node as torch computes it
    in the node's dtype, or with `wide` every floating value in float64 (a reference). NotImplementedError for an IR
    operation `EVALUATIONS` does not hold."""
    env = dict(values)

    def dtype(name: str) -> torch.dtype:
        kind = TORCH_DTYPES[name]
        return torch.float64 if wide and kind.is_floating_point else kind

    def operand(value: object) -> torch.Tensor:
        if isinstance(value, str):
            return env[value]
        return torch.tensor(value, dtype=torch.float64) if wide and isinstance(value, float) else torch.tensor(value)

    for node in graph.nodes:
        evaluation = EVALUATIONS.get(node.op)
        if evaluation is None:
            raise NotImplementedError(f"the eager-equivalent cannot evaluate {node.op} yet (EVALUATIONS in "
                                      "tuner/graph/evaluate.py)")
        env[node.name] = evaluation(node, [operand(o) for o in node.operands]).to(dtype(node.type.dtype))
    return env
