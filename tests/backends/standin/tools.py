"""Stand-ins for the CANN toolkit's executables: each logs its argv as one JSON line to $TOOL_LOG and produces
what the real one would. The compilers build the kernel and the tuner's launcher under CANN's CPU debug
mode (ASCENDC_CPU_DEBUG) against the tuner's simulator, so the "device" library really computes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tuner.data.socs import get_soc, load_socs
from tuner.sim.build import INCLUDE_DIR, KERNEL_FLAGS, compiler, runtime_dir, soc_dir

CACHE_FILE = "standin_cache.json"


def _log(tool: str, argv: list[str]) -> None:
    path = os.environ.get("TOOL_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps([tool, *argv]) + "\n")


def compile_shared(sources: list[Path], out: Path, soc_name: str) -> int:
    """Build `sources` into the shared library `out` for the simulator of `soc_name`."""
    soc = get_soc(soc_name)
    socd, runtime = soc_dir(soc), runtime_dir()
    includes = sorted({f"-I{s.resolve().parent}" for s in sources})
    cmd = [compiler(), "-x", "c++", *KERNEL_FLAGS, "-fPIC", "-shared", "-I", str(INCLUDE_DIR), "-I", str(socd),
           *includes, *map(str, sources), "-x", "none", str(socd / "soc_config.o"), str(runtime / "libtunersim.a"),
           "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(proc.stderr)
    return proc.returncode


def soc_for_arch(arch: str) -> str:
    """The first SoC of socs.yaml whose NpuArch is `dav-<code>`."""
    code = int(arch.removeprefix("dav-"))
    return next(name for name, soc in load_socs().items() if soc.npu_arch == code)


def bisheng(argv: list[str]) -> int:
    _log("bisheng", argv)
    if argv[:1] == ["--version"]:
        print("bisheng version 9.0.0 (stand-in: builds for the tuner simulator)")
        return 0
    source = out = arch = None
    i = 0
    while i < len(argv):
        if argv[i] == "-o":
            out, i = argv[i + 1], i + 2
            continue
        if argv[i].startswith("--npu-arch="):
            arch = argv[i].split("=", 1)[1]
        elif not argv[i].startswith("-"):
            source = argv[i]
        i += 1
    if "-shared" not in argv or not (source and out and arch):
        print("bisheng (stand-in): expected -shared SOURCE -o OUT --npu-arch=dav-NNNN", file=sys.stderr)
        return 2
    return compile_shared([Path(source)], Path(out), os.environ.get("STANDIN_SOC") or soc_for_arch(arch))


def cmake(argv: list[str]) -> int:
    _log("cmake", argv)
    if argv[:1] == ["--build"]:
        build = Path(argv[1])
        cache = json.loads((build / CACHE_FILE).read_text())
        source = Path(cache["source"])
        lists = (source / "CMakeLists.txt").read_text()
        if "ascendc_library(kernels" not in lists or "add_library(tuner_launch SHARED" not in lists:
            print("cmake (stand-in): the project does not build the kernel library and its launcher", file=sys.stderr)
            return 1
        (build / "lib").mkdir(exist_ok=True)
        return compile_shared([source / "kernel.cpp", source / "launcher.cpp"], build / "lib" / "libtuner_launch.so",
                              cache["SOC_VERSION"])
    args = dict(zip(argv[::2], argv[1::2], strict=False))
    defines = dict(a[2:].split("=", 1) for a in argv if a.startswith("-D"))
    package = Path(defines.get("ASCEND_CANN_PACKAGE_PATH", ""))
    if not (package / "compiler" / "tikcpp" / "ascendc_kernel_cmake" / "ascendc.cmake").is_file():
        print(f"CMake Error: no ascendc_kernel_cmake under {package}", file=sys.stderr)
        return 1
    build = Path(args["-B"])
    build.mkdir(parents=True, exist_ok=True)
    (build / CACHE_FILE).write_text(json.dumps({"source": args["-S"], **defines}))
    return 0


def npu_smi(argv: list[str]) -> int:
    _log("npu-smi", argv)
    name = os.environ.get("STANDIN_NPU_NAME", "Ascend910B2").removeprefix("Ascend")
    print("+------------------------------------------------------------------+")
    print("| NPU   Name                | Health        | Power(W)    Temp(C)   |")
    for i in range(int(os.environ.get("STANDIN_NPU_COUNT", "1"))):
        print(f"| {i}     {name:<20}| OK            | 90.0        40        |")
    return 0


TOOLS = {"bisheng": bisheng, "cmake": cmake, "npu-smi": npu_smi}
