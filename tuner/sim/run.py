"""`simulate()`: compile an Ascend C kernel for the CPU simulator, run it, and read back outputs and report."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from tuner.backends.args import GmBytes, GmIn, GmOut, GmShape, KernelArg
from tuner.data.socs import Soc, UnknownSocError, get_soc
from tuner.errors import UsageError
from tuner.processes import Finished, Limits, pid_alive, run_limited
from tuner.sandbox import Jail
from tuner.sim.args import check_signature
from tuner.sim.build import RUNTIME_DIR, Executable, build_kernel

DEFAULT_SOC = "Ascend910B1"
# cold: GM data comes from HBM (the default); warm: it is resident in L2 when it fits there.
L2_MODES = ("cold", "warm")
# A run ended by one of these was stopped from outside (Ctrl-C, kill), which says nothing about the kernel.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
# Kernel inputs and outputs pass through files; a RAM-backed directory keeps that off the disk.
_SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
# The simulator's own watchdog ends a launch at its timeout with a fault naming where the blocks were; the
# process is killed this much later (a kernel that spins outside a launch, in a static initializer, say).
RUN_GRACE_S = 30.0
# Starting an executable to ask for its parameters takes milliseconds.
DESCRIBE_TIMEOUT_S = 10.0
# Address space beyond the GM buffers: a 4096 x 8192 float32 add peaks at 1.4 GiB besides its 0.4 GiB of GM on
# 2 cores; malloc arenas (64 MiB each, up to one per block thread) and thread stacks grow with the cores.
RUN_MEMORY_HEADROOM_BYTES = 8 << 30
# What a C++ allocation that failed (the runtime's records of an endless kernel, say) leaves on stderr.
_OUT_OF_MEMORY = "std::bad_alloc"
# Largest report or trace a sandboxed kernel's process may write (each is one file).
REPORT_FILE_BYTES = 64 << 20
TRACE_FILE_BYTES = 512 << 20
# The parameter kinds an entry describes, and bounds on what a describe may claim.
PARAM_KINDS = ("pointer", "integral", "floating", "record")
MAX_PARAMS = 256
MAX_PARAM_SIZE = 1 << 16
# Bounds on a sandboxed kernel's report (blocks of a launch, faults and warnings kept).
MAX_BLOCKS = 65535
MAX_FAULTS = 64


@dataclass(frozen=True)
class Fault:
    """One fault the simulator found, with the one-line text shown to users."""

    cls: str
    text: str
    message: str = ""
    block: int = -1
    api: str = ""
    file: str = ""
    line: int = 0


@dataclass
class SimResult:
    """What one simulated launch gives: outputs, the modelled time, the per-block profile, faults."""

    soc: str
    kernel: str
    block_dim: int
    task_duration_us: float | None
    report: dict
    outputs: list[np.ndarray] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    compile_cached: bool = False
    printed: str = ""  # what the kernel printed (printf, DumpTensor), one line per call

    @property
    def ok(self) -> bool:
        return not self.faults

    @property
    def time_source(self) -> str:
        return f"simulated, {self.soc} model"


class KernelStartError(Exception):
    """Raised when a kernel's executable does not start well enough to describe itself; carries the fault."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.text)
        self.fault = fault


def _limits(wall_s: float, gm_bytes: int) -> Limits:
    """Limits of one simulator process: CPU time for every core for the whole wall time (blocks are threads)."""
    return Limits(wall_s=wall_s, cpu_s=math.ceil(wall_s) * (os.cpu_count() or 1),
                  memory_bytes=RUN_MEMORY_HEADROOM_BYTES + gm_bytes)


def _stopped(proc: Finished, limits: Limits, kernel: str) -> Fault | None:
    """The fault of a simulator process that a limit or a signal from outside stopped, else None."""
    if proc.limit == "wall":
        return Fault("timeout", f"error: [timeout] the simulator did not finish within {limits.wall_s:.0f} s "
                                f"(kernel {kernel})")
    if proc.limit == "cpu":
        return Fault("timeout", f"error: [timeout] the simulator used more than {limits.cpu_s} s of CPU time "
                                f"(kernel {kernel})")
    if -proc.returncode in STOP_SIGNALS:
        return Fault("interrupted", f"error: [interrupted] the simulator was stopped by "
                                    f"{signal.Signals(-proc.returncode).name}")
    return None


def _ended(proc: Finished) -> str:
    """How a process that wrote no report ended: its last line of stderr, its signal or its exit code."""
    if proc.stderr.strip():
        return proc.stderr.strip().splitlines()[-1]
    if proc.returncode < 0:
        return f"killed by {signal.Signals(-proc.returncode).name}"
    return f"exit code {proc.returncode}"


def _with_memory_note(faults: list[Fault], proc: Finished, limits: Limits) -> list[Fault]:
    """Crash faults of a process that ran out of memory, saying so and what its limit was."""
    if _OUT_OF_MEMORY not in proc.stderr:
        return faults
    note = f" (out of memory: the simulator may use {limits.memory_bytes / 2**30:.1f} GiB)"
    return [replace(f, text=f.text + note) if f.cls == "crash" else f for f in faults]


def describe(exe: Executable) -> list[dict]:
    """The kernel's parameters as the compiled entry reports them (kind and size of each); KernelStartError when
    the executable stops, or runs past DESCRIBE_TIMEOUT_S, before it says."""
    return _describe(str(exe.path), exe.path.stat().st_mtime_ns, exe.kernel, exe.untrusted)


def _jail(path: Path, untrusted: bool) -> Jail | None:
    """The sandbox of an untrusted kernel's process: its static executable alone, under the seccomp filter."""
    return Jail(readable=(path,), seccomp=True) if untrusted else None


def _params(stdout: str) -> list[dict]:
    """The parameters an executable described, checked: it is the kernel's own program that prints them."""
    params = json.loads(stdout)["params"]
    if not isinstance(params, list) or len(params) > MAX_PARAMS:
        raise KeyError("params")
    for p in params:
        if (not isinstance(p, dict) or p.get("kind") not in PARAM_KINDS or not isinstance(p.get("size"), int)
                or not 0 <= p["size"] <= MAX_PARAM_SIZE):
            raise KeyError("params")
    return [{"kind": p["kind"], "size": p["size"]} for p in params]


@lru_cache(maxsize=256)
def _describe(path: str, mtime_ns: int, kernel: str, untrusted: bool) -> list[dict]:
    limits = _limits(DESCRIBE_TIMEOUT_S, 0)
    proc = run_limited([path, "--describe"], limits, jail=_jail(Path(path), untrusted))
    fault = _stopped(proc, limits, kernel)
    if fault is not None:
        raise KernelStartError(fault)
    try:
        return _params(proc.stdout)
    except (json.JSONDecodeError, KeyError, TypeError):
        raise KernelStartError(Fault("crash", f"error: [crash] the kernel's executable did not start: "
                                              f"{_ended(proc)} (kernel {kernel})")) from None


class _Handover:
    """How the files of one run are named to the executable: by path, or for a sandboxed kernel (which may open
    nothing) as descriptors opened here and handed over ("fd:N")."""

    def __init__(self, by_descriptor: bool) -> None:
        self.by_descriptor = by_descriptor
        self.fds: list[int] = []

    def name(self, path: Path, *, write: bool) -> str:
        if not self.by_descriptor:
            return str(path)
        flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC if write else os.O_RDONLY
        fd = os.open(path, flags | os.O_CLOEXEC, 0o600)
        self.fds.append(fd)
        return f"fd:{fd}"

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()


def _write_manifest(args: list[KernelArg], tmp: Path, files: _Handover) -> list[str]:
    lines = []
    for i, arg in enumerate(args):
        if isinstance(arg, GmIn):
            path = tmp / f"arg{i}.bin"
            path.write_bytes(np.ascontiguousarray(arg.array).tobytes())
            lines.append(f"in {files.name(path, write=False)} {arg.name}")
        elif isinstance(arg, GmBytes):
            path = tmp / f"arg{i}.bin"
            path.write_bytes(arg.data)
            lines.append(f"bytes {files.name(path, write=False)} {arg.name}")
        elif isinstance(arg, GmOut):
            lines.append(f"out {files.name(tmp / f'arg{i}.out', write=True)} {arg.nbytes} {arg.name}")
        elif isinstance(arg, GmShape):
            lines.append(f"shape {arg.nbytes} {arg.name}")
        else:
            lines.append(f"value {arg.data.hex() or '00'}")
    return lines


# Who makes scratch directories named by scratch_prefix: the simulator's runs and the NPU backend's device files.
SCRATCH_KINDS = ("sim", "npu")


def scratch_prefix(kind: str = "sim") -> str:
    """Prefix of this process's scratch directories; it carries the pid, so a later run can tell whose are stale."""
    return f"tuner-{kind}-{os.getpid()}-"


def clean_stale_scratch(root: Path | None = None) -> list[Path]:
    """Remove scratch directories that processes killed before they could clean up left behind (kill -9, a
    crash): those whose pid no longer runs. Returns what was removed."""
    root = Path(root or _SCRATCH or tempfile.gettempdir())
    removed = []
    for kind in SCRATCH_KINDS:
        for path in root.glob(f"tuner-{kind}-*-*"):
            pid = path.name.split("-")[2]
            if not pid.isdigit() or pid_alive(int(pid)):
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _forbidden(proc: Finished, exe: Executable) -> Fault | None:
    """The fault of a sandboxed kernel that the seccomp filter killed."""
    if exe.untrusted and proc.returncode == -signal.SIGSYS:
        return Fault("sandbox", "error: [sandbox] the kernel made a system call the sandbox forbids (opening "
                                "files, sockets, processes); it was killed (SIGSYS)")
    return None


@lru_cache(maxsize=1)
def fault_classes() -> frozenset[str]:
    """The fault classes the simulator reports: the runtime's own list, those this module adds, and `project` (a
    CANN project's own mistakes, tuner.sim.project)."""
    text = (RUNTIME_DIR / "runtime.cpp").read_text()
    names = re.search(r"kFaultNames\[\] = \{([^}]*)\}", text)
    return frozenset(re.findall(r'"([a-z0-9-]+)"', names[1])) | {"crash", "timeout", "interrupted", "sandbox",
                                                                   "project"}


_UNSAFE = re.compile(r"[^A-Za-z0-9 _.,:;()\[\]<>=+\-*/%#'@|&!?^~{}]")
TEXT_LIMIT = 400


def _clean(value: object, limit: int = TEXT_LIMIT) -> str:
    """Text of a sandboxed kernel's report as the tuner passes it on (to users, records and LLM prompts): printable
    ASCII of the simulator's vocabulary only, capped; the process that wrote it ran the kernel's code."""
    text = _UNSAFE.sub("", str(value))
    return text if len(text) <= limit else text[:limit] + "..."


def _identifier(value: object) -> str:
    return value if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_:]{0,60}", value) else ""


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) and value >= 0 else None


def _vetted(report: dict, exe: Executable) -> dict:
    """A sandboxed kernel's report rebuilt from what the simulator's schema allows: numbers where it has
    numbers, known fault classes, cleaned and capped text; the SoC and kernel names are the tuner's own."""
    blocks = []
    for block in report.get("blocks", [])[:MAX_BLOCKS] if isinstance(report.get("blocks"), list) else []:
        if isinstance(block, dict):
            blocks.append({k: v for k, v in block.items() if re.fullmatch(r"[a-z0-9_]{1,40}", str(k))
                           and _number(v) is not None})
    faults = []
    for f in report.get("faults", [])[:MAX_FAULTS] if isinstance(report.get("faults"), list) else []:
        if not isinstance(f, dict):
            continue
        cls = f.get("class") if f.get("class") in fault_classes() else "crash"
        faults.append({"class": cls, "text": _clean(f.get("text", "")), "message": _clean(f.get("message", "")),
                       "block": int(f["block"]) if isinstance(f.get("block"), int) else -1,
                       "api": _identifier(f.get("api")),
                       "file": _clean(Path(str(f.get("file", ""))).name, 120),
                       "line": int(f["line"]) if isinstance(f.get("line"), int) else 0})
    warnings = [_clean(w) for w in report.get("warnings", [])[:MAX_FAULTS]] if isinstance(
        report.get("warnings"), list) else []
    vetted = {k: v for k, v in report.items() if k in ("task_duration_us", "gm_to_ub_bytes", "ub_to_gm_bytes",
                                                        "block_dim") and _number(v) is not None}
    return {**vetted, "soc": exe.soc, "kernel": exe.kernel, "time_source": f"simulated, {exe.soc} model",
            "task_duration_us": vetted.get("task_duration_us"), "blocks": blocks, "faults": faults,
            "warnings": warnings}


def _read_report(path: Path, proc: Finished, exe: Executable) -> dict:
    report = None
    if path.exists() and path.stat().st_size > 0:
        try:
            report = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            report = None
    if not isinstance(report, dict):
        ended = _clean(_ended(proc)) if exe.untrusted else _ended(proc)
        report = {"faults": [{"class": "crash", "text": f"error: [crash] {ended}"}]}
    return _vetted(report, exe) if exe.untrusted else report


def report_faults(report: dict) -> list[Fault]:
    return [Fault(cls=f.get("class", "crash"), text=f.get("text", ""), message=f.get("message", ""),
                  block=f.get("block", -1), api=f.get("api", ""), file=f.get("file", ""), line=f.get("line", 0))
            for f in report.get("faults", [])]


def _gm_bytes(args: list[KernelArg]) -> int:
    """Bytes of GM the arguments take in the simulator process."""
    return sum(a.array.nbytes if isinstance(a, GmIn) else a.nbytes if isinstance(a, GmOut | GmShape)
               else len(a.data) for a in args)


def check_timing_only(args: list[KernelArg], timing_only: bool) -> None:
    """UsageError when an input is given by its shape alone (GmShape) in a run that needs its bytes."""
    shaped = [a.name for a in args if isinstance(a, GmShape)]
    if shaped and not timing_only:
        raise UsageError(f"input {shaped[0]} is given by its shape alone: that needs --timing-only")


def run_executable(exe: Executable, args: list[KernelArg], block_dim: int, *, auto_sync: bool = True,
                   trace: Path | None = None, timeout_s: float = 60.0, l2: str = "cold",
                   timing_only: bool = False) -> SimResult:
    """Run a built kernel once on the given arguments, in a child process under time and memory limits.

    `timing_only` runs every check and the model but skips element-wise arithmetic and the bytes of outputs and
    of inputs given by shape (GmShape): the result has no outputs, and its time equals the full run's for a
    kernel whose control flow and addresses do not depend on the data."""
    check_timing_only(args, timing_only)
    try:
        params = describe(exe)
    except KernelStartError as exc:
        return SimResult(exe.soc, exe.kernel, block_dim, None, {}, faults=[exc.fault])
    check_signature(args, params, exe.kernel)
    files = _Handover(by_descriptor=exe.untrusted)
    with tempfile.TemporaryDirectory(prefix=scratch_prefix(), dir=_SCRATCH) as tmpdir:
        tmp = Path(tmpdir)
        try:
            manifest = tmp / "args.txt"
            lines = _write_manifest(args, tmp, files)
            manifest.write_text("\n".join(lines) + "\n")
            report_path = tmp / "report.json"
            trace_path = None if trace is None else tmp / "trace.json" if exe.untrusted else trace
            cmd = [str(exe.path), "--manifest", files.name(manifest, write=False), "--block-dim", str(block_dim),
                   "--report", files.name(report_path, write=True), "--timeout", str(timeout_s)]
            if trace_path is not None:
                cmd += ["--trace", files.name(Path(trace_path).resolve(), write=True)]
            if not auto_sync:
                cmd.append("--no-auto-sync")
            if timing_only:
                cmd.append("--timing-only")
            if l2 != "cold":
                cmd += ["--l2", l2]
            limits = _limits(timeout_s + RUN_GRACE_S, _gm_bytes(args))
            largest = 0 if timing_only else max([a.nbytes for a in args if isinstance(a, GmOut)], default=0)
            file_bytes = max(largest, REPORT_FILE_BYTES, TRACE_FILE_BYTES if trace is not None else 0)
            start = time.perf_counter()
            proc = run_limited(cmd, limits, jail=_jail(exe.path, exe.untrusted), pass_fds=tuple(files.fds),
                               file_bytes=file_bytes)
            elapsed = time.perf_counter() - start
        finally:
            files.close()
        fault = _stopped(proc, limits, exe.kernel) or _forbidden(proc, exe)
        if fault is not None:
            return SimResult(exe.soc, exe.kernel, block_dim, None, {}, faults=[fault], run_seconds=elapsed)
        if proc.returncode == 2 and not exe.untrusted:
            raise UsageError(proc.stderr.strip().splitlines()[-1].removeprefix("error: "))
        report = _read_report(report_path, proc, exe)
        if exe.untrusted and trace is not None and (tmp / "trace.json").exists():
            shutil.copyfile(tmp / "trace.json", trace)
        outputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, GmOut) and not timing_only:
                out = tmp / f"arg{i}.out"
                raw = out.read_bytes() if out.exists() and out.stat().st_size == arg.nbytes else bytes(arg.nbytes)
                outputs.append(np.frombuffer(raw, dtype=arg.dtype).reshape(arg.shape).copy())
    return SimResult(
        soc=exe.soc, kernel=exe.kernel, block_dim=block_dim, task_duration_us=report.get("task_duration_us"),
        report=report, outputs=outputs, faults=_with_memory_note(report_faults(report), proc, limits),
        warnings=list(report.get("warnings", [])),
        run_seconds=elapsed, printed=proc.stdout,
    )


def checked_soc(soc: str, l2: str = "cold") -> Soc:
    """The SoC named `soc`, and `l2` checked: a UsageError naming what is wrong with either."""
    if l2 not in L2_MODES:
        raise UsageError(f"--l2 takes {' or '.join(L2_MODES)}, not '{l2}'")
    try:
        return get_soc(soc)
    except UnknownSocError as exc:
        raise UsageError(str(exc)) from None


def simulate(source: str | Path, kernel: str, block_dim: int, args: list[KernelArg], *, soc: str = DEFAULT_SOC,
             defines: list[str] | tuple[str, ...] = (), auto_sync: bool = True, trace: Path | None = None,
             timeout_s: float = 60.0, l2: str = "cold", untrusted: bool = False,
             timing_only: bool = False) -> SimResult:
    """Compile `source`, run `kernel` over `block_dim` blocks on `args`, and return outputs and the report;
    `untrusted` builds and runs it in the sandbox (SandboxUnavailable where there is none); `timing_only` as
    run_executable takes it.

    Raises UsageError for bad input and CompileError when the kernel does not compile; kernel faults are
    returned in `SimResult.faults`, never raised.
    """
    source = Path(source)
    if not source.is_file():
        raise UsageError(f"no such source file: {source}")
    if block_dim < 1 or block_dim > 65535:
        raise UsageError(f"--block-dim {block_dim} is outside 1..65535")
    soc_spec = checked_soc(soc, l2)
    check_timing_only(args, timing_only)
    start = time.perf_counter()
    exe = build_kernel(source, kernel, soc_spec, tuple(defines), untrusted=untrusted)
    compiled = time.perf_counter() - start
    result = run_executable(exe, args, block_dim, auto_sync=auto_sync, trace=trace, timeout_s=timeout_s, l2=l2,
                            timing_only=timing_only)
    result.compile_seconds = compiled
    result.compile_cached = exe.cached
    return result
