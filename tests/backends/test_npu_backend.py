"""The whole NPU path on a stand-in machine (tests/backends/standin): CANN toolkit tree, bisheng/cmake/npu-smi
executables that build for the simulator, and a torch_npu with events, streams and a device name. The tuner
cannot tell it from an Ascend machine, so everything but the silicon runs: detection, both CANN recipes,
the launcher, the device worker and its watchdog, the simulator pre-check, timing, verification, re-timing,
torch_npu's own op, --workers pinning, and export."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pytest

import tuner.backends.npu.detect as detect_mod
from tuner.backends import choose_backend
from tuner.backends.args import GmBytes, GmIn, GmOut
from tuner.backends.npu.backend import PRECHECK, NpuBackend, TimingPolicy
from tuner.backends.npu.detect import detect
from tuner.errors import ErrorClass, UsageError
from tuner.search.report import eligible

from .standin import enter, import_module, machine
from .standin_msprof import install_msprof
from .test_npu_msprof import CURRENT

N = 64
PROBE = """#include "kernel_operator.h"
// mode 0: y = 2x (block 0); 1: spin for ever; 2: trap; 3: write past the end of y;
// 4: count launches in mode[1] (a workspace), y = 2x + the count
extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR y, GM_ADDR mode)
{
    const uint8_t m = *(__gm__ uint8_t *)mode;
    __gm__ float *xp = (__gm__ float *)x;
    __gm__ float *yp = (__gm__ float *)y;
    if (AscendC::GetBlockIdx() != 0) return;
    if (m == 1) { volatile int spin = 1; while (spin) {} }
    if (m == 2) { __builtin_trap(); }
    if (m == 3) { yp[64] = 1.0f; }
    const float count = m == 4 ? ++((__gm__ uint8_t *)mode)[1] : 0;
    for (int i = 0; i < 64; ++i) yp[i] = 2.0f * xp[i] + count;
}
"""


def _tools(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _optimize(env: dict[str, str], runs: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tuner.cli", "optimize", "add", "--shape", "8x64", "--budget", "3",
                           "--runs-dir", str(runs), "--json", "--no-rewrites", *extra],
                          env=env, capture_output=True, text=True, timeout=600)


def _studies(runs: Path) -> list[optuna.Study]:
    url = f"sqlite:///{runs / 'tuner.db'}"
    return [optuna.load_study(study_name=s.study_name, storage=url) for s in optuna.get_all_study_summaries(url)]


@pytest.mark.e2e
@pytest.mark.parametrize(("cann", "soc", "build"), [("9.0.0", "Ascend910B2", "bisheng"),
                                                    ("8.0.RC2", "Ascend310P3", "cmake")])
def test_optimize_runs_the_whole_npu_path(tmp_path, cann, soc, build) -> None:
    m = machine(tmp_path, cann=cann, soc=soc)
    proc = _optimize(m.env, tmp_path / "runs")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["backend"], out["soc"], out["time_source"]) == ("npu", soc, f"measured on {soc}")
    assert out["best_us"] > 0 and out["best_dir"]
    assert out["torch_us"] > 0 and out["predicted_us"] > 0
    assert out["speedup_vs_torch"] == pytest.approx(out["torch_us"] / out["best_us"])
    assert f"backend: npu (1 × {soc} with CANN {cann}); times are measured on {soc}" in proc.stderr

    calls = _tools(m.log)
    builds = [c for c in calls if c[0] == build and "--version" not in c]
    assert builds, calls
    if build == "bisheng":
        assert all("-shared" in c and "--npu-arch=dav-2201" in c and c[c.index("-o") + 1].endswith(".so")
                   for c in builds)
    else:
        configure = [c for c in builds if c[1] == "-S"]
        assert configure and all(f"-DSOC_VERSION={soc}" in c and "-DRUN_MODE=npu" in c for c in configure)
        assert any(c[1] == "--build" for c in builds)

    studies = _studies(tmp_path / "runs")
    attrs = studies[0].user_attrs
    assert attrs["torch"]["matches_cpu_reference"] and attrs["torch"]["median_us"] > 0
    measured = [t for s in studies for t in s.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert measured
    for trial in measured:
        timing = trial.user_attrs["timing"]
        assert timing["p20_us"] <= timing["median_us"] <= timing["p80_us"] and timing["launches"] >= 1
        assert trial.value == pytest.approx(timing["median_us"], rel=1e-3)
        assert trial.user_attrs["sim_us"] > 0 and trial.user_attrs["sim_source"] == f"simulated, {soc} model"
        assert trial.user_attrs["speedup_vs_torch"] == pytest.approx(
            trial.user_attrs["torch_us"] / trial.value, rel=1e-2, abs=1e-4)
    checked = [t for t in measured if eligible(t)]  # only kernels checked on every input set may win
    if len(checked) >= 2:
        retime = attrs["retime"]
        assert len(retime["times_us"]) == min(5, len(checked))
        assert all(len(times) == 3 for times in retime["times_us"].values())
        best = json.loads((Path(out["best_dir"]) / "kernel.json").read_text())
        assert f"{best['variant']}:{best['trial']}" == retime["winner"]


@pytest.mark.e2e
def test_workers_pin_one_device_each(tmp_path) -> None:
    m = machine(tmp_path, count=2)
    proc = _optimize(m.env, tmp_path / "runs", "--workers", "2", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    pinned = {line.split("visible=")[1] for line in (tmp_path / "npu.log").read_text().splitlines()}
    assert pinned == {"0", "1"}


def test_more_workers_than_npus_are_refused(tmp_path) -> None:
    m = machine(tmp_path, count=2)
    proc = _optimize(m.env, tmp_path / "runs", "--workers", "3")
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode == 2 and last.startswith("error: --workers 3: this machine has 2")


def test_backend_choice(tmp_path, monkeypatch) -> None:
    m = enter(tmp_path, monkeypatch)
    monkeypatch.setattr(detect_mod, "detect", lambda: detect(import_module=import_module))
    assert choose_backend("auto", None).backend == "npu"
    assert choose_backend("auto", None).soc == "Ascend910B2"
    assert choose_backend("sim", "Ascend310P3").soc == "Ascend310P3"
    with pytest.raises(UsageError, match="--soc Ascend310P3 differs from this machine's NPU \\(Ascend910B2\\)"):
        choose_backend("npu", "Ascend310P3")
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "optimize", "add", "--soc", "Ascend310P3"], env=m.env,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "differs from this machine's NPU" in proc.stderr and "Traceback" not in proc.stderr


@pytest.fixture
def backend(tmp_path, monkeypatch):
    enter(tmp_path, monkeypatch)
    found = detect(import_module=import_module)
    assert found.npu_ready, found.to_json()
    made = NpuBackend("Ascend910B2", detection=found, timing=TimingPolicy(min_launches=5, min_total_ms=1.0,
                                                                          flush=False), timeout_s=5.0)
    source = tmp_path / "probe.cpp"
    source.write_text(PROBE)
    yield made, made.build(source, "probe"), tmp_path / "npu.log"
    made.close()


def _args(mode: int, x: np.ndarray) -> list:
    return [GmIn(x, "x"), GmOut(np.dtype(np.float32), (N,), "y"), GmBytes(bytes([mode]), "mode")]


def test_run_and_profile_a_clean_kernel(backend) -> None:
    npu, artifact, _ = backend
    x = np.arange(N, dtype=np.float32)
    run = npu.run(artifact, _args(0, x), 2)
    assert run.ok and np.array_equal(run.outputs[0], 2 * x)
    profile = npu.profile(artifact, _args(0, x), 2)
    assert profile.run.ok and np.array_equal(profile.after_timing.outputs[0], 2 * x)
    assert profile.source == "measured on Ascend910B2"
    assert profile.time_us == pytest.approx(profile.extra["timing"]["median_us"], abs=1e-3)
    assert 1 <= profile.extra["timing"]["launches"] <= 5 and profile.extra["sim_us"] > 0


def test_every_timed_launch_starts_from_the_raw_buffers_it_was_given(backend) -> None:
    """A buffer the kernel writes (a workspace: mode 4 counts its launches in it) is given again before each timed
    launch, so the last one computes what the first did."""
    npu, artifact, _ = backend
    x = np.arange(N, dtype=np.float32)
    profile = npu.profile(artifact, [GmIn(x, "x"), GmOut(np.dtype(np.float32), (N,), "y"),
                                     GmBytes(bytes([4, 0]), "workspace")], 1)
    assert profile.run.ok and profile.extra["timing"]["launches"] >= 1  # after the warm launch
    assert np.array_equal(profile.run.outputs[0], 2 * x + 1)
    assert np.array_equal(profile.after_timing.outputs[0], 2 * x + 1)


def test_a_kernel_predicted_slower_than_the_gate_stays_off_the_device(backend) -> None:
    npu, artifact, npu_log = backend
    x = np.arange(N, dtype=np.float32)
    gated = npu.profile(artifact, _args(0, x), 2, gate_us=1e-3)
    assert gated.run.fault_classes == [ErrorClass.PREDICTED_SLOW] and gated.run.faults[0].startswith("not launched")
    assert math.isnan(gated.time_us) and gated.extra["sim_us"] > 1e-3
    assert gated.source == "simulated, Ascend910B2 model" and "timing" not in gated.extra
    assert not npu_log.exists()  # no device worker was ever started
    launched = npu.profile(artifact, _args(0, x), 2, gate_us=2 * gated.extra["sim_us"])
    assert launched.run.ok and launched.source == "measured on Ascend910B2" and launched.extra["timing"]["launches"]


def test_simulator_precheck_keeps_a_faulty_kernel_off_the_device(backend) -> None:
    npu, artifact, npu_log = backend
    profile = npu.profile(artifact, _args(3, np.zeros(N, np.float32)), 1)
    assert not profile.run.ok and profile.run.faults[0].startswith(PRECHECK)
    assert "out-of-bounds" in profile.run.faults[0] or "outside" in profile.run.faults[0]
    assert not npu_log.exists()  # no device worker was ever started


def test_watchdog_kills_a_hung_launch_and_the_next_one_runs(backend) -> None:
    npu, artifact, npu_log = backend
    x = np.ones(N, np.float32)
    start = time.monotonic()
    hung = npu.run(artifact, _args(1, x), 1)
    assert time.monotonic() - start < 60
    assert hung.fault_classes == ["timeout"] and "did not answer 'launch' within 5 s and was killed" in hung.faults[0]
    assert npu.run(artifact, _args(0, x), 1).ok  # a fresh worker
    assert len(npu_log.read_text().splitlines()) == 2


def test_a_kernel_that_kills_its_worker_is_a_fault(backend) -> None:
    npu, artifact, _ = backend
    crashed = npu.run(artifact, _args(2, np.ones(N, np.float32)), 1)
    assert crashed.fault_classes == ["fault"] and "device worker" in crashed.faults[0] and "died" in crashed.faults[0]
    assert npu.run(artifact, _args(0, np.ones(N, np.float32)), 1).ok


@pytest.mark.e2e
def test_profile_msprof_at_a_plateau_and_for_the_winner(tmp_path) -> None:
    m = machine(tmp_path)
    install_msprof(m.bin, CURRENT)
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "optimize", "softmax", "--shape", "64x256",
                           "--budget", "6", "--plateau", "2", "--plateau-eps", "0.5", "--profile", "msprof",
                           "--runs-dir", str(tmp_path / "runs"), "--json"],
                          env=m.env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    device = json.loads(proc.stdout)["device"]
    for why in ("plateau", "winner"):
        assert device[f"msprof_{why}"]["pipe_ratios"]["mte2"] == pytest.approx(0.9), device
    calls = [c for c in _tools(m.log) if Path(c[0]).name == "msprof"]  # its argv[0] is its path
    assert calls and all(c[1] == "op" and c[2] == "--kernel-name=softmax_custom" for c in calls)


@pytest.mark.e2e
def test_the_gate_keeps_candidates_predicted_slow_off_the_device(tmp_path) -> None:
    """--gate 0: a candidate the simulator predicts slower than its prediction of the run's best is not launched,
    and the budget counts launches only."""
    m = machine(tmp_path)
    proc = _optimize(m.env, tmp_path / "runs", "--shape", "64x1024", "--budget", "8", "--gate", "0", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    trials = [t for s in _studies(tmp_path / "runs") for t in s.trials if "duplicate_of" not in t.user_attrs]
    launched = [t for t in trials if t.user_attrs.get("measured")]
    gated = [t for t in trials if t.user_attrs.get("error_class") == "predicted_slow"]
    assert len(launched) == 8 and all("timing" in t.user_attrs for t in launched if t.value is not None)
    assert gated and all(t.state == optuna.trial.TrialState.PRUNED and "timing" not in t.user_attrs for t in gated)
    fastest_predicted = min(t.user_attrs["sim_us"] for t in launched)
    assert all(t.user_attrs["sim_us"] > fastest_predicted for t in gated)
    assert all(t.user_attrs["error_detail"].startswith("not launched: predicted") for t in gated)
    # what the sampler learns instead of a time: the prediction carried to the device by the launched candidates
    ratios = sorted(t.value / t.user_attrs["sim_us"] for t in launched if t.value is not None)
    assert all(ratios[0] <= t.user_attrs["predicted_device_us"] / t.user_attrs["sim_us"] <= ratios[-1] for t in gated)
