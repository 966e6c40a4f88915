"""NPU builds against stand-ins: a fake toolkit tree in tmp_path and `cmake`/`bisheng` shell scripts on PATH
that log their argv and write the artefact a real build would (or fail like a compiler)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tuner.backends.npu.build import NpuBuilder, NpuToolchain, build_commands
from tuner.backends.npu.detect import detect
from tuner.backends.npu.package import cmake_lists, npu_arch
from tuner.data.socs import get_soc
from tuner.errors import CompileError

KERNEL = "add_custom"
SOURCE = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) {}
"""
ERROR = "kernel.cpp:12:5: error: use of undeclared identifier 'tileLenght'; did you mean 'tileLength'?"

# Stand-in cmake: `--build DIR` writes DIR/lib/libtuner_launch.so and the launch header; configuring writes nothing.
CMAKE = f"""#!/bin/sh
echo "cmake $*" >> "$TOOL_LOG"
if [ "$1" = "--build" ]; then
    if [ -n "$FAIL_BUILD" ]; then
        echo "[ 50%] Building CXX object kernel.cpp.o" ; echo "{ERROR}" >&2 ; echo "1 error generated." >&2
        exit 1
    fi
    mkdir -p "$2/lib" "$2/include/kernels"
    echo shared > "$2/lib/libtuner_launch.so"
    touch "$2/include/kernels/aclrtlaunch_{KERNEL}.h"
fi
exit 0
"""
# Stand-in bisheng: writes the file named after -o.
BISHENG = f"""#!/bin/sh
echo "bisheng $*" >> "$TOOL_LOG"
if [ "$1" = "--version" ]; then echo "bisheng version 9.0 (stand-in)"; exit 0; fi
if [ -n "$FAIL_BUILD" ]; then echo "{ERROR}" >&2; echo "1 error generated." >&2; exit 1; fi
out=""
while [ $# -gt 0 ]; do
    if [ "$1" = "-o" ]; then out="$2"; fi
    shift
done
echo shared > "$out"
"""


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _toolkit(root: Path, version: str) -> Path:
    """A toolkit tree: version.cfg, bin/bisheng, and the CANN 8 ascendc.cmake location."""
    home = root / f"cann-{version}"
    (home / "compiler" / "tikcpp" / "ascendc_kernel_cmake").mkdir(parents=True)
    (home / "compiler" / "tikcpp" / "ascendc_kernel_cmake" / "ascendc.cmake").write_text("# stand-in\n")
    (home / "version.cfg").write_text(f"toolkit_running_version=[7.0.0.1.1:{version}]\n")
    _script(home / "bin" / "bisheng", BISHENG)
    return home


@pytest.fixture
def env(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    _script(bindir / "cmake", CMAKE)
    log = tmp_path / "tools.log"
    log.touch()
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("TOOL_LOG", str(log))
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FAIL_BUILD", raising=False)
    src = tmp_path / "src" / "add_custom.cpp"
    src.parent.mkdir()
    src.write_text(SOURCE)
    return tmp_path, log, src


def _toolchain(tmp_path: Path, version: str) -> NpuToolchain:
    home = _toolkit(tmp_path, version)
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": os.environ["PATH"]},
                 import_module=lambda name: (_ for _ in ()).throw(ModuleNotFoundError(name)))
    assert det.cann_version == version
    return NpuToolchain.from_detection(det)


def _calls(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if "--version" not in line]


@pytest.mark.parametrize("soc", ["Ascend910B2", "Ascend310P3"])
def test_cann8_builds_through_ascendc_cmake(env, soc):
    tmp_path, log, src = env
    tc = _toolchain(tmp_path, "8.0.RC3")
    artefact = NpuBuilder(tc, soc).build(src, KERNEL)
    assert artefact.name == "libtuner_launch.so" and artefact.is_file()
    assert artefact.is_relative_to(tmp_path / "cache" / "npu")
    calls = _calls(log)
    assert len(calls) == 2
    configure, build = calls
    assert f"-DSOC_VERSION={soc}" in configure.split()
    assert f"-DASCEND_CANN_PACKAGE_PATH={tc.home}" in configure.split()
    assert "-DRUN_MODE=npu" in configure.split()
    assert build.startswith("cmake --build ") and build.endswith(" -j")
    workdir = Path(configure.split()[configure.split().index("-S") + 1])
    lists = (workdir / "CMakeLists.txt").read_text()
    assert "include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)" in lists and f'set(SOC_VERSION "{soc}"' in lists
    assert "compiler/tikcpp/ascendc_kernel_cmake" in lists and "tools/tikcpp/ascendc_kernel_cmake" in lists
    assert "ascendc_library(kernels STATIC ${CMAKE_CURRENT_SOURCE_DIR}/kernel.cpp)" in lists
    assert (workdir / "kernel.cpp").read_text() == SOURCE


@pytest.mark.parametrize(("soc", "arch"), [("Ascend910B2", "dav-2201"), ("Ascend310P3", "dav-2002")])
def test_cann9_calls_bisheng_with_the_npu_arch(env, soc, arch):
    tmp_path, log, src = env
    tc = _toolchain(tmp_path, "9.0.0")
    assert tc.major == 9 and tc.compiler == str(tc.home / "bin" / "bisheng")
    artefact = NpuBuilder(tc, soc).build(src, KERNEL)
    assert artefact.name == "libtuner_kernel.so" and artefact.read_text().strip() == "shared"
    [call] = _calls(log)
    args = call.split()
    assert args[0] == "bisheng" and args[1] == "-shared" and args[2].endswith("/kernel.asc")
    assert f"--npu-arch={arch}" in args and "-fPIC" in args
    assert args[args.index("-o") + 1] == str(artefact)
    assert npu_arch(get_soc(soc)) == arch


@pytest.mark.parametrize("version", ["8.0.RC3", "9.0.0"])
def test_compile_failure_carries_the_diagnostics(env, monkeypatch, version):
    tmp_path, log, src = env
    tc = _toolchain(tmp_path, version)
    monkeypatch.setenv("FAIL_BUILD", "1")
    with pytest.raises(CompileError) as info:
        NpuBuilder(tc, "Ascend910B2").build(src, KERNEL)
    assert ERROR in info.value.summary
    assert ERROR in info.value.diagnostics and "1 error generated." in info.value.diagnostics
    # The next build after a fix of the toolchain runs again (failures are not cached here).
    monkeypatch.delenv("FAIL_BUILD")
    before = len(_calls(log))
    assert NpuBuilder(tc, "Ascend910B2").build(src, KERNEL).is_file()
    assert len(_calls(log)) > before


@pytest.mark.parametrize("version", ["8.0.RC3", "9.0.0"])
def test_second_build_is_a_cache_hit(env, version):
    tmp_path, log, src = env
    tc = _toolchain(tmp_path, version)
    first = NpuBuilder(tc, "Ascend910B2").build(src, KERNEL)
    calls = len(_calls(log))
    copy = tmp_path / "elsewhere.cpp"
    copy.write_text(SOURCE)
    assert NpuBuilder(tc, "Ascend910B2").build(copy, KERNEL) == first
    assert len(_calls(log)) == calls


def test_other_soc_version_kernel_or_source_miss_the_cache(env):
    tmp_path, log, src = env
    tc = _toolchain(tmp_path, "8.0.RC3")
    first = NpuBuilder(tc, "Ascend910B2").build(src, KERNEL)
    n = len(_calls(log))
    other_soc = NpuBuilder(tc, "Ascend910B3").build(src, KERNEL)
    assert other_soc != first and len(_calls(log)) == n + 2
    newer = NpuToolchain(tc.home, "8.0.0", 8, tc.compiler)
    assert NpuBuilder(newer, "Ascend910B2").build(src, KERNEL) not in (first, other_soc)
    assert len(_calls(log)) == n + 4
    src.write_text(SOURCE + "// changed\n")
    NpuBuilder(tc, "Ascend910B2").build(src, KERNEL)
    assert len(_calls(log)) == n + 6


def test_build_commands_reject_a_bad_kernel_name(tmp_path):
    tc = NpuToolchain(tmp_path, "8.0.RC3", 8)
    with pytest.raises(ValueError):
        build_commands(tmp_path / "kernel.cpp", "not a name", get_soc("Ascend910B2"), tc, tmp_path)


def test_parallel_builds_of_one_key_compile_once(env):
    from concurrent.futures import ThreadPoolExecutor

    tmp_path, log, src = env
    tc = _toolchain(tmp_path, "9.0.0")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: NpuBuilder(tc, "Ascend910B2").build(src, KERNEL), range(4)))
    assert len(set(results)) == 1
    assert len(_calls(log)) == 1


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_the_cann8_project_parses_up_to_the_missing_toolkit(tmp_path):
    """The real cmake on the project package.py writes for the backend's CANN 8 build: with no toolkit it stops at
    the toolkit's ascendc_kernel_cmake, which shows the file parses and asks for it."""
    (tmp_path / "CMakeLists.txt").write_text(cmake_lists("Ascend910B2", worker=True))
    p = subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, ASCEND_HOME_PATH=str(tmp_path / "no-cann")))
    assert p.returncode != 0
    assert "no ascendc_kernel_cmake under" in " ".join(p.stderr.split()), p.stderr
