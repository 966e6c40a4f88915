"""Task files in KernelBench's format: a Python file with `class Model(nn.Module)`, `get_inputs()` (the forward's
arguments: tensors, and ints, floats or tuples as the kernel's constants) and `get_init_inputs()` (Model's
constructor arguments). Every problem with one is a `TaskError`: one line, never a traceback."""

from __future__ import annotations

import runpy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tuner.errors import UsageError

__all__ = ["Task", "TaskError", "load_task"]


class TaskError(UsageError):
    """Raised when a task file cannot be loaded: missing, not Python, lacking Model/get_inputs, failing to run, or
    giving inputs that are neither tensors nor constants."""


@dataclass
class Task:
    name: str  # the file's stem
    module: torch.nn.Module
    inputs: list[Any]  # tensors and constants, in the forward's order


def _constant(value: Any) -> bool:
    return isinstance(value, (bool, int, float)) or (
        isinstance(value, tuple) and all(isinstance(v, (bool, int, float)) for v in value))


def load_task(path: Path) -> Task:
    """Run the task file and make its module and one set of inputs."""
    if not path.is_file():
        raise TaskError(f"no task file {path}")
    try:
        namespace = runpy.run_path(str(path), run_name=f"tuner_task_{path.stem}")
    except SyntaxError as exc:
        raise TaskError(f"{path}:{exc.lineno}: not Python: {exc.msg}") from None
    except Exception as exc:
        raise TaskError(f"{path}: running it raised {type(exc).__name__}: {exc}") from None
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
    return Task(name=path.stem, module=module, inputs=inputs)
