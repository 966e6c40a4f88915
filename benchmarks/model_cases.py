"""The timing model against Huawei's published device measurements of asc-devkit's vector best-practice cases:
each case runs unchanged through the simulator (as benchmarks/asc_samples.py runs an example, with the case's
CMake values), and its modelled times are set beside the measured ones (tuner/data/best_practices.yaml).

    python benchmarks/model_cases.py [--repo GIT_DIR] [--only SUBSTR] [--slow] [--report docs/model_validation.md]

Per case: Task Duration and the per-core pipe times (aiv_vec/scalar/mte2/mte3_time, the mean over blocks of the
simulator's per-block times), or the cycles the program itself prints (GetSystemCycle ticks). Per group: the
Spearman rank correlation of the headline figure and the pairs of cases whose order the model gets wrong.
Exits 1 when a case is outside the band (BAND) or a group's order is wrong. Every simulated figure is
"simulated, <SoC> model"; every measured one is Huawei's (the yaml names the README). The report is the
best-practice section of docs/model_validation.md (between CASES_BEGIN and CASES_END; `python -m tuner.sim.validate`
writes the rest and keeps it).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from asc_samples import DEFAULT_REPO, git, run_example
from scipy.stats import spearmanr

from tuner.search.bench import write_report
from tuner.sim.validate import CASES_BEGIN, CASES_END

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tuner" / "data" / "best_practices.yaml"
BAND = 0.15
PIPES = ("vec", "scalar", "mte2", "mte3")


@dataclass
class Case:
    group: str
    name: str
    measured: dict[str, float]
    simulated: dict[str, float] = field(default_factory=dict)
    status: str = "ok"

    @property
    def headline(self) -> str:
        return "ticks" if "ticks" in self.measured else "task_us"

    def error(self, key: str) -> float | None:
        if key not in self.measured or key not in self.simulated or not self.measured[key]:
            return None
        return self.simulated[key] / self.measured[key] - 1


def simulated_figures(reports: list[dict], output: str, printed: str | None) -> dict[str, float]:
    """Task duration summed over the launches, each pipe's per-core time (mean over blocks) summed likewise, and
    the ticks the program printed last."""
    figures = {"task_us": sum(r.get("task_duration_us") or 0.0 for r in reports)}
    for pipe in PIPES:
        figures[f"{pipe}_us"] = sum(sum(b[f"aiv_{pipe}_time_us"] for b in r["blocks"]) / len(r["blocks"])
                                    for r in reports if r.get("blocks"))
    if printed:
        found = re.findall(printed, output)
        if found:
            figures["ticks"] = float(found[-1])
    return figures


def run_cases(repo: Path, only: list[str], slow: bool) -> list[Case]:
    data = yaml.safe_load(DATA.read_text())
    cases = []
    for group, spec in data["groups"].items():
        for entry in spec["cases"]:
            case = Case(group, entry["name"], entry["measured"])
            if only and not any(o in f"{group} {case.name}" for o in only):
                continue
            if entry.get("slow") and not slow:
                case.status = "not run: most of an hour on this machine (--slow runs it)"
                cases.append(case)
                continue
            with tempfile.TemporaryDirectory(prefix="model-case-") as tmp:
                row = run_example(repo, spec["example"], Path(tmp), {k: str(v) for k, v in entry["cmake"].items()},
                                  in_scope_only=False)  # data_copy also holds an L1 path these cases leave unbuilt
            if row.status != "pass":
                case.status = f"{row.status}: {row.why[:200]}"
            else:
                case.simulated = simulated_figures(row.reports, row.output, spec.get("printed"))
            cases.append(case)
            err = case.error(case.headline)
            print(f"{group:22} {case.name:42} {case.status[:60]:60} "
                  f"{'' if err is None else f'{err * 100:+.1f}%'}", flush=True)
    return cases


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value * 100:+.1f}%"


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}" if value < 100 else f"{value:.1f}"


def group_order(cases: list[Case]) -> tuple[float | None, list[str]]:
    """Spearman's rho of the headline figure over a group's cases, and the pairs the model orders wrongly (a
    measured difference under 2% is a tie and never wrong)."""
    ran = [c for c in cases if c.status == "ok" and c.headline in c.simulated]
    if len(ran) < 2:
        return None, []
    key = ran[0].headline
    simulated = [c.simulated[key] for c in ran]
    rho = 0.0 if len(set(simulated)) == 1 else spearmanr([c.measured[key] for c in ran], simulated).statistic
    wrong = []
    for i, a in enumerate(ran):
        for b in ran[i + 1:]:
            dm = b.measured[key] - a.measured[key]
            if abs(dm) < 0.02 * max(a.measured[key], b.measured[key]):
                continue
            if dm * (b.simulated[key] - a.simulated[key]) <= 0:
                wrong.append(f"{a.name} / {b.name}")
    return float(rho), wrong


def markdown(cases: list[Case], commit: str, soc: str) -> tuple[str, bool]:
    lines = [
        CASES_BEGIN,
        "",
        "## Huawei's best-practice cases, whole programs",
        "",
        f"Generated by `python benchmarks/model_cases.py --report docs/model_validation.md` from asc-devkit at "
        f"`{commit[:12]}`. Each case of asc-devkit's vector best practices runs unchanged through the simulator "
        f"({soc} model) with the CMake values its README gives; **measured** figures are Huawei's (msprof, or the "
        "program's own GetSystemCycle ticks, on Atlas A2, from the README named in `tuner/data/best_practices.yaml`), "
        "**simulated** ones the model's. Pipe times are per core (the mean over blocks). These READMEs are among the "
        "model's calibration sources (`tuner/data/costs/overheads.yaml` names the case each constant came from), so "
        "the table shows what the model reproduces, not a held-out test.",
        "",
    ]
    failed = False
    errors = [abs(e) for c in cases if (e := c.error(c.headline)) is not None]
    if errors:
        inside = sum(e <= BAND for e in errors)
        errors.sort()
        lines += [f"**{inside} of {len(errors)} cases within ±{BAND * 100:.0f}%** of the measured headline figure; "
                  f"median |error| {errors[len(errors) // 2] * 100:.1f}%.", ""]
        failed |= inside < len(errors)
    for group in dict.fromkeys(c.group for c in cases):
        members = [c for c in cases if c.group == group]
        rho, wrong = group_order(members)
        failed |= bool(wrong)
        key = members[0].headline
        lines += [f"### {group}", ""]
        if rho is not None:
            lines += [f"Order of {key}: Spearman {rho:.2f}; "
                      + (f"wrongly ordered: {'; '.join(wrong)}." if wrong else "every pair in the measured order."), ""]
        if key == "ticks":
            lines += ["| Case | Measured ticks | Simulated ticks | Error | Status |", "|---|---|---|---|---|"]
            for c in members:
                lines.append(f"| {c.name} | {c.measured['ticks']:.0f} | {_fmt(c.simulated.get('ticks'))} | "
                             f"{_pct(c.error('ticks'))} | {c.status} |")
        else:
            head = ["Task us"] + [f"{p} us" for p in PIPES]
            keys = ["task_us"] + [f"{p}_us" for p in PIPES]
            lines += ["| Case | " + " | ".join(f"{h} measured / simulated (error)" for h in head) + " | Status |",
                      "|---" * (len(head) + 2) + "|"]
            for c in members:
                cells = [f"{_fmt(c.measured.get(k))} / {_fmt(c.simulated.get(k))} ({_pct(c.error(k))})"
                         if k in c.measured else "" for k in keys]
                lines.append(f"| {c.name} | " + " | ".join(cells) + f" | {c.status} |")
        lines.append("")
    lines += [f"Verdict: **{'FAIL' if failed else 'PASS'}** (band ±{BAND * 100:.0f}%, and every group in the "
              "measured order).", "", CASES_END]
    return "\n".join(lines), failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="asc-devkit git directory")
    parser.add_argument("--only", action="append", default=[], help="run cases whose group or name contains this")
    parser.add_argument("--report", type=Path, help="write the markdown table here")
    parser.add_argument("--slow", action="store_true", help="also run the cases marked slow (the scalar Add loop)")
    args = parser.parse_args()
    if not (args.repo / "HEAD").exists():
        print(f"error: no asc-devkit git directory at {args.repo} (fetch cann/asc-devkit, or --repo)")
        return 2
    cases = run_cases(args.repo, args.only, args.slow)
    soc = yaml.safe_load(DATA.read_text())["soc"]
    text, failed = markdown(cases, git(args.repo, "rev-parse", "HEAD").decode().strip(), soc)
    if args.report:
        write_report(args.report, text, CASES_BEGIN, CASES_END)
        print(f"wrote {args.report}")
    print(next((line for line in text.splitlines() if line.startswith("**")), "no case ran"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
