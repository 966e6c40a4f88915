"""A `workspace` argument end to end: a search space declares a GM scratch buffer (`kind: workspace, bytes: EXPR`),
the launcher passes it zeroed for every launch and never checks it as an output, and an export lists it and runs
again with it. The kernel (tests/search/data/workspace/) is a full reduction across blocks on the simulator: each
block writes its partial sum into the workspace, SyncAll, block 0 adds the partials into the one-element output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tuner.backends import SimBackend
from tuner.backends.args import GmBytes, GmIn, GmOut, pack_tiling
from tuner.data.socs import get_soc
from tuner.errors import TunerError
from tuner.ops import get_operator
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import Evaluator, RunInputs, kernel_args
from tuner.search.loop import RunConfig, optimize
from tuner.space.spaces import load_space, parse_space, run_context

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data" / "workspace"
SOC = "Ascend910B2"
N = 4096
OP = get_operator("reduce_sum")
CONTEXT = run_context(OP, (N,), "float32", get_soc(SOC))


def evaluator(size: str = "block_dim * 64") -> Evaluator:
    """The reduction's variant on the simulator, its workspace `size` bytes (the space's own: 64 per block)."""
    path = DATA / "search_spaces" / "reduce_sum.yaml"
    space = parse_space(path.read_text().replace('"block_dim * 64"', f'"{size}"'), path,
                        DATA / "templates" / "ascendc")
    backend = SimBackend(SOC)
    return Evaluator(space, space.variant("blocks"), backend, CompileCache(backend), RunInputs(OP, (N,), "float32"),
                     CONTEXT)


def test_the_launcher_passes_fresh_zeros_where_the_space_declares_the_workspace():
    space = load_space("reduce_sum", DATA)
    point = space.variant("blocks").evaluate({"block_dim": 8}, CONTEXT)
    x = np.ones(N, np.float32)

    def launch() -> list:
        return kernel_args(space, {"x": x}, {"y": (1,)}, "float32", pack_tiling(point.tiling),
                           workspace_bytes=space.workspace_bytes(point))

    first, second = launch(), launch()
    assert [(type(a), a.name) for a in first] == [(GmIn, "x"), (GmOut, "y"), (GmBytes, "workspace"),
                                                  (GmBytes, "tiling")]
    assert first[2].data == second[2].data == bytes(8 * 64) and first[2] is not second[2]
    assert first[3].data == pack_tiling((("block_len", N // 8),))
    with pytest.raises(TunerError, match="takes workspace 'workspace', but the launch was given 0 bytes"):
        kernel_args(space, {"x": x}, {"y": (1,)}, "float32", pack_tiling(point.tiling))


@pytest.mark.parametrize("blocks", [4, 8])
def test_a_sum_across_blocks_through_the_workspace_matches_torch(blocks):
    """Every input set and the timed launch start from a fresh workspace; the one output checked is y."""
    made = evaluator()
    measured = made.evaluate({"block_dim": blocks})
    assert measured.ok and measured.verified_sets == 3, measured.detail
    candidate = made.candidate({"block_dim": blocks})
    build = made.cache.build(candidate.source, made.space.kernel)
    point = candidate.point
    for arrays, inputs in zip(made.inputs.arrays, made.inputs.inputs, strict=True):
        args = kernel_args(made.space, arrays, {"y": (1,)}, "float32", pack_tiling(point.tiling),
                           workspace_bytes=made.space.workspace_bytes(point))
        run = made.backend.run(build.artifact, args, blocks)
        assert run.ok and len(run.outputs) == 1 and run.outputs[0].shape == (1,)
        want = torch.sum(inputs["x"].to(torch.float64)).item()
        assert run.outputs[0][0] == pytest.approx(want, rel=1e-5, abs=1e-5 * inputs["x"].abs().sum().item())


def test_a_workspace_smaller_than_the_kernel_uses_is_a_fault_that_names_it():
    measured = evaluator("block_dim * 32").evaluate({"block_dim": 8})  # the partials fit, SyncAll's half does not
    assert measured.error_class == "fault"
    assert "[out-of-bounds]" in measured.detail and "GM buffer 'workspace' (256 bytes)" in measured.detail
    assert "SyncAll" in measured.detail


def _tuner_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), TUNER=f"{sys.executable} -m tuner.cli")


def test_a_run_exports_its_workspace_and_the_export_runs_again(tmp_path):
    """The whole loop on the simulator, then its best/ run again by run_sim.sh (`tuner simulate --arg zeros=N`) and
    by the CANN launcher's CPU-debug branch built with `tuner sim-build`, on a vector the run never saw."""
    config = RunConfig(op="reduce_sum", shape=(N,), dtype="float32", soc=SOC, budget=2, sampler="brute", jobs=1,
                       runs_dir=tmp_path / "runs", project=DATA, rewrites=False)
    summary = optimize(config)
    assert summary.best is not None and summary.best_dir is not None
    best = Path(summary.best_dir)
    described = json.loads((best / "kernel.json").read_text())
    blocks = described["block_dim"]
    assert [(a["name"], a["kind"]) for a in described["arguments"]] == [
        ("x", "in"), ("y", "out"), ("workspace", "workspace"), ("tiling", "bytes")]
    assert described["arguments"][2]["bytes"] == blocks * 64
    assert f'--arg "zeros={blocks * 64}"' in (best / "run_sim.sh").read_text()

    x = np.random.default_rng(5).standard_normal(N).astype(np.float32)
    want = torch.sum(torch.from_numpy(x).to(torch.float64)).item()
    np.save(tmp_path / "x.npy", x)
    proc = subprocess.run([str(best / "run_sim.sh"), "--json", "report.json"], cwd=tmp_path, env=_tuner_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "report.json").read_text())["faults"] == []
    y = np.load(tmp_path / "y.npy")
    assert y.shape == (1,) and y[0] == pytest.approx(want, rel=1e-5, abs=1e-5 * float(np.abs(x).sum()))

    app = tmp_path / "tuned_kernel_sim"
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "sim-build", str(best / "launcher.cpp"), "-o", str(app),
                           "--soc", SOC], env=_tuner_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "data" / "input").mkdir(parents=True)
    x.tofile(tmp_path / "data" / "input" / "x.bin")
    proc = subprocess.run([str(app), "data"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, TUNER_SIM_REPORT=str(tmp_path / "launcher.json")))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "launcher.json").read_text())["faults"] == []
    y = np.fromfile(tmp_path / "data" / "output" / "y.bin", dtype=np.float32)
    assert y.shape == (1,) and y[0] == pytest.approx(want, rel=1e-5, abs=1e-5 * float(np.abs(x).sum()))
