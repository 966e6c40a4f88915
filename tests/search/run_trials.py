"""What a run holds in its storage, read as the CLI tests check it."""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuner.search.storage import open_storage, run_studies


def trials_of(runs: Path, run: str) -> list[FrozenTrial]:
    storage, _ = open_storage(None, runs)
    found = run_studies(storage, run).get(run, [])
    return [t for i in found for t in optuna.load_study(study_name=i.name, storage=storage).trials]


def measured(trials) -> int:
    return sum(1 for t in trials if t.user_attrs.get("measured") and t.state in (TrialState.COMPLETE,
                                                                                 TrialState.PRUNED))


def finished(runs: Path, run: str) -> set[tuple[str, int, TrialState]]:
    storage, _ = open_storage(None, runs)
    found = run_studies(storage, run).get(run, [])
    done = {(i.variant, t.number, t.state) for i in found
            for t in optuna.load_study(study_name=i.name, storage=storage).trials if t.state.is_finished()}
    storage.engine.dispose()
    return done
