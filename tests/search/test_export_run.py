"""The exported run.sh: the CANN samples' `-r cpu|npu|tuner-sim -v SOC_VERSION` modes. tuner-sim runs the kernel on
the simulator; cpu/npu are checked against a missing toolkit and a stand-in cmake (no CANN here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .test_export import BLOCK_DIM, COLS, ROWS, SCALE, SOC, env, export

FAKE_CMAKE = """#!/usr/bin/env bash
# Stand-in cmake: records its argv, and on --build leaves an executable that records its own.
printf '%s\\n' "$*" >> "$CMAKE_LOG"
if [ "$1" = -S ]; then mkdir -p "$4"; fi  # configure: -S SRC -B BUILD ...
if [ "$1" = --build ]; then
  printf '#!/usr/bin/env bash\\necho "tuned_kernel $*" >> "$CMAKE_LOG"\\nexit 0\\n' > "$2/tuned_kernel"
  chmod +x "$2/tuned_kernel"
fi
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export(tmp_path_factory.mktemp("export_run") / "best")


def no_cann_env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in env().items() if k not in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")}
    e.update(extra)
    return e


def run(exported: Path, *argv: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exported / "run.sh"), *argv], cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=120)


def test_run_sh_is_written_and_documented(exported):
    assert os.access(exported / "run.sh", os.X_OK)
    readme = (exported / "README.md").read_text()
    for mode in ("-r tuner-sim", "-r cpu", "-r npu"):
        assert f"`{mode}`" in readme
    assert "-DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH" in readme
    assert f"`-v` defaults to\n`{SOC}`" in readme


def test_tuner_sim_mode_runs_the_kernel(exported, tmp_path):
    x = np.random.default_rng(5).standard_normal((ROWS, COLS)).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    p = run(exported, "-r", "tuner-sim", "in.npy", "--json", "report.json", cwd=tmp_path,
            environ=dict(env(), OUT_DIR=str(tmp_path / "out")))
    assert p.returncode == 0, p.stdout + p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), x * np.float32(SCALE))
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["faults"] == [] and report["kernel"] == "scale_rows" and report["block_dim"] == BLOCK_DIM
    assert report["soc"] == SOC


def test_npu_mode_without_cann_exits_2_with_one_line(exported, tmp_path):
    p = run(exported, "-r", "npu", cwd=tmp_path, environ=no_cann_env())
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the CANN toolkit" in lines[0] and "ASCEND_HOME_PATH" in lines[0]
    assert "not set" in lines[0]
    p = run(exported, "-r", "cpu", cwd=tmp_path, environ=no_cann_env(ASCEND_HOME_PATH=str(tmp_path / "missing")))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "not a directory" in p.stderr
    assert not (exported / "build").exists()


def test_cpu_mode_builds_with_cmake_and_runs_the_program(exported, tmp_path):
    bin_dir, cann, log = tmp_path / "bin", tmp_path / "cann", tmp_path / "cmake.log"
    bin_dir.mkdir()
    cann.mkdir()
    (bin_dir / "cmake").write_text(FAKE_CMAKE)
    (bin_dir / "cmake").chmod(0o755)
    build = tmp_path / "build"
    environ = no_cann_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", ASCEND_HOME_PATH=str(cann),
                          CMAKE_LOG=str(log), BUILD_DIR=str(build))
    p = run(exported, "-r", "cpu", "-v", "Ascend910B2", "data", cwd=tmp_path, environ=environ)
    assert p.returncode == 0, p.stdout + p.stderr
    configure, build_line, program = log.read_text().splitlines()
    assert configure.split() == ["-S", str(exported), "-B", str(build), "-DRUN_MODE=cpu", "-DSOC_VERSION=Ascend910B2",
                                 f"-DASCEND_CANN_PACKAGE_PATH={cann}"]
    assert build_line.split() == ["--build", str(build), "-j"]
    assert program == "tuned_kernel data"

    log.unlink()  # npu mode, the toolkit named by ASCEND_TOOLKIT_HOME, the default SoC
    environ.pop("ASCEND_HOME_PATH")
    p = run(exported, "-r", "npu", cwd=tmp_path, environ=dict(environ, ASCEND_TOOLKIT_HOME=str(cann)))
    assert p.returncode == 0, p.stdout + p.stderr
    configure = log.read_text().splitlines()[0].split()
    assert "-DRUN_MODE=npu" in configure and f"-DSOC_VERSION={SOC}" in configure
    assert f"-DASCEND_CANN_PACKAGE_PATH={cann}" in configure


@pytest.mark.parametrize("argv", [("-r", "sim"), ("-r", "gpu"), ()])
def test_unknown_or_missing_mode_exits_2(exported, tmp_path, argv):
    p = run(exported, *argv, cwd=tmp_path, environ=env())
    assert p.returncode == 2
    assert "expected cpu, npu or tuner-sim" in p.stderr or "no run mode" in p.stderr


def test_bad_soc_name_is_refused(tmp_path):
    from tuner.search.export import ExportError

    with pytest.raises(ExportError, match="is not a SoC name"):
        export(tmp_path / "bad", soc="Ascend$(id)")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
