"""Whole programs as Huawei ships them, on the simulator: a host `main()` that calls the ACL runtime and launches
its kernels with `<<<blockDim, l2ctrl, stream>>>` (asc-devkit's CANN 9 samples, `.asc`), or a CPU-debug program
(`tikicpulib.h`, `ICPU_RUN_KF`). The launches are rewritten to calls of the simulator (`tuner_sim/program.h`)
the way CANN's CPU-debug build lets its compiler do it, the program is built against the simulator's headers
and runtime, and it runs in the caller's directory with its own arguments, as the sample's `./demo` would, so
the sample's `scripts/gen_data.py` and `scripts/verify_result.py` work unchanged around it. Each launch leaves
its report (faults, modelled time, pipes) in a directory the runtime is pointed at."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tuner.errors import UsageError
from tuner.sim.build import _atomic_dir, _digest, build_program, cache_root, local_includes, sim_version
from tuner.sim.run import DEFAULT_SOC, SimResult, checked_soc, report_faults

__all__ = ["ProgramResult", "build_cached_program", "simulate_program"]

PROGRAM_SUFFIXES = (".asc", ".cpp", ".cc", ".cxx")


def build_cached_program(sources: list[Path], soc: str = DEFAULT_SOC,
                         defines: list[str] | tuple[str, ...] = ()) -> Path:
    """Build a host program and its kernels for the simulator, once per content (sources, their local headers,
    defines, SoC, simulator version); returns the executable."""
    spec = checked_soc(soc)
    for src in sources:
        if not src.is_file():
            raise UsageError(f"no such source file: {src}")
        if src.suffix not in PROGRAM_SUFFIXES:
            raise UsageError(f"{src}: a program is built from {', '.join(PROGRAM_SUFFIXES)} files")
    sources = [s.resolve() for s in sources]
    texts = [s.read_text(errors="replace") for s in sources]
    headers = [h.read_bytes() for s in sources for h in local_includes(s)]
    key = _digest(*map(str, sources), *texts, *headers, spec.name, sim_version(), *defines)

    def build(out: Path) -> None:
        build_program(sources, out / "program", spec, defines)

    return _atomic_dir(cache_root() / "sim" / "programs" / key, build) / "program"


@dataclass
class ProgramResult:
    """A program's run on the simulator: its exit status and one SimResult per kernel launch, in order."""

    returncode: int
    launches: list[SimResult] = field(default_factory=list)

    @property
    def faults(self) -> list:
        return [f for launch in self.launches for f in launch.faults]

    @property
    def report(self) -> dict:
        return {"returncode": self.returncode, "launches": [launch.report for launch in self.launches]}


def simulate_program(sources: list[Path], program_args: list[str] | tuple[str, ...] = (), *, soc: str = DEFAULT_SOC,
                     defines: list[str] | tuple[str, ...] = (), cwd: Path | None = None, timeout_s: float = 600.0,
                     l2: str = "cold", auto_sync: bool = True) -> ProgramResult:
    """Build the program and run it in `cwd` (the caller's directory) with `program_args`; its output goes to
    this process's stdout and stderr. `timeout_s` bounds each launch (a hang is a timeout fault)."""
    checked_soc(soc, l2)
    exe = build_cached_program(sources, soc, defines)
    with tempfile.TemporaryDirectory(prefix="tuner-program-") as reports:
        # Each launch's report is launch-<n>.json; a crash's (the runtime's signal handler) is crash.json.
        env = dict(os.environ, TUNER_SIM_REPORT_DIR=reports, TUNER_SIM_REPORT=str(Path(reports) / "crash.json"),
                   TUNER_SIM_TIMEOUT=str(timeout_s), TUNER_SIM_L2=l2)
        if not auto_sync:
            env["TUNER_SIM_NO_AUTO_SYNC"] = "1"
        proc = subprocess.run([str(exe), *program_args], cwd=cwd, env=env, check=False)
        launches = []
        found = sorted(Path(reports).glob("launch-*.json"), key=lambda p: int(p.stem.split("-")[1]))
        found += [p for p in [Path(reports) / "crash.json"] if p.exists()]
        for path in found:
            report = json.loads(path.read_text())
            launches.append(SimResult(soc=report.get("soc", soc), kernel=report.get("kernel", "?"),
                                      block_dim=report.get("block_dim", 0),
                                      task_duration_us=report.get("task_duration_us"), report=report,
                                      faults=report_faults(report), warnings=list(report.get("warnings", []))))
    return ProgramResult(proc.returncode, launches)
