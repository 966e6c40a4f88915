"""The tuner as a process, as a user's shell treats it: kill -9 and the same command again, Ctrl-C in every phase
(even where the shell started it with SIGINT ignored), a disk that fills during the search. Each runs `tuner` as a
child on the simulator; the commands' other behaviour is tested in this process (test_cli.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from commands import tuner_child as tuner
from optuna.trial import TrialState

from .disks import fill, tmpfs
from .run_trials import finished, measured, trials_of

pytestmark = pytest.mark.e2e  # whole tuner processes searching on the simulator, killed and run again
SMALL = ["--shape", "16x200", "--seed", "3"]


def _start(cwd: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tuner.cli", "optimize", "softmax", *SMALL, *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for_trials(cwd: Path, run: str, count: int, proc: subprocess.Popen) -> None:
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        try:
            if measured(trials_of(cwd / "runs", run)) >= count and \
                    any(t.state == TrialState.RUNNING for t in trials_of(cwd / "runs", run)):
                return
        except Exception:  # the run's studies may not exist yet
            pass
        time.sleep(0.2)
    raise AssertionError("the run did not get going")


def test_kill_9_then_the_same_command_resumes_to_the_full_budget(tmp_path):
    args = ("--budget", "8", "--run", "killed")
    proc = _start(tmp_path, *args)
    _wait_for_trials(tmp_path, "killed", 2, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = trials_of(tmp_path / "runs", "killed")
    orphans = [t for t in before if t.state == TrialState.RUNNING]
    assert orphans, "a trial should have been running when the worker was killed"
    done = tuner("optimize", "softmax", *SMALL, *args, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = trials_of(tmp_path / "runs", "killed")
    assert not [t for t in after if t.state == TrialState.RUNNING]
    assert measured(after) == 8 == json.loads(done.stdout)["trials"]
    finished_before = {(t.number, t.state) for t in before if t.state in (TrialState.COMPLETE, TrialState.PRUNED)}
    assert finished_before <= {(t.number, t.state) for t in after}  # nothing lost
    abandoned = [t for t in after if t.user_attrs.get("error_class") == "abandoned"]
    assert {t.number for t in abandoned} >= {t.number for t in orphans if t.params}
    assert all(t.state == TrialState.FAIL for t in abandoned)
    retried = {t.user_attrs.get("retry_of") for t in after} - {None}
    assert retried >= {t.number for t in orphans if t.params}


def test_ctrl_c_prunes_running_trials_prints_the_summary_and_exits_130(tmp_path):
    proc = _start(tmp_path, "--budget", "60", "--run", "interrupted", "--json")
    _wait_for_trials(tmp_path, "interrupted", 2, proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert json.loads(out)["run"] == "interrupted"
    trials = trials_of(tmp_path / "runs", "interrupted")
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    assert [t for t in trials if t.user_attrs.get("error_class") == "interrupted" and t.state == TrialState.PRUNED]


def test_a_disk_that_fills_during_the_search_ends_it_in_one_line_and_the_run_resumes(tmp_path):
    args = ("--budget", "8", "--run", "full")
    with tmpfs(tmp_path / "runs", "8m") as runs:
        proc = _start(tmp_path, *args)
        _wait_for_trials(tmp_path, "full", 2, proc)
        filler = fill(runs)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 1, err
        assert "Traceback" not in err
        last = err.strip().splitlines()[-1]
        assert last.startswith("error: ") and ("database or disk is full" in last or "No space left" in last), err
        filler.unlink()
        before = finished(runs, "full")
        assert before
        done = tuner("optimize", "softmax", *SMALL, *args, "--json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["trials"] == 8 and before <= finished(runs, "full")


def test_ctrl_c_is_130_in_every_phase_even_where_the_shell_started_the_tuner_with_sigint_ignored(tmp_path):
    args = ("--budget", "4", "--run", "ignored", "--json")
    ignored = [sys.executable, "-c", "import signal, sys, runpy; signal.signal(signal.SIGINT, signal.SIG_IGN); "
               "sys.argv = ['tuner', *sys.argv[1:]]; runpy.run_module('tuner.cli', run_name='__main__')",
               "optimize", "softmax", *SMALL, *args]
    proc = subprocess.Popen(ignored, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stderr.readline().startswith("backend: sim")  # the inputs, references and studies come next
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err.strip().splitlines()[-1]
    done = tuner("optimize", "softmax", *SMALL, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["trials"] == 4


SPIN = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void spin(GM_ADDR x) {
    volatile uint32_t n = 0;
    while (true) { n = n + 1; }
}
"""


def test_simulate_takes_ctrl_c_as_130_and_writes_nothing(tmp_path):
    (tmp_path / "spin.cpp").write_text(SPIN)
    proc = subprocess.Popen([sys.executable, "-m", "tuner.cli", "simulate", "spin.cpp", "--kernel", "spin",
                             "--block-dim", "1", "--arg", "out=z.npy:float16:64", "--json", "r.json"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(3)  # building, or spinning until --timeout
    assert proc.poll() is None
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err
    assert not (tmp_path / "z.npy").exists() and not (tmp_path / "r.json").exists()
