"""`optimize`: one run's search loop over its variant studies, with budget, leases, dedupe and early stops.

Each variant is its own Optuna study (a categorical cannot grow inside a live study); the loop picks the
variant to ask next by UCB on best-so-far, asks for a whole point at once, rejects infeasible points and
duplicates for free, evaluates up to `jobs` candidates in parallel threads (the work is compiler and
simulator subprocesses), and tells every result — failures as PRUNED with an error class, so TPE learns
to avoid them and none can become best.
"""

from __future__ import annotations

import errno
import importlib.metadata
import json
import math
import re
import shutil
import signal
import tempfile
import threading
import time
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy.exc
import torch
from optuna.artifacts import get_all_artifact_meta, upload_artifact
from optuna.trial import TrialState
from optuna_dashboard import save_note

from tuner.backends import make_backend, time_source
from tuner.backends.npu.timing import interleaved_retime, winner
from tuner.data.socs import DEFAULT_SOCS_PATH, UnknownSocError, get_soc
from tuner.errors import ErrorClass, TunerError, UsageError
from tuner.ops import get_operator
from tuner.ops.base import DTYPE_BYTES, Operator, UnsupportedShapeError, shape_text, to_torch
from tuner.processes import check_memory, stop_children
from tuner.search import report
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import INPUT_SETS, Evaluator, Outcome, RunInputs
from tuner.search.leases import LeaseKeeper, is_abandoned, live_workers, recover_abandoned
from tuner.search.rewrites import (
    MutationRecord,
    Rewriter,
    RewriteSettings,
    make_mutators,
    soc_limits,
    warm_start,
)
from tuner.search.roofline import roofline
from tuner.search.samplers import SAMPLERS, make_sampler
from tuner.search.storage import DEFAULT_RUNS_DIR, artifact_store, ask_lock, open_storage
from tuner.search.winners import export_trial
from tuner.space.expr import ExpressionError
from tuner.space.render import TemplateError
from tuner.space.spaces import (
    PROJECT_ROOT,
    SearchSpace,
    SpaceError,
    Variant,
    load_space,
    run_context,
    with_rewrites,
)

PATIENCE_ASKS = 50
MIN_TRIALS_PER_VARIANT = 5
RETIME_TOP, RETIME_ROUNDS = 5, 3  # on a device: the best few re-timed, interleaved, before a winner is named
UCB_C = 0.5
# A run's name is a directory under runs/: one path component, not hidden, not an option, of bounded length.
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:=+-]{0,199}")
# Errors of the disk itself, which no candidate causes: they stop the run instead of failing trial after trial.
DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)


class Interrupted(KeyboardInterrupt):
    """Raised on Ctrl-C after the running trials are pruned; carries the summary so far."""

    def __init__(self, summary: report.RunSummary) -> None:
        super().__init__("interrupted")
        self.summary = summary


@dataclass
class RunConfig:
    """What the user asked for: the run's identity and how to search it."""

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
    plateau: int = 30
    plateau_eps: float = 0.01

    @property
    def run_name(self) -> str:
        """`op-shape-dtype-soc-backend`, with any option that differs from its default appended."""
        if self.run:
            return self.run
        changed = get_operator(self.op).with_options(self.options).changed_options()
        suffix = "".join(f"-{name}={value}" for name, value in sorted(changed.items()))
        return f"{self.op}-{shape_text(self.shape)}-{self.dtype}-{self.soc}-{self.backend}{suffix}"


def check_run_name(name: str) -> str:
    """`name` if it is a safe run name (it becomes runs/<name>/), else UsageError."""
    if not RUN_NAME.fullmatch(name):
        raise UsageError(f"run name '{name}' is not one safe path component: letters, digits and -_.:=+ (starting "
                         "with a letter or digit), at most 200 characters")
    return name


def check_numbers(config: RunConfig) -> None:
    """UsageError naming the first setting that is not a sensible number."""
    for flag, value, least in (("--budget", config.budget, 1), ("--jobs", config.jobs, 1),
                               ("--workers", config.workers, 1), ("--llm-max-calls", config.llm_max_calls, 0),
                               ("--repair-rounds", config.repair_rounds, 0), ("--plateau", config.plateau, 0)):
        if value < least:
            raise UsageError(f"{flag} must be at least {least} (got {value})" if least else
                             f"{flag} must not be negative (got {value})")
    for flag, seconds in (("--time-limit", config.time_limit_s), ("--llm-timeout", config.llm_timeout_s)):
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise UsageError(f"{flag} must be a positive, finite number of seconds (got {seconds})")
    if not (math.isfinite(config.plateau_eps) and 0 <= config.plateau_eps < 1):
        raise UsageError(f"--plateau-eps must be a relative improvement from 0 up to (not including) 1 "
                         f"(got {config.plateau_eps})")


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


@dataclass
class Progress:
    """What the progress bar shows after each event."""

    used: int
    budget: int
    best_us: float | None
    feasible: int
    pruned: Counter
    builds: int
    build_hits: int
    elapsed_s: float
    time_source: str


@contextmanager
def _sigint_as_flag() -> Iterator[threading.Event]:
    """Within the block, the first Ctrl-C sets the yielded event; a second one interrupts at once."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum, frame) -> None:  # noqa: ANN001 - signal handler signature
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def _reproducible(trial: optuna.trial.FrozenTrial) -> bool:
    """A finished trial whose result a repeat of the same point would reproduce."""
    return trial.state == TrialState.COMPLETE or (
        trial.state == TrialState.PRUNED and _deterministic(trial.user_attrs.get("error_class")))


def _deterministic(error_class: str | None) -> bool:
    found = ErrorClass.of(error_class)
    return found is not None and found.deterministic


def _key(params: dict[str, Any]) -> tuple:
    return tuple(sorted(params.items()))


@dataclass
class _VariantState:
    variant: Variant
    study: optuna.Study
    evaluator: Evaluator
    feasible: list[dict[str, Any]]
    feasible_keys: list[tuple] = field(default_factory=list)
    seen: dict[tuple, optuna.trial.FrozenTrial] = field(default_factory=dict)
    queued: set[tuple] = field(default_factory=set)
    measured: int = 0
    best: float | None = None


@dataclass
class _InFlight:
    state: _VariantState
    trial: optuna.trial.Trial
    future: Future
    followers: list[optuna.trial.Trial] = field(default_factory=list)


@dataclass
class _Waiting:
    """A trial whose point an earlier trial of another worker (`twin_id`) is measuring."""

    state: _VariantState
    trial: optuna.trial.Trial
    twin_id: int


def _provenance(config: RunConfig, backend_version: str) -> dict[str, Any]:
    """What produced a study's numbers, so a result can be traced and a stale one recognised."""
    return {"tuner_version": importlib.metadata.version("tuner"), "backend_version": backend_version,
            "optuna_version": optuna.__version__, "torch_version": torch.__version__, "seed": config.seed,
            "sampler": config.sampler, "soc_table_hash": format(zlib.crc32(DEFAULT_SOCS_PATH.read_bytes()), "08x")}


class Optimizer:
    """Runs one tuning job; build with `Optimizer(config)` then call `run()`."""

    def __init__(self, config: RunConfig, on_progress: Callable[[Progress], None] | None = None) -> None:
        check_numbers(config)
        if config.sampler not in SAMPLERS:
            raise UsageError(f"unknown sampler '{config.sampler}' (known: {', '.join(SAMPLERS)})")
        self.op = get_operator(config.op).with_options(config.options)
        self.op.check_dtype(config.dtype)
        self.op.check_shape(config.shape)
        try:
            self.soc = get_soc(config.soc)
        except UnknownSocError as exc:
            raise UsageError(str(exc)) from None
        config = replace(config, soc=self.soc.name)  # ascend910b2 names the same run as Ascend910B2
        self.config = config
        self.on_progress = on_progress
        self.jobs = max(config.jobs, config.workers)
        check_memory(run_memory_bytes(self.op, config.shape, config.dtype, self.jobs),
                     f"{self.op.name} {shape_text(config.shape)} {config.dtype} ({INPUT_SETS} input sets with their "
                     f"references, {self.jobs} candidates at once)")
        self.run_name = check_run_name(config.run_name)
        if config.profile not in (None, "msprof"):
            raise UsageError(f"--profile {config.profile}: the one profiler is msprof")
        if config.profile and config.backend != "npu":
            raise UsageError("--profile msprof profiles on an NPU (--backend npu); the simulator's own report is "
                             "already in every trial")
        self.backend = make_backend(config.backend, self.soc.name, config.workers)
        self.run_dir = config.runs_dir / self.run_name
        self.space: SearchSpace = with_rewrites(load_space(self.op.name, config.project), self.run_dir / "variants")
        self.context = run_context(self.op, config.shape, config.dtype, self.soc)
        self.mutators = make_mutators(config.rewrites, config.llm_model, config.no_llm, config.llm_max_calls,
                                      config.llm_timeout_s)
        self.rewriter: Rewriter | None = None
        self.storage, self.storage_url = open_storage(config.storage, config.runs_dir)
        self.artifacts = artifact_store(config.runs_dir)
        self.cache = CompileCache(self.backend)
        self.leases = LeaseKeeper(self.storage)
        self.states: dict[str, _VariantState] = {}
        self.waiting: list[_Waiting] = []
        self.skipped: dict[str, str] = {}
        self.stop_reason = ""
        self.counts: Counter = Counter()
        self.builds = self.build_hits = 0
        self._idle_asks = 0  # consecutive asks without a new measured candidate
        self.sampler_s = 0.0  # main-thread seconds in ask and tell (sampler and storage), for the benchmark
        self._start = time.monotonic()

    # ----- setup -------------------------------------------------------------------------------------
    def _study_name(self, variant: Variant) -> str:
        version = self.backend.study_tag
        fingerprint = variant.fingerprint(self.context)
        digest = format(zlib.crc32(f"{fingerprint}:{version}:{self.config.dtype}".encode()), "08x")
        return f"{self.run_name}:{variant.name}:{digest}"

    def _open_study(self, variant: Variant) -> optuna.Study:
        name = self._study_name(variant)
        for attempt in range(5):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    study = optuna.create_study(storage=self.storage, study_name=name, direction="minimize",
                                                load_if_exists=True)
                break
            except (optuna.exceptions.DuplicatedStudyError, sqlalchemy.exc.IntegrityError):
                if attempt == 4:  # another worker kept winning the race to create it
                    raise
                time.sleep(0.2)
        if study.direction != optuna.study.StudyDirection.MINIMIZE:
            raise UsageError(f"study '{name}' in the storage maximizes; it was not made by this tuner")
        if "run_id" not in study.user_attrs:
            attrs = {"run_id": self.run_name, "op": self.op.name, "shape": list(self.config.shape),
                     "dtype": self.config.dtype, "soc": self.soc.name, "backend": self.backend.name,
                     "variant": variant.name, "options": self.op.opts, "objective": "time_us",
                     "provenance": _provenance(self.config, self.backend.version)}
            for key, value in attrs.items():
                study.set_user_attr(key, value)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                study.set_metric_names(["time_us"])
            save_note(study, f"**{self.run_name}**, variant `{variant.name}`: {variant.description}\n\n"
                             f"Objective: device time of one launch in µs ({self.time_source}). Failed candidates are "
                             "PRUNED with `error_class` and `error_detail`; each trial's kernel source is an artifact.")
        study.set_user_attr("budget", self.config.budget)
        seed = zlib.crc32(f"{self.config.seed}:{name}:{len(study.trials)}".encode())
        study.sampler = make_sampler(self.config.sampler, seed)
        return study

    def _evaluator(self, variant: Variant, inputs: RunInputs) -> Evaluator:
        """A packaged template's evaluator, or a rewrite's, whose every source is screened before it is built."""
        if "lineage" in variant.raw:
            assert self.rewriter is not None
            return self.rewriter.evaluator(self.space, variant, inputs)
        return Evaluator(self.space, variant, self.backend, self.cache, inputs, self.context)

    def _setup(self, inputs: RunInputs) -> None:
        self.rewriter = Rewriter(
            space=self.space, context=self.context, inputs=inputs, backend=self.backend, run_dir=self.run_dir,
            settings=RewriteSettings(self.mutators, self.config.repair_rounds, self.config.plateau,
                                     self.config.plateau_eps),
            facts={"shape": self.config.shape, "dtype": self.config.dtype, "soc": self.soc.name,
                   "soc_limits": soc_limits(self.soc, self.context)})
        for variant in self.space.variants.values():
            try:
                points = variant.feasible_points(self.context)
                if not points:
                    self.skipped[variant.name] = variant.why_empty(self.context)
                    continue
                evaluator = self._evaluator(variant, inputs)
                evaluator.render(points[0])  # a template that does not render stops the run here, with file:line
            except (SpaceError, ExpressionError, TemplateError) as exc:
                if "lineage" not in variant.raw:
                    raise
                # a rewrite kept from an earlier run that breaks a bound now: skipped, the run goes on
                self.skipped[variant.name] = f"the rewritten variant no longer loads: {exc}"
                continue
            study = self._open_study(variant)
            recover_abandoned(study)
            self.leases.register(study)
            self.states[variant.name] = _VariantState(variant, study, evaluator, points, [_key(p) for p in points])
        if not self.states:
            why = "; ".join(f"{name}: {reason}" for name, reason in self.skipped.items())
            raise UnsupportedShapeError(f"{self.op.name} cannot serve shape {shape_text(self.config.shape)} "
                                        f"{self.config.dtype}: {why}")
        found = self.space.baseline(self.context)
        if found is not None:
            entry, params = found
            state = self.states.get(entry.variant)
            if state is not None and not any(t.user_attrs.get("role") == "baseline" for t in state.study.trials):
                state.study.enqueue_trial(params, user_attrs={"role": "baseline", "why": entry.why})
        for state in self.states.values():
            self._refresh(state)

    # ----- bookkeeping -------------------------------------------------------------------------------
    def _refresh(self, state: _VariantState) -> None:
        """Re-read the study: what has been tried (for dedupe), measured (budget) and the best so far."""
        state.seen.clear()
        state.measured = 0
        state.best = None
        for trial in state.study.get_trials(deepcopy=False):
            in_flight = trial.state == TrialState.RUNNING and trial.user_attrs.get("candidate")
            if _reproducible(trial) or in_flight:
                state.seen.setdefault(_key(trial.params), trial)
            if trial.user_attrs.get("measured") and trial.state in (TrialState.COMPLETE, TrialState.PRUNED):
                state.measured += 1
            elif trial.state == TrialState.RUNNING and trial.user_attrs.get("candidate"):
                state.measured += 1  # in flight in some worker: counted so workers do not overshoot the budget
            if trial.state == TrialState.COMPLETE and trial.value is not None and \
                    (state.best is None or trial.value < state.best):
                state.best = trial.value

    def used(self) -> int:
        return sum(s.measured for s in self.states.values())

    def best_us(self) -> float | None:
        values = [s.best for s in self.states.values() if s.best is not None]
        return min(values) if values else None

    def baseline_us(self) -> float | None:
        """The time of the run's measured baseline, against which a candidate far faster is suspect."""
        for state in self.states.values():
            for trial in state.seen.values():
                if trial.user_attrs.get("role") == "baseline" and trial.state == TrialState.COMPLETE:
                    return trial.value
        return None

    def _progress(self) -> None:
        if self.on_progress is None:
            return
        feasible = sum(1 for s in self.states.values() for t in s.seen.values() if t.state == TrialState.COMPLETE)
        self.on_progress(Progress(
            used=self.used(), budget=self.config.budget, best_us=self.best_us(), feasible=feasible,
            pruned=Counter({k: v for k, v in self.counts.items() if k != "complete"}), builds=self.builds,
            build_hits=self.build_hits, elapsed_s=time.monotonic() - self._start,
            time_source=self.time_source))

    @property
    def time_source(self) -> str:
        return time_source(self.backend.name, self.soc.name)

    def _choose(self) -> _VariantState | None:
        """The variant to ask next: each gets a few trials, then UCB on best-so-far relative to the run's best."""
        active = [s for s in self.states.values() if len(s.seen) < len(s.feasible)]
        if not active:
            return None
        fresh = [s for s in active if s.measured < min(MIN_TRIALS_PER_VARIANT, len(s.feasible))]
        if fresh:
            return min(fresh, key=lambda s: s.measured)
        best = self.best_us()
        total = max(1, sum(s.measured for s in active))

        def score(s: _VariantState) -> float:
            reward = best / s.best if (best and s.best) else 0.0
            return reward + UCB_C * math.sqrt(math.log(total) / max(1, s.measured))

        return max(active, key=score)

    # ----- trials ------------------------------------------------------------------------------------
    def _tell(self, state: _VariantState, trial: optuna.trial.Trial, outcome: Outcome,
              duplicate_of: int | None = None) -> None:
        attrs = {"variant": state.variant.name, **outcome.attrs}
        if duplicate_of is not None:
            attrs = {"variant": state.variant.name, "duplicate_of": duplicate_of}
        else:
            attrs["measured"] = outcome.measured
        if outcome.error_class:
            attrs.update(error_class=outcome.error_class, error_detail=outcome.detail[:4000])
        for key, value in attrs.items():
            trial.set_user_attr(key, value)
        if duplicate_of is None:
            self._upload(trial, outcome)
        self.leases.release(trial._trial_id)
        start = time.perf_counter()
        if outcome.ok:
            state.study.tell(trial, outcome.value)
            self.counts["complete"] += 1
            if state.best is None or outcome.value < state.best:
                state.best = outcome.value
        else:
            state.study.tell(trial, state=TrialState.PRUNED)
            self.counts[outcome.error_class or "pruned"] += 1
        self.sampler_s += time.perf_counter() - start
        frozen = state.study._storage.get_trial(trial._trial_id)
        if outcome.ok or _deterministic(outcome.error_class):
            state.seen[_key(trial.params)] = frozen

    def _upload(self, trial: optuna.trial.Trial, outcome: Outcome) -> None:
        with tempfile.TemporaryDirectory(prefix="tuner-art-") as tmp:
            for name, text in ((f"kernel_{trial.number}.cpp", outcome.source),
                               (f"compile_{trial.number}.log", outcome.compile_log)):
                if text:
                    path = Path(tmp) / name
                    path.write_text(text)
                    upload_artifact(artifact_store=self.artifacts, file_path=str(path), study_or_trial=trial)

    def _from_seen(self, previous: optuna.trial.FrozenTrial) -> Outcome:
        if previous.state == TrialState.COMPLETE:
            return Outcome(value=previous.value)
        return Outcome(error_class=previous.user_attrs.get("error_class"),
                       detail=previous.user_attrs.get("error_detail", ""))

    def _twin(self, state: _VariantState, trial: optuna.trial.Trial) -> optuna.trial.FrozenTrial | None:
        """The trial of the same point whose result `trial` takes, read from the storage now: a finished one that a
        repeat would reproduce, else the earliest running one asked before it (by any worker) that is not
        abandoned; None when the point is new. Asked earlier, not just running: two workers never wait for each
        other."""
        key = _key(trial.params)
        finished = running = None
        for other in state.study.get_trials(deepcopy=False):
            if other._trial_id == trial._trial_id or _key(other.params) != key:
                continue
            if _reproducible(other):
                finished = finished or other
            elif other.state == TrialState.RUNNING and other._trial_id < trial._trial_id and \
                    not is_abandoned(other) and running is None:
                running = other
        return finished or running

    def _place(self, state: _VariantState, trial: optuna.trial.Trial, inflight: dict[int, _InFlight],
               pool: ThreadPoolExecutor) -> bool:
        """Decide, under the ask lock, what a feasible trial is: a follower of this worker's running twin, a copy
        of a finished twin, a trial waiting for another worker's twin, or a new candidate (True)."""
        key = _key(trial.params)
        mine = next((f for f in inflight.values() if f.state is state and _key(f.trial.params) == key), None)
        if mine is not None:
            mine.followers.append(trial)
            return False
        twin = self._twin(state, trial)
        if twin is not None and twin.state == TrialState.RUNNING:
            self.waiting.append(_Waiting(state, trial, twin._trial_id))
            return False
        if twin is not None:
            self._tell(state, trial, self._from_seen(twin), duplicate_of=twin.user_attrs.get("duplicate_of",
                                                                                             twin.number))
            return False
        trial.set_user_attr("candidate", True)
        future = pool.submit(state.evaluator.evaluate, dict(trial.params), self.best_us(), self.baseline_us())
        inflight[trial._trial_id] = _InFlight(state, trial, future)
        state.measured += 1
        return True

    def _ask(self, state: _VariantState, inflight: dict[int, _InFlight], pool: ThreadPoolExecutor) -> bool:
        """Ask one point (under the ask lock); tell it at once if it is infeasible or a duplicate. True if it
        became a new candidate."""
        start = time.perf_counter()
        trial = state.study.ask(fixed_distributions=state.variant.distributions(self.context))
        self.sampler_s += time.perf_counter() - start
        self.leases.claim(trial._trial_id)
        state.queued.discard(_key(trial.params))
        point = state.variant.evaluate(trial.params, self.context)
        if point.feasible:
            return self._place(state, trial, inflight, pool)
        self._tell(state, trial, Outcome(error_class=ErrorClass.INFEASIBLE, detail=point.why_infeasible()))
        self._enqueue_nearest(state, trial, inflight)
        return False

    def _resolve_waiting(self, inflight: dict[int, _InFlight], pool: ThreadPoolExecutor) -> None:
        """Place again every waiting trial whose twin has ended (or was abandoned): it copies the twin's result,
        waits for another, or is measured here."""
        waiting, self.waiting = self.waiting, []
        for item in waiting:
            twin = item.state.study._storage.get_trial(item.twin_id)
            if twin.state == TrialState.RUNNING and not is_abandoned(twin):
                self.waiting.append(item)
                continue
            with ask_lock(self.storage):
                self._place(item.state, item.trial, inflight, pool)

    def _enqueue_nearest(self, state: _VariantState, trial: optuna.trial.Trial,
                         inflight: dict[int, _InFlight]) -> None:
        """The sampler learns the infeasible point from its PRUNED trial; the nearest untried feasible point is
        queued in its place, so a sparse feasible region does not starve the search."""
        taken = set(state.seen) | state.queued | {_key(f.trial.params) for f in inflight.values() if f.state is state}
        untried = [p for p, k in zip(state.feasible, state.feasible_keys, strict=True) if k not in taken]
        nearest = state.variant.nearest(trial.params, untried, self.context)
        if nearest is not None:
            state.study.enqueue_trial(nearest, user_attrs={"replaces_infeasible": trial.number})
            state.queued.add(_key(nearest))

    def _finish(self, flight: _InFlight) -> bool:
        """Tell a finished evaluation (and its followers); True if the candidate was measured."""
        state = flight.state
        try:
            outcome = flight.future.result()
        except TunerError:
            raise
        except Exception as exc:  # the tuner's own error: FAIL, never PRUNED, so it is not mistaken for the kernel's
            if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:  # the disk's, which ends the run
                raise
            flight.trial.set_user_attr("error_class", ErrorClass.TUNER_ERROR)
            flight.trial.set_user_attr("error_detail", f"{exc.__class__.__name__}: {exc}"[:4000])
            self.leases.release(flight.trial._trial_id)
            state.study.tell(flight.trial, state=TrialState.FAIL)
            state.measured -= 1
            self.counts[ErrorClass.TUNER_ERROR] += 1
            for follower in flight.followers:
                self.leases.release(follower._trial_id)
                state.study.tell(follower, state=TrialState.FAIL)
            return False
        if not outcome.measured:
            state.measured -= 1
        if "compile_s" in outcome.attrs:
            self.builds += 1
            self.build_hits += int(bool(outcome.attrs.get("build_cached")))
        self._tell(state, flight.trial, outcome)
        for follower in flight.followers:
            self._tell(state, follower, outcome, duplicate_of=flight.trial.number)
        self._rewrite(state, flight.trial.params, outcome)
        return outcome.measured

    # ----- rewrites ----------------------------------------------------------------------------------
    def _rewrite(self, state: _VariantState, params: dict[str, Any], outcome: Outcome) -> None:
        """Ask for a repair when a candidate failed (an LLM only: rules do not repair), and for improvements
        when the run's best has stalled; every accepted rewrite joins the run as a variant."""
        rewriter = self.rewriter
        if rewriter is None or not self.mutators:
            return
        made: list[tuple[Variant, str, dict[str, Any]]] = []
        recorded = len(rewriter.records)
        if outcome.error_class is not None and outcome.error_class.repairable and rewriter.has_llm:
            made += [(v, outcome.error_class, params) for v in rewriter.repair(state.variant, params, outcome)]
        if outcome.measured and rewriter.plateau.observe(self.best_us()):
            made += self._improve(rewriter)
        for record in rewriter.records[recorded:]:
            self._attach_record(record)
        for variant, trigger, parent_params in made:
            self._add_variant(variant, trigger, parent_params)

    def _attach_record(self, record: MutationRecord) -> None:
        """A proposal's prompt, response and template as artifacts of its parent's study (the dashboard's view)."""
        state = self.states.get(record.parent)
        if state is None:
            return
        for kind, relative in record.files.items():
            with tempfile.TemporaryDirectory(prefix="tuner-art-") as tmp:
                path = Path(tmp) / f"mutation_{record.number:03d}_{kind}.txt"
                shutil.copyfile(self.run_dir / relative, path)
                upload_artifact(artifact_store=self.artifacts, file_path=str(path), study_or_trial=state.study)

    def _improve(self, rewriter: Rewriter) -> list[tuple[Variant, str, dict[str, Any]]]:
        best_state = min((s for s in self.states.values() if s.best is not None), key=lambda s: s.best, default=None)
        if best_state is None:
            return []
        trial = min((t for t in best_state.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                     if t.value is not None and "duplicate_of" not in t.user_attrs), key=lambda t: t.value)
        bound = roofline(self.op, self.config.shape, self.config.dtype, self.soc).bound_us
        profile = {"time_us": trial.value, **trial.user_attrs.get("pipe", {}),
                   "roofline_us": bound, "roofline_gap": trial.value / bound if bound else None}
        measured = self._msprof(best_state, trial, "plateau")
        if measured and "pipe_ratios" in measured:
            profile.update(measured["pipe_ratios"], pipe_source=measured["source"])
        variants = rewriter.improve(best_state.variant, trial.params, profile, trial.value, bound)
        return [(v, "plateau", trial.params) for v in variants]

    def _add_variant(self, variant: Variant, trigger: str, parent_params: dict[str, Any]) -> None:
        """A rewrite joins the run: its own study, warm-started from the knobs it was validated on (the parent's,
        with any knob the rewrite added at its first value)."""
        assert self.rewriter is not None
        self.space = replace(self.space, variants={**self.space.variants, variant.name: variant})
        points = variant.feasible_points(self.context)
        if not points:
            return
        study = self._open_study(variant)
        lineage = variant.raw["lineage"]
        study.set_user_attr("lineage", {"parent": lineage["parent"], "origin": lineage["origin"],
                                        "trigger": trigger})
        self.leases.register(study)
        evaluator = self._evaluator(variant, self.rewriter.inputs)
        state = _VariantState(variant, study, evaluator, points, [_key(p) for p in points])
        self.states[variant.name] = state
        warm = warm_start(variant, parent_params, self.context)
        if variant.evaluate(warm, self.context).feasible:
            study.enqueue_trial(warm, user_attrs={"warm_start_from": lineage["parent"]})
            state.queued.add(_key(warm))
        self._refresh(state)

    def _interrupt(self) -> None:
        """Prune every trial this worker has RUNNING — in flight, or caught between its ask and its lease."""
        for state in self.states.values():
            others_alive = any(who != self.leases.me for who in live_workers(state.study))
            for trial in state.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
                mine = trial.user_attrs.get("owner") == self.leases.me
                if not (mine or ("owner" not in trial.user_attrs and not others_alive)):
                    continue
                storage = state.study._storage
                storage.set_trial_user_attr(trial._trial_id, "error_class", ErrorClass.INTERRUPTED)
                storage.set_trial_user_attr(trial._trial_id, "error_detail", "Ctrl-C while this trial ran")
                self.leases.release(trial._trial_id)
                state.study.tell(trial.number, state=TrialState.PRUNED)

    # ----- the loop ----------------------------------------------------------------------------------
    def prepare(self) -> list[str]:
        """Create the run's studies and queue its baseline, without running anything; returns the study names.

        Workers that share a storage should start after this: two processes creating the same tables or
        study at once can collide.
        """
        self._setup(RunInputs(self.op, self.config.shape, self.config.dtype))
        self.leases.stop()
        self.backend.close()
        return [s.study.study_name for s in self.states.values()]

    def run(self) -> report.RunSummary:
        inputs = RunInputs(self.op, self.config.shape, self.config.dtype)
        self.leases.start()
        try:
            self._setup(inputs)
            finished = self.used() >= self.config.budget
            if finished:
                self.stop_reason = f"the run already has its budget of {self.config.budget} trials"
            else:
                self._time_torch(inputs)
                self._loop()
            try:
                if not finished:
                    self._retime()
                    self._profile_winner()
                self._export_best()
            except KeyboardInterrupt:  # every trial is told by now: the summary is what the search found
                self.stop_reason = "interrupted"
                raise Interrupted(self._summary(finished=finished)) from None
            return self._summary(finished=finished)
        finally:
            self.leases.stop()
            self.backend.close()

    def _loop(self) -> None:
        """Ask, evaluate and tell until the budget or a stop condition; Ctrl-C is taken between storage calls
        (an interrupted SQLite write could leave the database locked), so every trial is told cleanly. On any
        way out but the end of the search, the candidates still running are stopped: their trials stay RUNNING
        under this worker, and the next run retries them."""
        inflight: dict[int, _InFlight] = {}
        deadline = None if self.config.time_limit_s is None else self._start + self.config.time_limit_s
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="tuner-eval")
        try:
            with _sigint_as_flag() as interrupted:
                while not interrupted.is_set():
                    while len(inflight) + len(self.waiting) < self.jobs and not self.stop_reason and \
                            not interrupted.is_set():
                        if deadline is not None and time.monotonic() >= deadline:
                            self.stop_reason = f"time limit of {self.config.time_limit_s:g} s reached"
                            break
                        with ask_lock(self.storage):  # counting the budget, choosing and asking: one worker at once
                            for state in self.states.values():
                                self._refresh(state)
                            if self.used() >= self.config.budget:
                                break
                            state = self._choose()
                            if state is None:
                                self.stop_reason = "every feasible point of every variant has been tried"
                                break
                            productive = self._ask(state, inflight, pool)
                        if not productive:
                            self._unproductive()
                            self._progress()
                    if not inflight and not self.waiting:
                        break
                    if inflight:
                        done, _ = wait([f.future for f in inflight.values()], timeout=0.25,
                                       return_when=FIRST_COMPLETED)
                    else:
                        done = set()
                        time.sleep(0.25)
                    if interrupted.is_set():  # results of processes that the same Ctrl-C stopped are not verdicts
                        break
                    for trial_id in [i for i, f in inflight.items() if f.future in done]:
                        if self._finish(inflight.pop(trial_id)):
                            self._idle_asks = 0
                        else:
                            self._unproductive()
                    self._resolve_waiting(inflight, pool)
                    if done:
                        self._progress()
                if interrupted.is_set():
                    stop_children()  # they run in sessions of their own, out of the terminal's reach
                    self._interrupt()
                    self.stop_reason = "interrupted"
                    self._export_best()
                    raise Interrupted(self._summary())
        except BaseException:
            stop_children()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        if not self.stop_reason:
            self.stop_reason = f"budget of {self.config.budget} trials reached"
        pool.shutdown(wait=True)

    def _record(self, key: str, value: Any) -> None:
        """A run-level fact, kept on every study of the run (any of them may be the one read back)."""
        for state in self.states.values():
            state.study.set_user_attr(key, value)

    def _time_torch(self, inputs: RunInputs) -> None:
        """torch's own operator on the device, timed like the candidates and checked on every input set against
        the float64 CPU reference (the cross-check of device and host); every measured trial then carries
        `torch_us` and `speedup_vs_torch`. A failure is recorded, never fatal: the candidates do not need it."""
        try:
            timing = self.backend.time_torch(self.op, inputs.arrays)
        except TunerError as exc:
            self._record("torch", {"error": str(exc)})
            return
        if timing is None:
            return
        inputs.torch = timing
        mismatches = []
        for index, outputs in enumerate(timing.outputs):
            check = self.op.check({name: to_torch(array) for name, array in outputs.items()}, inputs.inputs[index],
                                  inputs.expected[index])
            if not check.ok:
                mismatches.append(f"input set {index}: {check.detail}")
        self._record("torch", {"median_us": round(timing.median_us, 3), "p20_us": round(timing.p20_us, 3),
                               "p80_us": round(timing.p80_us, 3), "launches": timing.launches,
                               "source": timing.source, "matches_cpu_reference": not mismatches,
                               "detail": "; ".join(mismatches)})

    def _retime(self) -> None:
        """Before naming a winner on a device, re-time the best few against each other, interleaved over
        RETIME_ROUNDS rounds (timing.py): one batch each, in rotating order, so drift cannot favour one."""
        if not self.backend.retimes:
            return
        ranked = sorted(((t.value, name, t) for name, state in self.states.items()
                         for t in state.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                         if report.eligible(t)), key=lambda item: item[0])[:RETIME_TOP]
        if len(ranked) < 2:
            return
        by_key = {f"{name}:{t.number}": (name, t) for _, name, t in ranked}

        def time_one(key: str) -> float:
            name, trial = by_key[key]
            return self.states[name].evaluator.retime(trial.params)

        try:
            times = interleaved_retime(list(by_key), time_one, rounds=RETIME_ROUNDS)
        except TunerError as exc:  # the best by first timing stays the best
            self._record("retime", {"error": str(exc)})
            return
        self._record("retime", {"rounds": RETIME_ROUNDS, "winner": winner(times), "source": self.time_source,
                                "times_us": {k: [round(v, 3) for v in vs] for k, vs in times.items()}})

    def _msprof(self, state: _VariantState, trial: optuna.trial.FrozenTrial, why: str) -> dict[str, Any] | None:
        """With --profile msprof, the trial profiled on the device; kept as the run's `msprof_<why>` attribute
        (a failure of msprof is recorded, never fatal)."""
        if self.config.profile != "msprof":
            return None
        key = f"{state.variant.name}:{trial.number}"
        try:
            report = state.evaluator.msprof(trial.params, self.run_dir / "msprof" / f"{why}-{key.replace(':', '-')}")
        except TunerError as exc:
            result: dict[str, Any] = {"trial": key, "error": str(exc)}
        else:
            result = {"trial": key, "pipe_ratios": report["pipe_ratios"], "source": report["source"],
                      "csv": report["csv"], "task_duration_us": report.get("task_duration_us")}
        self._record(f"msprof_{why}", result)
        return result

    def _profile_winner(self) -> None:
        if self.config.profile != "msprof":
            return
        summary = self._summary()
        if summary.best is not None:
            state = self.states[summary.best.variant]
            trial = state.study.trials[summary.best.number]
            self._msprof(state, trial, "winner")

    def _unproductive(self) -> None:
        self._idle_asks += 1
        if self._idle_asks >= self.config.patience and not self.stop_reason:
            self.stop_reason = f"{self.config.patience} consecutive asks gave no new feasible candidate"

    def _export_best(self) -> None:
        """Write the run's best correct kernel to `runs/<run>/best/` (nothing when there is none yet)."""
        if self.best_us() is None:
            return
        try:
            export_trial(self.storage, self.run_name, self.best_dir, project=self.config.project,
                         variants_dir=self.run_dir / "variants")
        except UsageError as exc:
            if "no correct trial" not in str(exc):
                raise
            return
        self._attach_trace()

    def _attach_trace(self) -> None:
        """The winner's timeline as an artifact of its study (`trace_<variant>_<trial>.json`), once per winner."""
        trace = self.best_dir / "trace.json"
        if not trace.exists():
            return
        described = json.loads((self.best_dir / "kernel.json").read_text())
        state = self.states.get(described["variant"])
        if state is None:
            return
        name = f"trace_{described['variant']}_{described['trial']}.json"
        if any(m.filename == name for m in get_all_artifact_meta(state.study)):
            return
        with tempfile.TemporaryDirectory(prefix="tuner-art-") as tmp:
            path = Path(tmp) / name
            shutil.copyfile(trace, path)
            upload_artifact(artifact_store=self.artifacts, file_path=str(path), study_or_trial=state.study)

    @property
    def best_dir(self) -> Path:
        return self.config.runs_dir / self.run_name / "best"

    def _summary(self, finished: bool = False) -> report.RunSummary:
        return report.summarize(self.storage, self.storage_url, self.run_name, runs_dir=self.config.runs_dir,
                                stop_reason=self.stop_reason, skipped=self.skipped, already_finished=finished)


def optimize(config: RunConfig, on_progress: Callable[[Progress], None] | None = None) -> report.RunSummary:
    """Run (or resume, or top up) the tuning job `config` describes and return its summary."""
    return Optimizer(config, on_progress).run()


