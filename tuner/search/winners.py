"""Writing a run's trials out: the winner to `runs/<run>/best/`, any trial with `tuner export`."""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuner.backends import make_backend
from tuner.backends.args import pack_tiling
from tuner.backends.base import Backend
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.mutate.sandbox import ScreenedBackend
from tuner.ops.base import Operator, to_numpy
from tuner.search.binding import write_torch_package
from tuner.search.cann_op import write_cann_project
from tuner.search.compile_cache import CompileCache, source_hash
from tuner.search.config import run_operator
from tuner.search.dispatch import TABLE_FILE, Dispatcher, DispatchTable, table_of_run
from tuner.search.evaluate import kernel_args
from tuner.search.export import ExportBundle, export_arguments, write_export
from tuner.search.report import eligible, retimed_winner
from tuner.search.rewrites import written_by_llm
from tuner.search.storage import StudyInfo, run_studies
from tuner.space.render import render_kernel
from tuner.space.spaces import PROJECT_ROOT, Point, SearchSpace, load_space, run_context, with_rewrites


def _trial(storage: optuna.storages.BaseStorage, run: str, ref: str | None) -> tuple[StudyInfo, FrozenTrial]:
    """The trial `ref` names (`N` or `VARIANT:N`), or the run's best when `ref` is None."""
    infos = run_studies(storage, run).get(run)
    if not infos:
        known = ", ".join(sorted(run_studies(storage))) or "none"
        raise UsageError(f"no run '{run}' in the storage (runs: {known})")
    found: list[tuple[StudyInfo, FrozenTrial]] = []
    variant, _, number = (ref or "").rpartition(":")
    for info in infos:
        if variant and info.variant != variant:
            continue
        for trial in optuna.load_study(study_name=info.name, storage=storage).get_trials(deepcopy=False):
            if ref is None:
                if eligible(trial):
                    found.append((info, trial))
            elif str(trial.number) == number:
                found.append((info, trial))
    if ref is None:
        if not found:
            raise UsageError(f"run '{run}' has no correct trial yet")
        winner = retimed_winner(infos)
        named = [pair for pair in found if f"{pair[0].variant}:{pair[1].number}" == winner]
        return named[0] if named else min(found, key=lambda pair: pair[1].value)
    if not number.isdigit() or not found:
        raise UsageError(f"run '{run}' has no trial '{ref}' (give N or VARIANT:N)")
    if len(found) > 1:
        names = ", ".join(f"{info.variant}:{trial.number}" for info, trial in found)
        raise UsageError(f"trial '{ref}' is ambiguous in run '{run}' (one of {names})")
    info, trial = found[0]
    if trial.state != TrialState.COMPLETE:
        why = trial.user_attrs.get("error_class", trial.state.name.lower())
        raise UsageError(f"trial '{ref}' of run '{run}' did not produce a correct kernel ({why})")
    return info, trial


def export_trial(storage: optuna.storages.BaseStorage, run: str, dest: Path, *, trial: str | None = None,
                 project: Path = PROJECT_ROOT, with_trace: bool = True, variants_dir: Path | None = None,
                 backend: Backend | None = None) -> Path:
    """Re-render trial `trial` (default: the run's best) and export it to `dest`, with its simulated
    timeline as `trace.json` when the run is on the simulator (traced by `backend`, the run's own, else a
    simulator of the run's SoC); a rewritten variant's template is read from `variants_dir`
    (`runs/<run>/variants/`)."""
    info, frozen = _trial(storage, run, trial)
    attrs = info.attrs
    op, own_project = run_operator(attrs)
    soc = get_soc(attrs["soc"])
    if attrs.get("task"):
        project = own_project
    shape, dtype = tuple(attrs["shape"]), attrs["dtype"]
    space = load_space(op.name, project)
    if variants_dir is not None:
        space = with_rewrites(space, variants_dir)
    variant = space.variant(info.variant)
    context = run_context(op, shape, dtype, soc)
    point = variant.evaluate(frozen.params, context)
    source = render_kernel(variant.template, kernel=space.kernel, dtype=dtype, struct=space.tiling_struct,
                           tiling_fields=[name for name, _ in variant.tiling],
                           structural=variant.structural(frozen.params), options=op.opts)
    recorded = frozen.user_attrs.get("source_hash")
    if recorded and source_hash(source) != recorded:
        raise UsageError(f"the template of variant '{variant.name}' changed since trial {frozen.number} ran; "
                         "its source cannot be reproduced")
    untrusted = written_by_llm(variant, space)
    bundle = ExportBundle(
        source=source, kernel=space.kernel,
        arguments=export_arguments(space.args, dtype, shape, op.output_shapes(shape), op.input_shapes(shape),
                                   {**op.input_dtypes(dtype), **op.output_dtypes(dtype)},
                                   space.workspace_bytes(point)),
        tiling=point.tiling, tiling_struct=space.tiling_struct, block_dim=point.block_dim, op=op.name, shape=shape,
        dtype=dtype, soc=soc.name, backend=attrs["backend"], time_us=frozen.value,
        time_source=str(frozen.user_attrs.get("time_source", "")), variant=variant.name, params=dict(frozen.params),
        run=run, study=info.name, trial=frozen.number, untrusted=untrusted)
    written = write_export(bundle, dest)
    if with_trace and attrs["backend"] == "sim":
        _write_trace(written / "trace.json", backend or make_backend("sim", soc.name), op, shape, dtype, space,
                     source, point, untrusted=untrusted)
    return written


def _write_trace(path: Path, backend: Backend, op: Operator, shape: tuple[int, ...], dtype: str, space: SearchSpace,
                 source: str, point: Point, *, untrusted: bool) -> None:
    """A Chrome-trace timeline of the kernel on input set 0 (Perfetto opens it): where each pipe of each block
    spends the launch; a kernel an LLM wrote runs in the sandbox, as it did in the search."""
    if untrusted:
        backend = ScreenedBackend(backend, space.kernel, jailed=True)
    build = CompileCache(backend).build(source, space.kernel)
    if build.artifact is None:
        return
    inputs = {name: to_numpy(tensor) for name, tensor in op.make_inputs(shape, dtype, 0).items()}
    args = kernel_args(space, inputs, op.output_shapes(shape), dtype, pack_tiling(point.tiling),
                       op.output_dtypes(dtype), space.workspace_bytes(point))
    backend.profile(build.artifact, args, point.block_dim, trace=path)


def export_run(storage: optuna.storages.BaseStorage, storage_url: str, runs_dir: Path, name: str, dest: Path, *,
               fmt: str = "kernel-launch", trial: str | None = None) -> Path:
    """Export run or shape set `name` (a set has runs/<name>/dispatch.json) to `dest` in format `fmt`:
    kernel-launch (a run's trial as `export_trial`; a set's tuned buckets, one directory each, beside its table),
    cann-op (`write_cann_project`) or torch (`write_torch_package`), of the set or of the run as a one-bucket table."""
    is_set = (runs_dir / name / TABLE_FILE).is_file()
    if trial is not None and (is_set or fmt != "kernel-launch"):
        raise UsageError("--trial picks a trial of a run for a kernel-launch export")
    table = DispatchTable.read(runs_dir / name) if is_set else None
    if fmt == "kernel-launch":
        if table is None:
            return export_trial(storage, name, dest, trial=trial, variants_dir=runs_dir / name / "variants")
        for bucket in table.buckets:
            if bucket.origin == "tuned":
                export_trial(storage, bucket.run, dest / "x".join(map(str, bucket.shape)),
                             variants_dir=runs_dir / bucket.run / "variants")
        table.write(dest)
        return dest
    table = table or table_of_run(storage, storage_url, name, runs_dir)
    dispatcher = Dispatcher.load(table, runs_dir)
    if fmt == "cann-op":
        return write_cann_project(dispatcher, dest)
    return write_torch_package(dispatcher, runs_dir, dest)
