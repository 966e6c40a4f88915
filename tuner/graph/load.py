"""Task files in KernelBench's format: a Python file with `class Model(nn.Module)`, `get_inputs()` (the forward's
arguments: tensors, and ints, floats or tuples as the kernel's constants) and `get_init_inputs()` (Model's
constructor arguments); or a plain function of a Python file with its inputs described on the command line
(`x=float16[4096,4096], w=float16[4096], eps=1e-6`). Every problem with one is a `TaskError`: one line, never a
traceback."""

from __future__ import annotations

import re
import runpy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tuner.errors import UsageError

__all__ = ["Task", "TaskError", "inputs_at", "load_function", "load_task", "parse_inputs"]

TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}
_TENSOR = re.compile(r"(\w+)\s*=\s*(\w+)\s*\[([\d\s,]*)\]")
_NUMBER = re.compile(r"(\w+)\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


class TaskError(UsageError):
    """Raised when a task file cannot be loaded: missing, not Python, lacking Model/get_inputs, failing to run, or
    giving inputs that are neither tensors nor constants."""


@dataclass
class Task:
    name: str  # the file's stem, and the function's name after a dot
    module: torch.nn.Module
    inputs: list[Any]  # tensors and constants, in the forward's order
    draw: Callable[[], list[Any]]  # another set of inputs, drawn as the file draws them (seed torch first)


def _constant(value: Any) -> bool:
    return isinstance(value, (bool, int, float)) or (
        isinstance(value, tuple) and all(isinstance(v, (bool, int, float)) for v in value))


def _run(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise TaskError(f"no task file {path}")
    try:
        return runpy.run_path(str(path), run_name=f"tuner_task_{path.stem}")
    except SyntaxError as exc:
        raise TaskError(f"{path}:{exc.lineno}: not Python: {exc.msg}") from None
    except Exception as exc:
        raise TaskError(f"{path}: running it raised {type(exc).__name__}: {exc}") from None


def load_task(path: Path) -> Task:
    """Run the task file and make its module and one set of inputs."""
    namespace = _run(path)
    missing = [name for name in ("Model", "get_inputs", "get_init_inputs") if name not in namespace]
    if missing:
        raise TaskError(f"{path} has no {', '.join(missing)} (a task file defines class Model(nn.Module), "
                        "get_inputs() and get_init_inputs())")
    try:
        module = namespace["Model"](*namespace["get_init_inputs"]())
        inputs = list(namespace["get_inputs"]())
    except Exception as exc:
        raise TaskError(f"{path}: making Model or its inputs raised {type(exc).__name__}: {exc}") from None
    if not isinstance(module, torch.nn.Module):
        raise TaskError(f"{path}: Model(...) is a {type(module).__name__}, not a torch.nn.Module")
    for index, value in enumerate(inputs):
        if not (isinstance(value, torch.Tensor) or _constant(value)):
            raise TaskError(f"{path}: input {index} of get_inputs() is a {type(value).__name__}, neither a tensor "
                            "nor a constant (int, float, bool or a tuple of them)")
    return Task(name=path.stem, module=module, inputs=inputs, draw=lambda: list(namespace["get_inputs"]()))


def parse_inputs(text: str) -> list[tuple[str, Any]]:
    """`x=float16[4096,4096], w=float16[4096], eps=1e-6` as (name, (dtype, shape)) for a tensor and (name, number)
    for a constant, in order."""
    items: list[tuple[str, Any]] = []
    for part in re.split(r",\s*(?=\w+\s*=)", text.strip()):
        if tensor := _TENSOR.fullmatch(part.strip()):
            name, dtype, dims = tensor.groups()
            if dtype not in TORCH_DTYPES:
                raise TaskError(f"--inputs {part.strip()}: unknown dtype '{dtype}' (known: {', '.join(TORCH_DTYPES)})")
            shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
            if any(d < 1 for d in shape):
                raise TaskError(f"--inputs {part.strip()}: every dimension must be at least 1")
            items.append((name, (dtype, shape)))
        elif number := _NUMBER.fullmatch(part.strip()):
            name, value = number.groups()
            items.append((name, float(value) if any(c in value for c in ".eE") else int(value)))
        else:
            raise TaskError(f"--inputs: cannot read '{part.strip()}' (expected NAME=DTYPE[D1,D2,...] or NAME=NUMBER)")
    if not items:
        raise TaskError("--inputs is empty: name the function's arguments, e.g. 'x=float16[4096,4096]'")
    return items


def inputs_at(text: str, shape: tuple[int, ...]) -> str:
    """`--inputs` with its first tensor's shape replaced by `shape` (the others and the constants as given): how a
    shape set (`--shapes`) tunes a function at each of its shapes."""
    items = parse_inputs(text)
    first = next((i for i, (_, value) in enumerate(items) if isinstance(value, tuple)), None)
    if first is None:
        raise TaskError("--shapes: --inputs names no tensor whose shape the set could change")
    name, (dtype, _) = items[first]
    items[first] = (name, (dtype, tuple(shape)))
    return ", ".join(f"{n}={v[0]}[{','.join(map(str, v[1]))}]" if isinstance(v, tuple) else f"{n}={v!r}"
                     for n, v in items)


class _Function(torch.nn.Module):
    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *args: Any) -> Any:
        return self.function(*args)


def _random(dtype: str, shape: tuple[int, ...]) -> torch.Tensor:
    kind = TORCH_DTYPES[dtype]
    if kind.is_floating_point:
        return torch.randn(shape, dtype=torch.float32).to(kind)
    if kind == torch.bool:
        return torch.rand(shape) < 0.5
    return torch.randint(-100, 100, shape, dtype=kind)


def load_function(path: Path, function: str, inputs: str) -> Task:
    """A plain function of a Python file as a task: its arguments described by `inputs` (parse_inputs), tensors
    drawn standard normal (integers uniform in [-100, 100), bools fair)."""
    namespace = _run(path)
    target = namespace.get(function)
    if not callable(target):
        raise TaskError(f"{path} has no function '{function}'")
    items = parse_inputs(inputs)

    def draw() -> list[Any]:
        return [_random(*value) if isinstance(value, tuple) else value for _, value in items]

    return Task(name=f"{path.stem}.{function}", module=_Function(target), inputs=draw(), draw=draw)
