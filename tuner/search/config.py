"""`RunConfig`: what a user asks of one run, checked when it is made, so a bad setting is one line before anything
runs; and the host memory such a run needs."""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuner.data.socs import UnknownSocError, get_soc
from tuner.errors import UsageError
from tuner.graph.operator import GraphOperator, graph_operator
from tuner.ops import get_operator
from tuner.ops.base import DTYPE_BYTES, Operator, shape_text
from tuner.search.evaluate import INPUT_SETS
from tuner.search.samplers import SAMPLERS
from tuner.search.scheduler import PATIENCE_ASKS
from tuner.search.storage import DEFAULT_RUNS_DIR
from tuner.space.spaces import PROJECT_ROOT

__all__ = ["AUTO_GATE", "RunConfig", "run_memory_bytes", "run_operator", "task_operator", "task_target"]

# A run's name is a directory under runs/: one path component, not hidden, not an option, of bounded length.
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:=+-]{0,199}")
PROFILERS = ("msprof",)
AUTO_GATE = "auto"


@dataclass
class RunConfig:
    """What the user asked for: the run's identity and how to search it. Made, it is valid: UsageError names the
    first setting that is not (an unknown operator, dtype, SoC or sampler, a number out of range, an unsafe run
    name), and `soc` is the table's spelling of the SoC (ascend910b2 names the same run as Ascend910B2). Whether
    the operator can serve the shape is the run's question (`Operator.check_shape`), not the config's."""

    op: str
    shape: tuple[int, ...] = (4096, 4096)
    dtype: str = "float16"
    soc: str = "Ascend910B2"
    backend: str = "sim"
    budget: int = 200
    sampler: str = "tpe"
    seed: int = 0
    jobs: int = 2
    workers: int = 1  # NPUs used at once, one device worker each (npu backend)
    profile: str | None = None  # "msprof": profile the best at each plateau and the winner (npu backend)
    time_limit_s: float | None = None
    storage: str | None = None
    runs_dir: Path = DEFAULT_RUNS_DIR
    run: str | None = None
    options: dict[str, str] = field(default_factory=dict)  # the operator's own options (--option NAME=VALUE)
    patience: int = PATIENCE_ASKS
    project: Path = PROJECT_ROOT  # where search_spaces/ and templates/ are read from
    # structural rewrites: an LLM when a model is named (--llm-model / TUNER_LLM_MODEL), else the rule catalog
    rewrites: bool = True
    llm_model: str | None = None
    no_llm: bool = False
    llm_max_calls: int = 20
    llm_timeout_s: float = 60.0
    repair_rounds: int = 2
    # with an LLM: a task the tuner cannot make a kernel of, or whose generated kernel fails, is written by the LLM
    # in a generate-compile-run-fix loop of this many answers (0: never)
    generate_rounds: int = 3
    plateau: int = 30
    plateau_eps: float = 0.01
    # on a device, a candidate the simulator predicts more than this much slower than its prediction of the run's
    # best is not launched: a relative margin, AUTO_GATE (the default: a margin from the model's error the run
    # measures, docs/search_gate.md), or None to launch every candidate
    gate: float | str | None = AUTO_GATE
    # a user's own operator: a task file in KernelBench's format, or one function of a file with its inputs described
    task: Path | None = None
    function: str | None = None
    inputs: str | None = None

    def __post_init__(self) -> None:
        self._check_numbers()
        graph = self.graph
        if graph is not None:
            self.op, self.shape, self.dtype = graph.name, graph.shape, graph.dtype
        if self.sampler not in SAMPLERS:
            raise UsageError(f"unknown sampler '{self.sampler}' (known: {', '.join(SAMPLERS)})")
        if self.profile not in (None, *PROFILERS):
            raise UsageError(f"--profile {self.profile}: the one profiler is msprof")
        self.operator.check_dtype(self.dtype)
        try:
            self.soc = get_soc(self.soc).name
        except UnknownSocError as exc:
            raise UsageError(str(exc)) from None
        if not RUN_NAME.fullmatch(self.run_name):
            raise UsageError(f"run name '{self.run_name}' is not one safe path component: letters, digits and "
                             "-_.:=+ (starting with a letter or digit), at most 200 characters")
        if self.task is not None:
            self.project = self.run_dir / "project"  # the generated template and search space

    def _check_numbers(self) -> None:
        for flag, value, least in (("--budget", self.budget, 1), ("--jobs", self.jobs, 1),
                                   ("--workers", self.workers, 1), ("--llm-max-calls", self.llm_max_calls, 0),
                                   ("--repair-rounds", self.repair_rounds, 0), ("--plateau", self.plateau, 0),
                                   ("--generate-rounds", self.generate_rounds, 0)):
            if value < least:
                raise UsageError(f"{flag} must be at least {least} (got {value})" if least else
                                 f"{flag} must not be negative (got {value})")
        for flag, seconds in (("--time-limit", self.time_limit_s), ("--llm-timeout", self.llm_timeout_s)):
            if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
                raise UsageError(f"{flag} must be a positive, finite number of seconds (got {seconds})")
        if self.gate is not None and self.gate != AUTO_GATE and not (
                isinstance(self.gate, (int, float)) and math.isfinite(self.gate) and self.gate >= 0):
            raise UsageError(f"--gate must be a relative margin of at least 0, {AUTO_GATE} or off (got {self.gate})")
        if not (math.isfinite(self.plateau_eps) and 0 <= self.plateau_eps < 1):
            raise UsageError(f"--plateau-eps must be a relative improvement from 0 up to (not including) 1 "
                             f"(got {self.plateau_eps})")

    @property
    def graph(self) -> GraphOperator | None:
        """The task's operator (captured once per process and file content), or None for a packaged operator."""
        if self.task is None:
            return None
        return task_operator(self.task, self.function, self.inputs, unlowered=self.generates)

    @property
    def generates(self) -> bool:
        """Whether an LLM writes a task's kernel where the tuner cannot (or its own fails): rewrites on, an LLM
        configured as for rewrites, and --generate-rounds above 0. Without, a task capture or lowering refuses is
        one line, as ever."""
        if self.task is None or not self.rewrites or self.generate_rounds == 0:
            return False
        from tuner.mutate.llm import settings_from  # the openai client loads only for a run that may ask

        return settings_from(self.llm_model, self.no_llm, self.llm_max_calls) is not None

    @property
    def operator(self) -> Operator:
        """The operator with the run's options (UsageError for an unknown one or a bad option); a task's own."""
        graph = self.graph
        if graph is not None:
            return graph.with_options(self.options)
        return get_operator(self.op).with_options(self.options)

    @property
    def task_attrs(self) -> dict[str, str] | None:
        """What `run_operator` needs to make a task's operator again: the run's copy of the task file, the name, the
        function and its inputs, the generated project."""
        graph = self.graph
        if graph is None:
            return None
        return {"path": str(self.project / "task.py"), "name": graph.name, "function": self.function or "",
                "inputs": self.inputs or "", "project": str(self.project)}

    @property
    def parallel(self) -> int:
        """Candidates evaluated at once: the jobs, and at least one per device worker."""
        return max(self.jobs, self.workers)

    @property
    def run_name(self) -> str:
        """`op-shape-dtype-soc-backend`, with any option that differs from its default appended."""
        if self.run:
            return self.run
        changed = self.operator.changed_options()
        suffix = "".join(f"-{name}={value}" for name, value in sorted(changed.items()))
        graph = self.graph
        if graph is not None:
            return f"{graph.run_label}-{self.soc}-{self.backend}{suffix}"
        return f"{self.op}-{shape_text(self.shape)}-{self.dtype}-{self.soc}-{self.backend}{suffix}"

    @property
    def run_dir(self) -> Path:
        return self.runs_dir / self.run_name


def run_operator(attrs: Mapping[str, Any]) -> tuple[Operator, Path]:
    """The operator of a run from its studies' attributes, and the project its search spaces and templates are read
    from: a packaged operator with the run's options, or a task's, made again from the run's copy of the task."""
    task = attrs.get("task")
    if task:
        op = task_operator(Path(task["path"]), task.get("function") or None, task.get("inputs") or None,
                           task.get("name"), unlowered=True)  # the run exists: an LLM may have written its kernel
        return op.with_options(attrs.get("options", {})), Path(task["project"])
    return get_operator(attrs["op"]).with_options(attrs.get("options", {})), PROJECT_ROOT


def task_target(op: str, inputs: str | None) -> tuple[Path | None, str | None]:
    """What OP names on the command line: a task file (`PATH.py`), a function of a file (`PATH.py:FUNCTION`, whose
    arguments `inputs` describes), or a packaged operator (None, None); UsageError when OP and `inputs` disagree."""
    path, _, function = op.partition(".py:") if ".py:" in op else (op.removesuffix(".py"), "", "")
    if inputs and not function:
        raise UsageError("--inputs describes a function's arguments: give OP as PATH.py:FUNCTION")
    if function and not inputs:
        raise UsageError(f"{op}: a function needs --inputs, e.g. --inputs 'x=float16[4096,4096]'")
    return (Path(path + ".py") if op.endswith(".py") or function else None), function or None


def task_operator(path: Path, function: str | None, inputs: str | None, name: str | None = None, *,
                  unlowered: bool = False) -> GraphOperator:
    """A task's operator (`graph_operator`, without a generated kernel where it refuses the task and `unlowered`),
    captured once per process and task file content: a run's config, its summaries and its export each ask for it,
    and an edited file is a new entry."""
    content = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
    return _captured(str(path), function, inputs, name, content, unlowered)


@functools.lru_cache(maxsize=16)
def _captured(path: str, function: str | None, inputs: str | None, name: str | None, content: str,
              unlowered: bool) -> GraphOperator:
    return graph_operator(Path(path), function, inputs, name=name, unlowered=unlowered)


def run_memory_bytes(op: Operator, shape: tuple[int, ...], dtype: str, jobs: int, sets: int = INPUT_SETS) -> int:
    """Host memory a run of `op` at `shape` and `dtype` needs at its peak, from what the code holds:

    - for the whole run (RunInputs): per input set, the inputs at `dtype`, and per output element the float32 copy
      of the float64 reference and its float32 inverse tolerance (8 bytes);
    - while a set is made: its inputs drawn in float64, the float64 references, and Expected.of's three float64
      temporaries of the largest output;
    - per candidate running at once (`jobs`): the simulator's GM holding inputs and outputs, the same bytes again in
      its scratch files (tmpfs), and in the tuner the inputs written out, the outputs of two input sets plus the one
      being read back, and the check's float32 differences (8 bytes an output element).

    The sets are made before any candidate runs, so the larger of the last two parts counts."""
    item = DTYPE_BYTES[dtype]
    ins = sum(math.prod(s) for s in op.input_shapes(shape).values())
    out_sizes = [math.prod(s) for s in op.output_shapes(shape).values()]
    outs = sum(out_sizes)
    kept = sets * (item * ins + 8 * outs)
    making = 8 * ins + 8 * outs + 24 * max(out_sizes, default=0)
    per_candidate = 2 * item * (ins + outs) + item * ins + 3 * item * outs + 8 * outs
    return kept + max(making, jobs * per_candidate)
