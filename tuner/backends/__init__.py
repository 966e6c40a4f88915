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
        raise UsageError("the npu backend is not available yet (it needs CANN and torch_npu); use --backend sim")
    raise UsageError(f"unknown backend '{name}' (known: {', '.join(BACKENDS)})")


def time_source(backend: str, soc: str) -> str:
    """Where a backend's times come from, as every printed number says it: a model or a measurement."""
    return f"simulated, {soc} model" if backend == "sim" else f"measured on {soc}"
