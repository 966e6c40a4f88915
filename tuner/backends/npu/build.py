"""Compiling a rendered Ascend C kernel and its launcher (launcher.py) with the CANN toolkit found by `detect()`
into one shared library exporting `tuner_launch`, which the device worker loads.

Two recipes, chosen by the toolkit's major version (ascendc.md §7.2):

* CANN 8.x (and older toolkits with the same kernel-launch CMake): a minimal CMake project (package.py's
  `cmake_lists`, which writes the export's project too) on the toolkit's Ascend C module —
  `include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)` and `ascendc_library(kernels STATIC kernel.cpp)`, configured with
  SOC_VERSION, RUN_MODE=npu and ASCEND_CANN_PACKAGE_PATH. The module also generates the launch header
  `aclrtlaunch_<kernel>.h` that launcher.cpp includes; `add_library(tuner_launch SHARED launcher.cpp)` links both
  with ascendcl. Artefact: `libtuner_launch.so`.
* CANN 9.x: the launcher appended to the kernel's .asc file and the documented single bisheng call
  `bisheng -shared kernel.asc -o libtuner_kernel.so -fPIC --npu-arch=dav-<NpuArch>`. Artefact: `libtuner_kernel.so`.

The `--npu-arch` value (package.py's `npu_arch`, the export's CMake default too) is `dav-<npu_arch>` with
`npu_arch` read from tuner/data/socs.yaml (the `__NPU_ARCH__` code: 2201 for Ascend910B*/910_93*, 2002 for 310P,
3510 for 950; ascendc.md §2 from asc-devkit SIMD-BuiltIn关键字.md; ascend_hw.md from the platform INI). `dav-2201`
is the value every CANN 9 build example uses; `dav-2002` and `dav-3510` follow the same rule and have not been seen
in an example.

Builds are cached under `<cache root>/npu/<key>`, key = (source hash, kernel, SoC, toolkit version, recipe);
one file lock per key makes parallel builds of the same key compile once. Nothing here has run against a
real toolkit: the tests use stand-in `cmake` and `bisheng` scripts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tuner.backends.npu.detect import Detection
from tuner.backends.npu.launcher import kernel_params, launcher_source
from tuner.backends.npu.package import LAUNCHER_FILE, cmake_lists, npu_arch
from tuner.data.socs import Soc, get_soc
from tuner.errors import CompileError, ToolchainError
from tuner.filelock import file_lock
from tuner.paths import cache_root

# Bumped whenever the commands or the generated CMakeLists change, so old cached artefacts are not reused.
RECIPE_VERSION = "3"
BUILD_TIMEOUT_S = 600.0
DONE_FILE = "build.json"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ERROR_LINE = re.compile(r"\berror\b", re.IGNORECASE)


@dataclass(frozen=True)
class NpuToolchain:
    """The CANN toolkit a build uses: its home (ASCEND_CANN_PACKAGE_PATH), version and bisheng."""

    home: Path
    version: str
    major: int
    compiler: str | None = None

    @classmethod
    def from_detection(cls, det: Detection) -> NpuToolchain:
        if not det.home or not det.cann_version or det.cann_major is None:
            raise ToolchainError("no usable CANN toolkit was detected (see `tuner doctor`); "
                                 "source the toolkit's set_env.sh, which sets ASCEND_HOME_PATH")
        return cls(Path(det.home), det.cann_version, det.cann_major, det.compiler)

    @property
    def uses_cmake(self) -> bool:
        """CANN 8.x and older build through ascendc.cmake; CANN 9 and later call bisheng directly."""
        return self.major < 9

    def bisheng(self) -> str:
        if self.compiler:
            return self.compiler
        for candidate in (self.home / "bin" / "bisheng", self.home / "compiler" / "ccec_compiler" / "bin" / "bisheng"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
        return "bisheng"


def source_name(toolchain: NpuToolchain) -> str:
    """The file name the kernel source gets in the work directory (`.asc` is CANN 9's Ascend C suffix)."""
    return "kernel.cpp" if toolchain.uses_cmake else "kernel.asc"


def artefact_name(toolchain: NpuToolchain) -> str:
    return "libtuner_launch.so" if toolchain.uses_cmake else "libtuner_kernel.so"


def write_sources(text: str, kernel: str, toolchain: NpuToolchain, workdir: Path) -> Path:
    """Write the kernel and its launcher into `workdir` as the recipe wants them; returns the kernel file.
    CompileError when the source has no launchable entry `kernel`."""
    nparams = len(kernel_params(text, kernel))
    src = workdir / source_name(toolchain)
    if toolchain.uses_cmake:
        src.write_text(text)
        (workdir / LAUNCHER_FILE).write_text(launcher_source(kernel, nparams, same_file=False))
    else:
        src.write_text(text + launcher_source(kernel, nparams, same_file=True))
    return src


def build_commands(source: Path, kernel: str, soc: Soc, toolchain: NpuToolchain, workdir: Path) -> list[list[str]]:
    """The commands that compile `source` (written by `write_sources`) into `workdir/artefact_name(toolchain)`
    or, for CMake, a file of that name under `workdir/build`.

    For CANN 8.x this also writes `workdir/CMakeLists.txt`."""
    if not _IDENT.match(kernel):
        raise ValueError(f"kernel name {kernel!r} is not a C identifier")
    if toolchain.uses_cmake:
        (workdir / "CMakeLists.txt").write_text(cmake_lists(soc.name, worker=True, kernel_file=source.name))
        build_dir = workdir / "build"
        return [
            ["cmake", "-S", str(workdir), "-B", str(build_dir), f"-DSOC_VERSION={soc.name}",
             f"-DASCEND_CANN_PACKAGE_PATH={toolchain.home}", "-DRUN_MODE=npu", "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", str(build_dir), "-j"],
        ]
    return [[toolchain.bisheng(), "-shared", str(source), "-o", str(workdir / artefact_name(toolchain)), "-fPIC",
             f"--npu-arch={npu_arch(soc)}", "-O2"]]


def _first_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return next((line for line in lines if _ERROR_LINE.search(line)), lines[-1] if lines else "no output")


class NpuBuilder:
    """Compiles kernel sources for one SoC with one toolkit, at most once per cache key."""

    def __init__(self, toolchain: NpuToolchain, soc: Soc | str, root: Path | None = None,
                 timeout_s: float = BUILD_TIMEOUT_S) -> None:
        self.toolchain = toolchain
        self.soc = get_soc(soc) if isinstance(soc, str) else soc
        self.root = root or cache_root() / "npu"
        self.timeout_s = timeout_s

    def key(self, source_text: str, kernel: str) -> str:
        parts = (hashlib.sha256(source_text.encode()).hexdigest(), kernel, self.soc.name, self.toolchain.version,
                 str(self.toolchain.home), RECIPE_VERSION)
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]

    def build(self, source: Path, kernel: str) -> Path:
        """The compiled artefact of `source`; raises CompileError with the compiler's output when it fails."""
        text = Path(source).read_text()
        key = self.key(text, kernel)
        workdir = self.root / key
        done = workdir / DONE_FILE
        with file_lock(self.root / f"{key}.lock"):
            if done.is_file():
                artefact = workdir / json.loads(done.read_text())["artefact"]
                if artefact.is_file():
                    return artefact
            if workdir.exists():  # a build that failed or was killed half-way
                shutil.rmtree(workdir)
            workdir.mkdir(parents=True)
            src = write_sources(text, kernel, self.toolchain, workdir)
            log = []
            for argv in build_commands(src, kernel, self.soc, self.toolchain, workdir):
                log.append(self._run(argv, workdir, kernel))
            (workdir / "build.log").write_text("\n".join(log))
            artefact = self._find_artefact(workdir)
            if artefact is None:
                raise CompileError(f"{kernel}: the build for {self.soc.name} succeeded but produced no "
                                   f"{artefact_name(self.toolchain)}", "\n".join(log))
            done.write_text(json.dumps({"artefact": str(artefact.relative_to(workdir)), "kernel": kernel,
                                        "soc": self.soc.name, "cann_version": self.toolchain.version}))
            return artefact

    def _find_artefact(self, workdir: Path) -> Path | None:
        name = artefact_name(self.toolchain)
        if (workdir / name).is_file():
            return workdir / name
        return next(iter(sorted((workdir / "build").rglob(name))), None) if (workdir / "build").is_dir() else None

    def _run(self, argv: list[str], workdir: Path, kernel: str) -> str:
        env = dict(os.environ)
        env.setdefault("ASCEND_HOME_PATH", str(self.toolchain.home))
        shown = " ".join(argv)
        where = f"{kernel} for {self.soc.name} (CANN {self.toolchain.version})"
        try:
            proc = subprocess.run(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=self.timeout_s, check=False)
        except FileNotFoundError as exc:
            raise ToolchainError(f"cannot build {where}: `{argv[0]}` not found ({exc.strerror})") from exc
        except subprocess.TimeoutExpired as exc:
            out = exc.output.decode(errors="replace") if isinstance(exc.output, bytes) else (exc.output or "")
            raise CompileError(f"{where}: `{argv[0]}` did not finish in {self.timeout_s:.0f} s",
                               f"$ {shown}\n{out}") from exc
        output = f"$ {shown}\n{proc.stdout}"
        if proc.returncode != 0:
            raise CompileError(f"{where} failed to compile: {_first_error(proc.stdout)}", output)
        return output
