"""What the operator tests read back from a finished run."""

from __future__ import annotations

import optuna

from tuner.search.loop import RunConfig
from tuner.search.storage import open_storage, run_studies


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
