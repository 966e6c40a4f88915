"""`tuner bench --suite DIR`: every task file of a directory (KernelBench's format, `*.py` in name order) tuned as
`tuner optimize PATH.py` tunes it, and reported against two references: its first draft (the generated space's
baseline point) and its eager-equivalent (`eager.py`: the same graph as eager PyTorch runs it, one kernel per
user-level aten call). The headline numbers: the success rate, the geometric-mean speedup of the tuned kernels
over their first drafts, and over the eager-equivalent on the multi-op tasks (two eager kernels or more)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tuner.backends import make_backend, time_source
from tuner.backends.base import Backend
from tuner.data.socs import UnknownSocError, get_soc
from tuner.errors import UsageError
from tuner.search.bench import add_seconds, cell, geomean, why_no_kernel
from tuner.search.config import RunConfig, task_target
from tuner.search.eager import EagerTime, time_eager
from tuner.search.loop import Interrupted, Progress, optimize
from tuner.search.report import RunSummary
from tuner.search.storage import DEFAULT_RUNS_DIR

__all__ = ["DEFAULT_TASK_BUDGET", "EAGER_SCHEDULE", "TASK_REPORT_BEGIN", "TASK_REPORT_END", "TaskBenchConfig",
           "TaskBenchResult", "TaskResult", "run_task_bench", "task_files", "task_markdown_report"]

DEFAULT_TASK_BUDGET = 20
EAGER_SCHEDULE = ("one kernel per aten call of the user's forward, each at a library schedule: the best of a short "
                  "coordinate search (its first draft; each block count with the largest tiles that fit; each tile "
                  "size at the best count; double-buffered where that fits)")
TASK_REPORT_BEGIN = "<!-- tuner bench --suite DIR: begin (generated; regenerate with the command below) -->"
TASK_REPORT_END = "<!-- tuner bench --suite DIR: end -->"
CELL_CHARS = 160  # a reason longer than this is cut in the Markdown table (the JSON keeps it whole)


def task_files(directory: Path, names: list[str] | None = None) -> list[Path]:
    """The task files of a suite directory, `*.py` in name order (only those named by stem, when `names` are given);
    UsageError for a directory that is not there, holds no task file, or lacks a named one."""
    if not directory.is_dir():
        raise UsageError(f"no suite directory {directory}")
    files = sorted(directory.glob("*.py"))
    if not files:
        raise UsageError(f"{directory} holds no task files (*.py)")
    if not names:
        return files
    stems = {path.stem: path for path in files}
    missing = [name for name in names if name not in stems]
    if missing:
        raise UsageError(f"{directory} has no task {', '.join(missing)} (a task is a file's name without .py)")
    return [stems[name] for name in names]


@dataclass
class TaskResult:
    """What one task gave: correct or why not, its first draft and tuned times, its eager-equivalent, and the wall
    seconds the task cost (tuning summed over resumed benches, plus its eager kernels' timing)."""

    task: str
    path: str
    run: str | None
    correct: bool
    why_not: str
    first_draft_us: float | None
    tuned_us: float | None
    eager: EagerTime | None  # None: the task has no kernel of its own, so nothing to compare with
    trials: int
    seconds: float
    resumed: bool

    @property
    def speedup(self) -> float | None:
        """Tuned over first draft."""
        if self.correct and self.first_draft_us and self.tuned_us:
            return self.first_draft_us / self.tuned_us
        return None

    @property
    def eager_kernels(self) -> int:
        return len(self.eager.kernels) if self.eager else 0

    @property
    def eager_us(self) -> float | None:
        return self.eager.time_us if self.eager else None

    @property
    def eager_why_not(self) -> str:
        if self.eager is None:
            return "the task has no kernel of its own"
        return self.eager.why_not

    @property
    def speedup_vs_eager(self) -> float | None:
        """Tuned over eager-equivalent."""
        if self.correct and self.eager_us and self.tuned_us:
            return self.eager_us / self.tuned_us
        return None

    def to_json(self) -> dict[str, Any]:
        kernels = [{"origin": k.origin, "time_us": k.time_us, "params": k.params, "why_not": k.why_not or None}
                   for k in self.eager.kernels] if self.eager else []
        return {
            "task": self.task, "path": self.path, "run": self.run, "correct": self.correct,
            "why_not": self.why_not or None, "first_draft_us": self.first_draft_us, "tuned_us": self.tuned_us,
            "speedup": self.speedup, "eager_us": self.eager_us, "eager_why_not": self.eager_why_not or None,
            "eager_kernels": kernels, "speedup_vs_eager": self.speedup_vs_eager, "trials": self.trials,
            "seconds": round(self.seconds, 1), "resumed": self.resumed,
        }


@dataclass
class TaskBenchResult:
    """The suite's outcome; every time in it comes from `time_source`."""

    suite: str
    backend: str
    soc: str
    time_source: str
    budget: int
    tasks: list[TaskResult]
    planned: int
    interrupted: bool = False

    @property
    def correct(self) -> int:
        return sum(t.correct for t in self.tasks)

    @property
    def success_rate(self) -> float:
        """Tasks that ended with a correct kernel, over the tasks run."""
        return self.correct / len(self.tasks) if self.tasks else 0.0

    @property
    def geomean_speedup(self) -> float | None:
        """Geometric mean of tuned-over-first-draft speedups, over the tasks with a correct first draft and best."""
        return geomean([t.speedup for t in self.tasks if t.speedup is not None])

    @property
    def vs_eager(self) -> list[float]:
        """Tuned-over-eager speedups of the multi-op tasks that have both."""
        return [t.speedup_vs_eager for t in self.tasks if t.eager_kernels >= 2 and t.speedup_vs_eager is not None]

    @property
    def geomean_speedup_vs_eager(self) -> float | None:
        return geomean(self.vs_eager)

    @property
    def max_seconds(self) -> float:
        return max((t.seconds for t in self.tasks), default=0.0)

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.tasks)

    def to_json(self) -> dict[str, Any]:
        """The `--json` contract of `tuner bench --suite DIR`."""
        return {
            "suite": self.suite, "backend": self.backend, "soc": self.soc, "time_source": self.time_source,
            "budget": self.budget, "eager_schedule": EAGER_SCHEDULE, "success_rate": self.success_rate,
            "correct": self.correct, "geomean_speedup": self.geomean_speedup,
            "geomean_speedup_vs_eager": self.geomean_speedup_vs_eager, "multi_op_vs_eager": len(self.vs_eager),
            "tasks_run": len(self.tasks), "tasks_planned": self.planned, "interrupted": self.interrupted,
            "max_task_seconds": round(self.max_seconds, 1), "seconds": round(self.seconds, 1),
            "tasks": [t.to_json() for t in self.tasks],
        }


@dataclass
class TaskBenchConfig:
    """How to run a suite directory: its task files, the budget per task, and where the runs go (where `tuner
    optimize` puts them, so `tuner show` opens any task's run and a re-run of the bench resumes them)."""

    suite: Path
    files: list[Path]
    budget: int = DEFAULT_TASK_BUDGET
    soc: str = "Ascend910B2"
    backend: str = "sim"
    sampler: str = "tpe"
    seed: int = 0
    jobs: int = 2
    storage: str | None = None
    runs_dir: Path = DEFAULT_RUNS_DIR

    def __post_init__(self) -> None:
        for flag, value in (("--budget", self.budget), ("--jobs", self.jobs)):
            if value < 1:
                raise UsageError(f"{flag} must be at least 1 (got {value})")

    def run_config(self, path: Path) -> RunConfig:
        """The task's run, as `tuner optimize PATH.py` makes it (capture and lowering errors are raised here)."""
        task, function = task_target(str(path), None)
        return RunConfig(op=str(path), task=task, function=function, soc=self.soc, backend=self.backend,
                         budget=self.budget, sampler=self.sampler, seed=self.seed, jobs=self.jobs,
                         storage=self.storage, runs_dir=self.runs_dir)


ProgressFactory = Callable[[Path], AbstractContextManager[Callable[[Progress], None]]]


def _one_line(exc: Exception) -> str:
    """A task's failure in one line: a usage error as it reads, anything else with its class."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, UsageError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _failed(path: Path, run: str | None, why: str, started: float) -> TaskResult:
    return TaskResult(path.stem, str(path), run, False, why, None, None, None, 0, time.monotonic() - started, False)


def _from_summary(path: Path, summary: RunSummary, eager: EagerTime | None, seconds: float) -> TaskResult:
    return TaskResult(path.stem, str(path), summary.run, summary.best is not None, why_no_kernel(summary),
                      summary.baseline_us, summary.best_us, eager, summary.trials, seconds, summary.already_finished)


def run_task(config: TaskBenchConfig, path: Path, backend: Backend,
             progress: Callable[[Progress], None] | None = None) -> TaskResult:
    """Tune one task (resuming its run), then time its eager-equivalent on `backend`. A task the tuner cannot take
    (a capture, lowering or task error) or one that crashes is a task without a kernel, its reason one line, never
    an error of the bench."""
    started = time.monotonic()
    run = None
    try:
        run_config = config.run_config(path)
        run = run_config.run_name
        summary = optimize(run_config, progress)
    except Exception as exc:
        return _failed(path, run, _one_line(exc), started)
    tuned = add_seconds(config.storage, config.runs_dir, summary.run, time.monotonic() - started)
    graph = run_config.graph
    assert graph is not None
    try:
        eager = time_eager(graph, backend, run_config.run_dir / "eager") if graph.graph is not None else \
            EagerTime((), "not captured (its kernel was the LLM's): no eager-equivalent")
    except Exception as exc:
        eager = EagerTime((), f"timing it failed: {_one_line(exc)}")
    return _from_summary(path, summary, eager, tuned + eager.seconds)


def run_task_bench(config: TaskBenchConfig, progress: ProgressFactory | None = None,
                   on_task: Callable[[TaskResult], None] | None = None) -> TaskBenchResult:
    """Run every task of `config` in order. Ctrl-C ends the bench with the tasks finished so far, plus the running
    task as far as its search got (its trials stay in its run, as for `tuner optimize`); `interrupted` says so."""
    try:
        soc = get_soc(config.soc).name
    except UnknownSocError as exc:
        raise UsageError(str(exc)) from None
    config = replace(config, soc=soc)
    backend = make_backend(config.backend, soc)  # the eager kernels'; an unavailable backend stops the bench here
    result = TaskBenchResult(str(config.suite), backend.name, soc, time_source(backend.name, soc), config.budget,
                             [], len(config.files))
    try:
        for path in config.files:
            try:
                with progress(path) if progress else nullcontext() as update:
                    outcome = run_task(config, path, backend, update)
            except Interrupted as exc:
                result.tasks.append(_from_summary(path, exc.summary, EagerTime((), "the bench was interrupted"),
                                                  0.0))
                result.interrupted = True
                break
            except KeyboardInterrupt:
                result.interrupted = True
                break
            result.tasks.append(outcome)
            if on_task is not None:
                on_task(outcome)
    finally:
        backend.close()
    return result


def _cut(text: str) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def task_markdown_table(result: TaskBenchResult) -> str:
    """The per-task table and the headline numbers, in Markdown."""
    lines = [
        f"Times: {result.time_source}; budget {result.budget} trials per task; eager-equivalent: {EAGER_SCHEDULE}.",
        "",
        "| task | correct | first draft µs | tuned µs | speedup (x) | eager kernels | eager-equivalent µs | "
        "tuned vs eager (x) | trials | s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    unavailable = []
    for t in result.tasks:
        correct = "yes" if t.correct else f"no: {_cut(t.why_not)}"
        if t.eager is not None and t.eager.why_not:
            unavailable.append(f"- {t.task}: {_cut(t.eager.why_not)}")
        lines.append(f"| {t.task} | {correct} | {cell(t.first_draft_us, '.2f')} | {cell(t.tuned_us, '.2f')} | "
                     f"{cell(t.speedup, '.2f')} | {t.eager_kernels or '-'} | {cell(t.eager_us, '.2f')} | "
                     f"{cell(t.speedup_vs_eager, '.2f')} | {t.trials} | {t.seconds:.0f} |")
    lines += ["", f"**Success rate {result.correct}/{len(result.tasks)} ({100 * result.success_rate:.0f}%), "
                  f"geometric-mean speedup {cell(result.geomean_speedup, '.2f')}x over the first drafts, "
                  f"{cell(result.geomean_speedup_vs_eager, '.2f')}x over the eager-equivalent on "
                  f"{len(result.vs_eager)} multi-op tasks** ({result.time_source}; at most "
                  f"{result.max_seconds:.0f} s a task, {result.seconds / 60:.1f} min in all on this machine)."]
    if unavailable:
        lines += ["", "Eager-equivalent unavailable:", "", *unavailable]
    if result.interrupted:
        lines += ["", f"Interrupted after {len(result.tasks)} of {result.planned} tasks."]
    return "\n".join(lines)


def task_markdown_report(result: TaskBenchResult, command: str) -> str:
    """The generated section: how it was made, then the table."""
    return "\n".join([TASK_REPORT_BEGIN, "", f"Generated by `{command}`.", "", task_markdown_table(result), "",
                      TASK_REPORT_END])
