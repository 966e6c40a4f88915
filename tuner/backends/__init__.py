"""Backends: where a kernel is built, run and timed."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tuner.backends.base import Artifact, Backend, Profile, RunResult, TorchTiming
from tuner.errors import UsageError

__all__ = ["Artifact", "Backend", "Choice", "Profile", "RunResult", "SimBackend", "TorchTiming", "choose_backend",
           "make_backend", "time_source"]
BACKENDS = ("sim", "npu", "replay")
# Environment: a recording every backend made answers from (tuner/backends/replay.py), and a file that records
# what every backend made answers.
REPLAY_ENV, RECORD_ENV = "TUNER_REPLAY", "TUNER_RECORD"
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
    (default Ascend910B2). With $TUNER_REPLAY naming a recording (or `replay` asked), the choice is the
    recorded backend and SoC, answered from the recording."""
    if requested not in (*BACKENDS, "auto"):
        raise UsageError(f"unknown backend '{requested}' (known: auto, {', '.join(BACKENDS)})")
    if requested == "replay" or os.environ.get(REPLAY_ENV):
        replay = _replay(requested, soc)
        return Choice(replay.name, replay.soc, f"replayed from the recording {replay.path}")
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


def _replay(requested: str, soc: str | None, recording: Path | None = None) -> Backend:
    """The replay of `recording` (default $TUNER_REPLAY), which must be of the backend `requested` (any for
    `replay` and `auto`) and of `soc` when given."""
    from tuner.backends.replay import ReplayBackend

    path = recording or os.environ.get(REPLAY_ENV)
    if not path:
        raise UsageError(f"--backend replay answers from a recording: set {REPLAY_ENV}=PATH "
                         "(tuner/backends/replay.py says how one is made)")
    replay = ReplayBackend(Path(path))
    if requested not in ("replay", "auto", replay.name):
        raise UsageError(f"the recording {path} is of the {replay.name} backend, not {requested}")
    if soc is not None and soc != replay.soc:
        raise UsageError(f"the recording {path} is of {replay.soc}, not {soc}")
    return replay


def make_backend(name: str, soc: str, workers: int = 1, *, recording: Path | None = None) -> Backend:
    """The backend called `name` for `soc`; UsageError when it is unknown or unavailable here. `replay`, or any
    name while $TUNER_REPLAY names a recording, answers from `recording` (default $TUNER_REPLAY) as the recorded
    backend; with $TUNER_RECORD set, what the backend answers is recorded into that file (written when the
    backend is closed)."""
    if name not in BACKENDS:
        raise UsageError(f"unknown backend '{name}' (known: {', '.join(BACKENDS)})")
    if workers != 1 and name != "npu":
        raise UsageError("--workers is for --backend npu (one worker per NPU); on the simulator use --jobs")
    if name == "replay" or recording is not None or os.environ.get(REPLAY_ENV):
        return _replay(name, soc, recording)
    backend: Backend
    if name == "sim":
        from tuner.backends.sim import SimBackend

        backend = SimBackend(soc)
    else:
        from tuner.backends.npu.backend import NpuBackend

        backend = NpuBackend(soc, workers=workers)
    record = os.environ.get(RECORD_ENV)
    if record:
        from tuner.backends.replay import RecordingBackend

        return RecordingBackend(backend, Path(record))
    return backend


def time_source(backend: str, soc: str) -> str:
    """Where a backend's times come from, as every printed number says it: a model or a measurement."""
    return f"simulated, {soc} model" if backend == "sim" else f"measured on {soc}"


def __getattr__(name: str) -> object:
    # SimBackend is imported on first use: tuner.sim.run, which it is built on, imports this package's args.
    if name == "SimBackend":
        from tuner.backends.sim import SimBackend

        return SimBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
