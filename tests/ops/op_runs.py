"""What the operator tests read back from a finished run."""

from __future__ import annotations

import optuna
import torch

from tuner.ops.base import Expected, Operator
from tuner.search.evaluate import INPUT_SETS
from tuner.search.loop import RunConfig, optimize
from tuner.search.report import RunSummary
from tuner.search.storage import open_storage, run_studies

# (shape, dtype, budget) cases every row-wise operator serves: aligned rows with budget for both variants, a
# last axis that is not a multiple of 32 bytes, a single row, and fewer rows than vector cores
ROW_CASES = [
    ((16, 256), "float16", 6),
    ((3, 37), "float32", 4),
    ((1, 1000), "bfloat16", 4),
    ((5, 300), "float16", 4),
]


def verified_run(config: RunConfig) -> RunSummary:
    """Run `config` and check what every operator's run must give: a baseline that ran correctly, and a best
    kernel checked on all input sets."""
    summary = optimize(config)
    assert summary.best is not None
    assert summary.best.attrs["verified_sets"] == INPUT_SETS == 3
    assert summary.baseline is not None and summary.baseline.attrs["role"] == "baseline"
    return summary


def measured_variants(config: RunConfig, *, correct_only: bool = False) -> set[str]:
    """Variants of the run with at least one measured trial (with `correct_only`, one that was correct)."""
    storage, _ = open_storage(config.storage, config.runs_dir)
    found = set()
    for info in run_studies(storage, config.run_name)[config.run_name]:
        for trial in optuna.load_study(study_name=info.name, storage=storage).trials:
            if trial.user_attrs.get("measured") and not (correct_only and trial.user_attrs.get("error_class")):
                found.add(info.variant)
                break
    return found


def check_tells_right_from_wrong(op: Operator, inputs: dict[str, torch.Tensor], name: str, ref: torch.Tensor, *,
                                 scale: float = 1.1, shift: float = 1.0) -> dict[str, Expected]:
    """The float16 expectation of output `name`; the reference itself passes the operator's check, and with one
    element changed (ref[3, 5] * scale + shift) fails it, naming the output."""
    expected = {name: Expected.of(ref, "float16")}
    assert op.check({name: ref.to(torch.float16)}, inputs, expected).ok
    wrong = ref.clone()
    wrong[3, 5] = wrong[3, 5] * scale + shift
    verdict = op.check({name: wrong.to(torch.float16)}, inputs, expected)
    assert not verdict.ok and name in verdict.detail
    return expected
