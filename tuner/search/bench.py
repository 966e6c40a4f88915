"""`tuner bench`: tune every case of a fixed suite and report the field's two headline numbers — how many
cases end with a correct kernel, and the geometric-mean speedup of the best kernels over the expert baselines."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from tuner.backends import make_backend, time_source
from tuner.data.socs import UnknownSocError, get_soc
from tuner.errors import UsageError
from tuner.ops import get_operator, operator_names
from tuner.ops.base import UnsupportedShapeError, shape_text
from tuner.processes import MemoryLimitError
from tuner.search.loop import Interrupted, Progress, RunConfig, optimize
from tuner.search.report import RunSummary
from tuner.search.storage import open_storage, run_studies
from tuner.space.render import TemplateError
from tuner.space.spaces import SpaceError

DEFAULT_BUDGET = 40
BENCH_RUNS_DIR = Path("runs/bench")
SECONDS_ATTR = "bench_seconds"
REPORT_BEGIN = "<!-- tuner bench: begin (generated; regenerate with the command below) -->"
REPORT_END = "<!-- tuner bench: end -->"


@dataclass(frozen=True)
class BenchCase:
    """One case of the suite: an operator at one shape and dtype, with its options and what it stands for."""

    op: str
    shape: tuple[int, ...]
    dtype: str
    options: dict[str, str] = field(default_factory=dict, hash=False)
    why: str = ""

    @property
    def label(self) -> str:
        opts = "".join(f" {k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.op} {shape_text(self.shape)} {self.dtype}{opts}"


def load_suite(text: str | None = None) -> list[BenchCase]:
    """The suite from `tuner/data/bench_suite.yaml` (or from `text`); UsageError on a malformed case."""
    if text is None:
        text = resources.files("tuner.data").joinpath("bench_suite.yaml").read_text()
    cases = []
    for number, raw in enumerate((yaml.safe_load(text) or {}).get("cases", []), 1):
        try:
            op = get_operator(raw["op"])
            shape = tuple(int(n) for n in raw["shape"])
            dtype = str(raw["dtype"])
            options = {str(k): str(v) for k, v in (raw.get("options") or {}).items()}
            op.check_dtype(dtype)
            op.with_options(options)
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"bench suite case {number}: expected op, shape, dtype ({exc})") from None
        except UsageError as exc:
            raise UsageError(f"bench suite case {number}: {exc}") from None
        cases.append(BenchCase(op.name, shape, dtype, options, str(raw.get("why", ""))))
    return cases


def select(cases: list[BenchCase], ops: list[str] | None) -> list[BenchCase]:
    """The cases of the named operators (all cases when `ops` is empty); UsageError for an unknown name or an
    operator the suite does not hold."""
    if not ops:
        return cases
    wanted = [get_operator(name).name for name in ops]
    missing = [name for name in wanted if not any(case.op == name for case in cases)]
    if missing:
        raise UsageError(f"the bench suite has no case for {', '.join(missing)} "
                         f"(operators: {', '.join(n for n in operator_names() if any(c.op == n for c in cases))})")
    return [case for case in cases if case.op in wanted]


def geomean(values: list[float]) -> float | None:
    """The geometric mean of positive numbers; None for none."""
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


@dataclass
class CaseResult:
    """What one case gave: correct or why not, baseline and best with their knobs, speedup, roofline share."""

    case: BenchCase
    run: str
    correct: bool
    why_not: str
    baseline_us: float | None
    baseline_knobs: dict[str, Any] | None
    best_us: float | None
    best_variant: str | None
    best_knobs: dict[str, Any] | None
    roofline_pct: float | None
    trials: int
    seconds: float
    resumed: bool

    @property
    def speedup(self) -> float | None:
        if self.correct and self.baseline_us and self.best_us:
            return self.baseline_us / self.best_us
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.case.op, "shape": list(self.case.shape), "dtype": self.case.dtype,
            "options": self.case.options, "correct": self.correct, "why_not": self.why_not or None,
            "baseline_us": self.baseline_us, "baseline_knobs": self.baseline_knobs, "best_us": self.best_us,
            "best_variant": self.best_variant, "best_knobs": self.best_knobs, "speedup": self.speedup,
            "roofline_pct": self.roofline_pct, "trials": self.trials, "seconds": round(self.seconds, 1),
            "run": self.run, "resumed": self.resumed,
        }


@dataclass
class BenchResult:
    """The suite's outcome; every time in it comes from `time_source`."""

    backend: str
    soc: str
    time_source: str
    budget: int
    cases: list[CaseResult]
    planned: int
    interrupted: bool = False

    @property
    def success_rate(self) -> float:
        """Cases that ended with a correct kernel, over the cases run."""
        return sum(c.correct for c in self.cases) / len(self.cases) if self.cases else 0.0

    @property
    def geomean_speedup(self) -> float | None:
        """Geometric mean of best-over-baseline speedups, over the cases with a correct baseline and best."""
        return geomean([c.speedup for c in self.cases if c.speedup is not None])

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.cases)

    def to_json(self) -> dict[str, Any]:
        """The `--json` contract of `tuner bench`."""
        return {
            "backend": self.backend, "soc": self.soc, "time_source": self.time_source, "budget": self.budget,
            "success_rate": self.success_rate, "geomean_speedup": self.geomean_speedup,
            "cases_run": len(self.cases), "cases_planned": self.planned, "interrupted": self.interrupted,
            "seconds": round(self.seconds, 1), "cases": [c.to_json() for c in self.cases],
        }


def why_no_kernel(summary: RunSummary) -> str:
    """Why a run ended without a correct kernel (the trials and their error classes); "" when it has one."""
    if summary.best is not None:
        return ""
    if summary.errors:
        found = ", ".join(f"{count} {name}" for name, count in summary.errors.most_common())
        return f"no correct kernel in {summary.trials} trials ({found})"
    return f"no correct kernel in {summary.trials} trials ({summary.stop_reason or 'nothing measured'})"


def _from_summary(case: BenchCase, summary: RunSummary, seconds: float, resumed: bool) -> CaseResult:
    base, best = summary.baseline, summary.best
    return CaseResult(
        case=case, run=summary.run, correct=best is not None, why_not=why_no_kernel(summary),
        baseline_us=summary.baseline_us, baseline_knobs=dict(base.params) if base else None,
        best_us=summary.best_us, best_variant=best.variant if best else None,
        best_knobs=dict(best.params) if best else None, roofline_pct=summary.roofline_pct,
        trials=summary.trials, seconds=seconds, resumed=resumed,
    )


@dataclass
class BenchConfig:
    """How to run the suite: the cases, the budget per case, and where the runs are kept."""

    cases: list[BenchCase]
    budget: int = DEFAULT_BUDGET
    soc: str = "Ascend910B2"
    backend: str = "sim"
    sampler: str = "tpe"
    seed: int = 0
    jobs: int = 2
    storage: str | None = None
    runs_dir: Path = BENCH_RUNS_DIR

    def run_config(self, case: BenchCase) -> RunConfig:
        return RunConfig(op=case.op, shape=case.shape, dtype=case.dtype, soc=self.soc, backend=self.backend,
                         budget=self.budget, sampler=self.sampler, seed=self.seed, jobs=self.jobs,
                         storage=self.storage, runs_dir=self.runs_dir, options=dict(case.options))


ProgressFactory = Callable[[BenchCase], AbstractContextManager[Callable[[Progress], None]]]


def run_case(config: BenchConfig, case: BenchCase,
             progress: Callable[[Progress], None] | None = None) -> CaseResult:
    """Tune one case (resuming its run if the storage already holds it). A shape the operator refuses, or a
    template that cannot be used, or a case this machine has not the memory for, is a case without a kernel,
    not an error of the bench."""
    run_config = config.run_config(case)
    started = time.monotonic()
    try:
        summary = optimize(run_config, progress)
    except (UnsupportedShapeError, TemplateError, SpaceError, MemoryLimitError) as exc:
        return CaseResult(case, run_config.run_name, False, f"refused: {exc}", None, None, None, None, None, None,
                          0, time.monotonic() - started, False)
    seconds = add_seconds(config.storage, config.runs_dir, summary.run, time.monotonic() - started)
    return _from_summary(case, summary, seconds, summary.already_finished)


def add_seconds(storage_url: str | None, runs_dir: Path, run: str, seconds: float) -> float:
    """Wall seconds spent tuning a run over every bench invocation, kept on the run's first study, so a resumed
    bench reports what the run cost rather than the moment it took to read it back."""
    storage, _ = open_storage(storage_url, runs_dir)
    infos = run_studies(storage, run).get(run, [])
    if not infos:
        return seconds
    total = float(infos[0].attrs.get(SECONDS_ATTR, 0.0)) + seconds
    storage.set_study_user_attr(storage.get_study_id_from_name(infos[0].name), SECONDS_ATTR, total)
    return total


def run_bench(config: BenchConfig, progress: ProgressFactory | None = None,
              on_case: Callable[[CaseResult], None] | None = None) -> BenchResult:
    """Run every case of `config` in order. Ctrl-C ends the bench with the cases finished so far, plus the
    running case as far as it got if its search had started (its trials stay in its run, as for
    `tuner optimize`); `interrupted` says so."""
    try:
        soc = get_soc(config.soc).name
    except UnknownSocError as exc:
        raise UsageError(str(exc)) from None
    config = replace(config, soc=soc)  # the runs of ascend910b2 are those of Ascend910B2
    for case in config.cases:
        config.run_config(case)  # every case's settings are checked (UsageError) before any case runs
    backend = make_backend(config.backend, soc).name
    result = BenchResult(backend, soc, time_source(backend, soc), config.budget, [], len(config.cases))
    for case in config.cases:
        try:
            with progress(case) if progress else nullcontext() as update:
                outcome = run_case(config, case, update)
        except Interrupted as exc:
            result.cases.append(_from_summary(case, exc.summary, 0.0, False))
            result.interrupted = True
            break
        except KeyboardInterrupt:  # before the case's search started (inputs, references) or after it ended
            result.interrupted = True
            break
        result.cases.append(outcome)
        if on_case is not None:
            on_case(outcome)
    return result


def cell(value: float | None, fmt: str) -> str:
    """A table cell: the number in `fmt`, or "-" for none."""
    return format(value, fmt) if value is not None else "-"


def markdown_table(result: BenchResult) -> str:
    """The per-case table and the headline numbers, in Markdown."""
    lines = [
        f"Times: {result.time_source}; budget {result.budget} trials per case.",
        "",
        "| operator | shape | dtype | correct | baseline µs | best µs | speedup (x) | % of roofline | trials | s |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in result.cases:
        opts = "".join(f" {k}={v}" for k, v in sorted(c.case.options.items()))
        correct = "yes" if c.correct else f"no: {c.why_not}"
        lines.append(f"| {c.case.op}{opts} | {shape_text(c.case.shape)} | {c.case.dtype} | {correct} | "
                     f"{cell(c.baseline_us, '.2f')} | {cell(c.best_us, '.2f')} | {cell(c.speedup, '.2f')} | "
                     f"{cell(c.roofline_pct, '.1f')} | {c.trials} | {c.seconds:.0f} |")
    geomean = cell(result.geomean_speedup, ".2f")
    correct = sum(c.correct for c in result.cases)
    lines += ["", f"**Success rate {correct}/{len(result.cases)} ({100 * result.success_rate:.0f}%), geometric-mean "
                  f"speedup {geomean}x over the expert baselines** ({result.time_source}; "
                  f"{result.seconds / 60:.1f} min on this machine)."]
    if result.interrupted:
        lines.append(f"Interrupted after {len(result.cases)} of {result.planned} cases.")
    return "\n".join(lines)


def markdown_report(result: BenchResult, command: str) -> str:
    """The generated section: how it was made, the table, and each case's baseline and best knobs."""
    knobs = ["", "<details><summary>baseline and best knobs per case</summary>", ""]
    for c in result.cases:
        base = ", ".join(f"{k}={v}" for k, v in (c.baseline_knobs or {}).items()) or "-"
        best = ", ".join(f"{k}={v}" for k, v in (c.best_knobs or {}).items()) or "-"
        knobs.append(f"- {c.case.label}: baseline {base}; best {c.best_variant or '-'} {best}")
    knobs += ["", "</details>"]
    return "\n".join([REPORT_BEGIN, "", f"Generated by `{command}`.", "", markdown_table(result), *knobs, "",
                      REPORT_END])


def _section(begin: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)


def check_report(path: Path, begin: str = REPORT_BEGIN, end: str = REPORT_END) -> None:
    """UsageError unless `path` is a new file or one with a generated section between `begin` and `end` (checked
    before a bench runs, so a long bench never ends unable to write its report)."""
    if path.exists() and not _section(begin, end).search(path.read_text()):
        raise UsageError(f"{path} exists and has no generated bench section ({begin!r} ... {end!r}); not "
                         "overwriting it")


def write_report(path: Path, section: str, begin: str = REPORT_BEGIN, end: str = REPORT_END) -> None:
    """Write `section` (which starts with `begin` and ends with `end`) to `path`: replace the generated section
    between those markers in an existing file, or create the file; a file without the markers is not
    overwritten."""
    if not path.exists():
        path.write_text(f"# tuner bench\n\n{section}\n")
        return
    check_report(path, begin, end)
    path.write_text(_section(begin, end).sub(lambda _: section, path.read_text(), count=1))

