"""The one interface every backend implements: build a kernel, run it, profile it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from tuner.backends.args import KernelArg
from tuner.errors import UsageError

if TYPE_CHECKING:
    from tuner.ops.base import Operator


@dataclass(frozen=True)
class Artifact:
    """A built kernel a backend can launch."""

    path: Path
    kernel: str
    backend: str
    soc: str
    cached: bool = False
    untrusted: bool = False  # built from an LLM's code: it runs only in the sandbox


@dataclass
class RunResult:
    """Outputs of one launch and the faults found (empty when the kernel ran clean)."""

    outputs: list[np.ndarray]
    faults: list[str] = field(default_factory=list)
    fault_classes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


@dataclass
class Profile:
    """Device time of one launch and where it went; `source` says simulated or measured, and on what."""

    time_us: float
    source: str
    pipe_ratios: dict[str, float]
    gm_to_ub_bytes: int
    ub_to_gm_bytes: int
    run: RunResult
    report: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # trial attributes a backend adds (device timing statistics, ...)
    after_timing: RunResult | None = None  # outputs of the last timed launch, checked again where present


@dataclass(frozen=True)
class TorchTiming:
    """torch's own implementation of an operator timed on a backend's device, and its outputs there."""

    median_us: float
    p20_us: float
    p80_us: float
    launches: int
    outputs: list[dict[str, np.ndarray]]  # per input set
    source: str


def gated(predicted_us: float, source: str, gate_us: float | None) -> str | None:
    """Why a candidate predicted at `predicted_us` (by `source`) is not launched behind `gate_us`; None when the gate
    lets it through."""
    if gate_us is None or not predicted_us > gate_us:
        return None
    return f"not launched: predicted {predicted_us:.3f} µs ({source}), slower than the gate of {gate_us:.3f} µs"


class Backend(ABC):
    """Builds and launches Ascend C kernels on one target (the CPU simulator or an NPU).

    `build` raises CompileError with the compiler's diagnostics; `run` and `profile` never raise for a
    faulty kernel: faults come back in the result, so the caller can record them against the candidate.
    """

    name: str
    soc: str
    version: str  # changes whenever a build or a time could change (compiler, simulator, toolkit)

    # What the backend can do beyond build/run/profile; a run's phases follow these, never the backend's name.
    times_torch: ClassVar[bool] = False  # `time_torch` times torch's own operator on the device
    retimes: ClassVar[bool] = False  # times are noisy measurements: the best few are re-timed before a winner
    profiles_with_msprof: ClassVar[bool] = False  # `msprof` profiles a launch with msprof op
    traces: ClassVar[bool] = False  # `profile(trace=...)` writes the launch's timeline
    screens_objects: ClassVar[bool] = False  # a build leaves a host object whose symbols can be checked
    sandboxes_untrusted: ClassVar[bool] = False  # builds and runs an untrusted kernel in the sandbox

    @property
    def study_tag(self) -> str:
        """What a study's name keeps of the backend, so that a change of it starts new studies: the version (a
        model's times are its own); a device, whose times are measurements, names itself."""
        return self.version

    @abstractmethod
    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = ()) -> Artifact:
        """Compile `source` with entry `kernel` (cached by content; `Artifact.cached` says whether it was)."""

    @abstractmethod
    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        """Launch once and return the outputs (GmOut arguments, in order)."""

    @abstractmethod
    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        """Launch and time; the result also carries that launch's outputs and faults. With `trace`, also write
        a Chrome-trace timeline of the launch there (one row per pipe per block). A backend that predicts a launch
        on the simulator before it runs it on a device (the NPU's) does not launch one predicted slower than
        `gate_us`: its profile then has no time and the fault class `predicted_slow`, with the prediction as
        `sim_us` in `extra`; a backend whose time is the simulator's ignores the gate."""

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        """One more time of a kernel already checked, in µs (the re-timing of the best few before the winner)."""
        return self.profile(artifact, args, block_dim).time_us

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict:
        """One launch profiled by `msprof op`, in the simulator's report schema; only a device has msprof."""
        raise UsageError(f"msprof profiles kernels on an NPU; the {self.name} backend has none")

    def time_torch(self, op: Operator, input_sets: list[dict[str, np.ndarray]]) -> TorchTiming | None:
        """torch's own implementation of `op` run on every input set and timed on the first, on this backend's
        device; None where there is none (the simulator runs Ascend C only)."""
        return None

    def close(self) -> None:  # noqa: B027 (most backends hold nothing)
        """Release what the backend holds (device workers); it is not used afterwards."""
