"""Backends: where a kernel is built, run and timed."""

from __future__ import annotations

from dataclasses import dataclass

from tuner.backends.base import Artifact, Backend, Profile, RunResult, TorchTiming
from tuner.backends.sim import SimBackend
from tuner.errors import UsageError

__all__ = ["Artifact", "Backend", "Choice", "Profile", "RunResult", "SimBackend", "TorchTiming", "choose_backend",
           "make_backend", "time_source"]
BACKENDS = ("sim", "npu")
DEFAULT_SOC = "Ascend910B2"


@dataclass(frozen=True)
class Choice:
    """The backend and SoC a run uses, and one line saying why (printed before it starts)."""

    backend: str
    soc: str
    why: str


def choose_backend(requested: str, soc: str | None) -> Choice:
    """`auto` takes the NPU when everything it needs is here, else the simulator; `sim` and `npu` are taken as
    asked. On the NPU the SoC is the device's, and a different `soc` is an error; the simulator models `soc`
    (default Ascend910B2)."""
    if requested not in (*BACKENDS, "auto"):
        raise UsageError(f"unknown backend '{requested}' (known: auto, {', '.join(BACKENDS)})")
    if requested == "sim":
        return Choice("sim", soc or DEFAULT_SOC, "--backend sim")
    from tuner.backends.npu.backend import device_soc, npu_unavailable
    from tuner.backends.npu.detect import detect

    found = detect()
    if not found.npu_ready:
        if requested == "npu":
            raise UsageError(npu_unavailable(found))
        return Choice("sim", soc or DEFAULT_SOC, "no NPU ready here; `tuner doctor` says what is missing")
    soc = device_soc(found, soc)
    return Choice("npu", soc, f"{found.device_count} × {soc} with CANN {found.cann_version}")


def make_backend(name: str, soc: str, workers: int = 1) -> Backend:
    """The backend called `name` for `soc`; UsageError when it is unknown or unavailable here."""
    if name == "sim":
        if workers != 1:
            raise UsageError("--workers is for --backend npu (one worker per NPU); on the simulator use --jobs")
        return SimBackend(soc)
    if name == "npu":
        from tuner.backends.npu.backend import NpuBackend

        return NpuBackend(soc, workers=workers)
    raise UsageError(f"unknown backend '{name}' (known: {', '.join(BACKENDS)})")


def time_source(backend: str, soc: str) -> str:
    """Where a backend's times come from, as every printed number says it: a model or a measurement."""
    return f"simulated, {soc} model" if backend == "sim" else f"measured on {soc}"
