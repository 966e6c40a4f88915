"""What `tuner optimize` and `tuner show` draw: the progress bar on stderr and the run's summary tables."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from tuner.graph.scan import ScanResult
from tuner.search.bench import BenchResult
from tuner.search.dispatch import ShapeSetResult
from tuner.search.evaluate import INPUT_SETS
from tuner.search.loop import Progress as LoopProgress
from tuner.search.report import RunSummary
from tuner.search.task_bench import TaskBenchResult


def _us(value: float | None) -> str:
    return f"{value:.3f} µs" if value is not None else "-"


def _params(params: dict | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in (params or {}).items()) or "-"


@contextmanager
def progress_bar(console: Console, budget: int, label: str = "trials") -> Iterator:
    """A progress bar on stderr; yields the callback the loop calls after each event."""
    bar = Progress(TextColumn(f"[bold]{escape(label)}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TextColumn("best {task.fields[best]}"), TextColumn("{task.fields[counts]}"),
                   TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)
    task = bar.add_task("trials", total=budget, best="-", counts="")

    def update(p: LoopProgress) -> None:
        if not bar.live.is_started:  # drawn from the first event on, so input errors print alone
            bar.start()
        pruned = " ".join(f"{k}:{v}" for k, v in sorted(p.pruned.items()))
        counts = f"ok {p.feasible} | pruned {pruned or 0} | builds {p.builds} (cached {p.build_hits})"
        best = f"{_us(p.best_us)} ({p.time_source.split(',')[0]})" if p.best_us is not None else "-"
        bar.update(task, completed=min(p.used, p.budget), best=best, counts=counts)

    try:
        yield update
    finally:
        if bar.live.is_started:
            bar.stop()


def summary_table(summary: RunSummary) -> Table:
    """The result of a run: baseline, best, speedup, roofline, where the files are, where the numbers came from."""
    table = Table(title=f"run {summary.run}", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    base = summary.baseline
    table.add_row("operator", f"{summary.op} {'x'.join(map(str, summary.shape))} {summary.dtype}")
    table.add_row("backend", f"{summary.backend} ({summary.time_source})")
    table.add_row("trials", f"{summary.trials} measured; " + ", ".join(
        f"{k.lower()} {v}" for k, v in sorted(summary.states.items())))
    if summary.errors:
        table.add_row("pruned by class", ", ".join(f"{k} {v}" for k, v in sorted(summary.errors.items())))
    table.add_row("baseline", f"{_us(summary.baseline_us)}  {base.variant if base else ''} "
                              f"{_params(base.params if base else None)}")
    if summary.baseline_why:
        table.add_row("", f"[dim]{summary.baseline_why}[/dim]")
    best = summary.best
    table.add_row("best", f"{_us(summary.best_us)}  {best.variant if best else ''} "
                          f"{_params(best.params if best else None)}")
    if summary.speedup is not None:
        table.add_row("speedup", f"{summary.speedup:.2f}x over the baseline")
    if summary.suspect:
        table.add_row("suspect", f"[bold]{summary.suspect}[/bold]; re-verified on every input set, but check it")
    if summary.predicted_us is not None:
        table.add_row("predicted", f"{_us(summary.predicted_us)} for the best (simulated, {summary.soc} model)")
    torch = summary.device.get("torch", {})
    if summary.torch_us is not None:
        faster = f"; the best is {summary.speedup_vs_torch:.2f}x its speed" if summary.speedup_vs_torch else ""
        table.add_row("torch's own op", f"{_us(summary.torch_us)} ({torch.get('source', '')}){faster}")
        if not torch.get("matches_cpu_reference", True):
            table.add_row("", f"[yellow]torch_npu's output differs from the CPU reference: {torch['detail']}[/yellow]")
    elif "error" in torch:
        table.add_row("torch's own op", f"not measured: {torch['error']}")
    retime = summary.device.get("retime", {})
    if "winner" in retime:
        table.add_row("re-timed", f"the best {len(retime['times_us'])} interleaved over {retime['rounds']} rounds; "
                                  f"winner {retime['winner']}")
    msprof = summary.device.get("msprof_winner", {})
    if msprof:
        ratios = ", ".join(f"{k} {v:.0%}" for k, v in msprof.get("pipe_ratios", {}).items())
        table.add_row("msprof", ratios or f"failed: {msprof.get('error', '')}")
    pct = f" ({summary.roofline_pct:.1f}% of it)" if summary.roofline_pct is not None else ""
    table.add_row("roofline", f"{_us(summary.roofline_us)}{pct}")
    if summary.best_dir:
        table.add_row("files", summary.best_dir)
    table.add_row("storage", summary.storage)
    for name, why in summary.skipped.items():
        table.add_row(f"variant {name}", f"skipped: {why}")
    for item in summary.lineage:
        table.add_row("rewrite", f"{item['parent']} → {item['variant']} ({item['trigger']}, {item['origin']}): "
                                 f"best {_us(item['best_us'])}")
    if summary.mutations:
        accepted = sum(m["verdict"].startswith("accepted") for m in summary.mutations)
        origins = ", ".join(sorted({m["origin"] for m in summary.mutations}))
        table.add_row("proposals", f"{len(summary.mutations)} from {origins}, {accepted} accepted "
                                   f"(runs/{summary.run}/mutations.jsonl)")
    if summary.stop_reason:
        table.add_row("stopped", summary.stop_reason)
    table.add_row("times", f"[italic]{summary.time_source}[/italic]")
    return table


def top_table(summary: RunSummary) -> Table:
    """The best few configurations of each variant."""
    table = Table(title="top configurations per variant", title_justify="left")
    for column in ("variant", "trial", "time", "checked", "knobs"):
        table.add_column(column)
    for variant, rows in summary.top.items():
        for row in rows:
            checked = f"{row.attrs.get('verified_sets', 0)}/{INPUT_SETS} sets"
            table.add_row(variant, str(row.number), _us(row.value), checked, _params(row.params))
    table.caption = (f"a candidate is checked on all {INPUT_SETS} input sets when it beats the best so far; "
                     "slower ones on the set they were timed on")
    return table


def runs_table(rows: list[tuple[str, int, float | None, str]]) -> Table:
    """Runs in a storage: name, measured trials, best time and where the times came from."""
    table = Table(title="runs", title_justify="left")
    for column in ("run", "trials", "best", "times"):
        table.add_column(column)
    for run, trials, best, source in rows:
        table.add_row(run, str(trials), _us(best), source)
    return table


def bench_table(result: BenchResult) -> Table:
    """The bench's cases, then its headline numbers, with where the times came from and why cases failed."""
    correct = sum(c.correct for c in result.cases)
    geomean = f"{result.geomean_speedup:.2f}x" if result.geomean_speedup is not None else "-"
    table = Table(title=f"tuner bench on {result.soc} ({result.backend}), budget {result.budget}",
                  title_justify="left")
    for column in ("case", "correct", "baseline", "best", "speedup", "roofline", "trials", "s"):
        table.add_column(column, justify="left" if column in ("case", "correct") else "right")
    notes = []
    for c in result.cases:
        if not c.correct:
            notes.append(f"{c.case.label}: {c.why_not}")
        table.add_row(escape(c.case.label), "yes" if c.correct else f"[red]no ({len(notes)})[/red]",
                      _us(c.baseline_us), _us(c.best_us), f"{c.speedup:.2f}x" if c.speedup else "-",
                      f"{c.roofline_pct:.1f}%" if c.roofline_pct is not None else "-", str(c.trials),
                      f"{c.seconds:.0f}")
    lines = [f"success rate {correct}/{len(result.cases)} ({100 * result.success_rate:.0f}%), geometric-mean "
             f"speedup {geomean} over the expert baselines; times {result.time_source}"]
    return _captioned(table, lines, notes, f"interrupted after {len(result.cases)} of {result.planned} cases"
                      if result.interrupted else "")


def _captioned(table: Table, lines: list[str], notes: list[str], interrupted: str) -> Table:
    """The table with its headline lines, where it was interrupted, and its numbered notes beneath."""
    table.caption = "\n".join(lines + ([interrupted] if interrupted else []) +
                              [f"({n}) {escape(note)}" for n, note in enumerate(notes, 1)])
    table.caption_justify = "left"
    return table


def task_bench_table(result: TaskBenchResult) -> Table:
    """A suite directory's tasks, then the headline numbers, with where the times came from and why tasks failed or
    have no eager-equivalent."""
    table = Table(title=f"tuner bench --suite {result.suite} on {result.soc} ({result.backend}), "
                        f"budget {result.budget}", title_justify="left")
    for column in ("task", "correct", "first draft", "tuned", "speedup", "eager kernels", "eager", "vs eager",
                   "trials", "s"):
        table.add_column(column, justify="left" if column in ("task", "correct") else "right")
    notes = []
    for t in result.tasks:
        correct, eager = "yes", _us(t.eager_us)
        if not t.correct:
            notes.append(f"{t.task}: {t.why_not}")
            correct = f"[red]no ({len(notes)})[/red]"
        if t.eager is not None and t.eager_why_not:
            notes.append(f"{t.task}: no eager-equivalent: {t.eager_why_not}")
            eager = f"- ({len(notes)})"
        table.add_row(escape(t.task), correct, _us(t.first_draft_us), _us(t.tuned_us),
                      f"{t.speedup:.2f}x" if t.speedup else "-", str(t.eager_kernels or "-"), eager,
                      f"{t.speedup_vs_eager:.2f}x" if t.speedup_vs_eager else "-", str(t.trials), f"{t.seconds:.0f}")
    draft = f"{result.geomean_speedup:.2f}x" if result.geomean_speedup is not None else "-"
    eager = f"{result.geomean_speedup_vs_eager:.2f}x" if result.geomean_speedup_vs_eager is not None else "-"
    lines = [f"success rate {result.correct}/{len(result.tasks)} ({100 * result.success_rate:.0f}%), geometric-mean "
             f"speedup {draft} over the first drafts, {eager} over the eager-equivalent on {len(result.vs_eager)} "
             f"multi-op tasks; times {result.time_source}; at most {result.max_seconds:.0f} s a task"]
    return _captioned(table, lines, notes, f"interrupted after {len(result.tasks)} of {result.planned} tasks"
                      if result.interrupted else "")


def shape_set_table(result: ShapeSetResult) -> Table:
    """A shape set's buckets (shape, weight, kernel, best against the baseline) and its check's probes."""
    t = result.table
    table = Table(title=f"{t.name}: times {t.time_source}", title_justify="left")
    for column in ("shape", "weight", "kernel", "baseline", "best", "speedup", "from"):
        table.add_column(column, justify="left" if column in ("shape", "kernel", "from") else "right")
    for b in t.buckets:
        speedup = f"{b.baseline_us / b.time_us:.2f}x" if b.time_us and b.baseline_us else "-"
        table.add_row("x".join(map(str, b.shape)), f"{b.weight:g}", escape(b.variant), _us(b.baseline_us),
                      _us(b.time_us), speedup, b.origin)
    lines = [f"range: {', '.join(f'{k} {lo}..{hi}' for k, (lo, hi) in t.ranges.items())}"]
    if result.weighted_speedup is not None:
        lines.append(f"weighted geomean speedup over the baseline: {result.weighted_speedup:.2f}x")
    lines += [f"check at {'x'.join(map(str, p.shape))} (bucket {'x'.join(map(str, p.bucket)) or '-'}): "
              f"{_us(p.time_us)} against the baseline's {_us(p.baseline_us)}: {p.verdict}" for p in t.probes]
    table.caption = escape("\n".join(lines))
    table.caption_justify = "left"
    return table


def scan_table(result: ScanResult) -> Table:
    """A model's vector operators (shapes, dtypes, calls, what the tuner has for each); its cube operators and views
    counted in the caption."""
    table = Table(title=f"{result.path.name}: operators (traced on {result.device})", title_justify="left")
    for column in ("operator", "tensors", "calls", "tuner"):
        table.add_column(column, justify="right" if column == "calls" else "left")
    for op in result.vector:
        tensors = "; ".join(f"{'x'.join(map(str, shape))} {dtype}" for shape, dtype in op.tensors)
        have = f"built in: {op.builtin}" if op.builtin else "generated from PyTorch"
        table.add_row(escape(op.target), escape(tensors), str(op.count), have)
    cube = sum(op.count for op in result.ops if op.kind == "cube")
    views = sum(op.count for op in result.ops if op.kind == "view")
    table.caption = f"also {cube} cube calls (matmul, linear, convolution: not the vector core's) and {views} views"
    table.caption_justify = "left"
    return table
