"""Regression tests from a review of the simulator: each kernel here slipped past a check (or tripped a
false one) before its fix. Kernels live in tests/sim/kernels/review/."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut
from tuner.data.socs import get_soc
from tuner.sim.build import build_program
from tuner.sim.run import SimResult, simulate

from .test_faults import assert_only

REVIEW = Path(__file__).resolve().parent / "kernels" / "review"
WRAP = REVIEW / "wrap.cpp"
X = np.random.default_rng(11).standard_normal(256).astype(np.float32)


def run_wrap(bug: int) -> SimResult:
    return simulate(WRAP, "wrap_kernel", 1, [GmIn(X, "x"), GmOut(np.dtype(np.float32), (256,), "z")],
                    defines=[f"BUG={bug}"])


def test_wrap_clean():
    r = run_wrap(0)
    assert r.faults == []
    np.testing.assert_array_equal(r.outputs[0], X + 1)


@pytest.mark.parametrize("bug, api, words", [
    (1, "Adds", ["dst", "past the end of its buffer"]),
    (2, "LocalTensor::GetValue", ["element 4294967295"]),
    (3, "Adds", ["dst", "UB offset 4294967264", "past the end of its buffer"]),
    (4, "Adds", ["past the end of its buffer"]),
])
def test_wrapping_offsets_and_extents_are_out_of_bounds(bug, api, words):
    r = run_wrap(bug)
    assert_only(r, "out-of-bounds", api, WRAP, bug)
    for w in words:
        assert w in r.faults[0].text, r.faults[0].text


# ---- the watchdog times one launch, not the host program ---------------------------------------------------

def test_timeout_counts_each_launch_not_host_time_around_it(tmp_path):
    app = build_program([REVIEW / "host_after_launch.cpp"], tmp_path / "app", get_soc("Ascend910B1"))
    report = tmp_path / "report.json"
    p = subprocess.run([str(app)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, TUNER_SIM_REPORT=str(report)))
    assert p.returncode == 0, p.stderr
    assert "timeout" not in p.stderr
    assert json.loads(report.read_text())["faults"] == []
