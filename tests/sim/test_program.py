"""Whole programs as Huawei ships them (`tuner simulate PROGRAM.asc`): the <<<...>>> launches rewritten in place,
the ACL runtime on the simulator, the program run in the caller's directory with its own arguments, one report
per launch; and, where asc-devkit is fetched, its own add example run unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tuner.errors import UsageError
from tuner.sim.launches import launch_headers, rewrite_launches
from tuner.sim.program import simulate_program

PROGRAMS = Path(__file__).resolve().parent / "kernels" / "programs"
SCALE_ADD = PROGRAMS / "scale_add.asc"
LAUNCH_PROJECT = PROGRAMS / "launch_project"
ASC_DEVKIT = Path(os.environ.get("ASC_DEVKIT_GIT", "/work/.mirror/mirror-cann+asc-devkit/repo"))


def tuner(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tuner.cli", *args], cwd=cwd, capture_output=True, text=True)


# ---- the launch rewrite ------------------------------------------------------------------------------------

def test_a_launch_becomes_a_call_of_the_simulator_on_the_same_lines():
    text = ("int main() {\n"
            "    // k<<<1, 0, s>>>(a) in a comment stays\n"
            "    const char* s = \"<<<\";\n"
            "    add_custom<Tiling<4>, 8>\n"
            "        <<<n * 2, nullptr,\n"
            "           stream>>>(x, f(y, z));\n"
            "    ns::other<<<1, 0, stream>>>(w);\n"
            "    return 0;\n"
            "}\n")
    out, kernels = rewrite_launches(text)
    assert kernels == ["add_custom<Tiling<4>,8>", "ns::other"]
    assert out.count("\n") == text.count("\n")
    lines = out.splitlines()
    assert lines[1] == text.splitlines()[1] and lines[2] == text.splitlines()[2]
    assert lines[3] == ('    tuner_sim::launch("add_custom<Tiling<4>,8>", [&]() TUNER_SIM_UNCHARGED '
                        '{ add_custom<Tiling<4>, 8>(x, f(y, z)); }, n * 2, nullptr,')
    assert lines[4].strip() == "stream)"
    assert lines[6].strip() == ('tuner_sim::launch("ns::other", [&]() TUNER_SIM_UNCHARGED { ns::other(w); }, '
                                '1, 0, stream);')


def test_a_launch_that_cannot_be_read_is_named_with_its_line():
    with pytest.raises(UsageError, match=r"prog.asc:2: cannot read this <<<...>>> launch"):
        rewrite_launches("int main() {\n  <<<1, 0, s>>>(x);\n}\n", "prog.asc")


# ---- programs ------------------------------------------------------------------------------------------------

def test_a_program_runs_its_launches_and_checks_itself(tmp_path):
    r = simulate_program([SCALE_ADD], ["one", "two"], soc="Ascend910B2", cwd=tmp_path)
    assert r.returncode == 0
    assert [launch.kernel for launch in r.launches] == ["scale_kernel<TILE,3>", "add_kernel"]
    assert all(launch.ok and launch.block_dim == 4 and launch.task_duration_us > 0 for launch in r.launches)
    assert r.launches[0].soc == "Ascend910B2"


def test_a_faulty_launch_fails_the_stream_and_names_the_users_line(tmp_path):
    r = simulate_program([SCALE_ADD], soc="Ascend910B2", defines=["BUG"], cwd=tmp_path)
    assert r.returncode == 1  # the stream's synchronisation returned the AI Core exception
    assert r.launches[0].ok
    faults = r.launches[1].faults
    assert faults and faults[0].cls == "out-of-bounds"
    line = next(i for i, text in enumerate(SCALE_ADD.read_text().splitlines(), 1) if "the overstep" in text)
    assert (faults[0].file, faults[0].line) == (str(SCALE_ADD), line)


def test_the_cli_runs_a_program_in_the_current_directory_with_its_arguments(tmp_path):
    proc = tuner("simulate", str(SCALE_ADD), "--soc", "Ascend910B2", "--json", "report.json", "--", "a", "b", "c",
                 cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "test pass: 0 wrong of 1024 (stream status 0, 3 argument(s))" in proc.stdout
    assert "add_kernel: 4 block(s) on Ascend910B2: ok" in proc.stderr
    assert "simulated, Ascend910B2 model" in proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["returncode"] == 0 and len(report["launches"]) == 2


def test_the_cli_refuses_kernel_options_for_a_program(tmp_path):
    proc = tuner("simulate", str(SCALE_ADD), "--block-dim", "4", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: --block-dim needs --kernel (without it, {SCALE_ADD} is run as a whole program)"]


def test_a_kernel_template_with_several_parameters_runs_alone(tmp_path):
    import numpy as np

    x = np.arange(1024, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    proc = tuner("simulate", str(SCALE_ADD), "--kernel", "scale_kernel<256, 5>", "--block-dim", "4",
                 "--arg", "in=x.npy", "--arg", "out=y.npy:float32:1024", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(np.load(tmp_path / "y.npy"), 5 * x)


def test_each_kernel_gets_the_launch_header_cann_generates():
    headers = launch_headers([(LAUNCH_PROJECT / "negate_kernel.cpp").read_text(),
                              "__global__ void declared_only(GM_ADDR x);\n"
                              "template <int n> __global__ __aicore__ void templated(GM_ADDR x) {}\n"
                              "__global__ __aicore__ void by_value(__gm__ half* x, TilingData t) {}\n"])
    assert sorted(headers) == ["aclrtlaunch_by_value.h", "aclrtlaunch_negate_custom.h"]
    negate = headers["aclrtlaunch_negate_custom.h"]
    assert 'extern "C" __global__ __aicore__ void negate_custom(GM_ADDR x, GM_ADDR y, uint32_t perBlock);' in negate
    assert "aclrtlaunch_negate_custom(uint32_t blockDim, void* stream, void* x, void* y, uint32_t perBlock)" in negate
    assert "negate_custom((GM_ADDR)x, (GM_ADDR)y, perBlock)" in negate
    by_value = headers["aclrtlaunch_by_value.h"]
    assert "aclrtlaunch_by_value(uint32_t blockDim, void* stream, void* x, TilingData t)" in by_value
    assert "by_value((__gm__ half*)x, t)" in by_value


def test_a_kernel_launch_project_in_two_files_runs_through_aclrt_launch_kernel(tmp_path):
    proc = tuner("simulate", str(LAUNCH_PROJECT / "main.cpp"), "--add-source",
                 str(LAUNCH_PROJECT / "negate_kernel.cpp"), "--soc", "Ascend910B2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "test pass: 0 wrong of 16384 (launch 0, stream status 0)" in proc.stdout
    assert "negate_custom: 8 block(s) on Ascend910B2: ok" in proc.stderr
    proc = tuner("simulate", str(LAUNCH_PROJECT / "main.cpp"), "--add-source", "missing.cpp", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: --add-source missing.cpp: no such file"


# ---- Huawei's own example, where asc-devkit is fetched ---------------------------------------------------------

@pytest.mark.skipif(not (ASC_DEVKIT / "HEAD").exists(), reason="asc-devkit is not fetched (set ASC_DEVKIT_GIT)")
def test_asc_devkits_add_example_runs_unchanged(tmp_path):
    path = "examples/01_simd_cpp_api/00_introduction/01_add/add/add.asc"
    source = subprocess.run(["git", "--git-dir", str(ASC_DEVKIT), "show", f"HEAD:{path}"], capture_output=True,
                            check=True).stdout
    (tmp_path / "add.asc").write_bytes(source)
    r = simulate_program([tmp_path / "add.asc"], soc="Ascend910B2", cwd=tmp_path)
    assert r.returncode == 0
    assert [(launch.kernel, launch.block_dim, launch.ok) for launch in r.launches] == [
        ("add_custom<blockLength>", 8, True)]
