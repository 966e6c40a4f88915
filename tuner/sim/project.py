"""CANN custom-operator projects (the msopgen layout: op_host/<op>.cpp with the OpDef, InferShape and the tiling
function, op_kernel/<op>.cpp with the kernel) on the simulator.

`simulate_project` does what the framework does around one launch: it builds op_host with the simulator's CANN
host headers (tuner/sim/include/register, tiling, exe_graph, graph: tuner_sim/cann_host.h) and a driver
(tuner_sim/cann_host_main.h), runs the op's InferShape and tiling function on the inputs' shapes, dtypes and the
attrs, generates the kernel's TilingData structs from the host's registration (as CANN's build does), compiles
the kernel once for the chosen tiling key with DTYPE_<ARG> / ORIG_DTYPE_<ARG> / FORMAT_<ARG> set from the OpDef's
dtype table, and launches it on GM inputs, zeroed outputs shaped by InferShape, the workspace and the tiling
bytes. What is wrong in the project itself (a tiling function that fails, no block dim, tiling data bigger than
its buffer, a tiling key no TILING_KEY_IS branch handles) is one fault line each, class `project`.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np

from tuner.backends.args import GmBytes, GmIn, GmOut, GmShape, KernelArg, Struct
from tuner.data.socs import Soc
from tuner.errors import CompileError, UsageError
from tuner.paths import cache_root
from tuner.processes import Limits, run_limited
from tuner.sandbox import Jail, require_sandbox
from tuner.sim import build
from tuner.sim.args import parse_shape_spec
from tuner.sim.run import (
    DEFAULT_SOC,
    Fault,
    SimResult,
    check_timing_only,
    checked_soc,
    describe,
    run_executable,
)

# Bytes of the tiling buffer a tiling function writes into (GetRawTilingData()->GetCapacity()). CANN sizes it per
# op from the compiled kernel's needs; the number is not published, so this is an assumption, large enough for
# every TilingData the OpDef registration can describe.
TILING_CAPACITY_BYTES = 64 * 1024
# Arrays of ValueDepend inputs handed to the tiling function travel on the host program's command line.
MAX_VALUE_BYTES = 60 * 1024
HOST_TIMEOUT_S = 60.0
HOST_LIMITS = Limits(wall_s=HOST_TIMEOUT_S, cpu_s=int(HOST_TIMEOUT_S), memory_bytes=4 << 30)
HOST_FLAGS = ("-std=c++17", "-O0", "-w", "-pthread", "-DTUNER_SIM_CANN_HOST=1")
MARKER = "@@TUNER_SIM_HOST_RESULT@@"
MAX_COPIED_FILE_BYTES = 4 << 20
SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".inc", ".inl")
MAX_BLOCK_DIM = 65535

# numpy dtype name -> ge::DataType name, and the kernel's C++ type for DTYPE_<ARG>.
GE_DTYPES = {"float16": "DT_FLOAT16", "float32": "DT_FLOAT", "bfloat16": "DT_BF16", "int8": "DT_INT8",
             "uint8": "DT_UINT8", "int16": "DT_INT16", "uint16": "DT_UINT16", "int32": "DT_INT32",
             "uint32": "DT_UINT32", "int64": "DT_INT64", "uint64": "DT_UINT64", "bool": "DT_BOOL",
             "float64": "DT_DOUBLE"}
NUMPY_DTYPES = {ge: np_name for np_name, ge in GE_DTYPES.items()}
C_TYPES = {"DT_FLOAT16": "half", "DT_FLOAT": "float", "DT_BF16": "bfloat16_t", "DT_INT8": "int8_t",
           "DT_UINT8": "uint8_t", "DT_INT16": "int16_t", "DT_UINT16": "uint16_t", "DT_INT32": "int32_t",
           "DT_UINT32": "uint32_t", "DT_INT64": "int64_t", "DT_UINT64": "uint64_t", "DT_BOOL": "bool",
           "DT_DOUBLE": "double"}

# What PlatformAscendC reads per family (the platform INI's SoCInfo / AICoreSpec entries): L1 and L0 sizes by
# architecture (asc-devkit NPU架构版本 pages: 2201 L1 512 KB, L0A/L0B 64 KB, L0C 128 KB; 2002 L1 1 MB, L0C 256 KB;
# 3510 L1 512 KB, L0C 256 KB), the short SoC version PlatformAscendC maps to its SocVersion, and the name that
# AICore().AddConfig uses.
_FAMILY_PLATFORM = {
    "A2": ("Ascend910B", "ascend910b", 524288, 65536, 65536, 131072, 64 << 30),
    "A3": ("Ascend910_93", "ascend910_93", 524288, 65536, 65536, 131072, 64 << 30),
    "310P": ("Ascend310P", "ascend310p", 1048576, 65536, 65536, 262144, 24 << 30),
    "950": ("Ascend950", "ascend950", 524288, 65536, 65536, 262144, 128 << 30),
}


@dataclass
class ProjectResult:
    """One run of a CANN project: what the host side decided, the launch's outputs by name, and every fault
    (the project's own, class `project`, and the kernel's)."""

    op: str
    kernel: str
    soc: str
    block_dim: int = 0
    tiling_key: int = 0
    tiling: bytes = b""
    workspace_bytes: int = 0
    inputs: dict[str, dict] = field(default_factory=dict)   # name -> {"dtype", "shape"} as the host saw them
    attrs: dict[str, object] = field(default_factory=dict)  # every attr, given or defaulted
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sim: SimResult | None = None
    host_printed: str = ""   # what op_host's code printed
    written: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults

    @property
    def task_duration_us(self) -> float | None:
        return self.sim.task_duration_us if self.sim is not None else None

    def report(self) -> dict:
        """The simulator's report with the project's decisions and faults added."""
        base = dict(self.sim.report) if self.sim is not None else {"soc": self.soc, "kernel": self.kernel}
        base["project"] = {"op": self.op, "block_dim": self.block_dim, "tiling_key": self.tiling_key,
                           "tiling_bytes": len(self.tiling), "workspace_bytes": self.workspace_bytes,
                           "inputs": self.inputs, "attrs": self.attrs,
                           "outputs": {k: {"dtype": str(v.dtype), "shape": list(v.shape)}
                                       for k, v in self.outputs.items()}}
        base["faults"] = [{"class": f.cls, "text": f.text, "message": f.message, "block": f.block, "api": f.api,
                           "file": f.file, "line": f.line} for f in self.faults]
        base["warnings"] = list(self.warnings)
        return base


class NullPointer(Struct):
    """A GM_ADDR parameter passed as nullptr (an absent OPTIONAL input)."""

    kind = "pointer"


def _project_fault(text: str) -> Fault:
    return Fault("project", f"error: [project] {text}", message=text)


def snake_case(op_type: str) -> str:
    """The kernel function's name for an op type, as msopgen derives it (AddCustom -> add_custom)."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op_type)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def _copy_tree(src: Path, dst: Path) -> list[Path]:
    """Copy the source files under `src` (headers and sources only) to `dst`; returns the copies."""
    copied = []
    if not src.is_dir():
        return copied
    for path in sorted(src.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and path.stat().st_size <= MAX_COPIED_FILE_BYTES:
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            copied.append(target)
    return copied


def _tree_digest(root: Path) -> list[bytes]:
    parts = []
    for sub in ("op_host", "op_kernel"):
        d = root / sub
        if d.is_dir():
            for path in sorted(d.rglob("*")):
                if path.is_file() and path.suffix in SOURCE_SUFFIXES and path.stat().st_size <= MAX_COPIED_FILE_BYTES:
                    parts += [str(path.relative_to(root)).encode(), path.read_bytes()]
    return parts


def _map_paths(text: str, copy_root: Path, project: Path) -> str:
    return text.replace(str(copy_root), str(project))


@cache
def _driver_digest() -> str:
    return build.sim_version()


def build_host(project: Path, *, untrusted: bool = False) -> Path:
    """Compile op_host/*.cpp with the CANN host shims and the driver; cached by content. CompileError when the
    project's host code does not compile."""
    if untrusted:
        require_sandbox()
    sources = sorted(p for p in (project / "op_host").rglob("*") if p.suffix in (".cpp", ".cc", ".cxx"))
    if not sources:
        raise UsageError(f"{project}/op_host has no .cpp file (the OpDef and the tiling function)")
    key = build._digest("cann-host", _driver_digest(), str(untrusted), *_tree_digest(project))
    final = cache_root() / "sim" / ("untrusted-cann-hosts" if untrusted else "cann-hosts") / key

    def make(out: Path) -> None:
        src = out / "src"
        _copy_tree(project / "op_host", src / "op_host")
        _copy_tree(project / "op_kernel", src / "op_kernel")
        (out / "driver.cpp").write_text('#include "tuner_sim/cann_host_main.h"\n')
        copies = [src / p.relative_to(project) for p in sources]
        jail = build._compile_jail([build.INCLUDE_DIR, out], out) if untrusted else None
        static = ["-static"] if untrusted else []
        cmd = [build.compiler(), *HOST_FLAGS, *static, "-I", str(build.INCLUDE_DIR), "-I", str(src / "op_host"),
               "-I", str(src / "op_kernel"), "-I", str(src), *map(str, copies), str(out / "driver.cpp"),
               "-o", str(out / "host")]
        proc = build._run(cmd, "op_host compile", jail)
        if proc.returncode != 0:
            stderr = _map_paths(proc.stderr, src, project)
            summary = build.summarize_diagnostics(stderr, sources)
            raise CompileError(f"op_host does not compile: {summary}", stderr)

    build._atomic_dir(final, make)
    return final / "host"


def _platform_args(soc: Soc) -> tuple[list[str], str]:
    short, config, l1, l0a, l0b, l0c, hbm = _FAMILY_PLATFORM[soc.family]
    split = soc.family != "310P"
    ai_cores = int(soc.cube_cores.value)
    res = {
        "version.Short_SoC_version": short, "version.SoC_version": soc.name, "version.NpuArch": str(soc.npu_arch),
        "SoCInfo.core_type_list": "CubeCore,VectorCore" if split else "AiCore",
        "SoCInfo.ai_core_cnt": str(ai_cores), "SoCInfo.cube_core_cnt": str(ai_cores),
        "SoCInfo.vector_core_cnt": str(int(soc.vector_cores.value)), "SoCInfo.l2_size": str(int(soc.l2_bytes.value)),
        "SoCInfo.memory_size": str(hbm), "AICoreSpec.ub_size": str(int(soc.ub_bytes.value)),
        "AICoreSpec.l1_size": str(l1), "AICoreSpec.l0_a_size": str(l0a), "AICoreSpec.l0_b_size": str(l0b),
        "AICoreSpec.l0_c_size": str(l0c), "AICoreSpec.vector_reg_width": "256" if soc.npu_arch == 3510 else "0",
    }
    # GetCoreNum: the vector cores where AIC and AIV are separate (A2, A3, 950), the AI cores where they are one
    # (GetCoreNum.md).
    core_num = int(soc.vector_cores.value) if split else ai_cores
    args = ["--core-num", str(core_num), "--soc-config", config]
    for k, v in res.items():
        args += ["--soc-res", f"{k}={v}"]
    return args, config


def lib_workspace_bytes(soc: Soc) -> int:
    """GetLibApiWorkSpaceSize on `soc`: 16 MiB on NPU arch 2201 and 3510, 2 MiB elsewhere (asc-devkit
    impl/utils/tiling/platform/platform_ascendc.cpp)."""
    return 16 << 20 if soc.npu_arch in (2201, 3510) else 2 << 20


def run_host(host: Path, inputs: dict[str, np.ndarray | GmShape], attrs: dict[str, str], soc: Soc, *,
             op: str | None = None, untrusted: bool = False) -> tuple[dict | None, str, list[Fault]]:
    """Run the host program: (its JSON result or None, what op_host printed, faults when it did not finish)."""
    args, _ = _platform_args(soc)
    cmd = [str(host), *args, "--capacity", str(TILING_CAPACITY_BYTES)]
    if op:
        cmd += ["--op", op]
    for name, array in inputs.items():
        dims = ",".join(str(d) for d in array.shape)
        cmd += ["--input", f"{name}={GE_DTYPES[array.dtype.name]}:{dims}"]
        if isinstance(array, np.ndarray) and array.nbytes <= MAX_VALUE_BYTES:
            cmd += ["--value", f"{name}={np.ascontiguousarray(array).tobytes().hex()}"]
    for name, value in attrs.items():
        cmd += ["--attr", f"{name}={value}"]
    jail = Jail(readable=(host,), seccomp=True) if untrusted else None
    proc = run_limited(cmd, HOST_LIMITS, jail=jail)
    out = proc.stdout
    if MARKER not in out:
        if proc.limit:
            why = f"ran past its {proc.limit} limit ({HOST_TIMEOUT_S:.0f} s)"
        elif proc.returncode < 0:
            import signal
            why = f"was killed by {signal.Signals(-proc.returncode).name}"
        else:
            why = f"exited with code {proc.returncode}"
        last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
        text = f"op_host's code (InferShape or the tiling function) {why}" + (f": {last}" if last else "")
        return None, out, [_project_fault(text)]
    printed, _, tail = out.rpartition(MARKER)
    try:
        result = json.loads(tail.strip().splitlines()[0])
    except (json.JSONDecodeError, IndexError):
        return None, printed, [_project_fault("op_host's host program wrote an unreadable result")]
    return result, printed, []


_GLOBAL_FN = re.compile(r"__global__\s+(?:__aicore__\s+)?(?:__vector__\s+)?void\s+(\w+)\s*\(|"
                        r"__aicore__\s+__global__\s+void\s+(\w+)\s*\(")


def find_kernel(project: Path, op: str) -> tuple[Path, str]:
    """The kernel source and entry: op_kernel/<snake op>.cpp's `<snake op>`, else the one __global__ entry."""
    kdir = project / "op_kernel"
    if not kdir.is_dir():
        raise UsageError(f"{project} has no op_kernel directory")
    want = snake_case(op)
    found = []
    for path in sorted(p for p in kdir.rglob("*") if p.suffix in (".cpp", ".cc", ".cxx")):
        for m in _GLOBAL_FN.finditer(path.read_text(errors="replace")):
            found.append((path, m[1] or m[2]))
    for path, name in found:
        if name == want:
            return path, name
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"{kdir} has no __global__ kernel function (expected {want})")
    raise UsageError(f"{kdir} has several kernel functions ({', '.join(n for _, n in found)}) and none is {want}")


_KEY_USE = re.compile(r"\bTILING_KEY_(?:IS|LIST)\s*\(")
_INT = re.compile(r"^\(?\s*(0[xX][0-9a-fA-F]+|\d+)\s*[uUlL]*\s*\)?$")


def _key_arguments(text: str) -> list[str]:
    """The argument text of each TILING_KEY_IS( / TILING_KEY_LIST( use, parentheses balanced."""
    found = []
    for m in _KEY_USE.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        found.append(text[m.end():i - 1])
    return found


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def kernel_keys(texts: list[str]) -> set[int] | None:
    """The tiling keys the kernel's TILING_KEY_IS / TILING_KEY_LIST branches name, as CANN's build collects them
    to compile one binary per key; an empty set when it uses none, None when a key is not a literal (or a macro
    or constant defined as one) and the set cannot be known."""
    constants: dict[str, str] = {}
    code = [_strip_comments(t) for t in texts]
    for t in code:
        for name, value in re.findall(r"^\s*#\s*define\s+(\w+)\s+(\S+)\s*$", t, re.M):
            constants[name] = value
        for name, value in re.findall(r"\bconst(?:expr)?\s+[\w:]+\s+(\w+)\s*=\s*([^;]+);", t):
            constants[name] = value.strip()
    keys: set[int] = set()
    for t in code:
        for inner in _key_arguments(t):
            if inner.strip() == "key":  # the macro's own definition
                continue
            for arg in inner.split(","):
                arg = arg.strip()
                arg = constants.get(arg, arg)
                m = _INT.match(arg)
                if not m:
                    return None
                keys.add(int(m[1], 0))
    return keys


def _type_name(spelled: str) -> str:
    """A field's type as the kernel spells it: the last component of a qualified name."""
    return spelled.strip().split("::")[-1].strip()


def tiling_header(tiling: dict, default: str | None, op: str) -> str:
    """The kernel's TilingData structs, generated from the host's registration (fields in declaration order:
    the same layout the host's class has, which SaveToBuffer copies); sizes the host registered are checked."""
    classes = {c["name"]: c for c in tiling.get("classes", [])}
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order or name not in classes or name in path:
            return
        for f in classes[name]["fields"]:
            if f["struct"]:
                visit(_type_name(f["type"]), (*path, name))
        order.append(name)

    for name in sorted(classes):
        visit(name, ())
    lines = [f"// generated by tuner for the CANN project of {op}: the kernel's TilingData structs", "#pragma once",
             "#include <cstdint>"]
    foreign = {_type_name(f["type"]) for c in classes.values() for f in c["fields"]
               if f["struct"] and _type_name(f["type"]) not in classes}
    if foreign:  # the advanced APIs' tiling structs (SoftMaxTiling, ...): the simulator's own definitions
        lines += ['#if __has_include("tuner_sim/adv_host.h")', '#include "tuner_sim/adv_host.h"', "#endif"]
    lines.append("")
    for name in order:
        lines.append(f"struct {name} {{")
        for f in classes[name]["fields"]:
            ctype = _type_name(f["type"]) if f["struct"] else f["type"]
            if f["struct"]:
                lines.append(f"    {ctype} {f['name']};")
            elif f["arr"]:
                lines.append(f"    {ctype} {f['name']}[{f['arr']}] = {{}};")
            else:
                lines.append(f"    {ctype} {f['name']} = 0;")
        lines.append("};")
        if classes[name]["size"]:
            lines.append(f"static_assert(sizeof({name}) == {classes[name]['size']}, \"tuner: the kernel's {name} "
                         f"differs in size from op_host's\");")
        lines.append("")
    if default:
        lines.append(f"#define TUNER_SIM_PROJECT_DEFAULT_TILING {default}")
    lines.append('#include "tuner_sim/tiling_data.h"')
    return "\n".join(lines) + "\n"


def build_project_kernel(project: Path, source: Path, kernel: str, header: str, defines: list[str], soc: Soc, *,
                         untrusted: bool = False) -> build.Executable:
    """Compile the kernel as CANN's build would for one tiling key and dtype combination: the generated tiling
    header first, then the kernel source (its own lines keep their file name and numbers). The build works on a
    copy of op_kernel/ (and op_host/ beside it, for a kernel that includes a header from there) whose root holds
    the generated header: a sandboxed compile may read the source's directory only."""
    key = build._digest("cann-kernel-v3", header, str(source), *_tree_digest(project))
    root = cache_root() / "sim" / ("untrusted-cann-kernels" if untrusted else "cann-kernels") / key
    rel = source.relative_to(project / "op_kernel")
    main = root / "op_kernel" / rel

    def make(out: Path) -> None:
        _copy_tree(project / "op_kernel", out / "op_kernel")
        _copy_tree(project / "op_host", out / "op_host")
        (out / "op_kernel" / "tuner_project_tiling.h").write_text(header)
        up = "../" * (len(rel.parts) - 1)
        (out / "op_kernel" / rel).write_text(f'#include "{up}tuner_project_tiling.h"\n#line 1 "{source}"\n' +
                                             source.read_text(errors="replace"))

    build._atomic_dir(root, make)
    return build.build_kernel(main, kernel, soc, tuple(defines), untrusted=untrusted)


def simulate_project(project: str | Path, inputs: dict[str, np.ndarray | GmShape],
                     attrs: dict[str, str] | None = None, soc: str = DEFAULT_SOC, *, op: str | None = None,
                     output_dir: Path | None = None, auto_sync: bool = True, trace: Path | None = None,
                     timeout_s: float = 60.0, l2: str = "cold", untrusted: bool = False,
                     timing_only: bool = False) -> ProjectResult:
    """Run a CANN custom-operator project on the simulator: InferShape and the tiling function on the inputs'
    shapes and dtypes and the attrs (strings, parsed by the type the OpDef declares; defaults fill the rest),
    then the kernel. Writes `<output_dir>/<output name>.npy` per output when `output_dir` is given.
    `timing_only` checks and times the kernel without its arithmetic and writes no outputs; inputs may then be
    given by shape alone (GmShape).

    Raises UsageError for a project that is not one or inputs and attrs the op does not take, CompileError when
    op_host or the kernel does not compile; faults of the project and of the kernel are returned."""
    project = Path(project).resolve()
    if not (project / "op_host").is_dir():
        raise UsageError(f"{project} is not a CANN operator project (no op_host directory)")
    soc_spec = checked_soc(soc, l2)
    check_timing_only(list(inputs.values()), timing_only)
    arrays: dict[str, np.ndarray | GmShape] = {}
    for name, array in inputs.items():
        if not isinstance(array, GmShape):
            array = np.ascontiguousarray(np.asarray(array))
        if array.dtype.name not in GE_DTYPES:
            raise UsageError(f"input {name}: dtype {array.dtype} has no CANN counterpart "
                             f"(use one of {', '.join(GE_DTYPES)})")
        arrays[name] = array
    attrs = {k: str(v) for k, v in (attrs or {}).items()}

    host = build_host(project, untrusted=untrusted)
    desc, printed, faults = run_host(host, arrays, attrs, soc_spec, op=op, untrusted=untrusted)
    op_name = (desc or {}).get("op") or op or ""
    result = ProjectResult(op=op_name, kernel=snake_case(op_name) if op_name else "", soc=soc_spec.name,
                           host_printed=printed, faults=list(faults))
    if desc is None:
        return result
    result.warnings += desc.get("warnings", [])
    status = desc.get("status")
    errors = desc.get("errors", [])
    if status in ("usage", "dtype"):
        raise UsageError("; ".join(errors) or status)
    result.inputs = {i["name"]: {"dtype": NUMPY_DTYPES.get(i["dtype"], i["dtype"]), "shape": i["shape"]}
                     for i in desc.get("inputs", []) if i.get("present")}
    result.attrs = desc.get("attrs", {})
    if status == "unsupported":  # a limit of the simulator, not a fault of the project
        result.faults += [Fault("unsupported", f"error: [unsupported] {e}", message=e) for e in errors]
        return result
    result.faults += [_project_fault(e) for e in errors]
    if status != "ok" or result.faults:
        return result
    if desc.get("infer_shape") == "none":
        result.warnings.append(f"{op_name} has no InferShape: each output is shaped like the input it follows, "
                               "else like the first input")
    block_dim = int(desc["block_dim"])
    key = int(desc["tiling_key"])
    result.block_dim, result.tiling_key = block_dim, key
    if block_dim == 0:
        result.faults.append(_project_fault(f"the tiling function of {op_name} set no block dim (SetBlockDim not "
                                            "called, or 0): the kernel would not launch"))
    elif block_dim > MAX_BLOCK_DIM:
        result.faults.append(_project_fault(f"the tiling function of {op_name} set block dim {block_dim}, above "
                                            f"the launch limit {MAX_BLOCK_DIM}"))
    elif block_dim > int(soc_spec.vector_cores.value):
        result.warnings.append(f"block dim {block_dim} is above {soc_spec.name}'s "
                               f"{int(soc_spec.vector_cores.value)} vector cores: the blocks run in waves")
    tiling = bytes.fromhex(desc.get("tiling_hex", ""))
    if desc["tiling_size"] == 0 and desc["tiling_written"] > 0:
        result.warnings.append("the tiling function wrote tiling data but left its size 0 (GetRawTilingData()->"
                               "SetDataSize was not called); the bytes written are passed to the kernel")
    result.tiling = tiling
    workspaces = [int(w) for w in desc.get("workspaces", [])]
    result.workspace_bytes = sum(workspaces)

    source, kernel = find_kernel(project, op_name)
    result.kernel = kernel
    texts = [p.read_text(errors="replace") for p in sorted((project / "op_kernel").rglob("*"))
             if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    keys = kernel_keys(texts)
    if keys and key not in keys:
        result.faults.append(_project_fault(
            f"the tiling function of {op_name} set tiling key {key}, but the kernel has no TILING_KEY_IS({key}) "
            f"branch (its keys: {', '.join(str(k) for k in sorted(keys))}): CANN builds no kernel for it"))
    if result.faults:
        return result

    bindings = desc.get("tiling", {}).get("bindings", {})
    # GET_TILING_DATA gives the op's default struct, whatever the key (GET_TILING_DATA.md: with several registered
    # structs it returns the default one; a key's own struct is read with GET_TILING_DATA_WITH_STRUCT).
    default = bindings.get(op_name) or bindings.get(f"{op_name}_{key}")
    if default is None and len(bindings) == 1:
        default = next(iter(bindings.values()))
    code = "\n".join(_strip_comments(t) for t in texts)
    if default is None and re.search(r"\bGET_TILING_DATA\s*\(", code) and "REGISTER_TILING_DEFAULT" not in code:
        result.faults.append(_project_fault(
            f"the kernel reads GET_TILING_DATA, but op_host registers no TilingData class for {op_name} "
            f"(REGISTER_TILING_DATA_CLASS({op_name}, ...)) and the kernel names none (REGISTER_TILING_DEFAULT)"))
        return result
    header = tiling_header(desc.get("tiling", {}), default, op_name)
    defines = [f"TILING_KEY_VAR={key}", f"TUNER_SIM_SYS_WORKSPACE={lib_workspace_bytes(soc_spec)}u"]
    for param in [*desc["inputs"], *desc["outputs"]]:
        if not param.get("present", True):
            continue
        upper = param["name"].upper()
        dt = param["dtype"]
        if dt not in C_TYPES:
            raise UsageError(f"{param['name']}: dtype {dt} is not supported by the tuner simulator")
        defines += [f"DTYPE_{upper}={C_TYPES[dt]}", f"ORIG_DTYPE_{upper}={dt}", f"FORMAT_{upper}={param['format']}"]
    start = time.perf_counter()
    exe = build_project_kernel(project, source, kernel, header, defines, soc_spec, untrusted=untrusted)
    compiled = time.perf_counter() - start

    args: list[KernelArg] = []
    for param in desc["inputs"]:
        if param["present"]:
            given = arrays[param["name"]]
            args.append(replace(given, name=param["name"]) if isinstance(given, GmShape)
                        else GmIn(given, name=param["name"]))
        else:
            args.append(NullPointer(bytes(8)))
    outs = []
    for param in desc["outputs"]:
        dtype = NUMPY_DTYPES.get(param["dtype"])
        if dtype is None:
            raise UsageError(f"output {param['name']}: dtype {param['dtype']} has no numpy counterpart")
        shape = tuple(int(d) for d in param["shape"])
        outs.append(param["name"])
        args.append(GmOut(_numpy_dtype(dtype), shape, name=param["name"]))
    n_io = len(args)
    params = describe(exe)
    extra = len(params) - n_io
    if extra not in (0, 1, 2):
        raise UsageError(f"kernel {kernel} takes {len(params)} parameters; the OpDef has {len(desc['inputs'])} "
                         f"inputs and {len(desc['outputs'])} outputs (then workspace and tiling)")
    if extra == 2:
        # A workspace of 0 bytes is still a buffer (not nullptr): any use of it is past its end.
        args.append(GmBytes(bytes(result.workspace_bytes), name="workspace"))
    if extra >= 1:
        # The device's tiling buffer is the capacity, not the bytes written: a kernel that reads a larger
        # registered struct than the one written reads stale bytes there, not past a buffer.
        largest = max([int(c.get("size", 0)) for c in desc.get("tiling", {}).get("classes", [])] + [len(tiling), 8])
        args.append(GmBytes(tiling + bytes(-(-largest // 8) * 8 - len(tiling)), name="tiling"))
    sim = run_executable(exe, args, block_dim, auto_sync=auto_sync, trace=trace, timeout_s=timeout_s, l2=l2,
                         timing_only=timing_only)
    sim.compile_seconds = compiled
    sim.compile_cached = exe.cached
    result.sim = sim
    result.faults += sim.faults
    result.warnings += [w for w in sim.warnings if w not in result.warnings]
    result.outputs = {} if timing_only else dict(zip(outs, sim.outputs, strict=True))
    if output_dir is not None:
        output_dir = Path(output_dir)
        output_dir.mkdir(parents=True, exist_ok=True)
        for name, array in result.outputs.items():
            path = output_dir / f"{name}.npy"
            np.save(path, array)
            result.written.append(path)
    return result


def _numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def parse_input_specs(specs: list[str]) -> dict[str, np.ndarray | GmShape]:
    """`name=FILE.npy` items (the CLI's --input) as arrays, and `name=DTYPE[D0,D1]` (an input given by its shape
    alone, for --timing-only) as GmShape."""
    arrays: dict[str, np.ndarray | GmShape] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input takes NAME=FILE.npy or NAME=DTYPE[D0,D1,...], not '{spec}'")
        shaped = parse_shape_spec(path, f"--input {spec}")
        if shaped is not None and not Path(path).is_file():
            arrays[name] = replace(shaped, name=name)
            continue
        try:
            arrays[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--input {name}: cannot read {path}: {exc}") from None
    return arrays


def parse_attr_specs(specs: list[str]) -> dict[str, str]:
    """`name=value` items (the CLI's --attr); the value is parsed by the type the OpDef gives the attr."""
    attrs = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name:
            raise UsageError(f"--attr takes NAME=VALUE, not '{spec}'")
        attrs[name] = value
    return attrs
