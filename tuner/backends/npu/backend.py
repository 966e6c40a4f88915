"""The NPU as a backend: builds with CANN (build.py), pre-checks every launch on the simulator, then runs and
times it on the device through a watchdog worker (device.py, worker.py).

Every profile runs the simulator first with the same arguments: its fault checks catch what hardware does
silently or by hanging (out-of-bounds GM, unpaired flags that corrupt the next operator), and its time is
kept beside the measurement as the model's prediction. Only a clean kernel reaches the device. Times are the
median of NPU-event launch times (timing.py), "measured on <SoC>".
"""

from __future__ import annotations

import atexit
import json
import math
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tuner.backends import time_source
from tuner.backends.args import GmBytes, GmIn, GmOut, KernelArg
from tuner.backends.base import Artifact, Backend, Profile, RunResult, TorchTiming, gated
from tuner.backends.npu.build import RECIPE_VERSION, NpuBuilder, NpuToolchain
from tuner.backends.npu.detect import Detection, detect
from tuner.backends.npu.device import DeviceError, DevicePool, DeviceTimeout, pinned_env
from tuner.backends.npu.msprof import profile_from_report
from tuner.backends.npu.profiler import MsprofError, profile_kernel
from tuner.backends.npu.timing import l2_flush_bytes, summarize
from tuner.backends.sim import SimBackend
from tuner.data.socs import UnknownSocError, get_soc
from tuner.errors import ErrorClass, UsageError
from tuner.ops.base import NUMPY_DTYPES, Operator
from tuner.sim.run import clean_stale_scratch, scratch_prefix

DTYPE_NAMES = {dtype: name for name, dtype in NUMPY_DTYPES.items()}
PRECHECK = "simulator pre-check (nothing ran on the NPU)"


@dataclass(frozen=True)
class TimingPolicy:
    """How a candidate is timed: at least `min_launches` launches or `min_total_ms` of device time, each after
    writing 2× L2 (`flush`) so it reads cold inputs, as the simulator models them."""

    min_launches: int = 100
    min_total_ms: float = 100.0
    flush: bool = True

    def request(self, l2_bytes: int) -> dict[str, Any]:
        return {"min_launches": self.min_launches, "min_total_ms": self.min_total_ms,
                "flush_bytes": l2_flush_bytes(l2_bytes) if self.flush else 0}


@dataclass(frozen=True)
class NpuArtifact(Artifact):
    """The device library, and the same source built for the simulator (the pre-check)."""

    sim: Artifact | None = None


def visible_devices(count: int, env: dict[str, str] | os._Environ = os.environ) -> list[str]:
    """The device ids a worker may be pinned to: ASCEND_RT_VISIBLE_DEVICES when set, else 0..count-1."""
    given = env.get("ASCEND_RT_VISIBLE_DEVICES", "").strip()
    if given:
        return [d.strip() for d in given.split(",") if d.strip()]
    return [str(i) for i in range(count)]


def npu_unavailable(found: Detection) -> str:
    """One line on why the npu backend cannot run: what detection found missing (as `tuner doctor` shows it)."""
    missing = [f"{item.name} ({item.detail})" for item in found.missing()]
    return (f"the npu backend is not available: missing {'; '.join(missing) or 'an NPU'} — run `tuner doctor` for "
            "the fixes, or use --backend sim")


def device_soc(found: Detection, soc: str | None) -> str:
    """The SoC a run on this machine's NPU is for: the device's own, which `soc`, when given, must name."""
    if not found.soc_known:
        raise UsageError(f"the NPU reports itself as '{found.device_name}', which tuner/data/socs.yaml does not know; "
                         "add it there, or use --backend sim")
    if soc is not None:
        try:
            asked = get_soc(soc).name
        except UnknownSocError as exc:
            raise UsageError(str(exc)) from None
        if asked != found.device_soc:
            raise UsageError(f"--soc {soc} differs from this machine's NPU ({found.device_soc}); drop --soc, pass "
                             f"--soc {found.device_soc}, or use --backend sim to model {soc}")
    return str(found.device_soc)


class NpuBackend(Backend):
    """Kernels built with CANN and run on the NPUs of this machine; every time is "measured on <SoC>"."""

    name = "npu"
    screens_objects = True
    times_torch = retimes = profiles_with_msprof = traces = True

    def __init__(self, soc: str | None = None, *, detection: Detection | None = None, workers: int = 1,
                 timing: TimingPolicy | None = None, timeout_s: float = 60.0, startup_timeout_s: float = 300.0) -> None:
        found = detection or detect()
        if not found.npu_ready:
            raise UsageError(npu_unavailable(found))
        self._soc = get_soc(device_soc(found, soc))
        devices = visible_devices(found.device_count)
        if workers < 1 or workers > len(devices):
            raise UsageError(f"--workers {workers}: this machine has {len(devices)} usable NPU(s)")
        self.soc = self._soc.name
        self.detection = found
        self.toolchain = NpuToolchain.from_detection(found)
        self.builder = NpuBuilder(self.toolchain, self._soc)
        self.sim = SimBackend(self.soc)
        self.timing = timing or TimingPolicy()
        self.timeout_s = timeout_s
        self.version = f"npu-cann{self.toolchain.version}-r{RECIPE_VERSION}+{self.sim.version}"
        self.pool = DevicePool(devices[:workers], startup_timeout_s)
        shm = Path("/dev/shm")
        clean_stale_scratch(shm if shm.is_dir() else None)
        self._files = Path(tempfile.mkdtemp(prefix=scratch_prefix("npu"), dir=shm if shm.is_dir() else None))
        self._written: dict[int, tuple[np.ndarray, str]] = {}
        self._lock = threading.Lock()
        self._count = 0
        atexit.register(self.close)

    @property
    def study_tag(self) -> str:
        return self.name

    def close(self) -> None:
        self.pool.close()
        shutil.rmtree(self._files, ignore_errors=True)

    # --- building ---------------------------------------------------------------------------------

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = (), *, check_object=None) -> Artifact:
        """The simulator build first (and the object check for untrusted code), then the CANN build."""
        sim = self.sim.build(source, kernel, defines, check_object=check_object)
        library = self.builder.build(Path(source), kernel)
        return NpuArtifact(library, kernel, self.name, self.soc, cached=sim.cached, sim=sim)

    # --- moving arrays ----------------------------------------------------------------------------

    def _scratch(self) -> Path:
        with self._lock:
            self._count += 1
            path = self._files / f"r{self._count}"
        path.mkdir()
        return path

    def _file(self, array: np.ndarray) -> str:
        """The file an input array is written to, once per array object the run keeps alive."""
        with self._lock:
            known = self._written.get(id(array))
            if known is not None and known[0] is array:
                return known[1]
            path = str(self._files / f"in{len(self._written)}.bin")
            np.ascontiguousarray(array).tofile(path)
            self._written[id(array)] = (array, path)
            return path

    def _input_spec(self, array: np.ndarray) -> dict[str, Any]:
        return {"kind": "in", "path": self._file(array), "dtype": DTYPE_NAMES[array.dtype], "shape": list(array.shape)}

    def _specs(self, args: list[KernelArg]) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = []
        for arg in args:
            if isinstance(arg, GmIn):
                specs.append(self._input_spec(arg.array))
            elif isinstance(arg, GmOut):
                specs.append({"kind": "out", "dtype": DTYPE_NAMES[np.dtype(arg.dtype)], "shape": list(arg.shape)})
            elif isinstance(arg, GmBytes):
                specs.append({"kind": "bytes", "hex": arg.data.hex()})
            else:
                raise TypeError(f"the npu backend cannot pass a {type(arg).__name__} argument")
        return specs

    @staticmethod
    def _read(paths: list[str], args: list[KernelArg]) -> list[np.ndarray]:
        outs = [a for a in args if isinstance(a, GmOut)]
        return [np.fromfile(p, dtype=np.dtype(a.dtype)).reshape(a.shape) for p, a in zip(paths, outs, strict=True)]

    @contextmanager
    def _ask(self, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A free device worker's reply to `message`; the files it wrote exist until the block ends."""
        scratch = self._scratch()
        try:
            with self.pool.worker() as worker:
                yield worker.request({**message, "out_dir": str(scratch)}, self.timeout_s)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    # --- launching --------------------------------------------------------------------------------

    def _launch(self, artifact: Artifact, args: list[KernelArg], block_dim: int, timed: bool
                ) -> tuple[RunResult, dict[str, Any]]:
        message = {"op": "launch", "lib": str(artifact.path), "block_dim": block_dim, "args": self._specs(args),
                   "timing": self.timing.request(int(self._soc.l2_bytes.value)) if timed else None}
        try:
            with self._ask(message) as reply:
                reply["outputs"] = self._read(reply["outputs"], args)
                if "after" in reply:
                    reply["after"] = self._read(reply["after"], args)
        except DeviceTimeout as exc:
            return RunResult([], [str(exc)], ["timeout"]), {}
        except DeviceError as exc:
            return RunResult([], [f"on the NPU: {exc}"], ["fault"]), {}
        return RunResult(reply["outputs"]), reply

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        return self._launch(artifact, args, block_dim, timed=False)[0]

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        """Simulate (fault checks, prediction), then, unless the prediction is slower than `gate_us`, launch, time
        and launch-check on the device."""
        assert isinstance(artifact, NpuArtifact) and artifact.sim is not None
        sim = self.sim.profile(artifact.sim, args, block_dim, trace)
        source = time_source(self.name, self.soc)
        prediction = {"sim_us": round(sim.time_us, 3) if math.isfinite(sim.time_us) else None,
                      "sim_source": sim.source, "pipe_source": sim.source}
        if not sim.run.ok:
            run = RunResult([], [f"{PRECHECK}: {text}" for text in sim.run.faults], sim.run.fault_classes)
            return Profile(math.nan, source, sim.pipe_ratios, sim.gm_to_ub_bytes, sim.ub_to_gm_bytes, run,
                           sim.report, extra=prediction)
        if (why := gated(sim.time_us, sim.source, gate_us)) is not None:
            run = RunResult([], [why], [ErrorClass.PREDICTED_SLOW])
            return Profile(math.nan, sim.source, sim.pipe_ratios, sim.gm_to_ub_bytes, sim.ub_to_gm_bytes, run,
                           sim.report, extra=prediction)
        run, reply = self._launch(artifact, args, block_dim, timed=True)
        if not run.ok:
            return Profile(math.nan, source, sim.pipe_ratios, sim.gm_to_ub_bytes, sim.ub_to_gm_bytes, run,
                           sim.report, extra=prediction)
        stats = summarize(reply["samples_us"])
        timing = {"median_us": round(stats.median_us, 3), "p20_us": round(stats.p20_us, 3),
                  "p80_us": round(stats.p80_us, 3), "min_us": round(stats.min_us, 3), "launches": stats.n}
        return Profile(stats.median_us, source, sim.pipe_ratios, sim.gm_to_ub_bytes, sim.ub_to_gm_bytes, run,
                       sim.report, extra={**prediction, "timing": timing}, after_timing=RunResult(reply["after"]))

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        """The median device time of a kernel that already passed the pre-check and the checks."""
        run, reply = self._launch(artifact, args, block_dim, timed=True)
        if not run.ok:
            raise DeviceError(run.faults[0])
        return summarize(reply["samples_us"]).median_us

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict[str, Any]:
        """One launch under `msprof op --kernel-name=<entry>` (the worker answering a single request), its
        PipeUtilization.csv read into the simulator's report schema, and the pipe ratios of its slowest block."""
        msprof = self.detection.msprof
        if msprof is None:
            raise MsprofError("msprof was not found (see `tuner doctor`); it ships with the CANN toolkit")
        output.mkdir(parents=True, exist_ok=True)
        scratch = self._scratch()
        try:
            request = scratch / "request.json"
            request.write_text(json.dumps({"op": "launch", "lib": str(artifact.path), "block_dim": block_dim,
                                           "args": self._specs(args), "out_dir": str(scratch), "timing": None}))
            env = pinned_env(self.pool.workers[0].device)
            app = [sys.executable, "-m", "tuner.backends.npu.worker", "--once", str(request)]
            report = profile_kernel(msprof, artifact.kernel, app, output, timeout_s=max(self.timeout_s, 120.0), env=env)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return {**report, "pipe_ratios": profile_from_report(report)}

    def time_torch(self, op: Operator, input_sets: list[dict[str, np.ndarray]]) -> TorchTiming:
        """torch's own implementation of `op` on the device (torch_npu's kernels): its outputs on every input
        set, and its times on the first."""
        outputs = []
        for index, inputs in enumerate(input_sets):
            message = {"op": "torch", "name": op.name, "options": op.changed_options(),
                       "inputs": {name: self._input_spec(a) for name, a in inputs.items()},
                       "timing": self.timing.request(int(self._soc.l2_bytes.value)) if index == 0 else None}
            dtype = next(iter(inputs.values())).dtype
            with self._ask(message) as reply:
                outputs.append({name: np.fromfile(out["path"], dtype=dtype).reshape(out["shape"])
                                for name, out in reply["outputs"].items()})
            if index == 0:
                stats = summarize(reply["samples_us"])
        return TorchTiming(stats.median_us, stats.p20_us, stats.p80_us, stats.n, outputs,
                           time_source(self.name, self.soc))
