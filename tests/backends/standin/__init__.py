"""A whole stand-in Ascend machine for tests: a CANN toolkit tree, `bisheng`/`cmake`/`npu-smi`/`msprof`
executables on PATH (tools.py) and an importable stand-in torch_npu (npu_runtime.py)."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
PYMODS = HERE / "pymods"


@dataclass
class Machine:
    home: Path
    bin: Path
    log: Path
    env: dict[str, str]


def _wrapper(path: Path, tool: str) -> None:
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(HERE.parent)!r})\n"
                    f"from standin.tools import TOOLS\nsys.exit(TOOLS[{tool!r}](sys.argv[1:]))\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def machine(root: Path, *, cann: str = "9.0.0", soc: str = "Ascend910B2", count: int = 1) -> Machine:
    """Lay out the stand-in machine under `root`; `env` is the environment a process on it runs with."""
    home = root / f"cann-{cann}"
    cmake_dir = home / "compiler" / "tikcpp" / "ascendc_kernel_cmake"
    cmake_dir.mkdir(parents=True)
    (cmake_dir / "ascendc.cmake").write_text("# stand-in\n")
    (home / "version.cfg").write_text(f"toolkit_running_version=[7.0.0.1.1:{cann}]\n")
    bindir = root / "bin"
    bindir.mkdir()
    for tool in ("bisheng", "cmake", "npu-smi"):
        _wrapper(bindir / tool, tool)
    log = root / "tools.log"
    log.touch()
    env = dict(os.environ)
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", ASCEND_HOME_PATH=str(home), TOOL_LOG=str(log),
               PYTHONPATH=os.pathsep.join(p for p in (str(PYMODS), env.get("PYTHONPATH", "")) if p),
               STANDIN_NPU_NAME=soc, STANDIN_NPU_COUNT=str(count), STANDIN_NPU_LOG=str(root / "npu.log"))
    env.pop("ASCEND_RT_VISIBLE_DEVICES", None)
    env.pop("ASCEND_TOOLKIT_HOME", None)
    return Machine(home, bindir, log, env)


def enter(root: Path, monkeypatch: pytest.MonkeyPatch, **options: str | int) -> Machine:
    """Lay out a machine under `root` and put this test process on it (its device workers inherit the
    environment) until `monkeypatch` undoes it."""
    m = machine(root, **options)  # type: ignore[arg-type]
    for key in ("PATH", "PYTHONPATH", "ASCEND_HOME_PATH", "TOOL_LOG", "STANDIN_NPU_NAME", "STANDIN_NPU_COUNT",
                "STANDIN_NPU_LOG"):
        monkeypatch.setenv(key, m.env[key])
    return m


def import_module(name: str) -> ModuleType | SimpleNamespace:
    """The imports `detect` makes, answered as on the machine: torch with an `npu` namespace, and torch_npu."""
    import torch

    from . import npu_runtime

    if name == "torch":
        return SimpleNamespace(__version__=torch.__version__, npu=npu_runtime.namespace())
    if name == "torch_npu":
        return npu_runtime
    raise ModuleNotFoundError(name)
