"""Exporting a tuned kernel: the files, kernel.json, and the exported kernel run again on new inputs, both through
run_sim.sh (`tuner simulate`) and through the CANN launcher's CPU-debug branch built with `tuner sim-build`."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tuner.data.dtypes import C_TYPES
from tuner.errors import UsageError
from tuner.search.export import ExportBundle, ExportError, export_arguments, write_export
from tuner.space.render import tiling_struct_source
from tuner.space.spaces import ArgSpec

ROOT = Path(__file__).resolve().parents[2]
SOC = "Ascend910B2"
ROWS, COLS, BLOCK_DIM, SCALE = 8, 64, 4, 3
FIELDS = ("rowsPerBlock", "cols", "scale")
TILING = (("rowsPerBlock", ROWS // BLOCK_DIM), ("cols", COLS), ("scale", SCALE))
ARGS = (ArgSpec("x", "in"), ArgSpec("y", "out"), ArgSpec("tiling", "tiling"))

# y = x * scale, row by row; each block takes rowsPerBlock rows. The tiling is read from GM with LoadTiling.
KERNEL = """#include "kernel_operator.h"
using namespace AscendC;

{tiling}
using T = {T};

class ScaleRows {{
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaleTiling &t)
    {{
        rows = t.rowsPerBlock;
        cols = t.cols;
        scale = static_cast<T>(static_cast<float>(t.scale));
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * rows * cols;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, rows * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, rows * cols);
        pipe.InitBuffer(inQ, 2, cols * sizeof(T));
        pipe.InitBuffer(outQ, 2, cols * sizeof(T));
    }}
    __aicore__ inline void Process()
    {{
        for (uint32_t r = 0; r < rows; ++r) {{
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopy(xl, xGm[r * cols], cols);
            inQ.EnQue(xl);
            LocalTensor<T> xin = inQ.DeQue<T>();
            LocalTensor<T> yl = outQ.AllocTensor<T>();
            Muls(yl, xin, scale, cols);
            outQ.EnQue<T>(yl);
            inQ.FreeTensor(xin);
            LocalTensor<T> yout = outQ.DeQue<T>();
            DataCopy(yGm[r * cols], yout, cols);
            outQ.FreeTensor(yout);
        }}
    }}

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<T> xGm, yGm;
    uint32_t rows, cols;
    T scale;
}};

extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{{
    ScaleTiling t = LoadTiling(tiling);
    ScaleRows op;
    op.Init(x, y, t);
    op.Process();
}}
"""


def kernel_source(dtype: str) -> str:
    return KERNEL.format(tiling=tiling_struct_source("ScaleTiling", FIELDS), T=C_TYPES.get(dtype, "float"))


def export(dest: Path, dtype: str = "float32", *, args: tuple[ArgSpec, ...] = ARGS,
           output_shapes: dict[str, tuple[int, ...]] | None = None,
           input_shapes: dict[str, tuple[int, ...]] | None = None, **overrides) -> Path:
    """The scale kernel exported to `dest`, with `overrides` of the bundle's fields."""
    outputs = {"y": (ROWS, COLS)} if output_shapes is None else output_shapes
    fields = dict(source=kernel_source(dtype), kernel="scale_rows",
                  arguments=export_arguments(args, dtype, (ROWS, COLS), outputs, input_shapes), tiling=TILING,
                  tiling_struct="ScaleTiling", block_dim=BLOCK_DIM, op="scale", shape=(ROWS, COLS), dtype=dtype,
                  soc=SOC, backend="sim", variant="rows", params={"rows_per_block": np.int64(2), "buffers": 2},
                  time_us=2.5, time_source=f"simulated, {SOC} model", run="run-1", study="scale/rows", trial=17)
    fields.update(overrides)
    return write_export(ExportBundle(**fields), dest)


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), TUNER=f"{sys.executable} -m tuner.cli")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export(tmp_path_factory.mktemp("export") / "best")


def test_files_tiling_and_kernel_json(exported):
    names = {"kernel.cpp", "tiling.bin", "tiling.json", "kernel.json", "run_sim.sh", "launcher.cpp", "CMakeLists.txt",
             "README.md"}
    assert names <= {p.name for p in exported.iterdir()}
    assert (exported / "kernel.cpp").read_text() == kernel_source("float32")
    assert (exported / "tiling.bin").read_bytes() == struct.pack("<3I", ROWS // BLOCK_DIM, COLS, SCALE)
    assert json.loads((exported / "tiling.json").read_text()) == {
        "struct": "ScaleTiling", "fields": {"rowsPerBlock": 2, "cols": 64, "scale": 3}}
    assert os.access(exported / "run_sim.sh", os.X_OK)
    d = json.loads((exported / "kernel.json").read_text())
    assert {k: d[k] for k in ("entry", "source", "block_dim", "defines", "soc", "op", "shape", "dtype", "variant",
                              "params", "time_us", "time_source", "run", "study", "trial")} == {
        "entry": "scale_rows", "source": "kernel.cpp", "block_dim": 4, "defines": [], "soc": SOC, "op": "scale",
        "shape": [8, 64], "dtype": "float32", "variant": "rows", "params": {"rows_per_block": 2, "buffers": 2},
        "time_us": 2.5, "time_source": "simulated, Ascend910B2 model", "run": "run-1", "study": "scale/rows",
        "trial": 17}
    assert (exported / d["source"]).read_text() == kernel_source("float32")
    assert d["arguments"] == [
        {"name": "x", "kind": "in", "dtype": "float32", "shape": [8, 64], "tensor": "x"},
        {"name": "y", "kind": "out", "dtype": "float32", "shape": [8, 64], "tensor": "y"},
        {"name": "tiling", "kind": "bytes", "file": "tiling.bin"},
    ]


def test_a_simulated_time_is_never_called_measured(tmp_path):
    d = export(tmp_path / "e", time_source=f"measured on {SOC}")
    meta = json.loads((d / "kernel.json").read_text())
    assert meta["time_source"] == "simulated, Ascend910B2 model"
    readme = (d / "README.md").read_text()
    assert "2.500 µs (simulated, Ascend910B2 model)" in readme and "measured on" not in readme
    assert "has not been built here" in readme and "no CANN toolkit" in readme


def test_run_sim_reruns_the_kernel_on_a_new_input(exported, tmp_path):
    x = np.random.default_rng(7).standard_normal((ROWS, COLS)).astype(np.float32)
    np.save(tmp_path / "fresh.npy", x)
    p = subprocess.run([str(exported / "run_sim.sh"), "fresh.npy", "--json", "report.json"], cwd=tmp_path,
                       env=dict(env(), OUT_DIR=str(tmp_path / "out")), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), x * np.float32(SCALE))
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["faults"] == [] and report["kernel"] == "scale_rows" and report["block_dim"] == BLOCK_DIM
    assert report["soc"] == SOC


def test_run_sim_refuses_another_shape(exported, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((ROWS // 2, COLS), np.float32))
    p = subprocess.run([str(exported / "run_sim.sh")], cwd=tmp_path, env=env(), capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    assert "x.npy is 4x64 float32" in p.stderr and "computed for 8x64" in p.stderr
    assert not (tmp_path / "y.npy").exists()


def test_launcher_allocates_every_gm_argument_and_launches_the_entry(exported):
    src = (exported / "launcher.cpp").read_text()
    assert len(re.findall(r"\baclrtMalloc\(", src)) == 3  # x, y, tiling
    assert len(re.findall(r"\baclrtFree\(", src)) == 3
    assert len(re.findall(r"AscendC::GmAlloc\(", src)) == 3 and len(re.findall(r"AscendC::GmFree\(", src)) == 3
    assert src.count("ACL_MEMCPY_HOST_TO_DEVICE") == 2 and src.count("ACL_MEMCPY_DEVICE_TO_HOST") == 1
    assert "scale_rows<<<kBlockDim, nullptr, stream>>>(gm_x, gm_y, gm_tiling);" in src
    assert "ICPU_RUN_KF(scale_rows, kBlockDim, gm_x, gm_y, gm_tiling);" in src
    assert "constexpr uint32_t kBlockDim = 4;" in src
    npu_run = src[src.index("#define CHECK_ACL("):]
    order = [npu_run.index(s) for s in ("aclInit(", "aclrtSetDevice(", "aclrtCreateStream(", "aclrtMalloc(",
                                    "aclrtMemcpy(", "<<<", "aclrtSynchronizeStream(", "ACL_MEMCPY_DEVICE_TO_HOST",
                                    "aclrtFree(", "aclrtDestroyStream(", "aclrtResetDevice(", "aclFinalize(")]
    assert order == sorted(order)
    npu, cpu = src.index("#ifndef ASCENDC_CPU_DEBUG\n#include \"acl/acl.h\""), src.index('#include "tikicpulib.h"')
    assert npu < cpu and "#define CHECK_ACL(" in src


def test_cmake_project_names_the_soc_and_both_run_modes(exported):
    text = (exported / "CMakeLists.txt").read_text()
    assert 'set(SOC_VERSION "Ascend910B2"' in text and 'set(RUN_MODE "npu"' in text
    assert "find_package(ASC REQUIRED" in text and "LANGUAGES ASC CXX" in text
    assert 'set(CMAKE_ASC_ARCHITECTURES "dav-2201"' in text
    assert "find_package(tikicpulib REQUIRED)" in text and "tikicpulib::${SOC_VERSION}" in text


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_cmake_parses_up_to_the_missing_toolkit(exported, tmp_path):
    """No CANN here: configuring stops at the toolkit's package, which shows the file parses and asks for it."""
    for mode, package in (("npu", "ASC"), ("cpu", "tikicpulib"), ("gpu", None)):
        p = subprocess.run(["cmake", "-S", str(exported), "-B", str(tmp_path / mode), f"-DRUN_MODE={mode}"],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, ASCEND_HOME_PATH=""))
        assert p.returncode != 0
        if package:
            assert f'provided by "{package}"' in " ".join(p.stderr.split()), p.stderr
        else:
            assert "RUN_MODE must be npu or cpu" in p.stderr


def test_launcher_cpu_debug_branch_runs_on_the_simulator(exported, tmp_path):
    """The CPU-debug branch is built unchanged by `tuner sim-build` (the simulator's tikicpulib.h, not CANN's)."""
    app = tmp_path / "tuned_kernel_sim"
    p = subprocess.run([sys.executable, "-m", "tuner.cli", "sim-build", str(exported / "launcher.cpp"), "-o", str(app),
                        "--soc", SOC], capture_output=True, text=True, env=env(), timeout=300)
    assert p.returncode == 0, p.stderr
    (tmp_path / "data" / "input").mkdir(parents=True)
    x = np.random.default_rng(11).standard_normal((ROWS, COLS)).astype(np.float32)
    x.tofile(tmp_path / "data" / "input" / "x.bin")
    p = subprocess.run([str(app), "data"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, TUNER_SIM_REPORT=str(tmp_path / "report.json")))
    assert p.returncode == 0, p.stdout + p.stderr
    y = np.fromfile(tmp_path / "data" / "output" / "y.bin", dtype=np.float32).reshape(ROWS, COLS)
    np.testing.assert_array_equal(y, x * np.float32(SCALE))
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["faults"] == [] and report["kernel"] == "scale_rows" and report["block_dim"] == BLOCK_DIM

    (tmp_path / "data" / "input" / "x.bin").write_bytes(b"\0" * 16)  # another shape: refused, not misread
    p = subprocess.run([str(app), "data"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "has 16 bytes, expected 2048" in p.stderr


def test_float16_export_runs_in_the_simulator(tmp_path):
    d = export(tmp_path / "h", dtype="float16")
    meta = json.loads((d / "kernel.json").read_text())
    assert [a.get("dtype") for a in meta["arguments"]] == ["float16", "float16", None]
    assert "kBytes_x = 8ull * 64ull * 2;" in (d / "launcher.cpp").read_text()
    x = (np.random.default_rng(3).standard_normal((ROWS, COLS)) * 4).astype(np.float16)
    np.save(tmp_path / "x.npy", x)
    p = subprocess.run([str(d / "run_sim.sh")], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), x * np.float16(SCALE))


def test_arguments_follow_the_kernel_order_and_carry_their_tensors(tmp_path):
    """Parameter names differ from the operator tensors they carry, and the tiling comes first."""
    args = (ArgSpec("tiling", "tiling"), ArgSpec("gamma", "in"), ArgSpec("src", "in", "x"),
            ArgSpec("dst", "out", "y"))
    d = export(tmp_path / "o", args=args, input_shapes={"gamma": (COLS,)})
    meta = json.loads((d / "kernel.json").read_text())
    assert [(a["name"], a["kind"], a.get("tensor"), a.get("shape")) for a in meta["arguments"]] == [
        ("tiling", "bytes", None, None), ("gamma", "in", "gamma", [64]), ("src", "in", "x", [8, 64]),
        ("dst", "out", "y", [8, 64])]
    launcher = (d / "launcher.cpp").read_text()
    assert "scale_rows<<<kBlockDim, nullptr, stream>>>(gm_tiling, gm_gamma, gm_src, gm_dst);" in launcher
    assert 'dir + "/input/x.bin"' in launcher and 'dir + "/output/y.bin"' in launcher
    assert len(re.findall(r"\baclrtMalloc\(", launcher)) == 4
    script = (d / "run_sim.sh").read_text()
    flags = re.findall(r'--arg "([a-z]+)=', script)
    assert flags == ["bytes", "in", "in", "out"]
    assert "check_input \"$IN_GAMMA\" 64 4" in script and "out=$OUT_DIR/y.npy:float32:8x64" in script


def test_a_workspace_is_described_by_its_size_and_passed_as_zeros(tmp_path):
    """kernel.json gives the workspace's bytes at the exported point; run_sim.sh passes that many zeros, and the
    launcher allocates and zeroes it, never reads or writes it as a file (tests/search/test_workspace.py runs one)."""
    args = (ArgSpec("x", "in"), ArgSpec("y", "out"), ArgSpec("workspace", "workspace", bytes="block_dim * 32"),
            ArgSpec("tiling", "tiling"))
    d = export(tmp_path / "w", arguments=export_arguments(args, "float32", (ROWS, COLS), {"y": (ROWS, COLS)},
                                                          workspace_bytes=128))
    assert json.loads((d / "kernel.json").read_text())["arguments"][2] == {
        "name": "workspace", "kind": "workspace", "bytes": 128}
    script = (d / "run_sim.sh").read_text()
    assert re.findall(r'--arg "([a-z]+)=', script) == ["in", "out", "zeros", "bytes"]
    assert '--arg "zeros=128"' in script
    launcher = (d / "launcher.cpp").read_text()
    assert "constexpr size_t kBytes_workspace = 128ull;" in launcher
    assert "std::memset(gm_workspace, 0, kBytes_workspace);" in launcher
    assert "aclrtMemset(gm_workspace, kBytes_workspace, 0, kBytes_workspace)" in launcher
    assert "host_workspace" not in launcher and "workspace.bin" not in launcher
    assert "scale_rows<<<kBlockDim, nullptr, stream>>>(gm_x, gm_y, gm_workspace, gm_tiling);" in launcher
    assert len(re.findall(r"AscendC::GmAlloc\(", launcher)) == 4 and len(re.findall(r"\baclrtMalloc\(", launcher)) == 4
    readme = (d / "README.md").read_text()
    assert "| 3 | `workspace` | workspace | 128 bytes of GM, zeroed before each launch |" in readme
    assert "the workspace as `zeros=128`" in readme


def test_time_us_none_and_overwrite(tmp_path):
    dest = tmp_path / "best"
    export(dest)
    d = export(dest, time_us=None, trial=99)
    meta = json.loads((d / "kernel.json").read_text())
    assert meta["time_us"] is None and meta["trial"] == 99
    assert "No time was recorded" in (d / "README.md").read_text()


@pytest.mark.parametrize("overrides, message", [
    ({"output_shapes": {}}, "output argument 'y' carries 'y', which has no output shape"),
    ({"tiling": (("rowsPerBlock", -1), ("cols", 64), ("scale", 3))}, "rowsPerBlock=-1 is not a uint32"),
    ({"tiling": (("rowsPerBlock", 2**32),)}, "is not a uint32"),
    ({"dtype": "int8"}, "dtype 'int8' has no C type"),
    ({"args": (ArgSpec("x", "in"), ArgSpec("y", "inout"))}, "kind 'inout'"),
    ({"args": (ArgSpec("x", "in"), ArgSpec("x", "out", "y"))}, "appears twice"),
    ({"args": (ArgSpec("x", "in"), ArgSpec("tiling", "tiling"))}, "no output argument"),
    ({"block_dim": 0}, "block_dim 0"),
    ({"args": (ArgSpec("x", "in", "x; rm"), ArgSpec("y", "out"))}, "carries 'x; rm', which is not an identifier"),
    ({"args": (*ARGS, ArgSpec("ws", "workspace", bytes=64))}, "workspace 'ws' has 0 bytes; expected at least 1"),
])
def test_bad_descriptions_are_refused_with_the_reason(tmp_path, overrides, message):
    """A usage error each (an ExportError, or the tiling packer's own), so the CLI prints it as one line."""
    with pytest.raises(UsageError, match=re.escape(message)):
        export(tmp_path / "bad", **overrides)
    assert not (tmp_path / "bad").exists()


def test_an_unwritable_destination_is_an_export_error(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ExportError, match=r"cannot write the export to .*a-file/best: .*a-file"):
        export(tmp_path / "a-file" / "best")
