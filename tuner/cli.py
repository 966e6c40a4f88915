"""The `tuner` command line: parse, call a function, print."""

from __future__ import annotations

import functools
import json
import math
import signal
import sys
from pathlib import Path

import click

from tuner.errors import CompileError, ReplayMiss, TunerError, UsageError

EXIT_FAULT, EXIT_USAGE, EXIT_COMPILE, EXIT_INTERRUPTED = 1, 2, 3, 130


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _run_guarded(fn):
    """Turn the tuner's errors into one line and an exit code (2 usage, 3 compile, 1 otherwise)."""
    try:
        return fn()
    except UsageError as exc:
        _fail(str(exc), EXIT_USAGE)
    except CompileError as exc:
        click.echo(exc.summary, err=True)
        if exc.diagnostics:
            click.echo(exc.diagnostics.rstrip(), err=True)
        sys.exit(EXIT_COMPILE)
    except (TunerError, ReplayMiss) as exc:
        _fail(str(exc), EXIT_FAULT)
    except Exception as exc:  # a storage or disk that failed under the command, or this process's memory
        _fail(_environment_failure(exc), EXIT_FAULT)


def _environment_failure(exc: Exception) -> str:
    """The one line for a failure of what the command runs on; `exc` itself again when it is none of those."""
    if isinstance(exc, MemoryError):
        return "out of memory (the machine could not give this command what it needed)"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    from tuner.search.storage import storage_failure

    failure = storage_failure(exc)
    if failure is None:
        raise exc
    return str(failure)


class _Commands(click.Group):
    """The tuner's commands: Ctrl-C ends any of them with one line and exit 130 (never click's `Aborted!`)."""

    def invoke(self, ctx: click.Context):  # noqa: ANN201 - click's signature
        # Taken even when the tuner was started with SIGINT ignored (in the background of a script), as the
        # search loop takes it: `kill -INT` stops a command cleanly in every phase, never only in some.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("error: interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)


@click.group(cls=_Commands)
@click.version_option(package_name="tuner")
def main() -> None:
    """Make Ascend C operators fast: templates, search, and a CPU simulator of the vector core."""


def _gate(text: str) -> float | str | None:
    """--gate: a relative margin, auto, or off."""
    from tuner.search.config import AUTO_GATE

    word = text.strip().lower()
    if word in ("off", AUTO_GATE):
        return None if word == "off" else AUTO_GATE
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"--gate takes a relative margin (e.g. 0.25), {AUTO_GATE} or off (got '{text}')") from None


def _soc(name: str):  # noqa: ANN202 - tuner.data.socs.Soc, imported only when a command needs it
    """The SoC a user named in any case (ascend910b2 is Ascend910B2); UsageError if unknown."""
    from tuner.data.socs import UnknownSocError, get_soc

    try:
        return get_soc(name)
    except UnknownSocError as exc:
        raise UsageError(str(exc)) from None


def _format_bytes(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def _print_summary(result, max_rows: int = 8, err: bool = False, faults: bool = True) -> None:
    """The launch's verdict, modelled time and per-block pipes (on stderr with `err`: a program's own output
    is on stdout), then its warnings and, with `faults`, its faults (a program's runtime printed them already)."""
    from tuner.sim.run import SimResult

    assert isinstance(result, SimResult)
    echo = functools.partial(click.echo, err=err)
    if result.printed:
        echo(result.printed.rstrip("\n"))
    status = "ok" if result.ok else f"{len(result.faults)} fault(s)"
    echo(f"{result.kernel}: {result.block_dim} block(s) on {result.soc}: {status}")
    if result.task_duration_us is not None and result.ok:
        echo(f"task duration {result.task_duration_us:.3f} us ({result.time_source}; not cycle-accurate)")
    blocks = result.report.get("blocks", []) if result.ok else []
    if blocks:
        echo("block  aiv_us    vec   scalar  mte2   mte3   GM->UB     UB->GM     UB peak")
        shown = sorted(blocks, key=lambda b: -b["aiv_time_us"])[:max_rows] if len(blocks) > max_rows else blocks
        for b in sorted(shown, key=lambda b: b["block_id"]):
            echo(f"{b['block_id']:>5}  {b['aiv_time_us']:>7.3f}  {b['aiv_vec_ratio']:>5.0%}  "
                 f"{b['aiv_scalar_ratio']:>5.0%}  {b['aiv_mte2_ratio']:>5.0%}  {b['aiv_mte3_ratio']:>5.0%}  "
                 f"{_format_bytes(b['gm_to_ub_bytes']):>9}  {_format_bytes(b['ub_to_gm_bytes']):>9}  "
                 f"{_format_bytes(b['ub_peak_bytes']):>9}")
        if len(blocks) > max_rows:
            echo(f"  ({len(blocks) - max_rows} more blocks not shown; the {max_rows} slowest are listed)")
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    for f in result.faults if faults else []:
        click.echo(f.text, err=True)


@main.command()
@click.argument("source", required=False, type=click.Path(path_type=Path))
@click.argument("program_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--kernel", help="Entry function of a single kernel (a template: 'f<512,128>'); without it SOURCE "
                               "is a whole program (host main() with <<<...>>> launches), run here with PROGRAM_ARGS.")
@click.option("--block-dim", type=int, help="Number of blocks (blockDim) to launch the --kernel over.")
@click.option("--add-source", "extra_sources", multiple=True, type=click.Path(path_type=Path), metavar="FILE",
              help="Another source file of the whole program (a kernel in a file of its own; repeatable).")
@click.option("--soc", default="Ascend910B1", show_default=True, help="SoC whose model and limits to use.")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]", help="Preprocessor define (repeatable).")
@click.option("--arg", "arg_specs", multiple=True, metavar="SPEC",
              help="One per kernel parameter, in order: in=F.npy, out=F.npy:DTYPE:D0xD1, bytes=F, struct=F, "
                   "u32=V, i32=V, u64=V, i64=V, f32=V.")
@click.option("--json", "json_path", metavar="PATH|-", help="Write the report as JSON (- for stdout).")
@click.option("--trace", type=click.Path(path_type=Path), help="Write a Chrome-trace timeline (Perfetto opens it).")
@click.option("--no-auto-sync", is_flag=True, help="Check as if compiled without bisheng's --cce-auto-sync.")
@click.option("--timeout", "timeout_s", default=60.0, show_default=True,
              help="Host seconds before a launch is a timeout fault.")
@click.option("--l2", default="cold", show_default=True,
              help="cold: GM data comes from HBM; warm: it is already in L2 when it fits there.")
@click.option("--sandbox", is_flag=True,
              help="Build and run the kernel in the sandbox LLM-written kernels get (needs bubblewrap).")
@click.option("--project", type=click.Path(path_type=Path),
              help="A CANN custom-operator project (msopgen layout: op_host/, op_kernel/) to run instead of SOURCE.")
@click.option("--input", "input_specs", multiple=True, metavar="NAME=FILE.npy",
              help="An input of the --project operator, by the name its op definition gives (repeatable).")
@click.option("--attr", "attr_specs", multiple=True, metavar="NAME=VALUE",
              help="An attribute of the --project operator (repeatable; the op definition's defaults fill the rest).")
@click.option("--output-dir", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="Where a --project run writes <output name>.npy per output.")
@click.option("--timing-only", is_flag=True,
              help="Check and time the kernel without its element-wise arithmetic or its outputs' bytes, for shapes "
                   "too large to hold; inputs may be shapes alone (in=float32[4096,393216]). The time equals the "
                   "full run's where control flow does not depend on the data.")
def simulate(source: Path | None, program_args: tuple[str, ...], kernel: str | None, block_dim: int | None, soc: str,
             defines: tuple[str, ...], arg_specs: tuple[str, ...], json_path: str | None, trace: Path | None,
             no_auto_sync: bool, timeout_s: float, l2: str, sandbox: bool, project: Path | None,
             input_specs: tuple[str, ...], attr_specs: tuple[str, ...], output_dir: Path, timing_only: bool,
             extra_sources: tuple[Path, ...]) -> None:
    """Compile Ascend C for the CPU simulator, run it, check it, and model its time.

    \b
    tuner simulate KERNEL.cpp --kernel NAME --block-dim N --arg ...   one kernel on arguments from files
    tuner simulate PROGRAM.asc [--define K=V] [-- PROGRAM_ARGS]        a whole program, as its ./demo would run
    tuner simulate main.cpp --add-source kernel.cpp [-- PROGRAM_ARGS]  one in several files
    tuner simulate --project DIR --input x=x.npy [--attr k=v]         a CANN custom-operator project
    """
    if project is not None:
        if source is not None or kernel is not None:
            _fail("--project runs the project's own operator: give no SOURCE and no --kernel", EXIT_USAGE)
        _simulate_project(project, input_specs, attr_specs, output_dir, soc, json_path, trace, not no_auto_sync,
                          timeout_s, l2, sandbox, timing_only)
        return
    if input_specs or attr_specs:
        _fail("--input and --attr are for a --project", EXIT_USAGE)
    def check_common():
        if not (math.isfinite(timeout_s) and timeout_s > 0):
            raise UsageError(f"--timeout must be a positive, finite number of seconds (got {timeout_s})")
        if json_path and json_path != "-":
            check_output_path(Path(json_path), f"--json {json_path}")
        if source is None:
            raise UsageError("give a SOURCE file to simulate")

    from tuner.sim.args import check_output_path

    if kernel is None:
        def misuse():
            check_common()
            given = [name for name, value in (("--block-dim", block_dim), ("--arg", arg_specs), ("--trace", trace),
                                               ("--sandbox", sandbox), ("--timing-only", timing_only)) if value]
            for extra in extra_sources:
                if not extra.is_file():
                    raise UsageError(f"--add-source {extra}: no such file")
            if given:
                raise UsageError(f"{given[0]} needs --kernel (without it, {source} is run as a whole program)")
        _run_guarded(misuse)
        _simulate_program([source, *extra_sources], program_args, soc, defines, json_path, timeout_s, l2,
                          not no_auto_sync)
        return
    if extra_sources:
        _fail("--add-source is for a whole program, without --kernel", EXIT_USAGE)
    if program_args:
        _fail(f"unexpected argument '{program_args[0]}' (program arguments are for a whole program, without --kernel)",
              EXIT_USAGE)
    _simulate_kernel(source, kernel, block_dim, soc, defines, arg_specs, json_path, trace, no_auto_sync, timeout_s, l2,
                     sandbox, timing_only, check_common)


TIMING_ONLY_NOTE = "timing only: the arithmetic was skipped and no output was written"


def _simulate_project(project: Path, input_specs: tuple[str, ...], attr_specs: tuple[str, ...], output_dir: Path,
                      soc: str, json_path: str | None, trace: Path | None, auto_sync: bool, timeout_s: float, l2: str,
                      sandbox: bool, timing_only: bool) -> None:
    from tuner.sim.args import check_output_path
    from tuner.sim.project import parse_attr_specs, parse_input_specs, simulate_project

    def go():
        if not project.is_dir():
            raise UsageError(f"--project {project}: no such directory")
        if json_path and json_path != "-":
            check_output_path(Path(json_path), f"--json {json_path}")
        inputs, attrs = parse_input_specs(list(input_specs)), parse_attr_specs(list(attr_specs))
        output_dir.mkdir(parents=True, exist_ok=True)
        return simulate_project(project, inputs, attrs, _soc(soc).name, output_dir=output_dir, auto_sync=auto_sync,
                                trace=trace, timeout_s=timeout_s, l2=l2, untrusted=sandbox, timing_only=timing_only)

    result = _run_guarded(go)
    report = result.report()
    if json_path == "-":
        click.echo(json.dumps(report, indent=2))
    elif json_path:
        Path(json_path).write_text(json.dumps(report, indent=2) + "\n")
    if result.host_printed:
        click.echo(result.host_printed.rstrip("\n"))
    if result.sim is not None:
        _print_summary(result.sim, err=json_path == "-", faults=False)
    for f in result.faults:
        click.echo(f.text, err=True)
    for path in result.written:
        click.echo(f"wrote {path}", err=json_path == "-")
    if timing_only and result.sim is not None:
        click.echo(TIMING_ONLY_NOTE, err=json_path == "-")
    sys.exit(EXIT_FAULT if result.faults else 0)


def _simulate_program(sources: list[Path], program_args: tuple[str, ...], soc: str, defines: tuple[str, ...],
                      json_path: str | None, timeout_s: float, l2: str, auto_sync: bool) -> None:
    from tuner.sim.program import simulate_program

    result = _run_guarded(lambda: simulate_program(sources, program_args, soc=_soc(soc).name, defines=defines,
                                                   timeout_s=timeout_s, l2=l2, auto_sync=auto_sync))
    if json_path == "-":
        click.echo(json.dumps(result.report, indent=2))
    elif json_path:
        Path(json_path).write_text(json.dumps(result.report, indent=2) + "\n")
    for launch in result.launches:
        _print_summary(launch, err=True, faults=False)
    if not result.launches:
        click.echo(f"{sources[0]}: the program launched no kernel", err=True)
    if result.returncode != 0:  # the program's own verdict (a failed check), or a signal that ended it
        sys.exit(result.returncode if 0 < result.returncode < 256 else EXIT_FAULT)
    sys.exit(EXIT_FAULT if result.faults else 0)


def _simulate_kernel(source: Path, kernel: str, block_dim: int | None, soc: str, defines: tuple[str, ...],
                     arg_specs: tuple[str, ...], json_path: str | None, trace: Path | None, no_auto_sync: bool,
                     timeout_s: float, l2: str, sandbox: bool, timing_only: bool, check_common) -> None:
    import numpy as np

    from tuner.backends.args import GmOut
    from tuner.sim.args import check_output_path, check_simulation_memory, parse_arg
    from tuner.sim.run import simulate as run_simulation

    def go():
        check_common()
        if block_dim is None:
            raise UsageError("--kernel needs --block-dim (the number of blocks to launch)")
        if trace is not None:
            check_output_path(trace, f"--trace {trace}")
        args = [parse_arg(spec) for spec in arg_specs]
        check_simulation_memory(args, timing_only=timing_only)
        return args, run_simulation(source, kernel, block_dim, args, soc=_soc(soc).name, defines=defines,
                                    auto_sync=not no_auto_sync, trace=trace, timeout_s=timeout_s, l2=l2,
                                    untrusted=sandbox, timing_only=timing_only)

    args, result = _run_guarded(go)
    outs = [] if timing_only else [a for a in args if isinstance(a, GmOut)]
    for arg, array in zip(outs, result.outputs, strict=True):
        np.save(arg.path, array)
    if json_path == "-":
        click.echo(json.dumps(result.report, indent=2))
        for f in result.faults:
            click.echo(f.text, err=True)
    else:
        if json_path:
            Path(json_path).write_text(json.dumps(result.report, indent=2) + "\n")
        _print_summary(result)
        for arg in outs:
            click.echo(f"wrote {arg.path} ({np.dtype(arg.dtype).name}, {'x'.join(map(str, arg.shape))})")
        if timing_only:
            click.echo(TIMING_ONLY_NOTE)
        if trace:
            click.echo(f"wrote {trace} (Chrome trace; open in https://ui.perfetto.dev)")
    sys.exit(EXIT_FAULT if result.faults else 0)


@main.command("sim-build")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "output", required=True, type=click.Path(path_type=Path), help="Program to write.")
@click.option("--soc", default="Ascend910B1", show_default=True, help="SoC whose model and limits to use.")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]", help="Preprocessor define (repeatable).")
def sim_build(sources: tuple[Path, ...], output: Path, soc: str, defines: tuple[str, ...]) -> None:
    """Build a CANN CPU-debug-mode program (tikicpulib.h, ICPU_RUN_KF) unchanged against the simulator.

    Running the program writes the simulator's report to $TUNER_SIM_REPORT when it is set.
    """
    from tuner.sim.build import build_program

    def go():
        for src in sources:
            if not src.is_file():
                raise UsageError(f"no such source file: {src}")
        spec = _soc(soc)
        return spec.name, build_program(list(sources), output, spec, defines)

    name, built = _run_guarded(go)
    click.echo(f"built {built} for {name} (simulator); run it, with TUNER_SIM_REPORT=report.json for the report")


_STORAGE_HELP = "Optuna storage URL (default: sqlite:///<runs-dir>/tuner.db); postgresql+psycopg://... for workers."


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def _print_run(summary, as_json: bool) -> None:
    from tuner.console import summary_table, top_table

    if as_json:
        click.echo(json.dumps(summary.to_json()))
        return
    from rich.console import Console

    console = Console()
    console.print(summary_table(summary))
    if any(summary.top.values()):
        console.print(top_table(summary))


def _print_shape_set(result, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({**result.table.to_json(), "path": str(result.path),
                               "weighted_speedup": result.weighted_speedup}))
        return
    from rich.console import Console

    from tuner.console import shape_set_table

    Console().print(shape_set_table(result))


EXPORT_FORMATS = ("kernel-launch", "cann-op", "torch")


@main.command()
@click.argument("op")
@click.option("--shape", default="4096x4096", show_default=True,
              help="Input shape, e.g. 4096x4096 (a task file's shapes are its own).")
@click.option("--shapes", "shapes_text",
              help="Tune several shapes in one go (e.g. 1x4096,7x4096,128x4096) into a dispatch table that serves "
                   "every shape between them (runs/<set>/dispatch.json).")
@click.option("--shapes-from", "shapes_file", type=click.Path(path_type=Path),
              help="Like --shapes, one shape a line, each optionally followed by its weight (how often it is seen).")
@click.option("--dtype", default="float16", show_default=True,
              help="float16, float32 or bfloat16 (a task file's dtypes are its own).")
@click.option("--inputs", "task_inputs",
              help="With OP given as PATH.py:FUNCTION, the function's arguments: 'x=float16[4096,4096], "
                   "w=float16[4096], eps=1e-6'.")
@click.option("--soc", help="SoC to tune for (default: this machine's NPU, else Ascend910B2 on the simulator).")
@click.option("--backend", default="auto", show_default=True,
              help="npu (build with CANN, time on the device), sim (CPU simulator), or auto: npu when `tuner doctor` "
                   "finds everything it needs, else sim.")
@click.option("--workers", default=1, show_default=True, type=int,
              help="NPUs to use at once, one device worker each (npu backend).")
@click.option("--profile", type=click.Choice(["msprof"]),
              help="Profile the best kernel with `msprof op` at each plateau and the winner (npu backend).")
@click.option("--budget", default=200, show_default=True, type=int,
              help="Distinct candidates that compile and run (on a device: that are launched), over the whole run; "
                   "re-running tops the run up to it.")
@click.option("--sampler", default="tpe", show_default=True, help="tpe, random, gp, cmaes, qmc or brute.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the samplers.")
@click.option("--jobs", default=2, show_default=True, type=int, help="Candidates built and run in parallel.")
@click.option("--time-limit", "time_limit", type=float, help="Stop asking for candidates after this many seconds.")
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", default="runs", show_default=True, type=click.Path(path_type=Path),
              help="Where the database, artifacts and exported kernels go.")
@click.option("--run", "run_name", help="Name of the run (default: op-shape-dtype-soc-backend).")
@click.option("--option", "option_specs", multiple=True, metavar="NAME=VALUE",
              help="An option of the operator itself (e.g. eps=1e-5 for the normalizations); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout and nothing else.")
@click.option("--prepare", is_flag=True,
              help="Only create the run's studies (before starting several workers on one storage).")
@click.option("--llm-model", help="Rewrite templates with this model at OPENAI_BASE_URL (or TUNER_LLM_MODEL); "
                                  "without one, a catalog of rules rewrites them.")
@click.option("--no-llm", is_flag=True, help="Never call an LLM (rules only), even with a model configured.")
@click.option("--llm-max-calls", default=20, show_default=True, type=int, help="At most this many LLM requests.")
@click.option("--llm-timeout", default=60.0, show_default=True, type=float, help="Seconds one LLM request may take.")
@click.option("--repair-rounds", default=2, show_default=True, type=int,
              help="Times a failed rewrite goes back to the LLM with the compiler's or checker's output.")
@click.option("--generate-rounds", default=3, show_default=True, type=int,
              help="With an LLM (--llm-model): a task file the tuner cannot make a kernel of, or whose generated "
                   "kernel fails, is written by the LLM, given back the compiler's output, the fault or the first "
                   "mismatches up to this many times (0: never; without an LLM such a task is refused in one line).")
@click.option("--plateau", default=30, show_default=True, type=int,
              help="Ask for rewrites after this many measured trials without --plateau-eps improvement (0: never).")
@click.option("--plateau-eps", default=0.01, show_default=True, type=float, help="Relative improvement that counts.")
@click.option("--gate", "gate_text", default="auto", show_default=True, metavar="auto|MARGIN|off",
              help="On a device: a candidate the simulator predicts more than a margin slower than its prediction of "
                   "the run's best is not launched and takes no budget; the sampler learns it at its prediction. "
                   "auto sets the margin from the model's error measured on the run's launches; MARGIN is relative "
                   "(e.g. 0.25); off launches all.")
@click.option("--no-rewrites", is_flag=True, help="Search the packaged templates' knobs only: no LLM, no rules.")
def optimize(op: str, shape: str, shapes_text: str | None, shapes_file: Path | None, dtype: str,
             task_inputs: str | None, soc: str | None, backend: str, workers: int,
             profile: str | None,
             budget: int, sampler: str, seed: int, jobs: int,
             time_limit: float | None, storage: str | None, runs_dir: Path, run_name: str | None,
             option_specs: tuple[str, ...], as_json: bool, prepare: bool, llm_model: str | None, no_llm: bool,
             llm_max_calls: int, llm_timeout: float, repair_rounds: int, generate_rounds: int, plateau: int,
             plateau_eps: float, gate_text: str, no_rewrites: bool) -> None:
    """Tune operator OP: search its templates' knobs, verify every candidate, export the fastest.

    OP is a packaged operator's name, a task file in KernelBench's format (PATH.py: Model, get_inputs,
    get_init_inputs), or a function of a Python file (PATH.py:FUNCTION with --inputs); a task's kernel is
    generated, and its template and search space are written under the run's directory (project/)."""
    import optuna

    from tuner.backends import choose_backend, time_source
    from tuner.console import progress_bar
    from tuner.ops.base import parse_shape
    from tuner.search.config import task_target
    from tuner.search.dispatch import (
        ShapeSetResult,
        check_shape_set,
        parse_shapes,
        read_shapes_file,
        tune_shapes,
    )
    from tuner.search.loop import Interrupted, RunConfig, make_optimizer

    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def go():
        options = {}
        for spec in option_specs:
            name, sep, value = spec.partition("=")
            if not sep or not name.strip():
                raise UsageError(f"--option '{spec}': expected NAME=VALUE")
            options[name.strip()] = value.strip()
        choice = choose_backend(backend, _soc(soc).name if soc else None)
        task, function = task_target(op, task_inputs)
        config = RunConfig(op=op, shape=parse_shape(shape), dtype=dtype, soc=choice.soc, backend=choice.backend,
                           task=task, function=function, inputs=task_inputs,
                           workers=workers, profile=profile, budget=budget, sampler=sampler, seed=seed, jobs=jobs,
                           time_limit_s=time_limit, storage=storage,
                           runs_dir=runs_dir, run=run_name, options=options, rewrites=not no_rewrites,
                           llm_model=llm_model, no_llm=no_llm, llm_max_calls=llm_max_calls, llm_timeout_s=llm_timeout,
                           repair_rounds=repair_rounds, generate_rounds=generate_rounds, plateau=plateau,
                           plateau_eps=plateau_eps, gate=_gate(gate_text))
        shapes = None
        if shapes_text or shapes_file:
            if shapes_text and shapes_file:
                raise UsageError("give --shapes or --shapes-from, not both")
            if prepare:
                raise UsageError("--prepare prepares one run; a shape set's runs are prepared as they start")
            shapes = parse_shapes(shapes_text) if shapes_text else read_shapes_file(shapes_file)
            check_shape_set(config, shapes)
        else:
            optimizer = make_optimizer(config)
        click.echo(f"backend: {choice.backend} ({choice.why}); times are {time_source(choice.backend, choice.soc)}",
                   err=True)
        if shapes is not None:
            return tune_shapes(config, shapes, name=run_name,
                               on_run=lambda s: click.echo(f"{s.run}: best {s.best_us} µs ({s.time_source})", err=True))
        if prepare:
            return optimizer.prepare()
        with progress_bar(_stderr_console(), budget) as update:
            optimizer.on_progress = update
            return optimizer.run()

    try:
        summary = _run_guarded(go)
    except Interrupted as exc:
        click.echo("interrupted: the running trials were pruned; the summary so far:", err=True)
        _print_run(exc.summary, as_json)
        sys.exit(EXIT_INTERRUPTED)
    if isinstance(summary, ShapeSetResult):
        _print_shape_set(summary, as_json)
        if not as_json:
            click.echo(f"wrote {summary.path}")
        return
    if prepare:
        click.echo(json.dumps({"studies": summary}) if as_json else "\n".join(summary))
        return
    if summary.already_finished and not as_json:
        click.echo(f"run {summary.run} already has its {summary.trials} trials; give a larger --budget to extend it",
                   err=True)
    _print_run(summary, as_json)
    if summary.best is None:
        sys.exit(EXIT_FAULT)


@main.command()
@click.argument("run", required=False)
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", default="runs", show_default=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as one JSON object.")
def show(run: str | None, storage: str | None, runs_dir: Path, as_json: bool) -> None:
    """List the runs in the storage, or show one run (baseline, best, trials by state and error class) or shape set
    (its dispatch table)."""
    from tuner.search.dispatch import TABLE_FILE, DispatchTable, ShapeSetResult
    from tuner.search.report import summarize
    from tuner.search.storage import open_storage, run_studies

    if run is not None and (runs_dir / run / TABLE_FILE).is_file():
        table = _run_guarded(lambda: DispatchTable.read(runs_dir / run))
        _print_shape_set(ShapeSetResult(table, [], runs_dir / run / TABLE_FILE), as_json)
        return

    def go():
        store, url = open_storage(storage, runs_dir)
        if run is None:
            summaries = [summarize(store, url, name, runs_dir=runs_dir) for name in sorted(run_studies(store))]
            return url, [(s.run, s.trials, s.best_us, s.time_source) for s in summaries], None
        return url, [], summarize(store, url, run, runs_dir=runs_dir)

    url, rows, summary = _run_guarded(go)
    if summary is not None:
        _print_run(summary, as_json)
        return
    if as_json:
        click.echo(json.dumps([{"run": r, "trials": t, "best_us": b, "time_source": src} for r, t, b, src in rows]))
        return
    from rich.console import Console

    from tuner.console import runs_table

    if not rows:
        click.echo(f"no runs in {url}")
        return
    Console().print(runs_table(rows))


@main.command("ops")
def list_ops() -> None:
    """Operators the tuner knows, with their template variants and knobs."""
    from tuner.ops import operators
    from tuner.space.spaces import load_space

    for name, op in operators().items():
        click.echo(f"{name}: {op.description} (dtypes: {', '.join(op.dtypes)})")
        if op.options:
            click.echo("  options: " + ", ".join(f"{k}={v}" for k, v in op.options.items()) + " (--option NAME=VALUE)")
        space = _run_guarded(lambda name=name: load_space(name))
        for variant in space.variants.values():
            structural = set(variant.structural_knobs)
            knobs = ", ".join(f"{k.name}{'*' if k.name in structural else ''}" for k in variant.knobs)
            click.echo(f"  {variant.name}: {variant.description}")
            click.echo(f"    knobs: {knobs}")
    click.echo("(* structural: changes the source and needs a build; the others reach the kernel as tiling values)")


@main.command()
@click.argument("model", type=click.Path(path_type=Path))
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path),
              help="Where to write the suite of task files [default: runs/scan/<file's stem>].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout and nothing else.")
def scan(model: Path, suite_dir: Path | None, as_json: bool) -> None:
    """List the operators MODEL.py's model calls (a task file: Model, get_inputs, get_init_inputs), traced on the
    meta device where it can be, and write a suite of their vector operators for `tuner bench --suite`."""
    from tuner.graph.scan import scan_model, write_suite

    def go():
        result = scan_model(model)
        dest = suite_dir or Path("runs") / "scan" / model.stem
        return result, dest, write_suite(result, dest)

    result, dest, written = _run_guarded(go)
    if as_json:
        click.echo(json.dumps({"model": str(model), "traced_on": result.device, "suite": str(dest),
                               "tasks": [str(p) for p in written],
                               "ops": [{"target": op.target, "args": [list(a) if isinstance(a, tuple) else a
                                                                       for a in op.args],
                                        "count": op.count, "kind": op.kind, "builtin": op.builtin}
                                       for op in result.ops]}, default=list))
        return
    from rich.console import Console

    from tuner.console import scan_table

    Console().print(scan_table(result))
    click.echo(f"wrote {len(written)} task files to {dest}: tune them with `tuner bench --suite {dest}`")


@main.command("export")
@click.argument("run")
@click.argument("dest", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="kernel-launch", show_default=True,
              help="kernel-launch: the kernel, launcher, tiling and kernel.json of one shape (of each tuned shape, "
                   "for a shape set); cann-op: a CANN custom-operator project whose tiling function serves every shape "
                   "of the run's or set's range; torch: an installable package registering torch.ops.tuner.<op> "
                   "for that range.")
@click.option("--trial", help="N or VARIANT:N (default: the run's best; kernel-launch of a run only).")
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", default="runs", show_default=True, type=click.Path(path_type=Path))
def export(run: str, dest: Path, fmt: str, trial: str | None, storage: str | None, runs_dir: Path) -> None:
    """Export RUN (a run, or a shape set tuned with --shapes) to DEST."""
    from tuner.search.storage import open_storage
    from tuner.search.winners import export_run

    def go():
        store, url = open_storage(storage, runs_dir)
        return export_run(store, url, runs_dir, run, dest, fmt=fmt, trial=trial)

    written = _run_guarded(go)
    click.echo(f"wrote {written}")


@main.command()
@click.argument("run")
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False),
              help="HTML file to write [default: <runs-dir>/RUN/report.html].")
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", default="runs", show_default=True, type=click.Path(path_type=Path))
def report(run: str, output: Path | None, storage: str | None, runs_dir: Path) -> None:
    """Write RUN's report: one HTML file of plots (best so far with the rewrites, trials by state and error class,
    parameter importance, pipes of the baseline and the best, roofline, top configurations) that opens offline."""
    from tuner.search.html_report import write_html_report
    from tuner.search.storage import open_storage

    def go():
        store, url = open_storage(storage, runs_dir)
        return write_html_report(store, url, run, runs_dir=runs_dir, output=output)

    click.echo(f"wrote {_run_guarded(go)}")


@main.command()
@click.option("--ops", "ops_list",
              help="Comma-separated operators to run (default: every case of the suite); with a suite directory, "
                   "tasks (file names without .py).")
@click.option("--budget", type=int, help="Measured trials per case [default: 40; 20 per task of a suite directory].")
@click.option("--soc", default="Ascend910B2", show_default=True, help="SoC to tune for.")
@click.option("--backend", default="sim", show_default=True, help="sim (CPU simulator) or npu.")
@click.option("--jobs", default=2, show_default=True, type=int, help="Candidates built and run in parallel.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the samplers.")
@click.option("--suite", type=click.Path(path_type=Path),
              help="A suite file of your own (default: the packaged tuner/data/bench_suite.yaml), or a directory of "
                   "task files (KernelBench format, every *.py): each tuned as `tuner optimize PATH.py` tunes it and "
                   "compared with its first draft and its eager-equivalent.")
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", type=click.Path(path_type=Path),
              help="Where the bench's runs are kept [default: runs/bench; for a suite directory runs, where "
                   "`tuner optimize` puts them]; re-running resumes them (delete them to start afresh).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout and nothing else.")
@click.option("--report", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the table as Markdown: a new file, or the generated section of an existing one.")
def bench(ops_list: str | None, budget: int | None, soc: str, backend: str, jobs: int, seed: int, suite: Path | None,
          storage: str | None, runs_dir: Path | None, as_json: bool, report: Path | None) -> None:
    """Tune the fixed suite of operator cases, or every task of a directory; report the success rate and the
    geometric-mean speedups (over the expert baselines; over the first drafts and the eager-equivalent)."""
    import optuna
    from rich.console import Console

    from tuner.console import bench_table, progress_bar, task_bench_table
    from tuner.search import bench as suite_bench
    from tuner.search import task_bench

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    err = _stderr_console()
    names = [name.strip() for name in (ops_list or "").split(",") if name.strip()]
    tasks = suite is not None and suite.is_dir()
    markers = (task_bench.TASK_REPORT_BEGIN, task_bench.TASK_REPORT_END) if tasks else \
        (suite_bench.REPORT_BEGIN, suite_bench.REPORT_END)

    def load():
        if report is not None:
            suite_bench.check_report(report, *markers)
        if tasks:
            return task_bench.TaskBenchConfig(
                suite=suite, files=task_bench.task_files(suite, names),
                budget=task_bench.DEFAULT_TASK_BUDGET if budget is None else budget, soc=soc, backend=backend,
                jobs=jobs, seed=seed, storage=storage, runs_dir=runs_dir or Path("runs"))
        if budget is not None and budget < 1:
            raise UsageError("--budget must be at least 1")
        if suite is not None and not suite.is_file():
            raise UsageError(f"no suite file or directory {suite}")
        cases = suite_bench.select(suite_bench.load_suite(suite.read_text() if suite else None), names)
        return suite_bench.BenchConfig(cases=cases, budget=budget or suite_bench.DEFAULT_BUDGET, soc=soc,
                                       backend=backend, jobs=jobs, seed=seed, storage=storage,
                                       runs_dir=runs_dir or suite_bench.BENCH_RUNS_DIR)

    config = _run_guarded(load)
    count = len(config.files) if tasks else len(config.cases)
    position = iter(range(1, count + 1))

    def progress(item):
        label = item.stem if tasks else item.label
        return progress_bar(err, config.budget, label=f"[{next(position)}/{count}] {label}")

    def done(result) -> None:
        if tasks:
            draft = f"{result.speedup:.2f}x over the draft" if result.speedup else "no first draft"
            eager = f"{result.speedup_vs_eager:.2f}x over eager" if result.speedup_vs_eager else \
                f"eager: {result.eager_why_not}"
            verdict = f"{draft}, {eager}" if result.correct else result.why_not
            label = result.task
        else:
            verdict = f"{result.speedup:.2f}x" if result.speedup else ("correct" if result.correct else result.why_not)
            label = result.case.label
        err.print(f"  {label}: {verdict} ({result.trials} trials, {result.seconds:.0f} s)", highlight=False,
                  markup=False)

    run = task_bench.run_task_bench if tasks else suite_bench.run_bench
    result = _run_guarded(lambda: run(config, progress, done))
    if report is not None:
        command = " ".join(["tuner bench", *([f"--suite {suite}"] if tasks else []),
                            *([f"--ops {ops_list}"] if ops_list else []), f"--budget {config.budget}",
                            f"--soc {result.soc}", f"--report {report}"])
        section = task_bench.task_markdown_report(result, command) if tasks else \
            suite_bench.markdown_report(result, command)
        _run_guarded(lambda: suite_bench.write_report(report, section, *markers))
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        Console().print(task_bench_table(result) if tasks else bench_table(result))
    if result.interrupted:
        sys.exit(EXIT_INTERRUPTED)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--selftest", is_flag=True,
              help="Tune add and softmax (fp16) briefly on the NPU and write a report to attach to an issue.")
@click.option("--report", "report_path", default="tuner-selftest.md", show_default=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="Where --selftest writes its markdown report (the JSON goes next to it, .json).")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where --selftest's runs go (default: a fresh temporary directory).")
def doctor(as_json: bool, selftest: bool, report_path: Path, runs_dir: Path | None) -> None:
    """What the npu backend needs and what this machine has: CANN, compiler, torch_npu, NPUs, msprof.

    With --selftest: exit 0 when both cases found a correct kernel, 1 when one did not, 2 when the npu backend
    is not available."""
    from rich.console import Console

    if selftest:
        import tempfile

        from tuner.selftest import run_selftest, summary_table, write_report

        with tempfile.TemporaryDirectory(prefix="tuner-selftest-") as tmp:
            result = _run_guarded(lambda: run_selftest(runs_dir or Path(tmp)))
        if not result.npu_ready:
            _fail(f"npu backend not available: {'; '.join(result.missing)}", EXIT_USAGE)
        json_path = _run_guarded(lambda: write_report(result, report_path))
        console = Console()
        console.print(summary_table(result))
        console.print(f"self-test {'ok' if result.ok else 'FAILED'}; report: {report_path} (and {json_path})",
                      markup=False)
        sys.exit(0 if result.ok else EXIT_FAULT)
    from tuner.backends.npu.detect import detect

    found = detect()
    if as_json:
        click.echo(json.dumps(found.to_json()))
        return
    from rich.table import Table

    table = Table(title="tuner doctor: the npu backend")
    for column in ("item", "found", "detail", "fix"):
        table.add_column(column, overflow="fold")
    for item in found.items:
        table.add_row(item.name, "yes" if item.found else "no", item.detail, item.fix)
    console = Console()
    console.print(table)
    verdict = "ready" if found.npu_ready else "not ready; --backend sim (the default) works meanwhile"
    console.print(f"npu backend: {verdict}", markup=False)


@main.command()
@click.option("--storage", help=_STORAGE_HELP)
@click.option("--runs-dir", default="runs", show_default=True, type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=int)
def dashboard(storage: str | None, runs_dir: Path, host: str, port: int) -> None:
    """Serve optuna-dashboard on the runs, with kernel sources and compile logs as trial artifacts."""
    from optuna_dashboard import run_server

    from tuner.search.storage import artifact_store, open_storage

    store, url = _run_guarded(lambda: open_storage(storage, runs_dir))
    click.echo(f"optuna-dashboard on http://{host}:{port}/ for {url} (Ctrl-C stops it)", err=True)
    try:
        run_server(store, host=host, port=port, artifact_store=artifact_store(runs_dir))
    except OSError as exc:
        _fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
