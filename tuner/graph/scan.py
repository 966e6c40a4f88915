"""`tuner scan model.py`: the operators a model calls, found by tracing it, and a suite of task files to tune them.

The file follows the task files' conventions (`class Model`, `get_inputs()`, `get_init_inputs()`). The model and its
inputs are made on the meta device where they can be (no memory for the weights of a large model; otherwise on CPU)
and traced with `torch.export` at ATen level, where a softmax, a layer norm or an RMS norm is still one call. Every
call is classified: a vector operator the tuner has built in (`BUILTIN`), another vector operator (its kernel is
generated from PyTorch), a cube operator (matmul, linear, convolution: not the vector core's), or a view (no kernel).
Calls of the same ATen operator with the same arguments' shapes, dtypes and constants are one entry with a count.
`write_suite` writes one task file per vector entry, each a Model calling that ATen operator, for
`tuner bench --suite`.
"""

from __future__ import annotations

import ast
import contextlib
import io
import logging
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tuner.graph.load import TaskError, _run

__all__ = ["BUILTIN", "ScanResult", "ScannedOp", "scan_model", "write_suite"]

# ATen operator → the built-in operator that computes it, and what its arguments must be for that.
BUILTIN: dict[str, tuple[str, Callable[[list[Any]], bool]]] = {
    "aten.softmax.int": ("softmax", lambda a: a[1] in (-1, len(a[0]) - 1)),
    "aten._softmax.default": ("softmax", lambda a: a[1] in (-1, len(a[0]) - 1)),
    "aten.layer_norm.default": ("layernorm", lambda a: len(a[1]) == 1),
    "aten.rms_norm.default": ("rmsnorm", lambda a: len(a[1]) == 1),
    "aten.silu.default": ("silu", lambda a: True),
    "aten.gelu.default": ("gelu", lambda a: True),
    "aten.add.Tensor": ("add", lambda a: len(a) == 2 and isinstance(a[1], tuple) and a[0] == a[1]),
}
CUBE = re.compile(r"aten\.(linear|matmul|mm|bmm|addmm|baddbmm|addbmm|conv\w*|convolution|_convolution|einsum|"
                  r"scaled_dot_product_attention|_scaled_dot_product\w*)\.")
VIEWS = re.compile(r"aten\.(view|_unsafe_view|reshape|transpose|permute|t|expand|chunk|split|split_with_sizes|"
                   r"unbind|slice|select|squeeze|unsqueeze|flatten|unflatten|contiguous|alias|detach|clone|"
                   r"lift_fresh_copy|dropout|_assert\w*|sym_size)\.")
_DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
                torch.int32: "int32", torch.int64: "int64", torch.bool: "bool"}


@dataclass(frozen=True)
class ScannedOp:
    """One entry of a scan: an ATen operator called with one signature, `count` times."""

    target: str
    args: tuple[Any, ...]  # tensors as (shape, dtype) pairs, constants as their source text
    out: tuple[tuple[int, ...], str] | None
    count: int
    kind: str  # "builtin", "generated", "cube" or "view"
    builtin: str | None

    @property
    def tensors(self) -> list[tuple[tuple[int, ...], str]]:
        return [a for a in self.args if isinstance(a, tuple)]

    @property
    def name(self) -> str:
        """A task name: the operator and its first tensor's shape."""
        op = self.target.split(".")[1].strip("_")
        first = self.tensors[0][0] if self.tensors else ()
        return f"{op}_{'x'.join(map(str, first)) or 'scalar'}_{self.tensors[0][1] if self.tensors else 'none'}"


@dataclass(frozen=True)
class ScanResult:
    path: Path
    device: str  # where the model was traced: "meta" or "cpu"
    ops: tuple[ScannedOp, ...]

    @property
    def vector(self) -> list[ScannedOp]:
        return [op for op in self.ops if op.kind in ("builtin", "generated")]


def _load(path: Path) -> tuple[torch.nn.Module, list[Any], str]:
    namespace = _run(path)
    missing = [name for name in ("Model", "get_inputs", "get_init_inputs") if name not in namespace]
    if missing:
        raise TaskError(f"{path}: no model to scan: it defines no {', '.join(missing)} (a task file's Model, "
                        "get_inputs and get_init_inputs)")
    failure = None
    for device in ("meta", "cpu"):
        try:
            with torch.device(device):
                module = namespace["Model"](*namespace["get_init_inputs"]())
                inputs = list(namespace["get_inputs"]())
        except Exception as exc:
            failure = exc
            continue
        if not isinstance(module, torch.nn.Module):
            raise TaskError(f"{path}: Model(...) made a {type(module).__name__}, not a torch.nn.Module")
        return module.eval(), inputs, device
    raise TaskError(f"{path}: making the model and its inputs raised {type(failure).__name__}: {failure}")


def _described(value: Any) -> Any:
    """A call's argument: a tensor as (shape, dtype name), a list of them likewise, a constant as source text."""
    if isinstance(value, torch.fx.Node):
        val = value.meta.get("val")
        if isinstance(val, torch.Tensor):
            return tuple(int(d) for d in val.shape), _DTYPE_NAMES.get(val.dtype, str(val.dtype))
        if isinstance(val, list | tuple) and all(isinstance(v, torch.Tensor) for v in val):
            return "[" + ", ".join(f"{'x'.join(map(str, v.shape))} tensor" for v in val) + "]"
        return repr(val)
    if isinstance(value, list | tuple) and any(isinstance(v, torch.fx.Node) for v in value):
        return [_described(v) for v in value]
    if isinstance(value, torch.device):
        return "'cpu'"
    return repr(list(value) if isinstance(value, tuple) else value)


def _kind(target: str, args: list[Any]) -> tuple[str, str | None]:
    if CUBE.match(target):
        return "cube", None
    if VIEWS.match(target) or target.startswith(("<built-in function getitem>", "aten.sym_")):
        return "view", None
    builtin = BUILTIN.get(target)
    if builtin is not None:
        raw = [a[0] if isinstance(a, tuple) else _literal(a) for a in args]
        try:
            if builtin[1](raw):
                return "builtin", builtin[0]
        except (IndexError, TypeError):
            pass
    return "generated", None


def _literal(text: Any) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError):
        return text


def scan_model(path: Path) -> ScanResult:
    """Trace the model of task file `path` and count its ATen calls by signature; TaskError (one line) when the file
    has no model or it cannot be traced."""
    module, inputs, device = _load(Path(path))
    torch_log = logging.getLogger("torch")
    level = torch_log.level
    try:  # torch logs and prints the graph it could not trace; the one line below says it
        torch_log.setLevel(logging.CRITICAL)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            program = torch.export.export(module, tuple(inputs))
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise TaskError(f"{path}: torch.export could not trace the model: {type(exc).__name__}: {first}") from None
    finally:
        torch_log.setLevel(level)
    counts: Counter[tuple[str, tuple[Any, ...]]] = Counter()
    outs: dict[tuple[str, tuple[Any, ...]], Any] = {}
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        target = str(node.target)
        args = tuple(_freeze(_described(a)) for a in node.args) + tuple(
            f"{k}={_described(v)}" for k, v in node.kwargs.items())
        counts[(target, args)] += 1
        val = node.meta.get("val")
        outs[(target, args)] = ((tuple(int(d) for d in val.shape), _DTYPE_NAMES.get(val.dtype, str(val.dtype)))
                                if isinstance(val, torch.Tensor) else None)
    ops = []
    for (target, args), count in counts.items():
        kind, builtin = _kind(target, list(args))
        ops.append(ScannedOp(target, args, outs[(target, args)], count, kind, builtin))
    order = {"builtin": 0, "generated": 1, "cube": 2, "view": 3}
    ops.sort(key=lambda op: (order[op.kind], op.target, str(op.args)))
    return ScanResult(Path(path), device, tuple(ops))


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _input_code(shape: tuple[int, ...], dtype: str) -> str:
    dims = ", ".join(map(str, shape)) or ""
    if dtype == "bool":
        return f"torch.rand({dims}) > 0.5" if shape else "torch.tensor(True)"
    if dtype.startswith("int"):
        return f"torch.randint(0, 4, ({dims}{',' if len(shape) == 1 else ''}), dtype=torch.{dtype})"
    return f"torch.randn({dims}, dtype=torch.{dtype})" if shape else f"torch.randn((), dtype=torch.{dtype})"


def _task_file(op: ScannedOp, source: Path) -> str:
    names: list[str] = []
    inputs: list[str] = []

    def argument(value: Any) -> str:
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str) and isinstance(value[0], tuple):
            names.append(f"a{len(names)}")
            inputs.append(_input_code(*value))
            return names[-1]
        if isinstance(value, tuple):
            return "[" + ", ".join(argument(v) for v in value) + "]"
        return str(value)

    call = ", ".join(argument(a) for a in op.args)
    shapes = "; ".join("x".join(map(str, s)) + f" {d}" for s, d in op.tensors)
    namespace, name, overload = op.target.split(".")
    return f'''"""{op.target} as {source.name} calls it ({op.count} call{"s" if op.count != 1 else ""}): {shapes}.
Written by `tuner scan`{f"; the tuner's built-in operator `{op.builtin}` computes it" if op.builtin else ""}."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, {", ".join(names)}):
        return torch.ops.{namespace}.{name}.{overload}({call})


def get_inputs():
    return [{", ".join(inputs)}]


def get_init_inputs():
    return []
'''


def write_suite(result: ScanResult, dest: Path) -> list[Path]:
    """One task file per vector entry of `result` in `dest` (created), named by operator and shape; the paths."""
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    used: Counter[str] = Counter()
    for op in result.vector:
        if not op.tensors or math.prod(op.tensors[0][0]) == 0:
            continue
        stem = re.sub(r"\W", "_", op.name)
        used[stem] += 1
        path = dest / f"{stem}{'' if used[stem] == 1 else f'_{used[stem]}'}.py"
        path.write_text(_task_file(op, result.path))
        written.append(path)
    return written
