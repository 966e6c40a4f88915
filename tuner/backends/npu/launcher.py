"""The host side of a kernel on the NPU: one C function, `tuner_launch`, that the device worker calls through
ctypes with torch_npu's current stream and the tensors' device addresses.

    int tuner_launch(uint32_t block_dim, void* stream, void* const* args, const uint64_t* sizes, uint32_t nargs)

On the device it is the kernel-launch samples' launch: `ACLRT_LAUNCH_KERNEL(<kernel>)(block_dim, stream, ...)`
from the header ascendc.cmake generates (CANN 8.x), or `<kernel><<<block_dim, nullptr, stream>>>(...)` in the
same .asc file (CANN 9.x). Built with ASCENDC_CPU_DEBUG — CANN's CPU debug mode, which the samples' `cpu` run
mode and the tuner's simulator compile under — it is the samples' CPU branch instead: each argument copied into
GmAlloc'ed memory, `ICPU_RUN_KF`, and copied back; `sizes` exist for that branch (the device ignores them).
"""

from __future__ import annotations

import re

from tuner.backends.npu.package import render_template
from tuner.errors import CompileError

LAUNCH_SYMBOL = "tuner_launch"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def kernel_params(source: str, kernel: str) -> list[str]:
    """The parameter names of the entry `kernel` in `source` (`extern "C" __global__ __aicore__ void kernel(...)`);
    CompileError when there is no such entry or a parameter is not a GM address."""
    if not _IDENT.match(kernel):
        raise ValueError(f"kernel name {kernel!r} is not a C identifier")
    pattern = rf'extern\s+"C"\s+__global__\s+__aicore__\s+void\s+{kernel}\s*\(([^)]*)\)'
    m = re.search(pattern, source)
    if m is None:
        raise CompileError(f"no entry `extern \"C\" __global__ __aicore__ void {kernel}(...)` in the source",
                           f"searched for /{pattern}/")
    params = []
    for raw in (p.strip() for p in m.group(1).split(",") if p.strip()):
        parts = raw.replace("*", " * ").split()
        if parts[0] != "GM_ADDR" or len(parts) != 2:
            raise CompileError(f"{kernel}: parameter `{raw}` is not `GM_ADDR name` (the launcher passes device "
                               "addresses only)", raw)
        params.append(parts[1])
    return params


def launcher_source(kernel: str, nparams: int, *, same_file: bool) -> str:
    """The launcher for an entry with `nparams` GM_ADDR parameters (templates/export/tuner_launch.cpp.j2).
    `same_file`: appended to the kernel's own source (CANN 9's `<<<>>>` launch); otherwise a host file of its own
    that includes the launch header the CANN 8 CMake module generates."""
    return render_template("tuner_launch.cpp.j2", kernel=kernel, nparams=nparams, same_file=same_file,
                           symbol=LAUNCH_SYMBOL)
