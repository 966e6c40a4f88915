"""Wall time of `tuner bench` over the whole packaged suite at its default budget (Ascend910B2, simulator).

    python benchmarks/bench_suite.py [--budget 40] [--jobs 2] [--report README.md]

Runs in a fresh storage and a fresh kernel cache (the simulator's runtime library is built first, outside the
timing, as it is once per machine), as a new user's first `tuner bench` would. Prints each case and the
headline numbers; with --report it writes the bench table into that file's generated section (this is how
the README's table is made). Target: <= 30 min for the suite on a 2-core machine; exits 1 when it is missed or
when a case ends without a correct kernel. Kernel times are simulated (Ascend910B2 model), not measured.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fresh import fresh_tuner

TARGET_S = 30 * 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report", type=Path, help="Markdown file whose generated bench section is rewritten")
    args = parser.parse_args()
    with fresh_tuner() as tmp:
        from tuner.search.bench import BenchConfig, load_suite, markdown_report, run_bench, write_report

        config = BenchConfig(cases=load_suite(), budget=args.budget, jobs=args.jobs, runs_dir=tmp / "runs")
        start = time.perf_counter()
        result = run_bench(config, on_case=lambda c: print(
            f"  {c.case.label:40s} {'ok' if c.correct else 'NO':3s} "
            f"{f'{c.speedup:.2f}x' if c.speedup else c.why_not:>8s}  {c.trials:3d} trials {c.seconds:6.1f} s",
            flush=True))
        wall = time.perf_counter() - start
    correct = sum(c.correct for c in result.cases)
    print(f"{len(result.cases)} cases, budget {args.budget}, jobs {args.jobs}: success {correct}/{len(result.cases)}, "
          f"geomean speedup {result.geomean_speedup or 0:.2f}x ({result.time_source})")
    print(f"wall s {wall:.0f}   target <= {TARGET_S:.0f}")
    if args.report:
        command = f"python benchmarks/bench_suite.py --budget {args.budget} --report {args.report}"
        write_report(args.report, markdown_report(result, command))
        print(f"wrote the bench section of {args.report}")
    return 0 if wall <= TARGET_S and correct == len(result.cases) else 1


if __name__ == "__main__":
    sys.exit(main())
