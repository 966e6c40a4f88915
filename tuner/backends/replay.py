"""A backend that answers from a recorded run, and the recorder that makes the recording while a real run goes.

As Kernel Tuner's simulation mode answers from its cache file instead of compiling, `ReplayBackend` answers
`build`, `run`, `profile`, `time`, `msprof` and `time_torch` with what a real backend gave for the same request,
so tests of the loop, the CLI, storage, leases and rewrites need neither g++ nor the simulator. A replay is the
recorded backend (its name, SoC, version, study tag and capabilities), so a replayed run is named, fingerprinted
and seeded as the recorded run was and asks the same requests; only its times say "(replayed)". A request the
recording does not hold raises `ReplayMiss`, which names the request and what the recording holds for the same
build: a test never gets an answer that was not recorded. `make_backend("replay", soc, recording=PATH)` makes
one; with $TUNER_REPLAY naming a recording, every backend `make_backend` makes is its replay (so a `tuner`
child process replays unchanged).

A recording is one compressed `.npz`: the array `index` holds a UTF-8 JSON document (the recorded backend's name,
SoC, version, time source and yes/no capabilities; per request key, what the request was and its distinct
answers in the order they came) and every other array is a blob named by its SHA-256 (output arrays' bytes, the
kernel objects a screen checked, Chrome traces). Keys:

- a build: the source's text, the kernel name, the defines, `untrusted`, and whether an object check was asked;
- a launch: the call (`run`, `profile` with or without a trace, `time`, `msprof`), the build's key, block_dim
  and the arguments' content (each input's dtype, shape and bytes; each output's dtype and shape; raw buffers,
  structs and scalars by value; argument names are labels and left out);
- torch's own timing: the operator, its changed options and the input sets' content.

A request's answers are served round robin (a build first not cached, then cached; an NPU's `time` calls in the
order they were measured). A replayed build with an object check runs the real check on the recorded object.

Recording: `RecordingBackend(inner, path)` passes every request to `inner` and records it; `make_backend` wraps
the backend it makes in one when $TUNER_RECORD names a file (so a `tuner` command records as it runs). The
recording is written when the backend is closed, merged under a lock into the file there when that recorded the
same backend (several processes may record into one file). Record from an empty cache: a compile error the
compile cache remembers never reaches the backend. The test recordings (tests/data/replays/, the fixtures in
tests/conftest.py) are all made again by one command:

    rm -f tests/data/replays/*.npz && TUNER_RECORD_TESTS=1 python -m pytest -q -p no:cacheprovider -m replay
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import os
import shutil
import tempfile
import threading
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tuner.backends.args import GmBytes, GmIn, GmOut, KernelArg, Scalar, Struct
from tuner.backends.base import Artifact, Backend, Profile, RunResult, TorchTiming
from tuner.backends.npu.device import DeviceError
from tuner.backends.npu.profiler import MsprofError
from tuner.errors import CompileError, ReplayMiss, ToolchainError, TunerError, UsageError
from tuner.filelock import file_lock
from tuner.paths import cache_root
from tuner.sandbox import SandboxUnavailable

if TYPE_CHECKING:
    from tuner.ops.base import Operator

__all__ = ["RecordingBackend", "ReplayArtifact", "ReplayBackend", "ReplayMiss", "capabilities"]

FORMAT = 1
REPLAYED = " (replayed)"
SHOWN = 5  # requests a miss lists of those the recording holds for the same build
# Errors a recorded call may end in, re-raised by the replay; any other exception is not recorded, so the
# replay of that call is a miss.
ERRORS: dict[str, type[TunerError]] = {cls.__name__: cls for cls in (
    CompileError, UsageError, ToolchainError, SandboxUnavailable, DeviceError, MsprofError)}


@dataclass(frozen=True)
class ReplayArtifact(Artifact):
    """A build the recording holds; `key` finds its launches."""

    key: str = ""


def capabilities(backend: Backend) -> dict[str, bool]:
    """The yes/no facts a backend's class declares (`screens_objects`, `sandboxes_untrusted`, ...), which decide
    what the run does with it."""
    found: dict[str, bool] = {}
    for cls in reversed(type(backend).__mro__):
        found.update({k: v for k, v in vars(cls).items() if isinstance(v, bool) and not k.startswith("_")})
    return found


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _array_key(array: np.ndarray) -> str:
    return f"{array.dtype.name}{list(array.shape)}:{_sha(np.ascontiguousarray(array).tobytes())[:16]}"


def _arg_key(arg: KernelArg) -> str:
    if isinstance(arg, GmIn):
        return f"in {_array_key(arg.array)}"
    if isinstance(arg, GmOut):
        return f"out {np.dtype(arg.dtype).name}{list(arg.shape)}"
    if isinstance(arg, GmBytes | Struct):
        kind = "bytes" if isinstance(arg, GmBytes) else "struct"
        return f"{kind} {arg.data.hex()}" if len(arg.data) <= 64 else f"{kind} {len(arg.data)}B:{_sha(arg.data)[:16]}"
    assert isinstance(arg, Scalar)
    return f"{arg.type} {arg.value!r}"


def _build_request(source_text: str, kernel: str, defines: tuple[str, ...], untrusted: bool,
                  checked: bool) -> dict[str, Any]:
    return {"call": "build", "kernel": kernel, "source": _sha(source_text.encode())[:16], "defines": list(defines),
            "untrusted": untrusted, "checked": checked}


def _launch_request(call: str, build: str, block_dim: int, args: list[KernelArg]) -> dict[str, Any]:
    return {"call": call, "build": build, "block_dim": block_dim, "args": [_arg_key(a) for a in args]}


def _profile_request(build: str, block_dim: int, args: list[KernelArg], trace: Path | None,
                     gate_us: float | None) -> dict[str, Any]:
    """A profile's request; the gate is part of it where there is one (a launch gated otherwise answers otherwise)."""
    request = _launch_request("profile+trace" if trace is not None else "profile", build, block_dim, args)
    return request if gate_us is None else {**request, "gate_us": gate_us}


def _torch_request(op: Operator, input_sets: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    return {"call": "time_torch", "op": op.name, "options": op.changed_options(),
            "inputs": [{name: _array_key(a) for name, a in sorted(s.items())} for s in input_sets]}


def _request_key(request: dict[str, Any]) -> str:
    return _sha(json.dumps(request, sort_keys=True).encode())[:20]


def _describe(request: dict[str, Any]) -> str:
    if request["call"] == "build":
        return (f"build of {request['kernel']} (source {request['source']}, defines {request['defines']}, "
                f"untrusted={request['untrusted']}, object checked={request['checked']})")
    if request["call"] == "time_torch":
        return f"torch timing of {request['op']} {request['options']} on {len(request['inputs'])} input sets"
    return (f"{request['call']} of build {request['build']} at block_dim {request['block_dim']} with "
            f"({', '.join(request['args'])})")


class _Blobs:
    """Byte strings by their SHA-256: the arrays a recording keeps, each stored once."""

    def __init__(self, blobs: dict[str, bytes] | None = None) -> None:
        self.by_digest = blobs if blobs is not None else {}

    def put(self, data: bytes) -> str:
        digest = _sha(data)
        self.by_digest.setdefault(digest, data)
        return digest

    def get(self, digest: str) -> bytes:
        return self.by_digest[digest]

    def put_array(self, array: np.ndarray) -> dict[str, Any]:
        return {"blob": self.put(np.ascontiguousarray(array).tobytes()), "dtype": array.dtype.name,
                "shape": list(array.shape)}

    def array(self, entry: dict[str, Any]) -> np.ndarray:
        import ml_dtypes  # noqa: F401 (names bfloat16 for numpy; its import takes a second, so only here)

        return np.frombuffer(self.get(entry["blob"]), dtype=np.dtype(entry["dtype"])).reshape(entry["shape"]).copy()


def _run(run: RunResult, blobs: _Blobs) -> dict[str, Any]:
    return {"outputs": [blobs.put_array(a) for a in run.outputs], "faults": list(run.faults),
            "fault_classes": list(run.fault_classes)}


def _run_back(entry: dict[str, Any], blobs: _Blobs) -> RunResult:
    return RunResult([blobs.array(a) for a in entry["outputs"]], list(entry["faults"]), list(entry["fault_classes"]))


def _profile(profile: Profile, blobs: _Blobs, trace: Path | None) -> dict[str, Any]:
    return {"time_us": profile.time_us, "source": profile.source, "pipe_ratios": profile.pipe_ratios,
            "gm_to_ub_bytes": profile.gm_to_ub_bytes, "ub_to_gm_bytes": profile.ub_to_gm_bytes,
            "run": _run(profile.run, blobs), "report": profile.report, "extra": profile.extra,
            "after_timing": None if profile.after_timing is None else _run(profile.after_timing, blobs),
            "trace": blobs.put(trace.read_bytes()) if trace is not None and trace.exists() else None}


def _profile_back(entry: dict[str, Any], blobs: _Blobs, trace: Path | None) -> Profile:
    if trace is not None and entry["trace"] is not None:
        trace.write_bytes(blobs.get(entry["trace"]))
    after = entry["after_timing"]
    return Profile(entry["time_us"], entry["source"] + REPLAYED, dict(entry["pipe_ratios"]), entry["gm_to_ub_bytes"],
                   entry["ub_to_gm_bytes"], _run_back(entry["run"], blobs), entry["report"], entry["extra"],
                   None if after is None else _run_back(after, blobs))


def _torch(timing: TorchTiming | None, blobs: _Blobs) -> dict[str, Any] | None:
    if timing is None:
        return None
    return {"median_us": timing.median_us, "p20_us": timing.p20_us, "p80_us": timing.p80_us,
            "launches": timing.launches, "source": timing.source,
            "outputs": [{name: blobs.put_array(a) for name, a in s.items()} for s in timing.outputs]}


def _torch_back(entry: dict[str, Any] | None, blobs: _Blobs) -> TorchTiming | None:
    if entry is None:
        return None
    return TorchTiming(entry["median_us"], entry["p20_us"], entry["p80_us"], entry["launches"],
                       [{name: blobs.array(a) for name, a in s.items()} for s in entry["outputs"]],
                       entry["source"] + REPLAYED)


def _error(exc: TunerError) -> dict[str, Any]:
    if isinstance(exc, CompileError):
        return {"error": "CompileError", "summary": exc.summary, "diagnostics": exc.diagnostics,
                "cacheable": exc.cacheable}
    return {"error": type(exc).__name__, "message": str(exc)}


def _raise(entry: dict[str, Any]) -> None:
    if entry["error"] == "CompileError":
        raise CompileError(entry["summary"], entry["diagnostics"], cacheable=entry["cacheable"])
    raise ERRORS[entry["error"]](entry["message"])


def _recordable(exc: BaseException) -> bool:
    return type(exc) in ERRORS.values()


@dataclass
class _Recording:
    """What a recording file holds: the backend it recorded, and per request key its request and answers."""

    backend: dict[str, Any]
    calls: dict[str, dict[str, Any]]
    blobs: _Blobs

    @classmethod
    def read(cls, path: Path) -> _Recording:
        try:
            with np.load(path, allow_pickle=False) as npz:
                index = json.loads(npz["index"].tobytes())
                blobs = {name: npz[name].tobytes() for name in npz.files if name != "index"}
            if index.get("format") != FORMAT:
                raise ValueError(f"format {index.get('format')}, this tuner reads format {FORMAT}")
            return cls(index["backend"], index["calls"], _Blobs(blobs))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:  # JSONDecodeError is a ValueError
            raise UsageError(f"cannot read the recording {path}: {exc}") from None

    def write(self, path: Path) -> None:
        """Written whole or not at all: a temporary sibling renamed into place."""
        index = json.dumps({"format": FORMAT, "backend": self.backend, "calls": self.calls}, sort_keys=True)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, index=np.frombuffer(index.encode(), np.uint8),
                            **{d: np.frombuffer(b, np.uint8) for d, b in sorted(self.blobs.by_digest.items())})
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as tmp:
            try:
                tmp.write(buffer.getvalue())
                tmp.close()
                os.chmod(tmp.name, 0o644)  # a file to commit, not a private one
                os.replace(tmp.name, path)
            finally:
                Path(tmp.name).unlink(missing_ok=True)

    def add(self, request: dict[str, Any], answer: Any) -> None:
        """Keep `answer` unless the request already has it (compared as JSON: a NaN time equals itself)."""
        entry = self.calls.setdefault(_request_key(request), {"request": request, "answers": []})
        text = json.dumps(answer, sort_keys=True)
        if all(json.dumps(a, sort_keys=True) != text for a in entry["answers"]):
            entry["answers"].append(answer)

    def merge(self, other: _Recording) -> None:
        for entry in other.calls.values():
            for answer in entry["answers"]:
                self.add(entry["request"], answer)
        self.blobs.by_digest.update(other.blobs.by_digest)


class RecordingBackend(Backend):
    """Passes every request to `inner` unchanged and records the request and its answer; `close` (or `save`, or
    the process's exit, for a backend nobody closes) writes the recording to `path`, merged into the one there
    when it recorded the same backend."""

    def __init__(self, inner: Backend, path: Path) -> None:
        self.inner, self.path = inner, Path(path)
        self.name, self.soc, self.version = inner.name, inner.soc, inner.version
        for flag, value in capabilities(inner).items():
            setattr(self, flag, value)
        self._recording = _Recording({"name": inner.name, "soc": inner.soc, "version": inner.version,
                                      "time_source": _time_source(inner.name, inner.soc),
                                      "study_tag": getattr(inner, "study_tag", inner.version),
                                      "capabilities": capabilities(inner)},
                                     {}, _Blobs())
        self._builds: dict[Artifact, str] = {}
        self._lock = threading.Lock()
        atexit.register(self.save)

    @property
    def study_tag(self) -> str:
        return self._recording.backend["study_tag"]

    def _add(self, request: dict[str, Any], answer: Any) -> None:
        with self._lock:
            self._recording.add(request, answer)

    def _build_of(self, artifact: Artifact) -> str:
        with self._lock:
            key = self._builds.get(artifact)
        if key is None:
            raise UsageError(f"the recorder did not build {artifact.path}: only its own builds can be recorded")
        return key

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = (), *,
              check_object: Callable[[Path], None] | None = None, **options: Any) -> Artifact:
        """As the inner backend builds; the object a check was asked of is kept, so the replay checks it too."""
        request = _build_request(Path(source).read_text(errors="replace"), kernel, tuple(defines),
                                bool(options.get("untrusted", False)), check_object is not None)
        objects: list[str] = []

        def check(obj: Path) -> None:
            with self._lock:
                objects.append(self._recording.blobs.put(obj.read_bytes()))
            assert check_object is not None
            check_object(obj)

        if check_object is not None:
            options["check_object"] = check
        try:
            artifact = self.inner.build(source, kernel, defines, **options)
        except Exception as exc:
            if _recordable(exc):
                self._add(request, {**_error(exc), "object": objects[0] if objects else None})
            elif objects:  # the object check refused it: the replay runs the same check on the same object
                self._add(request, {"refused": True, "object": objects[0]})
            raise
        key = _request_key(request)
        self._add(request, {"cached": artifact.cached, "untrusted": artifact.untrusted,
                            "object": objects[0] if objects else None})
        with self._lock:
            self._builds[artifact] = key
        return artifact

    def _call(self, request: dict[str, Any], call: Callable[[], Any], encode: Callable[[Any], Any]) -> Any:
        try:
            answer = call()
        except Exception as exc:
            if _recordable(exc):
                self._add(request, _error(exc))
            raise
        with self._lock:
            encoded = encode(answer)
        self._add(request, encoded)
        return answer

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        request = _launch_request("run", self._build_of(artifact), block_dim, args)
        return self._call(request, lambda: self.inner.run(artifact, args, block_dim),
                          lambda run: {"run": _run(run, self._recording.blobs)})

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        request = _profile_request(self._build_of(artifact), block_dim, args, trace, gate_us)
        return self._call(request, lambda: self.inner.profile(artifact, args, block_dim, trace, gate_us),
                          lambda profile: {"profile": _profile(profile, self._recording.blobs, trace)})

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        request = _launch_request("time", self._build_of(artifact), block_dim, args)
        return self._call(request, lambda: self.inner.time(artifact, args, block_dim), lambda t: {"time_us": t})

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict:
        request = _launch_request("msprof", self._build_of(artifact), block_dim, args)
        return self._call(request, lambda: self.inner.msprof(artifact, args, block_dim, output),
                          lambda report: {"msprof": report})

    def time_torch(self, op: Operator, input_sets: list[dict[str, np.ndarray]]) -> TorchTiming | None:
        return self._call(_torch_request(op, input_sets), lambda: self.inner.time_torch(op, input_sets),
                          lambda timing: {"torch": _torch(timing, self._recording.blobs)})

    def save(self) -> None:
        """Write the recording, merged into the file's when that recorded the same backend."""
        with file_lock(cache_root() / "replay-locks" / f"{_sha(str(self.path.resolve()).encode())[:16]}.lock"):
            with self._lock:
                recording = _Recording(dict(self._recording.backend), {}, _Blobs())
                if self.path.exists():
                    before = _Recording.read(self.path)
                    if before.backend == recording.backend:
                        recording.merge(before)
                recording.merge(self._recording)
            recording.write(self.path)

    def close(self) -> None:
        atexit.unregister(self.save)
        try:
            self.save()
        finally:
            self.inner.close()


def _time_source(backend: str, soc: str) -> str:
    from tuner.backends import time_source

    return time_source(backend, soc)


class ReplayBackend(Backend):
    """Answers every request from the recording at `recording`. Its name, soc, version, study tag and
    capabilities are the recorded backend's, so a replayed run is named and fingerprinted as the recorded run
    was and asks the same requests; every time it gives says that it is replayed."""

    def __init__(self, recording: Path) -> None:
        self.path = Path(recording)
        self._recording = _Recording.read(self.path)
        recorded = self._recording.backend
        self.name, self.soc, self.version = recorded["name"], recorded["soc"], recorded["version"]
        for flag, value in recorded["capabilities"].items():
            setattr(self, flag, value)
        self._served: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._scratch: Path | None = None  # where recorded objects are written for a check

    @property
    def time_source(self) -> str:
        """Where the recorded times came from, and that they are replayed."""
        return self._recording.backend["time_source"] + REPLAYED

    @property
    def study_tag(self) -> str:
        """The recorded backend's: a replayed run's studies are named as the recorded run's were."""
        return self._recording.backend.get("study_tag", self.version)

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        key = _request_key(request)
        entry = self._recording.calls.get(key)
        if entry is None:
            raise ReplayMiss(self._missing(request))
        with self._lock:
            index = self._served[key]
            self._served[key] += 1
        answer = entry["answers"][index % len(entry["answers"])]
        if "error" in answer:
            _raise(answer)
        return answer

    def _missing(self, request: dict[str, Any]) -> str:
        """What a miss says: the request, and what the recording holds for the same kernel (a build) or the
        same build (a launch) or operator (torch's timing)."""
        field = {"build": "kernel", "time_torch": "op"}.get(request["call"], "build")
        same = "kernel" if field == "kernel" else "operator" if field == "op" else "build"
        held = [_describe(e["request"]) for e in self._recording.calls.values()
                if e["request"].get(field) == request[field]]
        more = f"; and {len(held) - SHOWN} more" if len(held) > SHOWN else ""
        holds = f"for the same {same} it holds: " + "; ".join(held[:SHOWN]) + more if held else \
            f"it holds nothing for the same {same}"
        return (f"the recording {self.path} holds no {_describe(request)}; {holds} — record it again "
                "(tuner/backends/replay.py says how)")

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = (), *,
              check_object: Callable[[Path], None] | None = None, untrusted: bool = False) -> Artifact:
        request = _build_request(Path(source).read_text(errors="replace"), kernel, tuple(defines), untrusted,
                                check_object is not None)
        answer = self._answer(request)
        if check_object is not None:
            with self._lock:
                self._scratch = self._scratch or Path(tempfile.mkdtemp(prefix="tuner-replay-"))
            obj = self._scratch / f"{answer['object']}.o"
            obj.write_bytes(self._recording.blobs.get(answer["object"]))
            check_object(obj)
            if answer.get("refused"):
                raise ReplayMiss(f"the recording {self.path} holds a {_describe(request)} whose object the check "
                                 "refused, but the check passes it now — record it again")
        return ReplayArtifact(self.path, kernel, self.name, self.soc, cached=answer["cached"],
                              untrusted=answer["untrusted"], key=_request_key(request))

    def _build_of(self, artifact: Artifact) -> str:
        if not isinstance(artifact, ReplayArtifact):
            raise UsageError(f"the replay backend launches only its own builds, not {artifact.path}")
        return artifact.key

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        answer = self._answer(_launch_request("run", self._build_of(artifact), block_dim, args))
        return _run_back(answer["run"], self._recording.blobs)

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        answer = self._answer(_profile_request(self._build_of(artifact), block_dim, args, trace, gate_us))
        return _profile_back(answer["profile"], self._recording.blobs, trace)

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        return float(self._answer(_launch_request("time", self._build_of(artifact), block_dim, args))["time_us"])

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict:
        answer = self._answer(_launch_request("msprof", self._build_of(artifact), block_dim, args))
        output.mkdir(parents=True, exist_ok=True)
        return answer["msprof"]

    def time_torch(self, op: Operator, input_sets: list[dict[str, np.ndarray]]) -> TorchTiming | None:
        return _torch_back(self._answer(_torch_request(op, input_sets))["torch"], self._recording.blobs)

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
