"""Kernel Tuner's simulation mode for tuner's own search: every feasible point of a run's space measured once into a
cache file in Kernel Tuner's format (`SpaceCache`, `exhaust`), and the run's real loop — its scheduler, samplers,
dedupe and budget — replayed with its measurements taken from that cache (`replay`), so search strategies can be
compared on the same data, ours and Kernel Tuner's alike.

The cache is Kernel Tuner's JSON cache file (gzipped where its name ends in .gz): `tune_params_keys` are `variant`
then every knob of every variant (a knob a variant lacks takes the value `-`), each entry the point's knobs, `time`
in µs or Kernel Tuner's error string (`CompilationFailedConfig`, `RuntimeFailedConfig` for a fault or a wrong
result), and the compile and benchmark times in ms; `tuner` holds what made it (operator, shape, dtype, SoC, the
time source, the simulator) and each entry its `error_class`.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import optuna
from optuna.trial import TrialState

from tuner.backends import make_backend, time_source
from tuner.backends.base import gated
from tuner.data.socs import get_soc
from tuner.errors import ErrorClass, UsageError
from tuner.search.compile_cache import CompileCache
from tuner.search.config import RunConfig
from tuner.search.evaluate import Candidate, Evaluator, Measurement, RunInputs
from tuner.search.loop import Optimizer
from tuner.search.storage import artifact_store
from tuner.search.trials import PREDICTED_DEVICE_US, trial_id
from tuner.space.spaces import SearchSpace, Variant, load_space, run_context

__all__ = ["MISSING_KNOB", "CachedEvaluator", "ModelError", "SpaceCache", "Trajectory", "exhaust", "replay"]

MISSING_KNOB = "-"
COMPILE_FAILED = "CompilationFailedConfig"
RUNTIME_FAILED = "RuntimeFailedConfig"
SAVE_EVERY_S = 30.0


def _space(config: RunConfig) -> tuple[SearchSpace, dict[str, Any]]:
    return load_space(config.operator.name, config.project), run_context(config.operator, config.shape,
                                                                          config.dtype, get_soc(config.soc))


class SpaceCache:
    """The exhaustive measurements of one run's space (every feasible point of every variant), in Kernel Tuner's
    cache format; `path` is read when it exists."""

    def __init__(self, path: Path, config: RunConfig) -> None:
        self.path, self.config = path, config
        self.space, self.context = _space(config)
        self.variants = {name: [k.name for k in v.knobs] for name, v in self.space.variants.items()}
        self.keys = ["variant", *dict.fromkeys(k for knobs in self.variants.values() for k in knobs)]
        self.entries: dict[str, dict[str, Any]] = {}
        self.header: dict[str, Any] = {}
        if path.exists():
            data = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_text())
            if data["tune_params_keys"] != self.keys:
                raise UsageError(f"{path} caches knobs {data['tune_params_keys']}, the space has {self.keys}")
            self.header = {k: v for k, v in data.items() if k != "cache"}
            self.entries = data["cache"]

    def points(self) -> Iterable[tuple[Variant, dict[str, Any]]]:
        """Every feasible point of the space, variant by variant."""
        for variant in self.space.variants.values():
            for params in variant.feasible_points(self.context):
                yield variant, params

    def key(self, variant: str, params: Mapping[str, Any]) -> str:
        values = {"variant": variant, **params}
        return ",".join(str(values.get(k, MISSING_KNOB)) for k in self.keys)

    @functools.cached_property
    def tune_params(self) -> dict[str, list[Any]]:
        """Each knob's values over the space (`-` where a variant lacks it), in the space's order (enumerated once:
        an exhaust saves every 30 s)."""
        values: dict[str, dict[Any, None]] = {k: {} for k in self.keys}
        for variant, params in self.points():
            full = {"variant": variant.name, **params}
            for k in self.keys:
                values[k][full.get(k, MISSING_KNOB)] = None
        return {k: list(v) for k, v in values.items()}

    def add(self, variant: str, params: Mapping[str, Any], measurement: Measurement) -> None:
        error = measurement.error_class
        time_value: float | str = measurement.value if measurement.ok else \
            COMPILE_FAILED if error in (ErrorClass.COMPILE_ERROR, ErrorClass.RENDER_ERROR) else RUNTIME_FAILED
        seconds = measurement.seconds or {}
        self.entries[self.key(variant, params)] = {
            "variant": variant, **{k: params.get(k, MISSING_KNOB) for k in self.keys[1:]}, "time": time_value,
            "error_class": str(error) if error else None,
            "compile_time": 1e3 * (measurement.compile_s or 0.0),
            "verification_time": 0.0, "benchmark_time": 1e3 * sum(seconds.values()),
            "strategy_time": 0, "framework_time": 0, "timestamp": time.strftime("%Y-%m-%d %H:%M:%S+00:00",
                                                                                time.gmtime()),
        }

    def measurement(self, variant: str, params: Mapping[str, Any]) -> Measurement:
        entry = self.entries.get(self.key(variant, params))
        if entry is None:
            raise UsageError(f"{self.path} holds no measurement of {variant} {dict(params)}: run exhaust first")
        if isinstance(entry["time"], str):
            return Measurement(error_class=ErrorClass(entry["error_class"]), detail="cached", measured=True)
        return Measurement(value=float(entry["time"]), measured=True, time_source=self.header["tuner"]["time_source"])

    @property
    def complete(self) -> bool:
        return all(self.key(v.name, p) in self.entries for v, p in self.points())

    def optimum(self) -> float:
        times = [e["time"] for e in self.entries.values() if not isinstance(e["time"], str)]
        if not times:
            raise UsageError(f"{self.path} holds no correct point")
        return min(times)

    def save(self, time_source: str, simulator: str) -> None:
        config = self.config
        header = {
            "device_name": f"{config.backend}-{config.soc}", "kernel_name": self.space.kernel,
            "problem_size": list(config.shape), "tune_params_keys": self.keys, "tune_params": self.tune_params,
            "objective": "time", "objective_higher_is_better": False,
            "tuner": {"op": config.operator.name, "shape": list(config.shape), "dtype": config.dtype,
                      "soc": config.soc, "backend": config.backend, "time_source": time_source,
                      "simulator": simulator, "variants": self.variants},
        }
        self.header = header
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = (json.dumps({**header, "cache": self.entries}, indent=0) + "\n").encode()
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_bytes(gzip.compress(text, mtime=0) if self.path.suffix == ".gz" else text)
        partial.replace(self.path)


def exhaust(config: RunConfig, path: Path, on_point: Callable[[int, int], None] | None = None) -> SpaceCache:
    """Measure every feasible point of `config`'s space that `path` does not hold yet, each on every input set as
    the loop measures a new best; saved as it goes, so an interrupted exhaust resumes."""
    cache = SpaceCache(path, config)
    backend = make_backend(config.backend, config.soc)
    builds = CompileCache(backend)
    inputs = RunInputs(config.operator, config.shape, config.dtype)
    evaluators = {name: Evaluator(cache.space, variant, backend, builds, inputs, cache.context)
                  for name, variant in cache.space.variants.items()}
    todo = [(v, p) for v, p in cache.points() if cache.key(v.name, p) not in cache.entries]
    saved = time.monotonic()
    try:
        for done, (variant, params) in enumerate(todo, 1):
            evaluator = evaluators[variant.name]
            candidate = evaluator.candidate(params)
            assert candidate is not None  # a feasible point
            cache.add(variant.name, params, evaluator.measure(candidate))
            if on_point is not None:
                on_point(done, len(todo))
            if time.monotonic() - saved > SAVE_EVERY_S:
                cache.save(time_source(backend.name, config.soc), backend.version)
                saved = time.monotonic()
    finally:
        cache.save(time_source(backend.name, config.soc), backend.version)
        backend.close()
    return cache


@dataclass(frozen=True)
class ModelError:
    """A device replayed as a noisy, biased copy of the simulator: a point's device time is its simulated time times
    `bias`, times a factor per build (variant and structural knobs: the model errs per code path) and one per point,
    each lognormal with sigma `spread` / √2 and fixed by `seed`, so `spread` is the sigma of log(device / model)."""

    spread: float
    bias: float = 1.0
    seed: int = 0

    SOURCE: ClassVar[str] = "replayed device: the simulator's times with a model error"

    def _normal(self, key: str) -> float:
        return float(np.random.default_rng(zlib.crc32(f"{self.seed}:{key}".encode())).standard_normal())

    def device_us(self, variant: Variant, params: Mapping[str, Any], predicted_us: float) -> float:
        build = f"{variant.name}:{sorted(variant.structural(params).items())}"
        point = f"{variant.name}:{sorted(params.items())}"
        sigma = self.spread / math.sqrt(2)
        return predicted_us * self.bias * math.exp(sigma * (self._normal(build) + self._normal(point)))


class CachedEvaluator:
    """The loop's evaluator of one variant answered from a `SpaceCache`: nothing is rendered, built or run. With a
    `device`, the cache's times are the simulator's predictions and the device's times are `device`'s copy of them:
    a candidate predicted slower than the gate is not launched, as on an NPU."""

    def __init__(self, cache: SpaceCache, variant: Variant, device: ModelError | None = None) -> None:
        self.cache, self.variant, self.device = cache, variant, device

    def render(self, params: Mapping[str, Any]) -> str:
        return ""

    def candidate(self, params: Mapping[str, Any]) -> Candidate | None:
        point = self.variant.evaluate(params, self.cache.context)
        return Candidate(self.variant.name, dict(params), point, None) if point.feasible else None

    def measure(self, candidate: Candidate, best_us: float | None = None, baseline_us: float | None = None,
                gate_us: float | None = None) -> Measurement:
        cached = replace(self.cache.measurement(self.variant.name, candidate.params), candidate=candidate)
        if self.device is None or not cached.ok:
            return cached
        assert cached.value is not None
        prediction = {"sim_us": cached.value, "sim_source": cached.time_source}
        if (why := gated(cached.value, str(cached.time_source), gate_us)) is not None:
            return Measurement(candidate, error_class=ErrorClass.PREDICTED_SLOW, time_source=cached.time_source,
                               detail=why, backend_attrs=prediction)
        return replace(cached, value=self.device.device_us(self.variant, candidate.params, cached.value),
                       time_source=ModelError.SOURCE, backend_attrs=prediction)


@dataclass(frozen=True)
class Trajectory:
    """A replayed search: the time of each measured candidate in the order they were measured (None where it
    failed), and what stopped it."""

    times: tuple[float | None, ...]
    stop_reason: str
    not_launched: int = 0  # candidates a replayed device's gate kept from launching
    unpredicted: int = 0  # of those, the ones the sampler saw as PRUNED, without a prediction

    def best_after(self, trials: int) -> float:
        """The best time among the first `trials` candidates (inf when none was correct)."""
        return min((t for t in self.times[:trials] if t is not None), default=math.inf)

    def trials_to_within(self, target_us: float) -> int | None:
        """How many candidates it took to reach `target_us` or better; None when it never did."""
        return next((i for i, t in enumerate(self.times, 1) if t is not None and t <= target_us), None)


def replay(config: RunConfig, cache: SpaceCache, device: ModelError | None = None) -> Trajectory:
    """Run `config`'s search (its sampler, seed, budget, scheduler, gate; no rewrites, one candidate at a time) on
    the cache's measurements, in a throwaway storage; with a `device`, on a replayed device whose simulator is the
    cache (the times are the device's, the budget counts launches)."""
    with tempfile.TemporaryDirectory(prefix="tuner-replay-") as scratch:
        config = replace(config, runs_dir=Path(scratch), storage=None, rewrites=False, jobs=1, workers=1,
                         run="replay")
        storage, url = optuna.storages.InMemoryStorage(), "memory"
        backend = make_backend(config.backend, config.soc)
        optimizer = Optimizer(config, backend=backend, storage=storage, storage_url=url,
                              artifacts=artifact_store(config.runs_dir), mutators=[],
                              evaluators=lambda variant: CachedEvaluator(cache, variant, device))
        optimizer.run()
        trials = [t for live in optimizer.live.values() for t in live.trials.study.get_trials(deepcopy=False)]
        measured = sorted((trial_id(t), t) for t in trials
                          if t.user_attrs.get("measured") and "duplicate_of" not in t.user_attrs)
        kept_off = [t for t in trials if t.user_attrs.get("error_class") == ErrorClass.PREDICTED_SLOW]
        return Trajectory(tuple(t.value if t.state == TrialState.COMPLETE else None for _, t in measured),
                          optimizer.stop_reason, len(kept_off),
                          sum(PREDICTED_DEVICE_US not in t.user_attrs for t in kept_off))
