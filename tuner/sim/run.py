"""`simulate()`: compile an Ascend C kernel for the CPU simulator, run it, and read back outputs and report."""

from __future__ import annotations

import json
import math
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from tuner.data.socs import UnknownSocError, get_soc
from tuner.errors import UsageError
from tuner.sim.args import GmBytes, GmIn, GmOut, KernelArg, check_signature
from tuner.sim.build import Executable, Finished, Limits, build_kernel, run_limited

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
    return _describe(str(exe.path), exe.path.stat().st_mtime_ns, exe.kernel)


@lru_cache(maxsize=256)
def _describe(path: str, mtime_ns: int, kernel: str) -> list[dict]:
    limits = _limits(DESCRIBE_TIMEOUT_S, 0)
    proc = run_limited([path, "--describe"], limits)
    fault = _stopped(proc, limits, kernel)
    if fault is not None:
        raise KernelStartError(fault)
    try:
        return json.loads(proc.stdout)["params"]
    except (json.JSONDecodeError, KeyError):
        raise KernelStartError(Fault("crash", f"error: [crash] the kernel's executable did not start: "
                                              f"{_ended(proc)} (kernel {kernel})")) from None


def _write_manifest(args: list[KernelArg], tmp: Path) -> list[str]:
    lines = []
    for i, arg in enumerate(args):
        if isinstance(arg, GmIn):
            path = tmp / f"arg{i}.bin"
            path.write_bytes(np.ascontiguousarray(arg.array).tobytes())
            lines.append(f"in {path} {arg.name}")
        elif isinstance(arg, GmBytes):
            path = tmp / f"arg{i}.bin"
            path.write_bytes(arg.data)
            lines.append(f"bytes {path} {arg.name}")
        elif isinstance(arg, GmOut):
            lines.append(f"out {tmp / f'arg{i}.out'} {arg.nbytes} {arg.name}")
        else:
            lines.append(f"value {arg.data.hex() or '00'}")
    return lines


def _faults(report: dict) -> list[Fault]:
    return [Fault(cls=f.get("class", "crash"), text=f.get("text", ""), message=f.get("message", ""),
                  block=f.get("block", -1), api=f.get("api", ""), file=f.get("file", ""), line=f.get("line", 0))
            for f in report.get("faults", [])]


def _gm_bytes(args: list[KernelArg]) -> int:
    """Bytes of GM the arguments take in the simulator process."""
    return sum(a.array.nbytes if isinstance(a, GmIn) else a.nbytes if isinstance(a, GmOut) else len(a.data)
               for a in args)


def run_executable(exe: Executable, args: list[KernelArg], block_dim: int, *, auto_sync: bool = True,
                   trace: Path | None = None, timeout_s: float = 60.0, l2: str = "cold") -> SimResult:
    """Run a built kernel once on the given arguments, in a child process under time and memory limits."""
    try:
        params = describe(exe)
    except KernelStartError as exc:
        return SimResult(exe.soc, exe.kernel, block_dim, None, {}, faults=[exc.fault])
    check_signature(args, params, exe.kernel)
    with tempfile.TemporaryDirectory(prefix="tuner-sim-", dir=_SCRATCH) as tmpdir:
        tmp = Path(tmpdir)
        manifest = tmp / "args.txt"
        manifest.write_text("\n".join(_write_manifest(args, tmp)) + "\n")
        report_path = tmp / "report.json"
        cmd = [str(exe.path), "--manifest", str(manifest), "--block-dim", str(block_dim), "--report",
               str(report_path), "--timeout", str(timeout_s)]
        if trace is not None:
            cmd += ["--trace", str(Path(trace).resolve())]
        if not auto_sync:
            cmd.append("--no-auto-sync")
        if l2 != "cold":
            cmd += ["--l2", l2]
        limits = _limits(timeout_s + RUN_GRACE_S, _gm_bytes(args))
        start = time.perf_counter()
        proc = run_limited(cmd, limits)
        elapsed = time.perf_counter() - start
        fault = _stopped(proc, limits, exe.kernel)
        if fault is not None:
            return SimResult(exe.soc, exe.kernel, block_dim, None, {}, faults=[fault], run_seconds=elapsed)
        if proc.returncode == 2:
            raise UsageError(proc.stderr.strip().splitlines()[-1].removeprefix("error: "))
        if report_path.exists():
            report = json.loads(report_path.read_text())
        else:
            report = {"faults": [{"class": "crash", "text": f"error: [crash] {_ended(proc)}"}]}
        outputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, GmOut):
                raw = (tmp / f"arg{i}.out").read_bytes() if (tmp / f"arg{i}.out").exists() else bytes(arg.nbytes)
                outputs.append(np.frombuffer(raw, dtype=arg.dtype).reshape(arg.shape).copy())
    return SimResult(
        soc=exe.soc, kernel=exe.kernel, block_dim=block_dim, task_duration_us=report.get("task_duration_us"),
        report=report, outputs=outputs, faults=_with_memory_note(_faults(report), proc, limits),
        warnings=list(report.get("warnings", [])),
        run_seconds=elapsed, printed=proc.stdout,
    )


def simulate(source: str | Path, kernel: str, block_dim: int, args: list[KernelArg], *, soc: str = DEFAULT_SOC,
             defines: list[str] | tuple[str, ...] = (), auto_sync: bool = True, trace: Path | None = None,
             timeout_s: float = 60.0, l2: str = "cold") -> SimResult:
    """Compile `source`, run `kernel` over `block_dim` blocks on `args`, and return outputs and the report.

    Raises UsageError for bad input and CompileError when the kernel does not compile; kernel faults are
    returned in `SimResult.faults`, never raised.
    """
    source = Path(source)
    if not source.is_file():
        raise UsageError(f"no such source file: {source}")
    if block_dim < 1 or block_dim > 65535:
        raise UsageError(f"--block-dim {block_dim} is outside 1..65535")
    if l2 not in L2_MODES:
        raise UsageError(f"--l2 takes {' or '.join(L2_MODES)}, not '{l2}'")
    try:
        soc_spec = get_soc(soc)
    except UnknownSocError as exc:
        raise UsageError(str(exc)) from None
    start = time.perf_counter()
    exe = build_kernel(source, kernel, soc_spec, tuple(defines))
    compiled = time.perf_counter() - start
    result = run_executable(exe, args, block_dim, auto_sync=auto_sync, trace=trace, timeout_s=timeout_s, l2=l2)
    result.compile_seconds = compiled
    result.compile_cached = exe.cached
    return result
