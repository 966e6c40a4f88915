"""Backends: where a kernel is built, run and timed."""

from __future__ import annotations

from tuner.backends.base import Artifact, Backend, Profile, RunResult
from tuner.backends.sim import SimBackend
from tuner.errors import UsageError

__all__ = ["Artifact", "Backend", "Profile", "RunResult", "SimBackend", "make_backend", "time_source"]
BACKENDS = ("sim", "npu")


def make_backend(name: str, soc: str) -> Backend:
    """The backend called `name` for `soc`; UsageError when it is unknown or unavailable here."""
    if name == "sim":
        return SimBackend(soc)
    if name == "npu":
        raise UsageError(npu_unavailable())
    raise UsageError(f"unknown backend '{name}' (known: {', '.join(BACKENDS)})")


def time_source(backend: str, soc: str) -> str:
    """Where a backend's times come from, as every printed number says it: a model or a measurement."""
    return f"simulated, {soc} model" if backend == "sim" else f"measured on {soc}"


def npu_unavailable() -> str:
    """One line on why `--backend npu` cannot run here: what detection found missing (as `tuner doctor` shows
    it), or, on a machine with everything, that this version has no npu backend yet."""
    from tuner.backends.npu.detect import MSPROF, detect

    found = detect()
    missing = [f"{item.name} ({item.detail})" for item in found.items if not item.found and item.name != MSPROF]
    if missing:
        return (f"the npu backend is not available: missing {'; '.join(missing)} — run `tuner doctor` for the fixes, "
                "or use --backend sim")
    return (f"the npu backend is not implemented in this version (found {found.device_soc or 'an NPU'} with CANN "
            f"{found.cann_version}); use --backend sim")
