"""What a run does besides the search, each phase run where the backend declares it can (`Backend.times_torch`,
`retimes`, `profiles_with_msprof`, `traces`): torch's own operator timed before the search, the best few re-timed
against each other before a winner is named, msprof profiles, the winner's timeline. Each returns the fact the
run keeps on its studies; a phase that fails is recorded, never fatal."""

from __future__ import annotations

from collections.abc import Mapping
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
    over RETIME_ROUNDS rounds (timing.py): one batch each, in rotating order, so drift cannot favour one. None with
    fewer than two; a failure is recorded, and the best by first timing stays the best."""
    from tuner.backends.npu.timing import interleaved_retime, winner

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

