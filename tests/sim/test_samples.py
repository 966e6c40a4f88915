"""Sample-style Ascend C kernels written the way the public CANN samples are, run unchanged on the simulator.

tests/sim/kernels/samples/: LayerNorm (fp32, basic APIs, rstd via Ln/Exp on one element), a row softmax on
half data computed in fp32, a LeakyReLU of any length (DataCopyPad tail), and a CPU-debug host program
(main.cpp with tikicpulib.h / GmAlloc / ICPU_RUN_KF) with a SiLU kernel in its own file, built with
`tuner sim-build`. Each is compared with numpy on several random inputs, and its deliberately broken
variant (-DBUG) must have its fault named.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar, Struct
from tuner.sim.run import SimResult, simulate

SAMPLES = Path(__file__).resolve().parent / "kernels" / "samples"
ROOT = Path(__file__).resolve().parents[2]


def line_of(source: Path, code: str) -> int:
    """1-based line of the only line of `source` containing `code`."""
    hits = [i for i, line in enumerate(source.read_text().splitlines(), 1) if code in line]
    assert len(hits) == 1, (code, hits)
    return hits[0]


def only_fault(r: SimResult, cls: str, api: str, source: Path, code: str):
    assert [f.cls for f in r.faults] == [cls], [f.text for f in r.faults]
    f = r.faults[0]
    assert (f.api, f.file, f.line) == (api, str(source), line_of(source, code)), f.text
    return f


# ---- LayerNorm -------------------------------------------------------------------------------------------

LAYER_NORM = SAMPLES / "layer_norm_custom.cpp"


def layer_norm(seed: int, blocks: int, rows: int, cols: int, tile_rows: int, defines=()):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((blocks * rows, cols)) * rng.uniform(0.5, 4) + rng.uniform(-2, 2)).astype(np.float32)
    gamma = rng.standard_normal(cols).astype(np.float32)
    beta = rng.standard_normal(cols).astype(np.float32)
    eps = 1e-5
    tiling = Struct(struct.pack("<3I2f", rows, cols, tile_rows, 1.0 / cols, eps))
    r = simulate(LAYER_NORM, "layer_norm_custom", blocks,
                 [GmIn(x, "x"), GmIn(gamma, "gamma"), GmIn(beta, "beta"), GmOut(np.dtype(np.float32), x.shape, "z"),
                  tiling], defines=list(defines))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return r, (x64 - mean) / np.sqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("seed, blocks, rows, cols, tile_rows", [
    (0, 4, 13, 64, 4),    # a tail tile of one row
    (1, 8, 8, 256, 8),
    (2, 48, 3, 1024, 2),  # all of Ascend910B1's vector cores
])
def test_layer_norm_matches_numpy(seed, blocks, rows, cols, tile_rows):
    r, ref = layer_norm(seed, blocks, rows, cols, tile_rows)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_allclose(r.outputs[0], ref, rtol=1e-4, atol=1e-5)


def test_layer_norm_bug_is_named():
    r, _ = layer_norm(0, 4, 13, 64, 4, defines=["BUG"])
    f = only_fault(r, "queue-misuse", "TQue::AllocTensor", LAYER_NORM,
                   "LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();")
    assert "all 2 buffers of this VECIN queue are in use (a FreeTensor is missing)" in f.text


# ---- softmax -----------------------------------------------------------------------------------------------

SOFTMAX = SAMPLES / "softmax_custom.cpp"


def softmax(seed: int, blocks: int, rows: int, cols: int, tile_rows: int, defines=()):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((blocks * rows, cols)) * rng.uniform(0.5, 5)).astype(np.float16)
    r = simulate(SOFTMAX, "softmax_custom", blocks,
                 [GmIn(x, "x"), GmOut(np.dtype(np.float16), x.shape, "y"), Scalar("u32", rows), Scalar("u32", cols),
                  Scalar("u32", tile_rows)], defines=list(defines))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return r, e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed, blocks, rows, cols, tile_rows", [
    (0, 4, 8, 48, 4),
    (1, 8, 4, 256, 2),
    (2, 2, 6, 1024, 3),
])
def test_softmax_matches_numpy(seed, blocks, rows, cols, tile_rows):
    r, ref = softmax(seed, blocks, rows, cols, tile_rows)
    assert r.faults == [], [f.text for f in r.faults]
    y = r.outputs[0].astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=2e-3, atol=1e-5)  # half output: within about one half ulp
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=cols * 2e-4)


def test_softmax_bug_is_named():
    r, _ = softmax(0, 4, 8, 48, 4, defines=["BUG"])
    f = only_fault(r, "out-of-bounds", "ReduceMax", SOFTMAX, "ReduceMax<float>(maxLocal, row, work, len);")
    assert "src: 768 bytes" in f.text and "run past the end of its buffer" in f.text


# ---- LeakyReLU with a DataCopyPad tail -------------------------------------------------------------------------

LEAKY_RELU = SAMPLES / "leaky_relu_custom.cpp"


def leaky_relu(seed: int, n: int, blocks: int, tile: int, alpha: float, defines=()):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    r = simulate(LEAKY_RELU, "leaky_relu_custom", blocks,
                 [GmIn(x, "x"), GmOut(np.dtype(np.float16), (n,), "y"), Struct(struct.pack("<2If", n, tile, alpha))],
                 defines=list(defines))
    return r, np.where(x > 0, x, x * np.float16(alpha))


@pytest.mark.parametrize("seed, n, blocks, tile, alpha", [
    (0, 10007, 8, 512, 0.1),   # a tail on the last core
    (1, 16384, 8, 256, 0.01),  # everything aligned
    (2, 999, 48, 64, 0.2),     # some cores get nothing
    (3, 7, 1, 64, 0.5),        # shorter than one 32-byte block
])
def test_leaky_relu_matches_numpy(seed, n, blocks, tile, alpha):
    r, ref = leaky_relu(seed, n, blocks, tile, alpha)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_allclose(r.outputs[0].astype(np.float32), ref.astype(np.float32), rtol=1e-3, atol=1e-6)


def test_leaky_relu_bug_is_named():
    r, _ = leaky_relu(0, 10007, 8, 512, 0.1, defines=["BUG"])
    f = only_fault(r, "misaligned", "DataCopy", LEAKY_RELU, "DataCopy(xLocal, xGm[progress * tileLength], len);")
    assert "not a multiple of 32 bytes" in f.text and "use DataCopyPad" in f.text


# ---- CPU-debug host program built with `tuner sim-build` ------------------------------------------------------

CPU_DEBUG = SAMPLES / "cpu_debug"


def sim_build(out: Path, *defines: str) -> Path:
    argv = [sys.executable, "-m", "tuner.cli", "sim-build", str(CPU_DEBUG / "main.cpp"),
            str(CPU_DEBUG / "silu_custom.cpp"), "-o", str(out)]
    for d in defines:
        argv += ["--define", d]
    p = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return out


@pytest.fixture(scope="module")
def host_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cpu_debug")
    (d / "input").mkdir()
    (d / "output").mkdir()
    return d


def run_app(app: Path, cwd: Path, x: np.ndarray) -> tuple[subprocess.CompletedProcess, dict]:
    x.tofile(cwd / "input" / "input_x.bin")
    report = cwd / "report.json"
    report.unlink(missing_ok=True)
    p = subprocess.run([str(app)], cwd=cwd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, TUNER_SIM_REPORT=str(report)))
    return p, json.loads(report.read_text())


def test_cpu_debug_host_program(host_dir):
    app = sim_build(host_dir / "app")
    for seed in range(3):
        x = (np.random.default_rng(seed).standard_normal(8 * 2048) * (seed + 1) * 2).astype(np.float16)
        p, report = run_app(app, host_dir, x)
        assert p.returncode == 0, p.stderr
        assert report["faults"] == [] and report["kernel"] == "silu_custom" and report["block_dim"] == 8
        y = np.fromfile(host_dir / "output" / "output_y.bin", dtype=np.float16).astype(np.float64)
        x64 = x.astype(np.float64)
        np.testing.assert_allclose(y, x64 / (1 + np.exp(-x64)), rtol=2e-3, atol=1e-3)


def test_cpu_debug_host_program_bug_is_named(host_dir):
    app = sim_build(host_dir / "app_bug", "BUG")
    p, report = run_app(app, host_dir, np.zeros(8 * 2048, dtype=np.float16))
    assert p.returncode == 1
    assert [f["class"] for f in report["faults"]] == ["out-of-bounds"]
    f = report["faults"][0]
    source = CPU_DEBUG / "silu_custom.cpp"
    assert (f["api"], f["file"], f["line"]) == (
        "DataCopy", str(source), line_of(source, "DataCopy(yGm[progress * this->tileLength], yLocal"))
    assert "past the end of GM buffer 'GmAlloc #2' (16384 bytes)" in f["message"]
    assert f["text"] in p.stderr
