"""Exporting a tuned kernel: the source, its tiling, how to call it, and how to run it in the simulator or build it
with CANN, in one directory a user can take away (`runs/<run>/best/`).

Everything is generated from the kernel's argument description (the search space's `args`), never written by hand
per operator: `kernel.json` says how to call the kernel, `run_sim.sh` re-runs it with `tuner simulate`,
`launcher.cpp` + `CMakeLists.txt` are a kernel-launch project for the CANN toolkit, which has not been built here, and
`run.sh -r cpu|npu|tuner-sim [-v SOC_VERSION]` is the CANN samples' entry point to all three.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuner.space.render import C_TYPES
from tuner.space.spaces import ArgSpec

# Element sizes of the tuner's dtypes (C types in tuner.space.render.C_TYPES).
ELEMENT_BYTES = {"float16": 2, "float32": 4, "bfloat16": 2}
TILING_FILE = "tiling.bin"
SIM_BACKENDS = ("sim", "simulator")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ExportError(ValueError):
    """Raised when what the search loop hands over cannot describe a callable kernel."""


@dataclass(frozen=True)
class _Tensor:
    """A GM tensor argument as the launcher and run_sim.sh see it."""

    name: str  # kernel parameter name
    kind: str  # "in" or "out"
    tensor: str  # operator input/output it carries
    shape: tuple[int, ...]
    ident: str  # C identifier stem for the launcher's variables

    @property
    def shape_text(self) -> str:
        return "x".join(str(d) for d in self.shape)

    def nbytes(self, dtype: str) -> int:
        return math.prod(self.shape) * ELEMENT_BYTES[dtype]


def tiling_bytes(tiling: tuple[tuple[str, int], ...]) -> bytes:
    """The tiling struct as the kernel reads it from GM: its uint32 fields, little-endian, in order."""
    for name, value in tiling:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32:
            raise ExportError(f"tiling field {name}={value!r} is not a uint32")
    return struct.pack(f"<{len(tiling)}I", *(v for _, v in tiling))


def _time_source(backend: str, soc: str, time_source: str) -> str:
    """The label of time_us: a simulator's time is never called measured."""
    if backend.lower() in SIM_BACKENDS and not time_source.lower().startswith("simulated"):
        return f"simulated, {soc} model"
    return time_source


def _npu_arch(soc: str) -> str:
    """`dav-<arch>` for bisheng's --npu-arch, from the SoC table; empty when the SoC is not in it."""
    from tuner.data.socs import UnknownSocError, get_soc

    try:
        return f"dav-{get_soc(soc).npu_arch}"
    except UnknownSocError:
        return ""


def _jsonable(value: Any) -> Any:
    """numpy scalars and tuples in knob values as plain JSON."""
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _tensors(args: tuple[ArgSpec, ...], shape: tuple[int, ...], output_shapes: Mapping[str, tuple[int, ...]],
             input_shapes: Mapping[str, tuple[int, ...]] | None) -> list[_Tensor | None]:
    """Each argument as a tensor (None for the tiling), checked: known kinds, distinct names, known shapes."""
    out: list[_Tensor | None] = []
    seen: set[str] = set()
    for i, arg in enumerate(args):
        if arg.kind not in ("in", "out", "tiling"):
            raise ExportError(f"argument {i + 1} ('{arg.name}') has kind '{arg.kind}'; expected in, out or tiling")
        if not _IDENT.match(arg.name):
            raise ExportError(f"argument {i + 1}: '{arg.name}' is not a C identifier")
        if arg.name in seen:
            raise ExportError(f"argument name '{arg.name}' appears twice")
        seen.add(arg.name)
        if arg.kind == "tiling":
            out.append(None)
            continue
        tensor = arg.tensor or arg.name
        if not _IDENT.match(tensor):  # it names files: input/<tensor>.bin, <tensor>.npy
            raise ExportError(f"argument '{arg.name}' carries '{tensor}', which is not an identifier")
        if arg.kind == "out":
            if tensor not in output_shapes:
                raise ExportError(f"output argument '{arg.name}' carries '{tensor}', which has no output shape "
                                  f"(known: {', '.join(sorted(output_shapes)) or 'none'})")
            dims = output_shapes[tensor]
        else:
            dims = (input_shapes or {}).get(tensor, shape)
        dims = tuple(int(d) for d in dims)
        if not dims or any(d < 1 for d in dims):
            raise ExportError(f"argument '{arg.name}': shape {dims} is empty or has a dimension below 1")
        out.append(_Tensor(arg.name, arg.kind, tensor, dims, arg.name))
    if not any(t is not None and t.kind == "out" for t in out):
        raise ExportError("the kernel has no output argument")
    return out


def export_kernel(dest: Path, *, source: str, kernel: str, args: tuple[ArgSpec, ...],
                  tiling: tuple[tuple[str, int], ...], tiling_struct: str, block_dim: int, op: str,
                  shape: tuple[int, ...], output_shapes: dict[str, tuple[int, ...]], dtype: str, soc: str,
                  backend: str, variant: str, params: dict, time_us: float | None, time_source: str, run: str,
                  study: str, trial: int, input_shapes: dict[str, tuple[int, ...]] | None = None,
                  untrusted: bool = False) -> Path:
    """Write the tuned kernel to `dest` (created; files overwritten) and return `dest`.

    Inputs have the run's `shape` unless `input_shapes` names another for an operator input; every tensor has
    `dtype`. The tiling holds the shape, so the exported kernel serves inputs of exactly these shapes.
    `untrusted`: an LLM wrote some of it; kernel.json says so and run_sim.sh runs it in the sandbox.
    """
    if dtype not in C_TYPES or dtype not in ELEMENT_BYTES:
        raise ExportError(f"dtype '{dtype}' has no C type (known: {', '.join(sorted(C_TYPES))})")
    if not _IDENT.match(kernel):
        raise ExportError(f"kernel entry '{kernel}' is not a C identifier")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", soc):  # it is written into run.sh and run_sim.sh
        raise ExportError(f"SoC '{soc}' is not a SoC name (letters, digits, '_', '.', '-')")
    if not 1 <= int(block_dim) <= 65535:
        raise ExportError(f"block_dim {block_dim} is outside [1, 65535]")
    tensors = _tensors(tuple(args), tuple(shape), output_shapes, input_shapes)
    packed = tiling_bytes(tuple(tiling))
    if any(t is None for t in tensors) and not packed:
        raise ExportError("the kernel takes a tiling buffer but the tiling struct has no fields")
    time_label = _time_source(backend, soc, time_source)

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "kernel.cpp").write_text(source)
    (dest / TILING_FILE).write_bytes(packed)
    _write_json(dest / "tiling.json", {"struct": tiling_struct, "fields": {k: v for k, v in tiling}})
    description = {
        "entry": kernel, "block_dim": int(block_dim), "defines": [], "soc": soc, "op": op,
        "shape": [int(d) for d in shape], "dtype": dtype, "variant": variant, "params": _jsonable(dict(params)),
        "time_us": time_us, "time_source": time_label, "run": run, "study": study, "trial": int(trial),
        "arguments": [_argument(arg, t, dtype) for arg, t in zip(args, tensors, strict=True)],
        "untrusted": untrusted,
    }
    _write_json(dest / "kernel.json", description)
    script = dest / "run_sim.sh"
    script.write_text(_run_sim_script(kernel, int(block_dim), soc, dtype, args, tensors, untrusted))
    script.chmod(0o755)
    script = dest / "run.sh"
    script.write_text(_run_script(kernel, soc))
    script.chmod(0o755)
    (dest / "launcher.cpp").write_text(_launcher_source(kernel, int(block_dim), dtype, tiling_struct, tuple(tiling),
                                                        args, tensors))
    (dest / "CMakeLists.txt").write_text(_cmake_lists(soc, _npu_arch(soc)))
    (dest / "README.md").write_text(_readme(description, tensors, tuple(tiling), tiling_struct, backend))
    return dest


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2) + "\n")


def _argument(arg: ArgSpec, tensor: _Tensor | None, dtype: str) -> dict[str, Any]:
    """One entry of kernel.json's `arguments`: a tensor (in/out) or the tiling buffer (bytes from a file)."""
    if tensor is None:
        return {"name": arg.name, "kind": "bytes", "file": TILING_FILE}
    return {"name": arg.name, "kind": tensor.kind, "dtype": dtype, "shape": list(tensor.shape),
            "tensor": tensor.tensor}


# ---- run_sim.sh ---------------------------------------------------------------------------------------------------

_SHAPE_CHECK = r'''import sys
try:
    import numpy as np
except ImportError:
    sys.exit(0)  # no numpy here: tuner simulate still reads the files
path, want, itemsize = sys.argv[1], tuple(int(d) for d in sys.argv[2].split("x")), int(sys.argv[3])
try:
    a = np.load(path, mmap_mode="r", allow_pickle=False)
except Exception as exc:  # noqa: BLE001 - any unreadable file is the same usage error
    sys.exit(f"run_sim.sh: {path}: not a readable .npy file ({exc})")
if tuple(a.shape) != want or a.dtype.itemsize != itemsize:
    sys.exit(f"run_sim.sh: {path} is {'x'.join(map(str, a.shape))} {a.dtype}; this kernel's tiling was computed "
             f"for {sys.argv[2]} with {itemsize}-byte elements (re-tune for another shape)")
'''


def _run_sim_script(kernel: str, block_dim: int, soc: str, dtype: str, args: tuple[ArgSpec, ...],
                    tensors: list[_Tensor | None], untrusted: bool) -> str:
    inputs = [t for t in tensors if t is not None and t.kind == "in"]
    outputs = [t for t in tensors if t is not None and t.kind == "out"]
    usage_inputs = " ".join(f"[{t.tensor.upper()}.npy]" for t in inputs)
    lines = [
        "#!/usr/bin/env bash",
        f"# Re-runs the tuned kernel '{kernel}' on the tuner's CPU simulator (generated by tuner; see README.md).",
        "#",
        f"# Usage: ./run_sim.sh {usage_inputs} [tuner simulate options, e.g. --json report.json]".replace("  ", " "),
    ]
    for t in inputs:
        lines.append(f"#   {t.tensor.upper()}.npy  input '{t.tensor}': {dtype} {t.shape_text} "
                     f"(default: ./{t.tensor}.npy)")
    for t in outputs:
        lines.append(f"# Writes $OUT_DIR/{t.tensor}.npy ({dtype} {t.shape_text}); OUT_DIR defaults to the current "
                     "directory.")
    lines += [
        "# The tiling (tiling.bin) holds the shape it was tuned for, so inputs must have exactly the shapes above.",
        "# TUNER picks the command (default: tuner; e.g. TUNER='python -m tuner.cli'); TUNER_SOC_VERSION the SoC "
        f"model (default: {soc}).",
        "set -euo pipefail",
        'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        'read -r -a TUNER_CMD <<< "${TUNER:-tuner}"',
        'OUT_DIR="${OUT_DIR:-.}"',
        'mkdir -p "$OUT_DIR"',
        "",
        "# The python next to the tuner (a venv's), used only to check the inputs' shapes.",
        'if [ -n "${PYTHON:-}" ]; then PY="$PYTHON"',
        'elif [[ "$(basename "${TUNER_CMD[0]}")" == python* ]]; then PY="${TUNER_CMD[0]}"',
        'elif command -v "${TUNER_CMD[0]}" >/dev/null && [ -x "$(dirname "$(command -v "${TUNER_CMD[0]}")")/python" ]; '
        'then PY="$(dirname "$(command -v "${TUNER_CMD[0]}")")/python"',
        "else PY=python3; fi",
        "check_input() {",
        "  command -v \"$PY\" >/dev/null || return 0",
        "  \"$PY\" - \"$@\" <<'PYEOF' || exit 2",
        _SHAPE_CHECK.rstrip("\n"),
        "PYEOF",
        "}",
        "",
    ]
    for t in inputs:
        var = f"IN_{t.ident.upper()}"
        lines.append(f'{var}="{t.tensor}.npy"')
        lines.append(f'if [ $# -gt 0 ] && [[ "$1" != -* ]]; then {var}="$1"; shift; fi')
        lines.append(f'check_input "${var}" {t.shape_text} {ELEMENT_BYTES[dtype]}')
    lines.append("")
    command = ['exec "${TUNER_CMD[@]}" simulate "$HERE/kernel.cpp"', f"--kernel {shlex.quote(kernel)}",
               f'--soc "${{TUNER_SOC_VERSION:-{soc}}}"', f"--block-dim {block_dim}"]
    if untrusted:  # an LLM wrote some of it: the sandbox it ran in during the search
        command.append("--sandbox")
    for t in tensors:
        if t is None:
            command.append(f'--arg "bytes=$HERE/{TILING_FILE}"')
        elif t.kind == "in":
            command.append(f'--arg "in=$IN_{t.ident.upper()}"')
        else:
            command.append(f'--arg "out=$OUT_DIR/{t.tensor}.npy:{dtype}:{t.shape_text}"')
    command.append('"$@"')
    lines.append(" \\\n    ".join(command))
    return "\n".join(lines) + "\n"


# ---- run.sh -------------------------------------------------------------------------------------------------------

def _run_script(kernel: str, soc: str) -> str:
    """The CANN kernel-launch samples' `run.sh -r <mode> -v <SOC_VERSION>`: cpu / npu build this project with CMake
    (RUN_MODE, SOC_VERSION, ASCEND_CANN_PACKAGE_PATH) and run build/tuned_kernel; tuner-sim hands over to
    run_sim.sh, which holds the simulator logic."""
    return f"""#!/usr/bin/env bash
# Builds and runs the tuned kernel '{kernel}' (generated by tuner; see README.md), like the CANN kernel-launch
# samples' run.sh.
#
# Usage: ./run.sh -r <cpu|npu|tuner-sim> [-v SOC_VERSION] [ARGS...]
#   -r cpu        CANN CPU debug: cmake -DRUN_MODE=cpu (host compiler + tikicpulib), then ./build/tuned_kernel ARGS
#   -r npu        NPU: cmake -DRUN_MODE=npu (bisheng), then ./build/tuned_kernel ARGS (needs an NPU)
#   -r tuner-sim  the tuner's CPU simulator: ./run_sim.sh ARGS (no CANN needed)
#   -v SOC_VERSION  default: {soc}, the SoC the kernel was tuned for
# cpu and npu need the CANN toolkit (source its set_env.sh: it sets ASCEND_HOME_PATH); ARGS go to the program
# (its data directory, default .). BUILD_DIR (default: build/ here) and CMAKE_ARGS (extra cmake options) may be set.
set -euo pipefail
HERE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
MODE=""
SOC={shlex.quote(soc)}
usage() {{ echo "usage: ./run.sh -r <cpu|npu|tuner-sim> [-v SOC_VERSION] [ARGS...]" >&2; }}
while [ $# -gt 0 ]; do
  case "$1" in
    -r|--run-mode) [ $# -ge 2 ] || {{ usage; exit 2; }}; MODE="$2"; shift 2 ;;
    -v|--soc-version) [ $# -ge 2 ] || {{ usage; exit 2; }}; SOC="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done

case "$MODE" in
  tuner-sim)
    TUNER_SOC_VERSION="$SOC" exec "$HERE/run_sim.sh" "$@" ;;
  cpu|npu) ;;
  "") echo "run.sh: no run mode: pass -r cpu, -r npu or -r tuner-sim" >&2; exit 2 ;;
  *) echo "run.sh: unknown run mode '$MODE': expected cpu, npu or tuner-sim (CANN's sim mode is not supported)" >&2
     exit 2 ;;
esac

CANN="${{ASCEND_HOME_PATH:-${{ASCEND_TOOLKIT_HOME:-}}}}"
if [ -z "$CANN" ] || [ ! -d "$CANN" ]; then
  WHY="${{CANN:+not a directory: }}${{CANN:-not set}}"
  echo "run.sh: -r $MODE needs the CANN toolkit: ASCEND_HOME_PATH (or ASCEND_TOOLKIT_HOME) is $WHY;" \\
    "source <CANN install>/set_env.sh first, or use -r tuner-sim" >&2
  exit 2
fi
command -v cmake >/dev/null || {{ echo "run.sh: -r $MODE needs cmake on PATH" >&2; exit 2; }}

BUILD_DIR="${{BUILD_DIR:-$HERE/build}}"
# A build directory configured for another run mode or SoC is cleared, as the samples do (CMake caches both).
if [ -f "$BUILD_DIR/CMakeCache.txt" ] && ! {{ grep -qx "RUN_MODE:STRING=$MODE" "$BUILD_DIR/CMakeCache.txt" \\
    && grep -qx "SOC_VERSION:STRING=$SOC" "$BUILD_DIR/CMakeCache.txt"; }}; then
  rm -rf "$BUILD_DIR"
fi
read -r -a EXTRA <<< "${{CMAKE_ARGS:-}}"
cmake -S "$HERE" -B "$BUILD_DIR" -DRUN_MODE="$MODE" -DSOC_VERSION="$SOC" -DASCEND_CANN_PACKAGE_PATH="$CANN" \\
    ${{EXTRA[@]+"${{EXTRA[@]}}"}}
cmake --build "$BUILD_DIR" -j
if [ "$MODE" = cpu ]; then
  TIK="$CANN/tools/tikicpulib/lib"
  export LD_LIBRARY_PATH="$CANN/lib64:$TIK:$TIK/$SOC${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
fi
exec "$BUILD_DIR/tuned_kernel" "$@"
"""


# ---- launcher.cpp -------------------------------------------------------------------------------------------------

def _launcher_source(kernel: str, block_dim: int, dtype: str, struct_name: str, tiling: tuple[tuple[str, int], ...],
                     args: tuple[ArgSpec, ...], tensors: list[_Tensor | None]) -> str:
    """A host program for CANN: the kernel's GM arguments allocated, filled, launched and read back.

    NPU branch: ACL (aclInit ... aclFinalize) and the `<<<blockDim, nullptr, stream>>>` launch; CPU-debug branch
    (ASCENDC_CPU_DEBUG): tikicpulib's GmAlloc / ICPU_RUN_KF / GmFree, as the CANN kernel-launch samples do.
    """
    ins = [t for t in tensors if t is not None and t.kind == "in"]
    outs = [t for t in tensors if t is not None and t.kind == "out"]
    has_tiling = any(t is None for t in tensors)
    ctype = C_TYPES[dtype]

    def var(arg: ArgSpec, where: str) -> str:
        return f"{where}_{arg.name}"

    def size(t: _Tensor | None) -> str:
        return "sizeof(kTiling)" if t is None else f"kBytes_{t.ident}"

    def path(t: _Tensor) -> str:
        return f'dir + "/{"input" if t.kind == "in" else "output"}/{t.tensor}.bin"'

    L: list[str] = []
    w = L.append
    w(f"// Host program for the tuned kernel '{kernel}', generated by tuner from its argument description")
    w("// (kernel.json); regenerate it rather than editing it. It has not been built with CANN here.")
    w("//")
    w("// Usage: ./tuned_kernel [DIR]   (DIR defaults to .)")
    for t in ins:
        w(f"//   reads  DIR/input/{t.tensor}.bin   {dtype} ({ctype}) {t.shape_text}, raw little-endian elements")
    for t in outs:
        w(f"//   writes DIR/output/{t.tensor}.bin  {dtype} ({ctype}) {t.shape_text}")
    w(f"// The tiling ({struct_name}) is compiled in below; it holds the shape, so inputs must have these shapes.")
    w("//")
    w("// NPU: ACL runtime and the <<<blockDim, nullptr, stream>>> kernel launch (compiled by bisheng).")
    w("// CPU debug (ASCENDC_CPU_DEBUG): CANN's tikicpulib, GmAlloc + ICPU_RUN_KF, as the kernel-launch samples do.")
    w("#include <cerrno>")
    w("#include <cstdint>")
    w("#include <cstdio>")
    w("#include <cstring>")
    w("#include <fstream>")
    w("#include <string>")
    w("#include <vector>")
    w("#include <sys/stat.h>")
    w("")
    w("#if defined(__CCE_KT_TEST__) && !defined(ASCENDC_CPU_DEBUG)")
    w("#define ASCENDC_CPU_DEBUG 1  // older toolkits name the CPU-debug build __CCE_KT_TEST__")
    w("#endif")
    w("")
    w("#ifndef ASCENDC_CPU_DEBUG")
    w('#include "acl/acl.h"')
    w("#else")
    w('#include "tikicpulib.h"')
    w("#endif")
    w("")
    w(f'#include "kernel.cpp"  // defines {kernel}; compiled once, with this file')
    w("")
    w("namespace tuned_launch {")
    w(f"constexpr uint32_t kBlockDim = {block_dim};")
    if has_tiling:
        w(f"// {struct_name}: uint32 fields in order, the same bytes as tiling.bin")
        w("const uint32_t kTiling[] = {")
        for name, value in tiling:
            w(f"    {value}u,  // {name}")
        w("};")
    for t in ins + outs:
        dims = " * ".join(f"{d}ull" for d in t.shape)
        w(f"constexpr size_t kBytes_{t.ident} = {dims} * {ELEMENT_BYTES[dtype]};  // {t.tensor}: {dtype} "
          f"{t.shape_text}")
    w("")
    w("bool ReadBin(const std::string &path, void *buffer, size_t size)")
    w("{")
    w("    std::ifstream file(path, std::ios::binary | std::ios::ate);")
    w("    if (!file) {")
    w('        std::fprintf(stderr, "cannot open %s\\n", path.c_str());')
    w("        return false;")
    w("    }")
    w("    const size_t actual = static_cast<size_t>(file.tellg());")
    w("    if (actual != size) {")
    w('        std::fprintf(stderr, "%s has %zu bytes, expected %zu (the tiling was computed for one shape)\\n",')
    w("                     path.c_str(), actual, size);")
    w("        return false;")
    w("    }")
    w("    file.seekg(0);")
    w("    file.read(static_cast<char *>(buffer), static_cast<std::streamsize>(size));")
    w("    return static_cast<bool>(file);")
    w("}")
    w("")
    w("bool WriteBin(const std::string &dir, const std::string &path, const void *buffer, size_t size)")
    w("{")
    w("    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {")
    w('        std::fprintf(stderr, "cannot create %s\\n", dir.c_str());')
    w("        return false;")
    w("    }")
    w("    std::ofstream file(path, std::ios::binary | std::ios::trunc);")
    w("    file.write(static_cast<const char *>(buffer), static_cast<std::streamsize>(size));")
    w("    if (!file) {")
    w('        std::fprintf(stderr, "cannot write %s\\n", path.c_str());')
    w("        return false;")
    w("    }")
    w('    std::printf("wrote %s (%zu bytes)\\n", path.c_str(), size);')
    w("    return true;")
    w("}")
    w("")
    launch_args = ", ".join(var(a, "gm") for a, t in zip(args, tensors, strict=True))
    # ---- CPU debug branch
    w("#ifdef ASCENDC_CPU_DEBUG")
    w("int Run(const std::string &dir)")
    w("{")
    for a, t in zip(args, tensors, strict=True):
        w(f"    uint8_t *{var(a, 'gm')} = static_cast<uint8_t *>(AscendC::GmAlloc({size(t)}));")
    w("    bool ok = true;")
    for a, t in zip(args, tensors, strict=True):
        if t is None:
            w(f"    std::memcpy({var(a, 'gm')}, kTiling, sizeof(kTiling));")
        elif t.kind == "in":
            w(f"    ok = ok && ReadBin({path(t)}, {var(a, 'gm')}, {size(t)});")
        else:
            w(f"    std::memset({var(a, 'gm')}, 0, {size(t)});")
    w("    if (ok) {")
    w("        AscendC::SetKernelMode(KernelMode::AIV_MODE);  // a vector-only kernel")
    w(f"        ICPU_RUN_KF({kernel}, kBlockDim, {launch_args});")
    for a, t in zip(args, tensors, strict=True):
        if t is not None and t.kind == "out":
            w(f'        ok = WriteBin(dir + "/output", {path(t)}, {var(a, "gm")}, {size(t)}) && ok;')
    w("    }")
    for a in args:
        w(f"    AscendC::GmFree(static_cast<void *>({var(a, 'gm')}));")
    w("    return ok ? 0 : 1;")
    w("}")
    # ---- NPU branch
    w("#else")
    w("#define CHECK_ACL(expr)                                                                              \\")
    w("    do {                                                                                             \\")
    w("        const aclError tunedRet = (expr);                                                            \\")
    w("        if (tunedRet != ACL_SUCCESS) {                                                               \\")
    w('            std::fprintf(stderr, "%s:%d: %s failed with error %d: %s\\n", __FILE__, __LINE__, #expr, \\')
    w("                         static_cast<int>(tunedRet), aclGetRecentErrMsg());                          \\")
    w("            return 1;                                                                                \\")
    w("        }                                                                                            \\")
    w("    } while (0)")
    w("")
    w("int Run(const std::string &dir)")
    w("{")
    for a, t in zip(args, tensors, strict=True):
        if t is not None:
            w(f"    std::vector<uint8_t> {var(a, 'host')}({size(t)});")
    for a, t in zip(args, tensors, strict=True):
        if t is not None and t.kind == "in":
            w(f"    if (!ReadBin({path(t)}, {var(a, 'host')}.data(), {size(t)})) {{")
            w("        return 1;")
            w("    }")
    w("    const int32_t deviceId = 0;")
    w("    aclrtStream stream = nullptr;")
    w("    CHECK_ACL(aclInit(nullptr));")
    w("    CHECK_ACL(aclrtSetDevice(deviceId));")
    w("    CHECK_ACL(aclrtCreateStream(&stream));")
    for a in args:
        w(f"    uint8_t *{var(a, 'gm')} = nullptr;")
    for a, t in zip(args, tensors, strict=True):
        w(f"    CHECK_ACL(aclrtMalloc(reinterpret_cast<void **>(&{var(a, 'gm')}), {size(t)}, "
          "ACL_MEM_MALLOC_HUGE_FIRST));")
    for a, t in zip(args, tensors, strict=True):
        if t is None:
            w(f"    CHECK_ACL(aclrtMemcpy({var(a, 'gm')}, sizeof(kTiling), kTiling, sizeof(kTiling), "
              "ACL_MEMCPY_HOST_TO_DEVICE));")
        elif t.kind == "in":
            w(f"    CHECK_ACL(aclrtMemcpy({var(a, 'gm')}, {size(t)}, {var(a, 'host')}.data(), {size(t)}, "
              "ACL_MEMCPY_HOST_TO_DEVICE));")
        else:
            w(f"    CHECK_ACL(aclrtMemset({var(a, 'gm')}, {size(t)}, 0, {size(t)}));")
    w("")
    w(f"    {kernel}<<<kBlockDim, nullptr, stream>>>({launch_args});")
    w("    CHECK_ACL(aclrtSynchronizeStream(stream));")
    w("")
    w("    bool ok = true;")
    for a, t in zip(args, tensors, strict=True):
        if t is not None and t.kind == "out":
            w(f"    CHECK_ACL(aclrtMemcpy({var(a, 'host')}.data(), {size(t)}, {var(a, 'gm')}, {size(t)}, "
              "ACL_MEMCPY_DEVICE_TO_HOST));")
            w(f'    ok = WriteBin(dir + "/output", {path(t)}, {var(a, "host")}.data(), {size(t)}) && ok;')
    for a in args:
        w(f"    CHECK_ACL(aclrtFree({var(a, 'gm')}));")
    w("    CHECK_ACL(aclrtDestroyStream(stream));")
    w("    CHECK_ACL(aclrtResetDevice(deviceId));")
    w("    CHECK_ACL(aclFinalize());")
    w("    return ok ? 0 : 1;")
    w("}")
    w("#endif  // ASCENDC_CPU_DEBUG")
    w("}  // namespace tuned_launch")
    w("")
    w("int main(int argc, char *argv[])")
    w("{")
    w('    return tuned_launch::Run(argc > 1 ? argv[1] : ".");')
    w("}")
    return "\n".join(L) + "\n"


# ---- CMakeLists.txt -----------------------------------------------------------------------------------------------

def _cmake_lists(soc: str, arch: str) -> str:
    """A kernel-launch project: RUN_MODE=npu builds launcher.cpp (which includes kernel.cpp) as Ascend C with the
    toolkit's ASC CMake package; RUN_MODE=cpu builds it with the host compiler against CANN's tikicpulib."""
    arch_default = arch or "dav-2201"
    arch_note = "" if arch else f"  # {soc} is not in tuner's SoC table: check --npu-arch for it"
    return f"""# Kernel-launch project for the tuned kernel, generated by tuner from public CANN documentation and
# samples; not built here (no CANN toolkit on the machine that generated it). See README.md.
#   NPU:       cmake -B build -DRUN_MODE=npu && cmake --build build -j   (bisheng, via find_package(ASC))
#   CPU debug: cmake -B build -DRUN_MODE=cpu && cmake --build build -j   (host compiler + tikicpulib)
cmake_minimum_required(VERSION 3.16)

set(SOC_VERSION "{soc}" CACHE STRING "SoC the kernel was tuned for")
set(RUN_MODE "npu" CACHE STRING "npu: build for the NPU; cpu: CANN CPU debug (tikicpulib)")
set(CMAKE_ASC_ARCHITECTURES "{arch_default}" CACHE STRING "bisheng --npu-arch of SOC_VERSION"){arch_note}
set(ASCEND_CANN_PACKAGE_PATH "$ENV{{ASCEND_HOME_PATH}}" CACHE PATH "CANN toolkit (source its set_env.sh first)")
if(NOT CMAKE_BUILD_TYPE)
    set(CMAKE_BUILD_TYPE "Release" CACHE STRING "Release/Debug" FORCE)
endif()

if(RUN_MODE STREQUAL "npu")
    find_package(ASC REQUIRED HINTS ${{ASCEND_CANN_PACKAGE_PATH}}/lib64/cmake)
    project(tuned_kernel LANGUAGES ASC CXX)
    # launcher.cpp includes kernel.cpp: one Ascend C translation unit with the host code and the <<<>>> launch.
    set_source_files_properties(${{CMAKE_CURRENT_SOURCE_DIR}}/launcher.cpp PROPERTIES LANGUAGE ASC)
    add_executable(tuned_kernel ${{CMAKE_CURRENT_SOURCE_DIR}}/launcher.cpp)
    target_compile_options(tuned_kernel PRIVATE
        $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${{CMAKE_ASC_ARCHITECTURES}}>
    )
elseif(RUN_MODE STREQUAL "cpu")
    project(tuned_kernel LANGUAGES CXX)
    if(NOT DEFINED ENV{{CMAKE_PREFIX_PATH}})
        set(CMAKE_PREFIX_PATH ${{ASCEND_CANN_PACKAGE_PATH}}/tools/tikicpulib/lib/cmake)
    endif()
    find_package(tikicpulib REQUIRED)
    add_executable(tuned_kernel ${{CMAKE_CURRENT_SOURCE_DIR}}/launcher.cpp)
    target_compile_definitions(tuned_kernel PRIVATE ASCENDC_CPU_DEBUG=1)
    target_compile_options(tuned_kernel PRIVATE -g -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0)
    target_include_directories(tuned_kernel PRIVATE ${{CMAKE_CURRENT_SOURCE_DIR}})
    target_link_libraries(tuned_kernel PRIVATE tikicpulib::${{SOC_VERSION}} ascendcl)
else()
    message(FATAL_ERROR "RUN_MODE must be npu or cpu, not '${{RUN_MODE}}'")
endif()

install(TARGETS tuned_kernel RUNTIME DESTINATION ${{CMAKE_INSTALL_PREFIX}}/bin)
"""


# ---- README.md ----------------------------------------------------------------------------------------------------

def _readme(d: dict[str, Any], tensors: list[_Tensor | None], tiling: tuple[tuple[str, int], ...], struct_name: str,
            backend: str) -> str:
    ins = [t for t in tensors if t is not None and t.kind == "in"]
    outs = [t for t in tensors if t is not None and t.kind == "out"]
    dtype, shape_text = d["dtype"], "x".join(str(x) for x in d["shape"])
    if d["time_us"] is None:
        time_line = "No time was recorded for this kernel."
    elif str(d["time_source"]).lower().startswith("simulated"):
        time_line = (f"**{d['time_us']:.3f} µs ({d['time_source']})** — a modelled time from the tuner's CPU "
                     "simulator (an analytic per-pipe model, not cycle-accurate), not a measurement on an NPU. "
                     "Measure it on your device (below) before relying on it.")
    else:
        time_line = f"**{d['time_us']:.3f} µs ({d['time_source']})**: the median device time of timed launches."
    def data(a: dict[str, Any]) -> str:
        if a["kind"] == "bytes":
            return f"`{a['file']}` ({struct_name})"
        return f"{a['dtype']} {'x'.join(map(str, a['shape']))} (`{a['tensor']}`)"

    args_table = "\n".join(f"| {i + 1} | `{a['name']}` | {a['kind']} | {data(a)} |"
                           for i, a in enumerate(d["arguments"]))
    tiling_table = "\n".join(f"| `{k}` | {v} |" for k, v in tiling) or "| (none) | |"
    params = ", ".join(f"`{k}={v}`" for k, v in d["params"].items()) or "none"
    in_files = " ".join(f"{t.tensor}.npy" for t in ins)
    to_bin = "; ".join(f"np.load('{t.tensor}.npy').tofile('data/input/{t.tensor}.bin')" for t in ins)
    np_dtype = "ml_dtypes.bfloat16" if dtype == "bfloat16" else f"'{dtype}'"
    imports = "import numpy as np, ml_dtypes" if dtype == "bfloat16" else "import numpy as np"
    back = "; ".join(f"np.fromfile('data/output/{t.tensor}.bin', dtype={np_dtype}).reshape({tuple(t.shape)})"
                     for t in outs)
    return f"""# Tuned kernel `{d['entry']}`: {d['op']} {shape_text} {dtype} on {d['soc']}

Exported by `tuner` from run `{d['run']}`, study `{d['study']}`, trial {d['trial']} (variant `{d['variant']}`,
knobs {params}; backend `{backend}`).

Time of one launch: {time_line}

| File | What it is |
|---|---|
| `kernel.cpp` | the kernel source, exactly as tuned (entry `{d['entry']}`, launched with {d['block_dim']} blocks) |
| `tiling.bin` | the tiling struct `{struct_name}` as the kernel reads it from GM: little-endian uint32 fields |
| `tiling.json` | the same tiling, by field name |
| `kernel.json` | how to call the kernel: entry, block_dim, SoC, and each argument in order |
| `run.sh` | builds and runs it, like the CANN samples: `-r cpu` / `-r npu` (CANN), `-r tuner-sim` (no CANN) |
| `run_sim.sh` | re-runs the kernel on the tuner's CPU simulator (`tuner simulate`) on your inputs |
| `launcher.cpp` | a host program for CANN generated from the arguments: ACL and `<<<>>>`, or `ICPU_RUN_KF` |
| `CMakeLists.txt` | a kernel-launch project that builds `launcher.cpp` (which includes `kernel.cpp`) |

Arguments, in order:

| # | Parameter | Kind | Data |
|---|---|---|---|
{args_table}

Tiling (`{struct_name}`):

| Field | Value |
|---|---|
{tiling_table}

**The tiling holds the shape.** The kernel serves inputs of exactly the shapes above ({dtype}); another shape
needs its own tiling, i.e. a new tuning run (`tuner optimize {d['op']} --shape ...`).

## run.sh: the run modes

Like the CANN kernel-launch samples, `./run.sh -r <mode> [-v SOC_VERSION] [ARGS...]`; `-v` defaults to
`{d['soc']}`, the SoC the kernel was tuned for.

| Mode | What it does | Needs |
|---|---|---|
| `-r tuner-sim` | `./run_sim.sh ARGS` (below): the tuner's CPU simulator, with the `-v` SoC's model | `tuner` |
| `-r cpu` | CANN CPU debug: builds with `-DRUN_MODE=cpu` (host compiler, tikicpulib), runs `build/tuned_kernel ARGS` \
| CANN |
| `-r npu` | builds with `-DRUN_MODE=npu` (bisheng), runs `build/tuned_kernel ARGS` on the NPU | CANN and an NPU |

`cpu` and `npu` first check `ASCEND_HOME_PATH` (or `ASCEND_TOOLKIT_HOME`), set by CANN's `set_env.sh`, and stop
with exit status 2 and one line if neither names a directory; then they run
`cmake -S . -B build -DRUN_MODE=<mode> -DSOC_VERSION=<SOC_VERSION> -DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH`
and `cmake --build build -j` (a `build/` configured for another mode or SoC is cleared first; `BUILD_DIR` and
`CMAKE_ARGS`, e.g. `CMAKE_ARGS=-DCMAKE_ASC_ARCHITECTURES=dav-2201`, may be set) and run the program on ARGS, its
data directory (default `.`, with `input/*.bin` as in step 3 below). An unknown mode exits with status 2; CANN's own
`sim` mode (its simulator libraries) is not offered. The `cpu` and `npu` modes have not been run with a real CANN
toolkit (see below).

## Re-run it in the simulator

```
./run.sh -r tuner-sim {in_files} [--json report.json]     # the same as ./run_sim.sh ...
```

Each input is a `.npy` file of the shape and dtype above (defaults: {', '.join(f'`./{t.tensor}.npy`' for t in ins)});
the script checks the shapes, runs `tuner simulate kernel.cpp --kernel {d['entry']} --soc {d['soc']} --block-dim
{d['block_dim']}` with one `--arg` per parameter (the tiling as `bytes=tiling.bin`), and writes
{', '.join(f'`{t.tensor}.npy`' for t in outs)} to `$OUT_DIR` (default: the current directory). Options after the
inputs go to `tuner simulate` (`--json`, `--trace`, `--timeout`). `TUNER` selects the command (default `tuner`).

The CANN host program below runs on the simulator too, through its CPU-debug branch (the simulator stands in for
CANN's `tikicpulib`), with `.bin` inputs prepared as in step 3 below:

```
tuner sim-build launcher.cpp -o tuned_kernel_sim --soc {d['soc']}
TUNER_SIM_REPORT=report.json ./tuned_kernel_sim data
```

## Build and run it with CANN

This CANN project was generated from public documentation and samples (the Ascend C kernel-launch samples and
the asc-devkit examples) and **has not been built here: there is no CANN toolkit on the machines that generated
it.** Its CPU-debug branch is compiled and run by the tuner's tests against the tuner's simulator headers, which
stand in for CANN's `tikicpulib`; the NPU branch has never been compiled.

1. Set up the toolkit: `source <install path>/set_env.sh` (e.g. `/usr/local/Ascend/cann/set_env.sh`, or
   `/usr/local/Ascend/ascend-toolkit/set_env.sh` on older installs); this sets `ASCEND_HOME_PATH`.
2. Build for the NPU (bisheng, through the toolkit's `find_package(ASC)` CMake package):
   ```
   cmake -B build -DRUN_MODE=npu -DSOC_VERSION={d['soc']}
   cmake --build build -j
   ```
   `CMAKE_ASC_ARCHITECTURES` (the `--npu-arch`, default in `CMakeLists.txt`) must match your NPU.
   For CANN's CPU debug mode instead (host compiler and `tikicpulib`, no NPU): `-DRUN_MODE=cpu` (clear `build/`
   when switching).
3. Prepare inputs as raw little-endian `.bin` files and run:
   ```
   mkdir -p data/input
   python3 -c "{imports}; {to_bin}"
   ./build/tuned_kernel data
   python3 -c "{imports}; print({back})"
   ```
   The program writes {', '.join(f'`data/output/{t.tensor}.bin`' for t in outs)}.
4. To time it on the device: `msprof op ./build/tuned_kernel data` (the `Task Duration(us)` column of
   `OpBasicInfo.csv`).
"""
