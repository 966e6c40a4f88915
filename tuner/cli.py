"""The `tuner` command line: parse, call a function, print."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import numpy as np

from tuner.errors import CompileError, TunerError, UsageError

EXIT_FAULT, EXIT_USAGE, EXIT_COMPILE = 1, 2, 3


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
    except TunerError as exc:
        _fail(str(exc), EXIT_FAULT)


@click.group()
@click.version_option(package_name="tuner")
def main() -> None:
    """Make Ascend C operators fast: templates, search, and a CPU simulator of the vector core."""


def _format_bytes(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def _print_summary(result, max_rows: int = 8) -> None:
    from tuner.sim.run import SimResult

    assert isinstance(result, SimResult)
    if result.printed:
        click.echo(result.printed.rstrip("\n"))
    status = "ok" if result.ok else f"{len(result.faults)} fault(s)"
    click.echo(f"{result.kernel}: {result.block_dim} block(s) on {result.soc}: {status}")
    if result.task_duration_us is not None and result.ok:
        click.echo(f"task duration {result.task_duration_us:.3f} us ({result.time_source}; not cycle-accurate)")
    blocks = result.report.get("blocks", []) if result.ok else []
    if blocks:
        click.echo("block  aiv_us    vec   scalar  mte2   mte3   GM->UB     UB->GM     UB peak")
        shown = sorted(blocks, key=lambda b: -b["aiv_time_us"])[:max_rows] if len(blocks) > max_rows else blocks
        for b in sorted(shown, key=lambda b: b["block_id"]):
            click.echo(f"{b['block_id']:>5}  {b['aiv_time_us']:>7.3f}  {b['aiv_vec_ratio']:>5.0%}  "
                       f"{b['aiv_scalar_ratio']:>5.0%}  {b['aiv_mte2_ratio']:>5.0%}  {b['aiv_mte3_ratio']:>5.0%}  "
                       f"{_format_bytes(b['gm_to_ub_bytes']):>9}  {_format_bytes(b['ub_to_gm_bytes']):>9}  "
                       f"{_format_bytes(b['ub_peak_bytes']):>9}")
        if len(blocks) > max_rows:
            click.echo(f"  ({len(blocks) - max_rows} more blocks not shown; the {max_rows} slowest are listed)")
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    for f in result.faults:
        click.echo(f.text, err=True)


@main.command()
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--kernel", required=True, help="Name of the kernel entry function.")
@click.option("--block-dim", required=True, type=int, help="Number of blocks (blockDim) to launch.")
@click.option("--soc", default="Ascend910B1", show_default=True, help="SoC whose model and limits to use.")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]", help="Preprocessor define (repeatable).")
@click.option("--arg", "arg_specs", multiple=True, metavar="SPEC",
              help="One per kernel parameter, in order: in=F.npy, out=F.npy:DTYPE:D0xD1, bytes=F, struct=F, "
                   "u32=V, i32=V, u64=V, i64=V, f32=V.")
@click.option("--json", "json_path", metavar="PATH|-", help="Write the report as JSON (- for stdout).")
@click.option("--trace", type=click.Path(path_type=Path), help="Write a Chrome-trace timeline (Perfetto opens it).")
@click.option("--no-auto-sync", is_flag=True, help="Check as if compiled without bisheng's --cce-auto-sync.")
@click.option("--timeout", "timeout_s", default=60.0, show_default=True, help="Host seconds before a timeout fault.")
def simulate(source: Path, kernel: str, block_dim: int, soc: str, defines: tuple[str, ...], arg_specs: tuple[str, ...],
             json_path: str | None, trace: Path | None, no_auto_sync: bool, timeout_s: float) -> None:
    """Compile an Ascend C kernel, run it on the CPU simulator, check it, and model its time."""
    from tuner.sim.args import GmOut, parse_arg
    from tuner.sim.run import simulate as run_simulation

    def go():
        args = [parse_arg(spec) for spec in arg_specs]
        return args, run_simulation(source, kernel, block_dim, args, soc=soc, defines=defines,
                                    auto_sync=not no_auto_sync, trace=trace, timeout_s=timeout_s)

    args, result = _run_guarded(go)
    outs = [a for a in args if isinstance(a, GmOut)]
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
    from tuner.data.socs import UnknownSocError, get_soc
    from tuner.sim.build import build_program

    def go():
        for src in sources:
            if not src.is_file():
                raise UsageError(f"no such source file: {src}")
        try:
            spec = get_soc(soc)
        except UnknownSocError as exc:
            raise UsageError(str(exc)) from None
        return build_program(list(sources), output, spec, defines)

    built = _run_guarded(go)
    click.echo(f"built {built} for {soc} (simulator); run it, with TUNER_SIM_REPORT=report.json for the report")


if __name__ == "__main__":
    main()
