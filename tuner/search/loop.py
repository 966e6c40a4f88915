"""`optimize`: one run as a pipeline — set up the variant studies, search them, then the phases the backend
declares (torch's own timing, re-timing of the best few, msprof), and export the winner.

Each variant is its own Optuna study (a categorical cannot grow inside a live study). The scheduler
(`scheduler.py`) picks the variant to ask next; the loop asks for a whole point at once through the trials adapter
(`trials.py`), rejects infeasible points and duplicates for free, evaluates up to `jobs` candidates in parallel
threads (the work is compiler and simulator subprocesses), and tells every result — failures as PRUNED with an
error class, so TPE learns to avoid them and none can become best. The backend, storage and mutators are handed in
(`Optimizer`); `make_optimizer` builds them from a `RunConfig`.
"""

from __future__ import annotations

import errno
import importlib.metadata
import json
import math
import signal
import statistics
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import optuna
import torch
from optuna.artifacts import FileSystemArtifactStore

from tuner.backends import make_backend, time_source
from tuner.backends.base import Backend
from tuner.data.socs import DEFAULT_SOCS_PATH, get_soc
from tuner.errors import ErrorClass, TunerError, UsageError
from tuner.graph.operator import GraphOperator
from tuner.mutate.base import Mutator
from tuner.ops.base import UnsupportedShapeError, shape_text
from tuner.processes import check_memory, stop_children
from tuner.search import phases, report
from tuner.search.compile_cache import CompileCache
from tuner.search.config import AUTO_GATE, RunConfig, run_memory_bytes
from tuner.search.evaluate import INPUT_SETS, Evaluator, Measurement, RunInputs
from tuner.search.generation import FRAME, GenerationError, draft_point, generation_context
from tuner.search.leases import LeaseKeeper, is_abandoned, live_workers, recover_abandoned
from tuner.search.rewrites import MutationRecord, Rewriter, RewriteSettings, make_mutators, soc_limits, warm_start
from tuner.search.roofline import roofline
from tuner.search.samplers import make_sampler
from tuner.search.scheduler import Plateau, Scheduler, TrialFacts, TrialStatus, VariantState, point_key
from tuner.search.storage import artifact_store, ask_lock, open_storage
from tuner.search.trials import PREDICTED_DEVICE_US, Asked, PredictionInformed, StudyTrials, open_study
from tuner.search.winners import export_trial
from tuner.space.expr import ExpressionError
from tuner.space.render import TemplateError
from tuner.space.spaces import SearchSpace, SpaceError, Variant, load_space, run_context, with_rewrites

__all__ = ["Interrupted", "Optimizer", "Progress", "RunConfig", "make_optimizer", "optimize"]

# Errors of the disk itself, which no candidate causes: they stop the run instead of failing trial after trial.
DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)
DETAIL_CHARS = 4000
# `--gate auto` (docs/search_gate.md): the margin is GATE_SIGMAS times the spread (sigma of log(device / predicted)) of
# the model's errors the run has measured on its launched candidates, at least GATE_FLOOR, once GATE_MIN_LAUNCHES of
# them carry both; before that every candidate is launched
GATE_SIGMAS = 1.0
GATE_FLOOR = 0.02
GATE_MIN_LAUNCHES = 5


class Interrupted(KeyboardInterrupt):
    """Raised on Ctrl-C after the running trials are pruned; carries the summary so far."""

    def __init__(self, summary: report.RunSummary) -> None:
        super().__init__("interrupted")
        self.summary = summary


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


def _provenance(config: RunConfig, backend_version: str) -> dict[str, Any]:
    """What produced a study's numbers, so a result can be traced and a stale one recognised."""
    return {"tuner_version": importlib.metadata.version("tuner"), "backend_version": backend_version,
            "optuna_version": optuna.__version__, "torch_version": torch.__version__, "seed": config.seed,
            "sampler": config.sampler, "soc_table_hash": format(zlib.crc32(DEFAULT_SOCS_PATH.read_bytes()), "08x")}


def _copied(twin: TrialFacts) -> Measurement:
    """The verdict a duplicate takes from its finished twin; a copy of a gated twin keeps its prediction."""
    if twin.status == TrialStatus.COMPLETE:
        return Measurement(value=twin.value)
    prediction = {"sim_us": twin.attrs["sim_us"]} if "sim_us" in twin.attrs else {}
    return Measurement(error_class=twin.error_class, detail=str(twin.attrs.get("error_detail", "")),
                       time_source=twin.attrs.get("time_source") if prediction else None, backend_attrs=prediction)


@dataclass
class _Live:
    """A variant in this run: its study, its evaluator and its standing with the scheduler."""

    variant: Variant
    trials: StudyTrials
    evaluator: Evaluator
    state: VariantState


@dataclass
class _InFlight:
    live: _Live
    asked: Asked
    future: Future[Measurement]
    followers: list[Asked] = field(default_factory=list)


@dataclass
class _Waiting:
    """A trial whose point an earlier trial of another worker (`twin_id`) is measuring."""

    live: _Live
    asked: Asked
    twin_id: int


class Optimizer:
    """Runs one tuning job on the parts it is given; `make_optimizer(config)` builds them, then call `run()`."""

    def __init__(self, config: RunConfig, *, backend: Backend, storage: optuna.storages.BaseStorage,
                 storage_url: str, artifacts: FileSystemArtifactStore, mutators: list[Mutator],
                 on_progress: Callable[[Progress], None] | None = None,
                 evaluators: Callable[[Variant], Any] | None = None) -> None:
        if config.profile and not backend.profiles_with_msprof:
            raise UsageError(f"--profile {config.profile} profiles on an NPU (--backend npu); the simulator's own "
                             "report is already in every trial")
        self.config, self.backend, self.mutators, self.on_progress = config, backend, mutators, on_progress
        # Kernel Tuner's simulation mode (tuner.search.simulation): each variant's measurements from a cache, nothing
        # built, so no post-search phase runs
        self.evaluators = evaluators
        self.storage, self.storage_url, self.artifacts = storage, storage_url, artifacts
        self.op = config.operator
        self.soc = get_soc(config.soc)
        self.jobs = config.parallel
        self.run_name = config.run_name
        self.run_dir = config.run_dir
        self.space: SearchSpace = with_rewrites(load_space(self.op.name, config.project), self.run_dir / "variants")
        self.context = run_context(self.op, config.shape, config.dtype, self.soc)
        self.rewriter: Rewriter | None = None
        self.cache = CompileCache(backend)
        self.leases = LeaseKeeper(storage)
        self.scheduler = Scheduler(config.budget, config.patience)
        self.plateau = Plateau(config.plateau, config.plateau_eps)
        self.live: dict[str, _Live] = {}
        self.waiting: list[_Waiting] = []
        self.skipped: dict[str, str] = {}
        self.counts: Counter = Counter()
        self.builds = self.build_hits = 0
        self.sampler_s = 0.0  # main-thread seconds in ask and tell (sampler and storage), for the benchmark
        self._start = time.monotonic()

    @property
    def stop_reason(self) -> str:
        return self.scheduler.stop_reason

    @stop_reason.setter
    def stop_reason(self, reason: str) -> None:
        self.scheduler.stop_reason = reason

    @property
    def time_source(self) -> str:
        return time_source(self.backend.name, self.soc.name)

    @property
    def best_dir(self) -> Path:
        return self.run_dir / "best"

    def best_us(self) -> float | None:
        return self.scheduler.best_us()

    def _model_errors(self) -> list[float]:
        """log(measured / predicted) of each of the run's launched, correct candidates that carries a prediction
        (`sim_us`: only a device's trials do)."""
        return [math.log(t.value / t.attrs["sim_us"]) for live in self.live.values() for t in live.state.seen.values()
                if t.correct and t.attrs.get("measured") and isinstance(t.attrs.get("sim_us"), (int, float))
                and t.attrs["sim_us"] > 0 and t.value > 0]

    def gate_margin(self) -> float | None:
        """The gate's relative margin: `config.gate`, or with `auto` GATE_SIGMAS times the spread of the model's
        errors the run has measured (at least GATE_FLOOR), once GATE_MIN_LAUNCHES launched candidates carry one;
        None launches every candidate."""
        if self.config.gate != AUTO_GATE:
            return self.config.gate
        errors = self._model_errors()
        if len(errors) < GATE_MIN_LAUNCHES:
            return None
        return max(GATE_FLOOR, math.expm1(GATE_SIGMAS * statistics.pstdev(errors)))

    def gate_us(self) -> float | None:
        """The predicted time above which a candidate is not launched: the run's best trial's prediction (`sim_us`,
        which only a device's trials carry) times 1 + the gate's margin; None without a gate or a prediction."""
        state = self.scheduler.best_state()
        trial = state.best_trial if state is not None else None
        predicted = trial.attrs.get("sim_us") if trial is not None else None
        margin = self.gate_margin() if isinstance(predicted, (int, float)) else None
        return None if margin is None else predicted * (1 + margin)

    def predicted_device_us(self, sim_us: object) -> float | None:
        """A prediction carried to the device, as the sampler sees a candidate the gate kept off it: `sim_us` times
        the median ratio of measured to predicted time over the run's launched candidates; None without either."""
        errors = self._model_errors()
        if not isinstance(sim_us, (int, float)) or not errors:
            return None
        return sim_us * math.exp(statistics.median(errors))

    # ----- setup -------------------------------------------------------------------------------------
    def _study_name(self, variant: Variant) -> str:
        fingerprint = variant.fingerprint(self.context)
        digest = format(zlib.crc32(f"{fingerprint}:{self.backend.study_tag}:{self.config.dtype}".encode()), "08x")
        return f"{self.run_name}:{variant.name}:{digest}"

    def _open_study(self, variant: Variant) -> StudyTrials:
        name = self._study_name(variant)
        trials = StudyTrials(open_study(self.storage, name), self.artifacts)
        if "run_id" not in trials.attrs:
            attrs = {"run_id": self.run_name, "op": self.op.name, "shape": list(self.config.shape),
                     "dtype": self.config.dtype, "soc": self.soc.name, "backend": self.backend.name,
                     "variant": variant.name, "options": self.op.opts, "objective": "time_us",
                     "provenance": _provenance(self.config, self.backend.version)}
            if self.config.task_attrs:
                attrs["task"] = self.config.task_attrs
            trials.describe(attrs, "time_us", f"**{self.run_name}**, variant `{variant.name}`: {variant.description}"
                            f"\n\nObjective: device time of one launch in µs ({self.time_source}). Failed candidates "
                            "are PRUNED with `error_class` and `error_detail`; each trial's kernel source is an "
                            "artifact.")
        trials.set_attr("budget", self.config.budget)
        sampler = make_sampler(self.config.sampler, zlib.crc32(f"{self.config.seed}:{name}:{trials.count()}".encode()))
        trials.use_sampler(sampler if self.config.gate is None else PredictionInformed(sampler))
        return trials

    def _evaluator(self, variant: Variant, inputs: RunInputs) -> Evaluator:
        """A packaged template's evaluator, or a rewrite's, whose every source is screened before it is built."""
        if self.evaluators is not None:
            return self.evaluators(variant)
        if "lineage" in variant.raw:
            assert self.rewriter is not None
            return self.rewriter.evaluator(self.space, variant, inputs)
        return Evaluator(self.space, variant, self.backend, self.cache, inputs, self.context)

    def _join(self, variant: Variant, trials: StudyTrials, evaluator: Evaluator,
              points: list[dict[str, Any]]) -> _Live:
        live = _Live(variant, trials, evaluator, VariantState(variant.name, points))
        self.live[variant.name] = live
        self.scheduler.add(live.state)
        return live

    def _setup(self, inputs: RunInputs) -> None:
        self.rewriter = Rewriter(
            space=self.space, context=self.context, inputs=inputs, backend=self.backend, run_dir=self.run_dir,
            settings=RewriteSettings(self.mutators, self.config.repair_rounds),
            facts={"shape": self.config.shape, "dtype": self.config.dtype, "soc": self.soc.name,
                   "soc_limits": soc_limits(self.soc, self.context), "options": dict(self.op.opts)})
        if isinstance(self.op, GraphOperator) and self.op.lowered is None and not self.space.variants:
            self._write_kernel()
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
            trials = self._open_study(variant)
            recover_abandoned(trials.study)
            self.leases.register(trials.study)
            self._join(variant, trials, evaluator, points)
        if not self.live:
            why = "; ".join(f"{name}: {reason}" for name, reason in self.skipped.items())
            raise UnsupportedShapeError(f"{self.op.name} cannot serve shape {shape_text(self.config.shape)} "
                                        f"{self.config.dtype}: {why}")
        found = self.space.baseline(self.context)
        if found is not None:
            entry, params = found
            live = self.live.get(entry.variant)
            if live is not None and not any(t.attrs.get("role") == "baseline" for t in live.trials.all()):
                live.trials.enqueue(params, {"role": "baseline", "why": entry.why})
        elif isinstance(self.op, GraphOperator) and self.op.lowered is None:
            self._written_baseline()
        for live in self.live.values():
            self._refresh(live)
        for record in self.rewriter.records:  # a resumed run: a failed generated kernel stays replaced
            failed = self.live.get(record.parent)
            if record.trigger == "generate" and record.variant in self.live and failed is not None and \
                    failed.state.best is None:
                why = f"replaced by {record.variant}, which the LLM wrote"
                failed.state.retired = self.skipped[record.parent] = why

    def _write_kernel(self) -> None:
        """A task the tuner has no kernel of: the LLM writes one in the generate-compile-run-fix loop, and the
        kernel that passes is the run's variant; GenerationError (one line) when none does."""
        assert self.rewriter is not None and isinstance(self.op, GraphOperator)
        start = generation_context(self.op, self.space, self.context, self.rewriter.facts, FRAME)
        recorded = len(self.rewriter.records)
        variant = self.rewriter.generate(start, FRAME, rounds=self.config.generate_rounds)
        if variant is None:
            tried = self.rewriter.records[recorded:]
            last = f"the last: {tried[-1].verdict}" if tried else "the LLM was not asked: its call budget is spent"
            raise GenerationError(f"{self.op.source.name}: {self.op.refusal}; and no kernel the LLM wrote passed in "
                                  f"{len(tried)} of --generate-rounds {self.config.generate_rounds} ({last})")
        self.space = replace(self.space, variants={**self.space.variants, variant.name: variant})

    def _written_baseline(self) -> None:
        """A task's first kernel the LLM wrote starts at the point it was checked at, as the run's baseline."""
        for live in self.live.values():
            if live.variant.raw.get("lineage", {}).get("trigger") != "generate":
                continue
            if not any(t.attrs.get("role") == "baseline" for t in live.trials.all()):
                point = draft_point(live.variant, {}, self.context)
                if point is not None:
                    live.trials.enqueue(point, {"role": "baseline", "why": "the LLM's kernel at the point it was "
                                                                          "checked at"})
            return

    def _refresh(self, live: _Live) -> None:
        live.state.refresh(live.trials.all())

    def _progress(self) -> None:
        if self.on_progress is None:
            return
        self.on_progress(Progress(
            used=self.scheduler.used(), budget=self.config.budget, best_us=self.best_us(),
            feasible=self.scheduler.feasible_found(),
            pruned=Counter({k: v for k, v in self.counts.items() if k != "complete"}), builds=self.builds,
            build_hits=self.build_hits, elapsed_s=time.monotonic() - self._start, time_source=self.time_source))

    # ----- the pipeline ------------------------------------------------------------------------------
    def prepare(self) -> list[str]:
        """Create the run's studies and queue its baseline, without running anything; returns the study names.

        Workers that share a storage should start after this: two processes creating the same tables or
        study at once can collide.
        """
        self._setup(RunInputs(self.op, self.config.shape, self.config.dtype))
        self.leases.stop()
        self.backend.close()
        return [live.trials.name for live in self.live.values()]

    def run(self) -> report.RunSummary:
        inputs = RunInputs(self.op, self.config.shape, self.config.dtype)
        self.leases.start()
        try:
            self._setup(inputs)
            finished = self.scheduler.spent
            if finished:
                self.stop_reason = f"the run already has its budget of {self.config.budget} trials"
            else:
                if self.backend.times_torch and self.evaluators is None:
                    self._time_torch(inputs)
                self._loop()
            if self.evaluators is not None:
                return self._summary(finished=finished)
            try:
                if not finished:
                    if self.backend.retimes:
                        self._retime()
                    if self.config.profile:
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
                            for live in self.live.values():
                                self._refresh(live)
                            if self.scheduler.spent:
                                break
                            state = self.scheduler.choose()
                            if state is None:
                                self.stop_reason = "every feasible point of every variant has been tried"
                                break
                            productive = self._ask(self.live[state.name], inflight, pool)
                        if not productive:
                            self.scheduler.unproductive()
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
                        measurement = self._finish(inflight.pop(trial_id))
                        if measurement is not None and measurement.judged:
                            self.scheduler.productive(launched=measurement.measured)
                        else:
                            self.scheduler.unproductive()
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

    # ----- trials ------------------------------------------------------------------------------------
    def _ask(self, live: _Live, inflight: dict[int, _InFlight], pool: ThreadPoolExecutor) -> bool:
        """Ask one point (under the ask lock); tell it at once if it is infeasible or a duplicate. True if it
        became a new candidate."""
        start = time.perf_counter()
        asked = live.trials.ask(live.variant.distributions(self.context))
        self.sampler_s += time.perf_counter() - start
        self.leases.claim(asked.trial_id)
        live.state.queued.discard(asked.key)
        point = live.variant.evaluate(asked.params, self.context)
        if point.feasible:
            return self._place(live, asked, inflight, pool)
        self._tell(live, asked, Measurement(error_class=ErrorClass.INFEASIBLE, detail=point.why_infeasible()))
        self._enqueue_nearest(live, asked, inflight)
        return False

    def _place(self, live: _Live, asked: Asked, inflight: dict[int, _InFlight], pool: ThreadPoolExecutor) -> bool:
        """Decide, under the ask lock, what a feasible trial is: a follower of this worker's running twin, a copy
        of a finished twin, a trial waiting for another worker's twin, or a new candidate (True), made here."""
        mine = next((f for f in inflight.values() if f.live is live and f.asked.key == asked.key), None)
        if mine is not None:
            mine.followers.append(asked)
            return False
        twin = self._twin(live, asked)
        if twin is not None and twin.status == TrialStatus.RUNNING:
            self.waiting.append(_Waiting(live, asked, twin.trial_id))
            return False
        if twin is not None:
            self._tell(live, asked, _copied(twin), duplicate_of=twin.attrs.get("duplicate_of", twin.number))
            return False
        live.trials.set_attrs(asked.trial_id, {"candidate": True})
        candidate = live.evaluator.candidate(asked.params)
        assert candidate is not None  # the point is feasible
        future = pool.submit(live.evaluator.measure, candidate, self.best_us(), self.scheduler.baseline_us(),
                             self.gate_us())
        inflight[asked.trial_id] = _InFlight(live, asked, future)
        live.state.measured += 1
        return True

    def _twin(self, live: _Live, asked: Asked) -> TrialFacts | None:
        """The trial of the same point whose result `asked` takes, read from the storage now: a finished one that a
        repeat would reproduce, else the earliest running one asked before it (by any worker) that is not
        abandoned; None when the point is new. Asked earlier, not just running: two workers never wait for each
        other."""
        finished = running = None
        for other in live.trials.all():
            if other.trial_id == asked.trial_id or other.key != asked.key:
                continue
            if other.reproducible:
                finished = finished or other
            elif other.status == TrialStatus.RUNNING and other.trial_id < asked.trial_id and \
                    not is_abandoned(other) and running is None:
                running = other
        return finished or running

    def _resolve_waiting(self, inflight: dict[int, _InFlight], pool: ThreadPoolExecutor) -> None:
        """Place again every waiting trial whose twin has ended (or was abandoned): it copies the twin's result,
        waits for another, or is measured here."""
        waiting, self.waiting = self.waiting, []
        for item in waiting:
            twin = item.live.trials.get(item.twin_id)
            if twin.status == TrialStatus.RUNNING and not is_abandoned(twin):
                self.waiting.append(item)
                continue
            with ask_lock(self.storage):
                self._place(item.live, item.asked, inflight, pool)

    def _enqueue_nearest(self, live: _Live, asked: Asked, inflight: dict[int, _InFlight]) -> None:
        """The sampler learns the infeasible point from its PRUNED trial; the nearest untried feasible point is
        queued in its place, so a sparse feasible region does not starve the search."""
        untried = live.state.untried(f.asked.key for f in inflight.values() if f.live is live)
        nearest = live.variant.nearest(asked.params, untried, self.context)
        if nearest is not None:
            live.trials.enqueue(nearest, {"replaces_infeasible": asked.number})
            live.state.queued.add(point_key(nearest))

    def _tell(self, live: _Live, asked: Asked, measurement: Measurement, duplicate_of: int | None = None) -> None:
        attrs: dict[str, Any] = {"variant": live.variant.name}
        if duplicate_of is not None:
            attrs["duplicate_of"] = duplicate_of
        else:
            attrs.update(measurement.attrs, measured=measurement.measured)
        if measurement.error_class == ErrorClass.PREDICTED_SLOW:
            predicted = self.predicted_device_us(measurement.attrs.get("sim_us"))
            if predicted is not None:
                attrs[PREDICTED_DEVICE_US] = predicted
        if measurement.error_class:
            attrs.update(error_class=measurement.error_class, error_detail=measurement.detail[:DETAIL_CHARS])
        live.trials.set_attrs(asked.trial_id, attrs)
        if duplicate_of is None:
            live.trials.upload_texts(asked, {f"kernel_{asked.number}.cpp": measurement.source,
                                             f"compile_{asked.number}.log": measurement.compile_log})
        self.leases.release(asked.trial_id)
        start = time.perf_counter()
        if measurement.ok:
            live.trials.tell(asked.number, TrialStatus.COMPLETE, measurement.value)
            self.counts["complete"] += 1
        else:
            live.trials.tell(asked.number, TrialStatus.PRUNED)
            self.counts[measurement.error_class or "pruned"] += 1
        self.sampler_s += time.perf_counter() - start
        live.state.told(live.trials.get(asked.trial_id))

    def _finish(self, flight: _InFlight) -> Measurement | None:
        """Tell a finished evaluation (and its followers); its measurement, None for the tuner's own error."""
        live = flight.live
        try:
            measurement = flight.future.result()
        except TunerError:
            raise
        except Exception as exc:  # the tuner's own error: FAIL, never PRUNED, so it is not mistaken for the kernel's
            if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:  # the disk's, which ends the run
                raise
            live.trials.set_attrs(flight.asked.trial_id, {
                "error_class": ErrorClass.TUNER_ERROR,
                "error_detail": f"{exc.__class__.__name__}: {exc}"[:DETAIL_CHARS]})
            live.state.measured -= 1
            self.counts[ErrorClass.TUNER_ERROR] += 1
            for asked in (flight.asked, *flight.followers):
                self.leases.release(asked.trial_id)
                live.trials.tell(asked.number, TrialStatus.FAIL)
            return None
        if not measurement.measured:
            live.state.measured -= 1
        if measurement.built:
            self.builds += 1
            self.build_hits += int(bool(measurement.build_cached))
        self._tell(live, flight.asked, measurement)
        for follower in flight.followers:
            self._tell(live, follower, measurement, duplicate_of=flight.asked.number)
        self._rewrite(live, flight.asked.params, measurement)
        return measurement

    def _interrupt(self) -> None:
        """Prune every trial this worker has RUNNING — in flight, or caught between its ask and its lease."""
        for live in self.live.values():
            others_alive = any(who != self.leases.me for who in live_workers(live.trials.attrs))
            for trial in live.trials.all(TrialStatus.RUNNING):
                mine = trial.attrs.get("owner") == self.leases.me
                if not (mine or ("owner" not in trial.attrs and not others_alive)):
                    continue
                live.trials.set_attrs(trial.trial_id, {"error_class": ErrorClass.INTERRUPTED,
                                                       "error_detail": "Ctrl-C while this trial ran"})
                self.leases.release(trial.trial_id)
                live.trials.tell(trial.number, TrialStatus.PRUNED)

    # ----- rewrites ----------------------------------------------------------------------------------
    def _rewrite(self, live: _Live, params: dict[str, Any], measurement: Measurement) -> None:
        """Ask for a repair when a candidate failed (an LLM only: rules do not repair), and for improvements
        when the run's best has stalled; every accepted rewrite joins the run as a variant."""
        rewriter = self.rewriter
        if rewriter is None or not self.mutators:
            return
        made: list[tuple[Variant, str, dict[str, Any]]] = []
        recorded = len(rewriter.records)
        failure = measurement.error_class
        if failure is not None and failure.repairable and rewriter.has_llm:
            if self._generates_for(live, rewriter):
                rewriter.asked_repair.add((live.variant.name, str(failure)))  # the written kernel is its repair
                made += [(v, "generate", params) for v in self._rewrite_kernel(live, params, measurement)]
            else:
                made += [(v, failure, params) for v in rewriter.repair(live.variant, params, measurement)]
        if measurement.measured and self.plateau.observe(self.best_us()):
            made += self._improve(rewriter)
        for record in rewriter.records[recorded:]:
            self._attach_record(record)
        for variant, trigger, parent_params in made:
            self._add_variant(variant, trigger, parent_params)

    def _generates_for(self, live: _Live, rewriter: Rewriter) -> bool:
        """Whether a failed candidate of `live` goes to the generate loop rather than to a repair: the kernel the
        tuner generated for a task, not one correct candidate yet, and no kernel written for it before."""
        return isinstance(self.op, GraphOperator) and self.op.lowered is not None and \
            self.config.generate_rounds > 0 and "lineage" not in live.variant.raw and live.state.best is None and \
            not any(r.trigger == "generate" and r.parent == live.variant.name for r in rewriter.records)

    def _rewrite_kernel(self, live: _Live, params: dict[str, Any], measurement: Measurement) -> list[Variant]:
        """The tuner's generated kernel fails: the LLM writes the task's kernel in the generate loop, told the
        failure, starting from the generated kernel and its space."""
        assert self.rewriter is not None and isinstance(self.op, GraphOperator)
        frame = {k: v for k, v in live.variant.raw.items() if k not in ("lineage", "template")}
        failure = f"the kernel the tuner generated ({live.variant.name}) fails: {measurement.error_class}"
        start = generation_context(self.op, self.space, self.context, self.rewriter.facts, frame,
                                   draft=live.variant.template.read_text(), failure=failure,
                                   trigger=str(measurement.error_class), rendered=measurement.source,
                                   diagnostics=self.rewriter.diagnostics(live.variant, params, measurement))
        variant = self.rewriter.generate(start, frame, live.variant, params, self.config.generate_rounds)
        if variant is None:
            return []
        if live.state.best is None:  # it has not passed anywhere: the written kernel takes its place in the search
            live.state.retired = self.skipped[live.variant.name] = \
                f"replaced by {variant.name}, which the LLM wrote when it failed ({measurement.error_class})"
        return [variant]

    def _attach_record(self, record: MutationRecord) -> None:
        """A proposal's prompt, response and template as artifacts of its parent's study (the dashboard's view)."""
        live = self.live.get(record.parent)
        if live is None:
            return
        for kind, relative in record.files.items():
            live.trials.upload_file(self.run_dir / relative, f"mutation_{record.number:03d}_{kind}.txt")

    def _improve(self, rewriter: Rewriter) -> list[tuple[Variant, str, dict[str, Any]]]:
        """The best variant's best trial, with its profile, asked for rewrites."""
        best = self.scheduler.best_state()
        if best is None or best.best_trial is None:
            return []
        live, trial = self.live[best.name], best.best_trial
        bound = roofline(self.op, self.config.shape, self.config.dtype, self.soc).bound_us
        profile = {"time_us": trial.value, **trial.attrs.get("pipe", {}),
                   "roofline_us": bound, "roofline_gap": trial.value / bound if bound else None}
        measured = self._msprof(live, trial.number, trial.params, "plateau")
        if measured and "pipe_ratios" in measured:
            profile.update(measured["pipe_ratios"], pipe_source=measured["source"])
        variants = rewriter.improve(live.variant, trial.params, profile, trial.value, bound)
        return [(v, "plateau", dict(trial.params)) for v in variants]

    def _add_variant(self, variant: Variant, trigger: str, parent_params: dict[str, Any]) -> None:
        """A rewrite joins the run: its own study, warm-started from the knobs it was validated on (the parent's,
        with any knob the rewrite added at its first value)."""
        assert self.rewriter is not None
        self.space = replace(self.space, variants={**self.space.variants, variant.name: variant})
        points = variant.feasible_points(self.context)
        if not points:
            return
        trials = self._open_study(variant)
        lineage = variant.raw["lineage"]
        trials.set_attr("lineage", {"parent": lineage["parent"], "origin": lineage["origin"], "trigger": trigger})
        self.leases.register(trials.study)
        live = self._join(variant, trials, self._evaluator(variant, self.rewriter.inputs), points)
        warm = warm_start(variant, parent_params, self.context)
        if variant.evaluate(warm, self.context).feasible:
            trials.enqueue(warm, {"warm_start_from": lineage["parent"]})
            live.state.queued.add(point_key(warm))
        self._refresh(live)

    # ----- after the search: the phases the backend declares ---------------------------------------------
    def _record(self, key: str, value: Any) -> None:
        """A run-level fact, kept on every study of the run (any of them may be the one read back)."""
        for live in self.live.values():
            live.trials.set_attr(key, value)

    def _time_torch(self, inputs: RunInputs) -> None:
        timing = phases.time_torch(self.backend, self.op, inputs)
        if timing is not None:
            self._record("torch", timing)

    def _retime(self) -> None:
        ranked = sorted(((t.value, name, t) for name, live in self.live.items()
                         for t in live.trials.all(TrialStatus.COMPLETE) if t.eligible(INPUT_SETS)),
                        key=lambda item: item[0])[:phases.RETIME_TOP]
        retimed = phases.retime({f"{name}:{t.number}": (self.live[name].evaluator, t.params) for _, name, t in ranked},
                                self.time_source)
        if retimed is not None:
            self._record("retime", retimed)

    def _msprof(self, live: _Live, number: int, params: dict[str, Any], why: str) -> dict[str, Any] | None:
        """With --profile msprof, trial `number` profiled on the device; kept as the run's `msprof_<why>`."""
        if self.config.profile != "msprof":
            return None
        key = f"{live.variant.name}:{number}"
        result = phases.msprof(live.evaluator, params, key, self.run_dir / "msprof" / f"{why}-{key.replace(':', '-')}")
        self._record(f"msprof_{why}", result)
        return result

    def _profile_winner(self) -> None:
        best = self._summary().best
        if best is not None:
            self._msprof(self.live[best.variant], best.number, best.params, "winner")

    def _export_best(self) -> None:
        """Write the run's best correct kernel to `runs/<run>/best/` (nothing when there is none yet)."""
        if self.best_us() is None or self._summary().best is None:
            return
        export_trial(self.storage, self.run_name, self.best_dir, project=self.config.project,
                     variants_dir=self.run_dir / "variants", backend=self.backend)
        if self.backend.traces:
            self._attach_trace()

    def _attach_trace(self) -> None:
        """The winner's timeline as an artifact of its study (`trace_<variant>_<trial>.json`), once per winner."""
        trace = self.best_dir / "trace.json"
        if not trace.exists():
            return
        described = json.loads((self.best_dir / "kernel.json").read_text())
        live = self.live.get(described["variant"])
        if live is None:
            return
        name = f"trace_{described['variant']}_{described['trial']}.json"
        if name not in live.trials.artifact_names():
            live.trials.upload_file(trace, name)

    def _summary(self, finished: bool = False) -> report.RunSummary:
        return report.summarize(self.storage, self.storage_url, self.run_name, runs_dir=self.config.runs_dir,
                                stop_reason=self.stop_reason, skipped=self.skipped, already_finished=finished)


def make_optimizer(config: RunConfig, on_progress: Callable[[Progress], None] | None = None, *,
                   backend: Backend | None = None) -> Optimizer:
    """The optimizer of `config` with the parts it names: its backend (unless one is given, e.g. a replay of a
    recorded run), mutators, storage and artifact store. A shape the operator cannot serve, or a run this machine
    has not the memory for, is refused before any part is made."""
    op = config.operator
    op.check_shape(config.shape)
    if isinstance(op, GraphOperator):
        op.write(config.project)
    check_memory(run_memory_bytes(op, config.shape, config.dtype, config.parallel),
                 f"{op.name} {shape_text(config.shape)} {config.dtype} ({INPUT_SETS} input sets with their "
                 f"references, {config.parallel} candidates at once)")
    if backend is None:
        backend = make_backend(config.backend, config.soc, config.workers)
    mutators = make_mutators(config.rewrites, config.llm_model, config.no_llm, config.llm_max_calls,
                             config.llm_timeout_s, config.project)
    storage, url = open_storage(config.storage, config.runs_dir)
    return Optimizer(config, backend=backend, storage=storage, storage_url=url,
                     artifacts=artifact_store(config.runs_dir), mutators=mutators, on_progress=on_progress)


def optimize(config: RunConfig, on_progress: Callable[[Progress], None] | None = None, *,
             backend: Backend | None = None) -> report.RunSummary:
    """Run (or resume, or top up) the tuning job `config` describes and return its summary; `backend`, when
    given, is used instead of the one `config` names (and closed at the end)."""
    return make_optimizer(config, on_progress, backend=backend).run()
