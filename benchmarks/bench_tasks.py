"""Wall time per task of `tuner bench --suite benchmarks/suite` at budget 20 (Ascend910B2, simulator).

    python benchmarks/bench_tasks.py [--budget 20] [--jobs 2] [--report README.md] [--json FILE]

Runs every task file of the development suite in a fresh storage and a fresh kernel cache (the simulator's runtime
library is built first, outside the timing, as it is once per machine), as a new user's first bench would: each task
tuned, its first draft and its eager-equivalent timed. Prints each task and the headline numbers; --json writes the
bench's JSON (each task's wall seconds in it), --report writes the table into that file's generated section (this is
how the README's table is made). Target: <= 2 min for every task on a 2-core machine; exits 1 when a task misses it.
A task that the tuner cannot take is expected (the suite runs ahead of the lowering) and does not fail the benchmark.
Kernel times are simulated (Ascend910B2 model), not measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fresh import fresh_tuner

SUITE = Path(__file__).resolve().parent / "suite"
TARGET_S = 120.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report", type=Path, help="Markdown file whose generated task-bench section is rewritten")
    parser.add_argument("--json", type=Path, help="Where to write the bench's JSON")
    args = parser.parse_args()
    with fresh_tuner() as tmp:
        from tuner.search.bench import check_report, write_report
        from tuner.search.task_bench import (
            TASK_REPORT_BEGIN,
            TASK_REPORT_END,
            TaskBenchConfig,
            run_task_bench,
            task_files,
            task_markdown_report,
        )

        if args.report:
            check_report(args.report, TASK_REPORT_BEGIN, TASK_REPORT_END)
        config = TaskBenchConfig(suite=Path("benchmarks/suite"), files=task_files(SUITE), budget=args.budget,
                                 jobs=args.jobs, runs_dir=tmp / "runs")
        result = run_task_bench(config, on_task=lambda t: print(
            f"  {t.task:40s} {'ok' if t.correct else 'NO':3s} {t.seconds:6.1f} s  "
            f"{f'{t.speedup:.2f}x draft' if t.speedup else '-':>11s} "
            f"{f'{t.speedup_vs_eager:.2f}x eager' if t.speedup_vs_eager else '-':>11s}", flush=True))
    draft, eager = result.geomean_speedup, result.geomean_speedup_vs_eager
    print(f"{len(result.tasks)} tasks, budget {args.budget}, jobs {args.jobs}: success {result.correct}/"
          f"{len(result.tasks)}, geomean {draft or 0:.2f}x over the first drafts, {eager or 0:.2f}x over eager on "
          f"{len(result.vs_eager)} multi-op tasks ({result.time_source})")
    slow = [t for t in result.tasks if t.seconds > TARGET_S]
    print(f"max s per task {result.max_seconds:.0f}   target <= {TARGET_S:.0f}"
          + "".join(f"\n  over: {t.task} {t.seconds:.0f} s" for t in slow))
    if args.json:
        args.json.write_text(json.dumps(result.to_json(), indent=1) + "\n")
    if args.report:
        command = f"python benchmarks/bench_tasks.py --budget {args.budget} --report {args.report}"
        write_report(args.report, task_markdown_report(result, command), TASK_REPORT_BEGIN, TASK_REPORT_END)
        print(f"wrote the task-bench section of {args.report}")
    return 1 if slow or result.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
