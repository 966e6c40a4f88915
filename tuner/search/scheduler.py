"""The run's choices, with no Optuna in them: which variant to ask next, which trials a point's result may be copied
from, how many candidates the budget has left, and when the search has stopped paying (patience, plateau).

Each variant gets `MIN_TRIALS_PER_VARIANT` measured candidates first, then the next ask goes to the variant with
the highest UCB score on its best-so-far relative to the run's best. The trials are seen as `TrialFacts`, the
plain records the trials adapter (`trials.py`) makes of Optuna's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tuner.errors import ErrorClass

__all__ = ["GATED_PATIENCE", "MIN_TRIALS_PER_VARIANT", "PATIENCE_ASKS", "UCB_C", "Plateau", "Scheduler",
           "TrialFacts", "TrialStatus", "VariantState", "point_key"]

PATIENCE_ASKS = 50
GATED_PATIENCE = 200  # candidates in a row kept off the device by the gate that stop the run
MIN_TRIALS_PER_VARIANT = 5
UCB_C = 0.5


class TrialStatus(StrEnum):
    RUNNING = "running"
    WAITING = "waiting"
    COMPLETE = "complete"
    PRUNED = "pruned"
    FAIL = "fail"


def point_key(params: Mapping[str, Any]) -> tuple:
    """A point's identity, for dedupe: its knobs, in name order."""
    return tuple(sorted(params.items()))


@dataclass(frozen=True)
class TrialFacts:
    """What the run knows of one trial: its ids, state, point, time and user attributes."""

    trial_id: int
    number: int
    status: TrialStatus
    params: Mapping[str, Any]
    value: float | None
    attrs: Mapping[str, Any]
    started: float | None = None  # seconds since the epoch

    @property
    def key(self) -> tuple:
        return point_key(self.params)

    @property
    def error_class(self) -> ErrorClass | None:
        return ErrorClass.of(self.attrs.get("error_class"))

    @property
    def in_flight(self) -> bool:
        """Running as a candidate in some worker."""
        return self.status == TrialStatus.RUNNING and bool(self.attrs.get("candidate"))

    @property
    def reproducible(self) -> bool:
        """Finished with a result a repeat of the same point would reproduce."""
        cls = self.error_class
        return self.status == TrialStatus.COMPLETE or (
            self.status == TrialStatus.PRUNED and cls is not None and cls.deterministic)

    @property
    def counts(self) -> bool:
        """Takes one of the budget's candidates: measured to the end, or in flight in some worker."""
        finished = self.status in (TrialStatus.COMPLETE, TrialStatus.PRUNED)
        return (bool(self.attrs.get("measured")) and finished) or self.in_flight

    @property
    def gated(self) -> bool:
        """A candidate the gate kept off the device (a repeat of one copies its verdict and is not counted)."""
        return self.error_class == ErrorClass.PREDICTED_SLOW and "duplicate_of" not in self.attrs

    @property
    def correct(self) -> bool:
        return self.status == TrialStatus.COMPLETE and self.value is not None

    def eligible(self, input_sets: int) -> bool:
        """May be named best: correct, measured itself (not a duplicate), checked on every one of `input_sets`."""
        return self.correct and "duplicate_of" not in self.attrs and \
            int(self.attrs.get("verified_sets", 0)) >= input_sets


@dataclass
class VariantState:
    """One variant's standing in the run: its feasible points, what has been tried (for dedupe), queued,
    measured (for the budget) and its best time."""

    name: str
    feasible: list[dict[str, Any]]
    feasible_keys: list[tuple] = field(default_factory=list)
    seen: dict[tuple, TrialFacts] = field(default_factory=dict)
    queued: set[tuple] = field(default_factory=set)
    measured: int = 0
    gated: int = 0  # candidates judged by their prediction and kept off the device
    best: float | None = None
    best_trial: TrialFacts | None = None  # the best trial measured itself (not a copy of its twin's result)
    retired: str = ""  # why the variant is asked no more (a kernel the LLM wrote replaced it)

    def __post_init__(self) -> None:
        if not self.feasible_keys:
            self.feasible_keys = [point_key(p) for p in self.feasible]

    def refresh(self, trials: Iterable[TrialFacts]) -> None:
        """Re-count from every trial of the variant's study, as any worker left it."""
        self.seen.clear()
        self.measured = self.gated = 0
        self.best = self.best_trial = None
        for trial in trials:
            if trial.reproducible or trial.in_flight:
                self.seen.setdefault(trial.key, trial)
            self.measured += trial.counts
            self.gated += trial.gated
            self._rank(trial)

    def told(self, trial: TrialFacts) -> None:
        """A trial this worker has just told."""
        self.gated += trial.gated
        self._rank(trial)
        if trial.reproducible:
            self.seen[trial.key] = trial

    def _rank(self, trial: TrialFacts) -> None:
        if not trial.correct:
            return
        if self.best is None or trial.value < self.best:
            self.best = trial.value
        if "duplicate_of" not in trial.attrs and (self.best_trial is None or trial.value < self.best_trial.value):
            self.best_trial = trial

    @property
    def judged(self) -> int:
        """Candidates the variant has had: measured, or judged by their prediction and kept off the device."""
        return self.measured + self.gated

    @property
    def exhausted(self) -> bool:
        return bool(self.retired) or len(self.seen) >= len(self.feasible)

    def untried(self, taken: Iterable[tuple] = ()) -> list[dict[str, Any]]:
        """The feasible points not yet tried, queued, or in `taken`."""
        skip = set(self.seen) | self.queued | set(taken)
        return [p for p, k in zip(self.feasible, self.feasible_keys, strict=True) if k not in skip]


class Plateau:
    """Fires when the last `window` measured trials improved the run's best by less than `eps` (relative)."""

    def __init__(self, window: int, eps: float) -> None:
        self.window, self.eps = window, eps
        self.history: list[float] = []

    def observe(self, best_us: float | None) -> bool:
        if best_us is None or self.window <= 0:
            return False
        self.history.append(best_us)
        if len(self.history) <= self.window:
            return False
        before = self.history[-self.window - 1]
        if before - best_us < self.eps * before:
            self.history.clear()
            return True
        return False


class Scheduler:
    """The variants of one run and the rules that pick the next one to ask, count the budget and stop the run."""

    def __init__(self, budget: int, patience: int = PATIENCE_ASKS) -> None:
        self.budget, self.patience = budget, patience
        self.states: dict[str, VariantState] = {}
        self.idle_asks = 0  # consecutive asks without a new measured candidate
        self.gated_in_a_row = 0  # consecutive new candidates the gate kept off the device
        self.stop_reason = ""

    def add(self, state: VariantState) -> None:
        self.states[state.name] = state

    def used(self) -> int:
        return sum(s.measured for s in self.states.values())

    @property
    def spent(self) -> bool:
        return self.used() >= self.budget

    def best_us(self) -> float | None:
        values = [s.best for s in self.states.values() if s.best is not None]
        return min(values) if values else None

    def best_state(self) -> VariantState | None:
        return min((s for s in self.states.values() if s.best is not None), key=lambda s: s.best, default=None)

    def baseline_us(self) -> float | None:
        """The time of the run's measured baseline, against which a candidate far faster is suspect."""
        for state in self.states.values():
            for trial in state.seen.values():
                if trial.attrs.get("role") == "baseline" and trial.status == TrialStatus.COMPLETE:
                    return trial.value
        return None

    def feasible_found(self) -> int:
        return sum(1 for s in self.states.values() for t in s.seen.values() if t.status == TrialStatus.COMPLETE)

    def choose(self) -> VariantState | None:
        """The variant to ask next: each gets a few trials, then UCB on best-so-far relative to the run's best;
        None when every feasible point of every variant has been tried."""
        active = [s for s in self.states.values() if not s.exhausted]
        if not active:
            return None
        fresh = [s for s in active if s.judged < min(MIN_TRIALS_PER_VARIANT, len(s.feasible))]
        if fresh:
            return min(fresh, key=lambda s: s.judged)
        best = self.best_us()
        total = max(1, sum(s.judged for s in active))

        def score(s: VariantState) -> float:
            reward = best / s.best if (best and s.best) else 0.0
            return reward + UCB_C * math.sqrt(math.log(total) / max(1, s.judged))

        return max(active, key=score)

    def productive(self, launched: bool = True) -> None:
        """A new candidate was measured, or (not `launched`) judged by its prediction and kept off the device: the
        simulator's answer is news too, but GATED_PATIENCE of those in a row stop the run."""
        self.idle_asks = 0
        self.gated_in_a_row = 0 if launched else self.gated_in_a_row + 1
        if self.gated_in_a_row >= GATED_PATIENCE and not self.stop_reason:
            self.stop_reason = f"{GATED_PATIENCE} consecutive candidates were predicted slower than the gate"

    def unproductive(self) -> None:
        """An ask or a candidate that gave no new measurement; `patience` of them in a row stop the run."""
        self.idle_asks += 1
        if self.idle_asks >= self.patience and not self.stop_reason:
            self.stop_reason = f"{self.patience} consecutive asks gave no new candidate to measure"
