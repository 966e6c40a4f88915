"""Generated inputs for every SoC, the build cache, the docs table, and the `tuner simulate` command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from commands import tuner_child
from commands import tuner_here as tuner

from tuner.backends.args import GmBytes, GmIn, GmOut, Scalar
from tuner.data.socs import load_socs
from tuner.sim import codegen
from tuner.sim.args import parse_arg
from tuner.sim.build import INCLUDE_DIR, build_kernel, compiler, soc_dir
from tuner.sim.run import simulate

ROOT = Path(__file__).resolve().parents[2]
ADD = ROOT / "tests" / "sim" / "kernels" / "add_custom.cpp"


def test_docs_support_table_is_generated_from_the_data() -> None:
    assert (ROOT / "docs" / "api_support.md").read_text() == codegen.support_table_markdown()


@pytest.mark.parametrize("soc", sorted(load_socs()))
def test_every_soc_builds_its_configuration_and_headers(soc: str, tmp_path: Path) -> None:
    spec = load_socs()[soc]
    out = soc_dir(spec)
    assert (out / "soc_config.o").exists()
    probe = tmp_path / "probe.cpp"
    probe.write_text('#include "kernel_operator.h"\nstatic_assert(sizeof(half) == 2);\n')
    proc = subprocess.run([compiler(), "-std=c++17", "-fsyntax-only", "-I", str(INCLUDE_DIR), "-I", str(out),
                           str(probe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header = (out / "tuner_sim_support.h").read_text()
    assert f'#define TUNER_SIM_SOC_NAME "{spec.name}"' in header


def test_build_cache_reuses_an_unchanged_kernel() -> None:
    spec = load_socs()["Ascend910B1"]
    first = build_kernel(ADD, "add_custom", spec)
    again = build_kernel(ADD, "add_custom", spec)
    assert again.cached and again.path == first.path
    other = build_kernel(ADD, "add_custom", spec, ("UNUSED_DEFINE=1",))
    assert other.path != first.path


def test_low_confidence_soc_is_flagged_in_the_report() -> None:
    n = 8 * 512
    args = [GmIn(np.ones(n, np.float16)), GmIn(np.ones(n, np.float16)), GmOut(np.dtype(np.float16), (n,)),
            Scalar("u32", n), Scalar("u32", 1)]
    flagged = simulate(ADD, "add_custom", 8, args, soc="Ascend310P3")
    assert any(w.startswith("low-confidence model") for w in flagged.warnings)
    clean = simulate(ADD, "add_custom", 8, args, soc="Ascend910B1")
    assert not any(w.startswith("low-confidence model") for w in clean.warnings)
    assert flagged.task_duration_us != clean.task_duration_us


@pytest.mark.parametrize("spec, message", [
    ("in", "expected KIND=VALUE"),
    ("u32=abc", "not a integer"),
    ("out=z.npy:float16", "expected out=FILE.npy:DTYPE"),
    ("out=z.npy:float17:8", "unknown dtype"),
    ("ptr=3", "unknown kind"),
    ("zeros=0", "'0' is not a positive number of bytes"),
    ("zeros=-32", "'-32' is not a positive number of bytes"),
    ("zeros=1k", "'1k' is not a positive number of bytes"),
    (f"zeros={1 << 62}", "needs about"),  # more memory than the machine has
])
def test_bad_arg_specs_are_one_line_usage_errors(spec: str, message: str) -> None:
    from tuner.errors import UsageError

    with pytest.raises(UsageError, match=message):
        parse_arg(spec)


def test_zeros_is_a_gm_buffer_of_that_many_zeroed_bytes() -> None:
    assert parse_arg("zeros=96") == GmBytes(bytes(96), "zeros")
    assert parse_arg("zeros=0x40") == GmBytes(bytes(64), "zeros")


def test_cli_simulate_writes_outputs_json_and_trace(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(4096).astype(np.float16)
    y = rng.standard_normal(4096).astype(np.float16)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    proc = tuner_child("simulate", str(ADD), "--kernel", "add_custom", "--block-dim", "4", "--arg", "in=x.npy",
                "--arg", "in=y.npy", "--arg", "out=z.npy:float16:4096", "--arg", "u32=4096", "--arg", "u32=2",
                "--json", "-", "--trace", "trace.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["soc"] == "Ascend910B1" and report["block_dim"] == 4 and report["faults"] == []
    assert report["time_source"] == "simulated, Ascend910B1 model"
    assert len(report["blocks"]) == 4 and report["gm_to_ub_bytes"] == 2 * x.nbytes
    block = report["blocks"][0]
    for key in ("aiv_time_us", "aiv_vec_ratio", "aiv_scalar_ratio", "aiv_mte2_ratio", "aiv_mte3_ratio",
                "ub_peak_bytes"):
        assert key in block
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), x + y)
    trace = json.loads((tmp_path / "trace.json").read_text())
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {"DataCopy", "Add"} <= names
    pipes = {e["tid"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert pipes == {0, 1, 2, 3}


def test_cli_exit_codes(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(4096, np.float16))
    usage = tuner("simulate", str(ADD), "--kernel", "add_custom", "--block-dim", "4", "--arg", "in=x.npy",
                  cwd=tmp_path)
    assert usage.exit_code == 2 and "takes 5 parameters" in usage.stderr
    unknown_soc = tuner("simulate", str(ADD), "--kernel", "add_custom", "--block-dim", "4", "--soc", "Ascend999",
                        cwd=tmp_path)
    assert unknown_soc.exit_code == 2 and "unknown SoC" in unknown_soc.stderr
    missing = tuner("simulate", "nope.cpp", "--kernel", "k", "--block-dim", "1", cwd=tmp_path)
    assert missing.exit_code == 2 and "no such source file" in missing.stderr
    assert "Traceback" not in usage.stderr + unknown_soc.stderr + missing.stderr  # and `tuner` raised nothing


def test_editing_a_local_header_rebuilds(tmp_path: Path) -> None:
    spec = load_socs()["Ascend910B1"]
    (tmp_path / "consts.h").write_text("constexpr int K = 1;\n")
    (tmp_path / "k.cpp").write_text('#include "kernel_operator.h"\n#include "consts.h"\n'
                                    'extern "C" __global__ __aicore__ void k(GM_ADDR x) { (void)K; }\n')
    first = build_kernel(tmp_path / "k.cpp", "k", spec)
    (tmp_path / "consts.h").write_text("constexpr int K = 2;\n")
    second = build_kernel(tmp_path / "k.cpp", "k", spec)
    assert not second.cached and second.path != first.path
