"""Which settings of tuner's own search reach the optimum in fewest trials (issue 18, part 2), replayed on the
exhaustive caches of `search_efficiency.py`.

    python benchmarks/search_defaults.py [--seeds 10] [--held-out 20] [--report docs/search_defaults.md]

Each setting below fixes TPE's options (`tuner.search.samplers.TPE_OPTIONS`) and the variant scheduler's constants
(`tuner.search.scheduler`: the UCB constant, the measured trials each variant gets first) and replays tuner's loop
at a budget of 50 trials on the six spaces, seeds 0 to `--seeds` - 1. The settings are chosen on those seeds; the
best few and the shipped defaults are run again on `--held-out` seeds that took no part in the choice. Every time is
simulated (Ascend910B2 model).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import optuna
from search_efficiency import SOC, SPACES, WITHIN, Space

import tuner.search.samplers as samplers
import tuner.search.scheduler as scheduler
from tuner.search.simulation import SpaceCache, Trajectory, replay

HERE = Path(__file__).resolve().parent
BUDGET = 50
SHIPPED = dict(tpe=dict(samplers.TPE_OPTIONS), ucb_c=scheduler.UCB_C, min_trials=scheduler.MIN_TRIALS_PER_VARIANT)
# name: TPE's options, the UCB constant, the trials each variant gets before UCB chooses
SETTINGS = {
    "Optuna's TPE (10 startup), UCB c 0.5, 5 per variant": dict(tpe={}, ucb_c=0.5, min_trials=5),
    "TPE 3 startup": dict(tpe={"n_startup_trials": 3}, ucb_c=0.5, min_trials=5),
    "TPE 5 startup": dict(tpe={"n_startup_trials": 5}, ucb_c=0.5, min_trials=5),
    "TPE 5 startup, UCB c 0.2": dict(tpe={"n_startup_trials": 5}, ucb_c=0.2, min_trials=5),
    "TPE 5 startup, UCB c 1.0": dict(tpe={"n_startup_trials": 5}, ucb_c=1.0, min_trials=5),
    "TPE 5 startup, 3 per variant": dict(tpe={"n_startup_trials": 5}, ucb_c=0.5, min_trials=3),
    "TPE 5 startup, 8 per variant": dict(tpe={"n_startup_trials": 5}, ucb_c=0.5, min_trials=8),
    "TPE 5 startup, 48 EI candidates": dict(tpe={"n_startup_trials": 5, "n_ei_candidates": 48}, ucb_c=0.5,
                                            min_trials=5),
    "TPE 7 startup": dict(tpe={"n_startup_trials": 7}, ucb_c=0.5, min_trials=5),
    "TPE 5 startup, independent": dict(tpe={"n_startup_trials": 5, "multivariate": False}, ucb_c=0.5,
                                       min_trials=5),
}
HELD_OUT_BEST = 2  # besides the shipped setting and the one before it, the best this many go to the held-out seeds


def _apply(setting: dict) -> None:
    samplers.TPE_OPTIONS = dict(setting["tpe"])
    scheduler.UCB_C = setting["ucb_c"]
    scheduler.MIN_TRIALS_PER_VARIANT = setting["min_trials"]


_CACHES: dict[str, SpaceCache] = {}


def _run(task: tuple[str, int, int]) -> tuple[tuple[str, int, int], list[float | None]]:
    name, space_index, seed = task
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    _apply(SETTINGS[name])
    space = SPACES[space_index]
    config = space.config(seed=seed, budget=BUDGET)
    cache = _CACHES.get(space.name) or _CACHES.setdefault(space.name, SpaceCache(space.cache_path, config))
    return task, list(replay(config, cache).times)


def score(names: list[str], seeds: range, jobs: int) -> dict[str, dict[str, list[Trajectory]]]:
    """Each setting's runs per space."""
    tasks = [(n, i, s) for n in names for i in range(len(SPACES)) for s in seeds]
    runs: dict[str, dict[str, list[Trajectory]]] = {}
    with ProcessPoolExecutor(jobs) as pool:
        for done, ((name, index, _), times) in enumerate(pool.map(_run, tasks), 1):
            runs.setdefault(name, {}).setdefault(SPACES[index].name, []).append(Trajectory(tuple(times), ""))
            if done % 60 == 0:
                print(f"{done}/{len(tasks)} runs", flush=True)
    return runs


def _row(runs: dict[str, list[Trajectory]], optima: dict[str, float]) -> tuple[int, float, dict[str, tuple]]:
    """Spaces within 2% in at most BUDGET trials (median over seeds), the median over spaces of the median gap at
    BUDGET, and per space (median trials to 2% or None, median gap)."""
    cells = {}
    for space, trajectories in runs.items():
        optimum = optima[space]
        reached = sorted(t.trials_to_within(optimum * (1 + WITHIN)) or math.inf for t in trajectories)
        middle = reached[(len(reached) - 1) // 2]
        gap = statistics.median(100 * (t.best_after(BUDGET) / optimum - 1) for t in trajectories)
        cells[space] = (None if math.isinf(middle) else middle, gap)
    within = sum(1 for to, _ in cells.values() if to is not None)
    return within, statistics.median(gap for _, gap in cells.values()), cells


def _table(title: str, runs: dict, optima: dict[str, float], spaces: list[Space]) -> list[str]:
    lines = [f"## {title}", "", "| Setting | spaces within 2% by 50 | median gap @ 50 | " +
             " | ".join(s.name for s in spaces) + " |", "|---|---|---|" + "---|" * len(spaces)]
    rows = {name: _row(by_space, optima) for name, by_space in runs.items()}
    for name, (within, gap, cells) in sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0])):
        shown = f"**{name}**" if SETTINGS[name] == SHIPPED else name
        lines.append(f"| {shown} | {within} | {gap:.2f}% | " + " | ".join(
            f"{to if to is not None else '—'} / {g:.1f}%" for to, g in (cells[s.name] for s in spaces)) + " |")
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--held-out", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report", type=Path, default=HERE.parent / "docs" / "search_defaults.md")
    args = parser.parse_args(argv)
    if not any(s == SHIPPED for s in SETTINGS.values()):
        raise SystemExit("the shipped defaults are not among SETTINGS: add them")
    optima = {s.name: SpaceCache(s.cache_path, s.config()).optimum() for s in SPACES}
    chosen = score(list(SETTINGS), range(args.seeds), args.jobs)
    ranked = sorted(chosen, key=lambda n: (-_row(chosen[n], optima)[0], _row(chosen[n], optima)[1]))
    before = next(iter(SETTINGS))
    shipped = next(n for n, s in SETTINGS.items() if s == SHIPPED)
    confirm = list(dict.fromkeys([shipped, before, *ranked[:HELD_OUT_BEST]]))
    held = score(confirm, range(args.seeds, args.seeds + args.held_out), args.jobs)
    lines = ["# Search defaults", "",
             f"Generated by `python benchmarks/search_defaults.py` (from the repository root); do not edit. Every "
             f"time is simulated ({SOC} model): tuner's loop replayed on the exhaustive caches of "
             "`benchmarks/search_efficiency.py` (see search_efficiency.md) at a budget of "
             f"{BUDGET} trials, one setting of the search at a time. Each cell: the median number of trials to "
             "come within 2% of the space's optimum (— where fewer than half the seeds did by 50) / the median gap "
             f"to the optimum after {BUDGET} trials. The shipped setting is in bold.", "",
             *_table(f"Choosing: seeds 0–{args.seeds - 1}", chosen, optima, list(SPACES)),
             *_table(f"Held out: seeds {args.seeds}–{args.seeds + args.held_out - 1} (the shipped setting, the one "
                     "before it, and the best of the choice)", held, optima, list(SPACES))]
    args.report.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
