"""A run's summary read back from the storage: baseline, best, speedup, roofline, trials by state and class."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.search.config import run_operator
from tuner.search.evaluate import INPUT_SETS
from tuner.search.rewrites import read_records
from tuner.search.roofline import Roofline, roofline
from tuner.search.storage import DEFAULT_RUNS_DIR, StudyInfo, run_studies
from tuner.search.trials import facts

TOP_PER_VARIANT = 3


@dataclass
class TrialRow:
    """One trial as the summary shows it."""

    study: str
    variant: str
    number: int
    value: float | None
    params: dict[str, Any]
    attrs: dict[str, Any] = field(repr=False)


@dataclass
class RunSummary:
    """Everything `tuner optimize` and `tuner show` print about a run."""

    run: str
    storage: str
    studies: list[str]
    op: str
    shape: list[int]
    dtype: str
    soc: str
    backend: str
    trials: int
    time_source: str
    baseline: TrialRow | None
    baseline_why: str
    best: TrialRow | None
    roofline: Roofline
    states: Counter
    errors: Counter
    top: dict[str, list[TrialRow]]
    best_dir: str | None = None
    stop_reason: str = ""
    skipped: dict[str, str] = field(default_factory=dict)
    already_finished: bool = False
    mutations: list[dict[str, Any]] = field(default_factory=list)
    lineage: list[dict[str, Any]] = field(default_factory=list)
    device: dict[str, Any] = field(default_factory=dict)  # device runs: torch's own op, re-timing, msprof
    budget: int | None = None  # measured trials the run was last given

    @property
    def suspect(self) -> str | None:
        """Why the best time is too good to take on trust (faster than the roofline, or than a tenth of the
        baseline), if it is."""
        return self.best.attrs.get("suspect") if self.best else None

    @property
    def torch_us(self) -> float | None:
        return self.device.get("torch", {}).get("median_us")

    @property
    def speedup_vs_torch(self) -> float | None:
        return self.torch_us / self.best_us if self.torch_us and self.best_us else None

    @property
    def predicted_us(self) -> float | None:
        """The simulator's time for the best kernel, kept beside its measurement on a device."""
        return self.best.attrs.get("sim_us") if self.best and self.backend != "sim" else None

    @property
    def baseline_us(self) -> float | None:
        return self.baseline.value if self.baseline else None

    @property
    def best_us(self) -> float | None:
        return self.best.value if self.best else None

    @property
    def speedup(self) -> float | None:
        if self.baseline_us and self.best_us:
            return self.baseline_us / self.best_us
        return None

    @property
    def roofline_us(self) -> float:
        return self.roofline.bound_us

    @property
    def roofline_pct(self) -> float | None:
        return 100.0 * self.roofline_us / self.best_us if self.best_us else None

    def to_json(self) -> dict[str, Any]:
        """The `--json` contract of `tuner optimize`."""
        return {
            "run": self.run, "storage": self.storage, "studies": self.studies, "op": self.op, "shape": self.shape,
            "dtype": self.dtype, "soc": self.soc, "backend": self.backend, "trials": self.trials,
            "baseline_us": self.baseline_us, "best_us": self.best_us, "speedup": self.speedup,
            "roofline_us": self.roofline_us, "roofline_pct": self.roofline_pct,
            "best_study": self.best.study if self.best else None,
            "best_variant": self.best.variant if self.best else None,
            "best_params": self.best.params if self.best else None, "best_dir": self.best_dir,
            "time_source": self.time_source, "stop_reason": self.stop_reason,
            "mutations": [{k: m[k] for k in ("origin", "trigger", "verdict", "variant")} for m in self.mutations],
            "torch_us": self.torch_us, "speedup_vs_torch": self.speedup_vs_torch, "predicted_us": self.predicted_us,
            "device": self.device, "suspect": self.suspect,
        }


def _row(study: str, variant: str, trial: FrozenTrial) -> TrialRow:
    return TrialRow(study, variant, trial.number, trial.value, dict(trial.params), dict(trial.user_attrs))


def eligible(trial: FrozenTrial) -> bool:
    """A trial that may be named best: complete, measured itself (not a duplicate), checked on every input set."""
    return facts(trial).eligible(INPUT_SETS)


DEVICE_FACTS = ("torch", "retime", "msprof_plateau", "msprof_winner")


def retimed_winner(infos: list[StudyInfo]) -> str | None:
    """`VARIANT:N` of the trial the interleaved re-timing named winner (device runs), or None."""
    for info in infos:
        retime = info.attrs.get("retime")
        if retime and "winner" in retime:
            return str(retime["winner"])
    return None


def summarize(storage: optuna.storages.BaseStorage, storage_url: str, run: str, *,
              runs_dir: Path = DEFAULT_RUNS_DIR, stop_reason: str = "", skipped: dict[str, str] | None = None,
              already_finished: bool = False) -> RunSummary:
    """Read run `run` back from the storage; UsageError when it holds none of its studies."""
    runs = run_studies(storage)
    infos = runs.get(run, [])
    if not infos:
        raise UsageError(f"no run '{run}' in {storage_url} (runs: {', '.join(sorted(runs)) or 'none'})")
    first = infos[0].attrs
    op, shape, dtype, soc = first["op"], tuple(first["shape"]), first["dtype"], first["soc"]
    backend = first["backend"]
    states: Counter = Counter()
    errors: Counter = Counter()
    baseline: TrialRow | None = None
    baseline_why = ""
    best: TrialRow | None = None
    retimed_row: TrialRow | None = None
    top: dict[str, list[TrialRow]] = {}
    measured = 0
    time_source = ""
    retimed = retimed_winner(infos)
    for info in infos:
        study = optuna.load_study(study_name=info.name, storage=storage)
        trials = study.get_trials(deepcopy=False)
        ranked, eligible_here = [], []
        for trial in trials:
            states[trial.state.name] += 1
            attrs = trial.user_attrs
            if "error_class" in attrs:
                errors[attrs["error_class"]] += 1
            if attrs.get("measured") and trial.state in (TrialState.COMPLETE, TrialState.PRUNED):
                measured += 1
            time_source = attrs.get("time_source", time_source)
            if attrs.get("role") == "baseline" and trial.state == TrialState.COMPLETE and baseline is None:
                baseline = _row(info.name, info.variant, trial)
                baseline_why = str(attrs.get("why", ""))
            if trial.state == TrialState.COMPLETE and trial.value is not None and "duplicate_of" not in attrs:
                ranked.append(trial)
            if eligible(trial):
                eligible_here.append(trial)
        ranked.sort(key=lambda t: t.value)
        top[info.variant] = [_row(info.name, info.variant, t) for t in ranked[:TOP_PER_VARIANT]]
        if eligible_here:
            winner = min(eligible_here, key=lambda t: t.value)
            if best is None or winner.value < best.value:
                best = _row(info.name, info.variant, winner)
        named = [t for t in eligible_here if f"{info.variant}:{t.number}" == retimed]
        if named:
            retimed_row = _row(info.name, info.variant, named[0])
    if retimed and retimed_row is not None:
        best = retimed_row
    lineage = []
    for info in infos:
        parent = info.attrs.get("lineage")
        if parent:
            best_here = top.get(info.variant) or []
            lineage.append({"variant": info.variant, **parent,
                            "best_us": best_here[0].value if best_here else None})
    mutations = [r.summary() for r in read_records(runs_dir / run)]
    bounds = roofline(run_operator(first)[0], shape, dtype, get_soc(soc))
    best_dir = runs_dir / run / "best"
    return RunSummary(
        run=run, storage=storage_url, studies=[i.name for i in infos], op=op, shape=list(shape), dtype=dtype,
        soc=soc, backend=backend, trials=measured, time_source=time_source or f"simulated, {soc} model",
        baseline=baseline, baseline_why=baseline_why, best=best, roofline=bounds, states=states, errors=errors,
        top=top, best_dir=str(best_dir) if (best_dir / "kernel.json").exists() else None, stop_reason=stop_reason,
        skipped=skipped or {}, already_finished=already_finished, mutations=mutations, lineage=lineage,
        device={key: first[key] for key in DEVICE_FACTS if key in first},
        budget=max((info.attrs.get("budget", 0) for info in infos), default=0) or None,
    )
