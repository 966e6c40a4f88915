"""What a run does besides the search, each phase run where the backend declares it can (`Backend.times_torch`,
`retimes`, `profiles_with_msprof`, `traces`): torch's own operator timed before the search, the best few re-timed
against each other before a winner is named, msprof profiles, the winner's timeline. Each returns the fact the
run keeps on its studies; a phase that fails is recorded, never fatal."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tuner.backends.base import Backend
from tuner.errors import TunerError
from tuner.ops.base import Operator, to_torch
from tuner.search.evaluate import Evaluator, RunInputs

__all__ = ["RETIME_ROUNDS", "RETIME_TOP", "msprof", "retime", "time_torch"]

RETIME_TOP, RETIME_ROUNDS = 5, 3  # on a device: the best few re-timed, interleaved, before a winner is named


def time_torch(backend: Backend, op: Operator, inputs: RunInputs) -> dict[str, Any] | None:
    """torch's own operator on the device, timed like the candidates and checked on every input set against the
    float64 CPU reference (the cross-check of device and host); on success `inputs.torch` holds the timing, so
    every measured trial then carries `torch_us` and `speedup_vs_torch`. None when the backend gave no timing."""
    try:
        timing = backend.time_torch(op, inputs.arrays)
    except TunerError as exc:
        return {"error": str(exc)}
    if timing is None:
        return None
    inputs.torch = timing
    mismatches = []
    for index, outputs in enumerate(timing.outputs):
        check = op.check({name: to_torch(array) for name, array in outputs.items()}, inputs.inputs[index],
                         inputs.expected[index])
        if not check.ok:
            mismatches.append(f"input set {index}: {check.detail}")
    return {"median_us": round(timing.median_us, 3), "p20_us": round(timing.p20_us, 3),
            "p80_us": round(timing.p80_us, 3), "launches": timing.launches, "source": timing.source,
            "matches_cpu_reference": not mismatches, "detail": "; ".join(mismatches)}


def retime(ranked: Mapping[str, tuple[Evaluator, Mapping[str, Any]]], time_source: str) -> dict[str, Any] | None:
    """Re-time the best few (`VARIANT:N` -> its evaluator and knobs, best first) against each other, interleaved
    over RETIME_ROUNDS rounds (`interleaved_retime`): one batch each, in rotating order, so drift cannot favour
    one. None with fewer than two; a failure is recorded, and the best by first timing stays the best."""
    if len(ranked) < 2:
        return None

    def time_one(key: str) -> float:
        evaluator, params = ranked[key]
        return evaluator.retime(params)

    try:
        times = interleaved_retime(list(ranked), time_one, rounds=RETIME_ROUNDS)
    except TunerError as exc:
        return {"error": str(exc)}
    return {"rounds": RETIME_ROUNDS, "winner": winner(times), "source": time_source,
            "times_us": {k: [round(v, 3) for v in vs] for k, vs in times.items()}}


def msprof(evaluator: Evaluator, params: Mapping[str, Any], key: str, output: Path) -> dict[str, Any]:
    """Trial `key` (`VARIANT:N`) profiled by msprof op on the device, its files under `output`."""
    try:
        report = evaluator.msprof(params, output)
    except TunerError as exc:
        return {"trial": key, "error": str(exc)}
    return {"trial": key, "pipe_ratios": report["pipe_ratios"], "source": report["source"], "csv": report["csv"],
            "task_duration_us": report.get("task_duration_us")}


def interleaved_order(candidates: Sequence[str], round_index: int) -> list[str]:
    """The order of round `round_index`: the candidates rotated left by round_index (round 0 as given)."""
    if not candidates:
        return []
    k = round_index % len(candidates)
    return list(candidates[k:]) + list(candidates[:k])


def interleaved_retime(candidates: list[str], time_one: Callable[[str], float], rounds: int = 3
                       ) -> dict[str, list[float]]:
    """Re-time the top candidates against each other: in round r, each is timed once, in the order rotated by r.

    Timing A fully, then B, lets the device's drift (temperature, clocks, a neighbour's load) fall on one
    candidate; interleaving spreads it over all of them, and rotating the order keeps any candidate from
    always going first or right after the same neighbour. `time_one(name)` returns one measurement in
    microseconds (typically the median of a batch of launches). Returns name -> its `rounds` times, in
    round order, with the keys in the candidates' given order.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if len(set(candidates)) != len(candidates):
        raise ValueError("candidates must be distinct")
    times: dict[str, list[float]] = {c: [] for c in candidates}
    for r in range(rounds):
        for name in interleaved_order(candidates, r):
            times[name].append(float(time_one(name)))
    return times


def winner(times: Mapping[str, Sequence[float]]) -> str:
    """The candidate with the lowest median time; a tie goes to the one listed first (the earlier rank)."""
    if not times:
        raise ValueError("no candidates")
    best, best_median = "", math.inf
    for name, samples in times.items():
        if not samples:
            raise ValueError(f"no times for {name}")
        median = statistics.median(samples)
        if median < best_median:
            best, best_median = name, median
    return best
