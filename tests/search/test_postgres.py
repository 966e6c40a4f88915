"""Two workers sharing one run on a real PostgreSQL server (`.ci/run` starts one and sets TUNER_TEST_POSTGRES_URL)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.search.storage import open_storage, run_studies

URL = os.environ.get("TUNER_TEST_POSTGRES_URL")
BUDGET = 16
WORKERS = 2

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    not URL, reason="TUNER_TEST_POSTGRES_URL is not set (bash .ci/run starts a PostgreSQL server and sets it)")]


def _tuner() -> list[str]:
    script = Path(sys.executable).with_name("tuner")
    if script.exists():
        return [str(script)]
    found = shutil.which("tuner")
    assert found, "the tuner command is not installed (pip install -e .)"
    return [found]


def test_two_workers_share_one_runs_budget(tmp_path):
    run = f"pg-{uuid.uuid4().hex[:12]}"
    args = [*_tuner(), "optimize", "softmax", "--shape", "16x200", "--budget", str(BUDGET), "--jobs", "1",
            "--storage", URL, "--runs-dir", str(tmp_path / "runs"), "--run", run]

    prep = subprocess.run([*args, "--prepare"], capture_output=True, text=True, timeout=120)
    assert prep.returncode == 0, prep.stderr

    workers = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(WORKERS)]
    outputs = []
    try:
        for worker in workers:
            outputs.append(worker.communicate(timeout=300))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    for worker, (_, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, f"worker {worker.pid} exited {worker.returncode}:\n{err[-3000:]}"

    storage, _ = open_storage(URL, tmp_path / "runs")
    infos = run_studies(storage, run)[run]
    trials = [t for info in infos for t in optuna.load_study(study_name=info.name, storage=storage).trials]
    measured = [t for t in trials
                if t.user_attrs.get("measured") and t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    assert BUDGET <= len(measured) <= BUDGET + WORKERS - 1, [(t.number, t.state.name) for t in trials]
    assert not [t.number for t in trials if t.state == TrialState.RUNNING]
    owners = [t.user_attrs["owner"] for t in trials if "owner" in t.user_attrs]
    assert all(set(o) == {"host", "pid", "start"} for o in owners), owners
    assert {o["pid"] for o in owners} == {w.pid for w in workers}

    shown = subprocess.run([*_tuner(), "show", run, "--storage", URL, "--runs-dir", str(tmp_path / "runs"), "--json"],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)
    assert summary["run"] == run
    assert summary["trials"] == len(measured)
    assert summary["best_us"] is not None and summary["best_params"]

    for info in infos:  # leave the shared database as it was
        optuna.delete_study(study_name=info.name, storage=storage)
