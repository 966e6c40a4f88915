"""CANN packaging: the kernel-launch projects of a kernel, for the NPU backend's own builds and for an export.

One arch table (`npu_arch`: bisheng's `--npu-arch` from tuner/data/socs.yaml) and one CMake writer
(`cmake_lists`), both kinds of project from templates/export/CMakeLists.txt.j2: the backend's CANN 8 build of the
shared `tuner_launch` library its device worker loads (whose launcher, launcher.py's, is
templates/export/tuner_launch.cpp.j2), and the export's standalone program (`launch_project`: `launcher.cpp`,
which includes the kernel, and its `CMakeLists.txt`). The templates are the project's own, rendered by a plain
Jinja environment that refuses an undefined name (`render_template`, which the export's other files use too).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from tuner.data.socs import Soc, UnknownSocError, get_soc

__all__ = ["EXPORT_TEMPLATES", "LaunchArg", "cmake_lists", "launch_project", "npu_arch", "render_template"]

EXPORT_TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "export"
KERNEL_FILE = "kernel.cpp"
LAUNCHER_FILE = "launcher.cpp"


@dataclass(frozen=True)
class LaunchArg:
    """One kernel parameter as a launch project passes it: a GM tensor (`in` / `out`: the operator tensor it
    carries, its shape, dtype, C type and element size), the tiling struct's buffer (`tiling`) or a GM scratch
    buffer of `nbytes` zeros (`workspace`)."""

    name: str
    kind: str
    tensor: str = ""
    shape: tuple[int, ...] = ()
    dtype: str = ""
    ctype: str = ""
    itemsize: int = 0
    nbytes: int = 0

    @property
    def shape_text(self) -> str:
        return "x".join(str(d) for d in self.shape)



def npu_arch(soc: Soc) -> str:
    """bisheng's `--npu-arch` for `soc`: `dav-` and its NpuArch code from socs.yaml."""
    return f"dav-{soc.npu_arch}"


@cache
def _environment() -> jinja2.Environment:
    """The project's own templates, trusted: no sandbox, but no undefined name either; `sh` quotes for a shell."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(EXPORT_TEMPLATES), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    env.filters["sh"] = shlex.quote
    return env


def render_template(name: str, **context: Any) -> str:
    """templates/export/`name` rendered with `context`; a name the template uses and `context` lacks is an error."""
    return _environment().get_template(name).render(**context)


def cmake_lists(soc: str, *, worker: bool, kernel_file: str = KERNEL_FILE, launcher_file: str = LAUNCHER_FILE) -> str:
    """The CMakeLists.txt of a kernel-launch project for `soc`. `worker`: the backend's CANN 8 build (a static
    kernel library on ascendc.cmake, the shared tuner_launch library over it); otherwise the export's program
    (find_package(ASC) for RUN_MODE=npu, tikicpulib for RUN_MODE=cpu), whose `--npu-arch` default comes from the
    SoC table, with a note where `soc` is not in it."""
    try:
        arch = npu_arch(get_soc(soc))
    except UnknownSocError:
        arch = ""
    return render_template("CMakeLists.txt.j2", worker=worker, soc=soc, arch=arch, kernel_file=kernel_file,
                           launcher_file=launcher_file)


def launch_project(*, kernel: str, block_dim: int, soc: str, arguments: tuple[LaunchArg, ...],
                   tiling: tuple[tuple[str, int], ...], tiling_struct: str) -> dict[str, str]:
    """The export's kernel-launch project, file name -> text: `launcher.cpp`, a host program that reads each input
    from DIR/input/<tensor>.bin, launches `kernel` on `block_dim` blocks with the tiling compiled in (ACL and
    `<<<>>>` on the NPU, tikicpulib's ICPU_RUN_KF under ASCENDC_CPU_DEBUG) and writes each output to
    DIR/output/<tensor>.bin; and the `CMakeLists.txt` that builds it."""
    launcher = render_template("launcher.cpp.j2", kernel=kernel, kernel_file=KERNEL_FILE, block_dim=block_dim,
                               arguments=arguments, tiling=tiling, tiling_struct=tiling_struct)
    return {LAUNCHER_FILE: launcher, "CMakeLists.txt": cmake_lists(soc, worker=False)}
