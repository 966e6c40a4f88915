"""One candidate, end to end: constraints, render, build, run on every input set, verify, time.

Every way a candidate can fail becomes a `Measurement` with an error class, never an exception, so the loop
records it against the trial. Exceptions that escape are the tuner's own errors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from tuner.backends.args import GmBytes, GmIn, GmOut, KernelArg, pack_tiling
from tuner.backends.base import Artifact, Backend, RunResult, TorchTiming
from tuner.data.socs import get_soc
from tuner.errors import ErrorClass, TunerError
from tuner.ops.base import NUMPY_DTYPES, Operator, to_numpy, to_torch
from tuner.search.compile_cache import Build, CompileCache, source_hash
from tuner.search.roofline import roofline
from tuner.space.render import TemplateError, kernel_variables, render_kernel
from tuner.space.spaces import Point, SearchSpace, Variant

INPUT_SETS = 3
# A candidate this many times faster than the run's baseline is suspect, as is one faster than the roofline.
SUSPECT_SPEEDUP = 10.0


@dataclass(frozen=True)
class Candidate:
    """A feasible point made ready once, when it is asked: its variant, knobs, launch and rendered source (or why
    the template did not render); the measurement, the rewrites and the summary read it from here."""

    variant: str
    params: dict[str, Any]
    point: Point
    source: str | None
    render_error: str = ""

    @property
    def source_hash(self) -> str | None:
        return source_hash(self.source) if self.source is not None else None

    @property
    def launch(self) -> dict[str, Any]:
        return {"block_dim": self.point.block_dim, "tiling": dict(self.point.tiling)}


@dataclass(frozen=True)
class Measurement:
    """What measuring one candidate gave: a time (µs) when correct, else an error class and detail, with what the
    build, the launches and the checks observed. `attrs` is the form a trial keeps as its user attributes."""

    candidate: Candidate | None = None  # None: the point was infeasible
    value: float | None = None
    error_class: ErrorClass | None = None
    detail: str = ""
    measured: bool = False
    compile_log: str | None = None
    compile_s: float | None = None
    build_cached: bool | None = None
    time_source: str | None = None
    pipe: dict[str, float] | None = None
    backend_attrs: dict[str, Any] = field(default_factory=dict)  # what the backend adds (device timing, ...)
    suspect: str | None = None
    verified_sets: int | None = None
    max_error: dict[str, float] | None = None
    seconds: dict[str, float] | None = None
    torch_us: float | None = None
    speedup_vs_torch: float | None = None

    @property
    def ok(self) -> bool:
        return self.error_class is None and self.value is not None

    @property
    def judged(self) -> bool:
        """A new candidate was judged: measured, or kept off the device by its prediction."""
        return self.measured or self.error_class == ErrorClass.PREDICTED_SLOW

    @property
    def built(self) -> bool:
        return self.compile_s is not None

    @property
    def source(self) -> str | None:
        return self.candidate.source if self.candidate else None

    @property
    def attrs(self) -> dict[str, Any]:
        """The trial attributes of the measurement (the error class and detail are told beside them)."""
        attrs: dict[str, Any] = {}
        if self.candidate is not None:
            attrs["launch"] = self.candidate.launch
        if self.built:
            attrs.update(source_hash=self.candidate.source_hash if self.candidate else None, compile_s=self.compile_s,
                         build_cached=self.build_cached)
        if self.time_source is not None:
            attrs.update(time_source=self.time_source, pipe=self.pipe, **self.backend_attrs)
        if self.suspect is not None:
            attrs["suspect"] = self.suspect
        if self.verified_sets is not None:
            attrs.update(verified_sets=self.verified_sets, max_error=self.max_error, seconds=self.seconds)
        if self.torch_us is not None:
            attrs.update(torch_us=self.torch_us, speedup_vs_torch=self.speedup_vs_torch)
        return attrs


class RunInputs:
    """The input sets of a run and their float64 references, made once and shared by every candidate."""

    def __init__(self, op: Operator, shape: tuple[int, ...], dtype: str, sets: int = INPUT_SETS) -> None:
        self.op, self.shape, self.dtype = op, shape, dtype
        self.inputs = [op.make_inputs(shape, dtype, i) for i in range(sets)]
        self.arrays = [{k: to_numpy(v) for k, v in s.items()} for s in self.inputs]
        self.expected = [op.expectations(s, dtype) for s in self.inputs]
        self.output_shapes = op.output_shapes(shape)
        self.output_dtypes = op.output_dtypes(dtype)
        self.torch: TorchTiming | None = None  # torch's own op on the backend's device, when it has one


def kernel_args(space: SearchSpace, arrays: Mapping[str, Any], output_shapes: Mapping[str, tuple[int, ...]],
                dtype: str, tiling: bytes, output_dtypes: Mapping[str, str] | None = None,
                workspace_bytes: int = 0) -> list[KernelArg]:
    """The launcher: the kernel's arguments in the order its search space declares them (each output of its dtype
    in `output_dtypes`, else `dtype`; the workspace `workspace_bytes` zeros, `SearchSpace.workspace_bytes` of the
    point, made anew for each call, so each launch starts from zeros). The outputs are the `out` arguments only."""
    args: list[KernelArg] = []
    for arg in space.args:
        if arg.kind == "in":
            args.append(GmIn(arrays[arg.tensor or arg.name], arg.name))
        elif arg.kind == "out":
            tensor = arg.tensor or arg.name
            args.append(GmOut(NUMPY_DTYPES[(output_dtypes or {}).get(tensor, dtype)], output_shapes[tensor], arg.name))
        elif arg.kind == "workspace":
            if workspace_bytes < 1:
                raise TunerError(f"the kernel takes workspace '{arg.name}', but the launch was given {workspace_bytes} "
                                 "bytes of it")
            args.append(GmBytes(bytes(workspace_bytes), arg.name))
        else:
            args.append(GmBytes(tiling, arg.name))
    return args


class Evaluator:
    """Evaluates points of one variant of one operator on one backend, for a fixed shape and dtype."""

    def __init__(self, space: SearchSpace, variant: Variant, backend: Backend, cache: CompileCache,
                 inputs: RunInputs, context: Mapping[str, Any]) -> None:
        self.space, self.variant, self.backend, self.cache = space, variant, backend, cache
        self.inputs, self.context = inputs, dict(context)
        self._fields = [name for name, _ in variant.tiling]
        self.roofline_us = roofline(inputs.op, inputs.shape, inputs.dtype, get_soc(backend.soc)).bound_us

    def render(self, params: Mapping[str, Any]) -> str:
        return render_kernel(self.variant.template, kernel=self.space.kernel, dtype=self.inputs.dtype,
                             struct=self.space.tiling_struct, tiling_fields=self._fields,
                             structural=self.variant.structural(params), options=self.inputs.op.opts)

    def variables(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The template variables of a point (to render the template in another form, e.g. line-marked)."""
        return kernel_variables(kernel=self.space.kernel, dtype=self.inputs.dtype, struct=self.space.tiling_struct,
                                tiling_fields=self._fields, structural=self.variant.structural(params),
                                options=self.inputs.op.opts)

    def _outputs(self, run: RunResult) -> dict[str, torch.Tensor]:
        names = [a.tensor or a.name for a in self.space.args if a.kind == "out"]
        return {name: to_torch(array) for name, array in zip(names, run.outputs, strict=True)}

    def _verdict(self, run: RunResult, index: int, errors: list[float]) -> tuple[str, str] | None:
        """(error class, detail) of a launch on input set `index`, or None when it is right; `errors` keeps
        the worst absolute and relative error seen."""
        if run.faults:
            cls = ErrorClass.INTERRUPTED if ErrorClass.INTERRUPTED in run.fault_classes else \
                ErrorClass.TIMEOUT if ErrorClass.TIMEOUT in run.fault_classes else ErrorClass.FAULT
            return cls, f"input set {index}: {run.faults[0]}"
        check = self.inputs.op.check(self._outputs(run), self.inputs.inputs[index], self.inputs.expected[index])
        errors[:] = [max(errors[0], check.max_abs_err), max(errors[1], check.max_err_ratio)]
        return None if check.ok else (ErrorClass.WRONG_RESULT, f"input set {index}: {check.detail}")

    def suspect(self, time_us: float, source: str, baseline_us: float | None) -> str | None:
        """Why a time is too good to take on trust (faster than the roofline, or more than SUSPECT_SPEEDUP times
        faster than the run's baseline `baseline_us`), else None."""
        if time_us < self.roofline_us:
            return f"faster than the roofline: {time_us:.3f} µs ({source}) < {self.roofline_us:.3f} µs"
        if baseline_us is not None and time_us * SUSPECT_SPEEDUP < baseline_us:
            return (f"more than {SUSPECT_SPEEDUP:g}x faster than the baseline: {time_us:.3f} µs < "
                    f"{baseline_us:.3f} µs / {SUSPECT_SPEEDUP:g} ({source})")
        return None

    def candidate(self, params: Mapping[str, Any]) -> Candidate | None:
        """The candidate a feasible point makes (rendered here), None for an infeasible one."""
        point = self.variant.evaluate(params, self.context)
        if not point.feasible:
            return None
        try:
            return Candidate(self.variant.name, dict(params), point, self.render(params))
        except TemplateError as exc:
            return Candidate(self.variant.name, dict(params), point, None, str(exc))

    def evaluate(self, params: Mapping[str, Any], best_us: float | None = None,
                 baseline_us: float | None = None) -> Measurement:
        """Make the candidate of one point and measure it (`measure`)."""
        candidate = self.candidate(params)
        if candidate is None:
            return Measurement(error_class=ErrorClass.INFEASIBLE,
                               detail=self.variant.evaluate(params, self.context).why_infeasible())
        return self.measure(candidate, best_us, baseline_us)

    def measure(self, candidate: Candidate, best_us: float | None = None, baseline_us: float | None = None,
                gate_us: float | None = None) -> Measurement:
        """Build, run, check and time a candidate. One faster than `best_us` (the run's best so far) is checked on
        every input set before it is told; slower ones cannot become best, so the timed launch's set suffices. A
        suspect candidate (`suspect`, against the run's baseline time `baseline_us`) is run again on every input
        set, the timed one too, and keeps the reason as its `suspect` attribute. On a device, a candidate the
        simulator predicts slower than `gate_us` is not launched (`predicted_slow`, not measured)."""
        if candidate.source is None:
            return Measurement(candidate, error_class=ErrorClass.RENDER_ERROR, detail=candidate.render_error)
        point = candidate.point
        build: Build = self.cache.build(candidate.source, self.space.kernel)
        built = Measurement(candidate, compile_s=round(build.seconds, 3), build_cached=build.cached)
        if build.error is not None:
            return replace(built, error_class=ErrorClass.COMPILE_ERROR, detail=build.error.summary,
                           compile_log=build.error.diagnostics)
        assert build.artifact is not None
        errors = [0.0, 0.0]
        start = time.perf_counter()
        profile = self.backend.profile(build.artifact, self._args(0, point), point.block_dim, gate_us=gate_us)
        run_s = time.perf_counter() - start
        if ErrorClass.PREDICTED_SLOW in profile.run.fault_classes:
            return replace(built, error_class=ErrorClass.PREDICTED_SLOW, detail=profile.run.faults[0],
                           time_source=profile.source, backend_attrs=dict(profile.extra))
        pipe = {**{k: round(v, 4) for k, v in profile.pipe_ratios.items()},
                "gm_to_ub_bytes": profile.gm_to_ub_bytes, "ub_to_gm_bytes": profile.ub_to_gm_bytes}
        verify_start = time.perf_counter()
        failure = self._verdict(profile.run, 0, errors)
        if failure is None and profile.after_timing is not None:
            failure = self._verdict(profile.after_timing, 0, errors)
            if failure is not None:
                failure = (failure[0], f"after the timed launches: {failure[1]}")
        value = profile.time_us
        if failure is None and not math.isfinite(value):
            failure = (ErrorClass.FAULT, f"the backend gave no time ({value})")
        sets = 1
        suspect = self.suspect(value, profile.source, baseline_us) if failure is None else None
        if failure is None and (suspect is not None or best_us is None or value < best_us):
            for index in range(0 if suspect else 1, len(self.inputs.inputs)):  # a suspect one: the timed set too
                run = self.backend.run(build.artifact, self._args(index, point), point.block_dim)
                failure = self._verdict(run, index, errors)
                sets = index + 1
                if failure is not None:
                    break
        measured = replace(built, measured=True, time_source=profile.source, pipe=pipe,
                           backend_attrs=dict(profile.extra), suspect=suspect, verified_sets=sets,
                           max_error={"abs": errors[0], "ratio": round(errors[1], 4)},
                           seconds={"run": round(run_s, 3), "verify": round(time.perf_counter() - verify_start, 3)})
        if failure is not None:
            return replace(measured, error_class=failure[0], detail=failure[1])
        torch = self.inputs.torch
        if torch is None:
            return replace(measured, value=value)
        return replace(measured, value=value, torch_us=round(torch.median_us, 3),
                       speedup_vs_torch=round(torch.median_us / value, 4) if value > 0 else None)

    def _launchable(self, params: Mapping[str, Any]) -> tuple[Artifact, list[KernelArg], int]:
        """The artifact, arguments (input set 0) and block count of an already measured point."""
        point = self.variant.evaluate(params, self.context)
        build = self.cache.build(self.render(params), self.space.kernel)
        if build.artifact is None:
            raise TunerError(f"a measured point no longer builds: {build.error.summary if build.error else ''}")
        return build.artifact, self._args(0, point), point.block_dim

    def retime(self, params: Mapping[str, Any]) -> float:
        """A fresh device time of an already measured point (the interleaved re-timing of the best few)."""
        return self.backend.time(*self._launchable(params))

    def msprof(self, params: Mapping[str, Any], output: Path) -> dict[str, Any]:
        """An already measured point profiled by msprof op (npu backend), in the simulator's report schema."""
        artifact, args, block_dim = self._launchable(params)
        return self.backend.msprof(artifact, args, block_dim, output)

    def _args(self, index: int, point: Point) -> list[KernelArg]:
        """The arguments of a launch of `point` on input set `index`: a fresh workspace of zeros each time."""
        return kernel_args(self.space, self.inputs.arrays[index], self.inputs.output_shapes, self.inputs.dtype,
                           pack_tiling(point.tiling), self.inputs.output_dtypes, self.space.workspace_bytes(point))
