"""The CPU simulator as a backend: builds with g++ against the simulator headers, times with its model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tuner.backends.args import KernelArg
from tuner.backends.base import Artifact, Backend, Profile, RunResult
from tuner.data.socs import get_soc
from tuner.sim.build import Executable, build_kernel, sim_version
from tuner.sim.run import SimResult, clean_stale_scratch, run_executable

PIPES = ("vec", "scalar", "mte2", "mte3")


class SimBackend(Backend):
    """Runs kernels on the simulator of one SoC; every time it gives is "simulated, <SoC> model"."""

    name = "sim"
    screens_objects = True
    sandboxes_untrusted = True
    traces = True

    def __init__(self, soc: str = "Ascend910B1", *, auto_sync: bool = True, timeout_s: float = 60.0) -> None:
        self._soc = get_soc(soc)
        self.soc = self._soc.name
        self.auto_sync = auto_sync
        self.timeout_s = timeout_s
        self.version = f"sim-{sim_version()}"
        clean_stale_scratch()

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = (), *,
              check_object: Callable[[Path], None] | None = None, untrusted: bool = False) -> Artifact:
        """Build with g++; `check_object` vets the compiled kernel object before it is linked, and `untrusted`
        builds in the sandbox an executable that runs only there (code an LLM wrote)."""
        exe = build_kernel(Path(source), kernel, self._soc, defines, check_object=check_object, untrusted=untrusted)
        return Artifact(exe.path, kernel, self.name, self.soc, cached=exe.cached, untrusted=untrusted)

    def _launch(self, artifact: Artifact, args: list[KernelArg], block_dim: int,
                trace: Path | None = None) -> SimResult:
        exe = Executable(artifact.path, artifact.kernel, artifact.soc, cached=True, untrusted=artifact.untrusted)
        return run_executable(exe, args, block_dim, auto_sync=self.auto_sync, timeout_s=self.timeout_s, trace=trace)

    @staticmethod
    def _run_result(result: SimResult) -> RunResult:
        return RunResult(result.outputs, [f.text for f in result.faults], [f.cls for f in result.faults])

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        return self._run_result(self._launch(artifact, args, block_dim))

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        result = self._launch(artifact, args, block_dim, trace)
        blocks = result.report.get("blocks", [])
        slowest = max(blocks, key=lambda b: b["aiv_time_us"]) if blocks else {}
        ratios = {p: float(slowest.get(f"aiv_{p}_ratio", 0.0)) for p in PIPES}
        return Profile(
            time_us=float(result.task_duration_us) if result.task_duration_us is not None else float("nan"),
            source=result.time_source,
            pipe_ratios=ratios,
            gm_to_ub_bytes=int(result.report.get("gm_to_ub_bytes", 0)),
            ub_to_gm_bytes=int(result.report.get("ub_to_gm_bytes", 0)),
            run=self._run_result(result),
            report=result.report,
        )
