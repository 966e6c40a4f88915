"""`tuner doctor --selftest`: exit 2 in one line without an NPU; a full report on the stand-in Ascend machine."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from backends.standin import machine
from backends.standin_msprof import install_msprof
from backends.test_npu_msprof import CURRENT
from commands import tuner_child

SOC = "Ascend910B2"


def test_without_npu_exits_2_in_one_line(tmp_path):
    env = {**os.environ, "PATH": os.path.dirname(sys.executable), "ASCEND_HOME_PATH": str(tmp_path / "no-cann")}
    env.pop("ASCEND_TOOLKIT_HOME", None)
    proc = tuner_child("doctor", "--selftest", cwd=tmp_path, env=env, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: npu backend not available: CANN toolkit: ")
    assert not (tmp_path / "tuner-selftest.md").exists()


@pytest.mark.e2e  # two whole runs, each candidate built by the stand-in CANN and run on the simulator
def test_selftest_on_the_standin_machine(tmp_path):
    m = machine(tmp_path / "machine", soc=SOC)
    install_msprof(m.bin, CURRENT)
    report = tmp_path / "r.md"
    proc = tuner_child("doctor", "--selftest", "--report", str(report), "--runs-dir", str(tmp_path / "runs"),
                       cwd=tmp_path, env=m.env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert str(report) in proc.stdout

    result = json.loads(report.with_suffix(".json").read_text())
    assert result["ok"] and result["npu_ready"]
    assert result["environment"]["soc"] == SOC and result["environment"]["cann"] == "9.0.0"
    assert [(c["op"], c["shape"]) for c in result["cases"]] == [("add", [8, 4096]), ("softmax", [64, 1024])]
    for case in result["cases"]:
        assert case["correct"] and case["error"] is None, case
        for key in ("best_us", "p20_us", "p80_us", "sim_us", "measured_over_predicted", "torch_us",
                    "speedup_vs_torch"):
            assert case[key] > 0, (key, case)
        assert case["launches"] > 0
        assert case["torch_matches_cpu_reference"] is True
        assert set(case["msprof"]["pipe_ratios"]) == {"vec", "scalar", "mte2", "mte3"}

    text = report.read_text()
    assert f"measured on {SOC}" in text and f"simulated, {SOC} model" in text
    assert "## add 8x4096 float16" in text and "## softmax 64x1024 float16" in text

    calls = [json.loads(line) for line in m.log.read_text().splitlines()]
    assert any(Path(c[0]).name == "bisheng" and "--npu-arch=dav-2201" in c for c in calls)
    assert any(Path(c[0]).name == "msprof" and c[1] == "op" and any(a.startswith("--kernel-name=") for a in c)
               for c in calls)
