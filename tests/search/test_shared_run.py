"""Two worker processes on one SQLite run: every point is measured once, and the budget is kept."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.search.storage import open_storage, run_studies

pytestmark = pytest.mark.e2e  # three tuner processes, two of them searching at once on the simulator

BUDGET = 10
COMMAND = [sys.executable, "-m", "tuner.cli", "optimize", "softmax", "--shape", "16x200", "--budget", str(BUDGET),
           "--run", "shared", "--no-rewrites", "--json"]


def test_two_workers_on_one_sqlite_run_never_measure_a_point_twice(tmp_path: Path):
    prepared = subprocess.run([*COMMAND, "--prepare"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert prepared.returncode == 0, prepared.stderr
    # the same seed: both samplers propose the same points first, so the workers race for each of them
    workers = [subprocess.Popen(COMMAND, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=os.environ.copy()) for _ in range(2)]
    for worker in workers:
        _, err = worker.communicate(timeout=900)
        assert worker.returncode == 0, err
        assert "Traceback" not in err
    storage, _ = open_storage(None, tmp_path / "runs")
    measured, duplicates = Counter(), 0
    for info in run_studies(storage, "shared")["shared"]:
        for trial in optuna.load_study(study_name=info.name, storage=storage).trials:
            assert trial.state != TrialState.RUNNING
            if trial.user_attrs.get("measured"):
                measured[(info.variant, tuple(sorted(trial.params.items())))] += 1
            duplicates += "duplicate_of" in trial.user_attrs
    twice = {point: n for point, n in measured.items() if n > 1}
    assert not twice, f"measured more than once: {twice} ({duplicates} duplicates were recognised)"
    assert sum(measured.values()) == BUDGET
