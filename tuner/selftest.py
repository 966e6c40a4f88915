"""`tuner doctor --selftest`: two small tuning runs on the NPU, written up as a report a user can attach to an issue.

Each case (add and softmax, fp16) is a short npu-backend run; the report gives its best measured time next to the
simulator's prediction for that same trial, torch_npu's own time, msprof's pipe ratios and the errors by class.
"""

from __future__ import annotations

import importlib.metadata
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuner.backends.npu.detect import COMPILER, Detection, detect
from tuner.errors import TunerError

if TYPE_CHECKING:
    from rich.table import Table

# (op, shape) of the cases, all float16.
CASES: tuple[tuple[str, tuple[int, ...]], ...] = (("add", (8, 4096)), ("softmax", (64, 1024)))
DTYPE = "float16"
BUDGET = 4


@dataclass
class CaseResult:
    """One case's run: whether it found a correct kernel, and what was measured and predicted for the best."""

    op: str
    shape: list[int]
    dtype: str
    correct: bool = False
    run: str | None = None
    best_trial: str | None = None
    best_us: float | None = None
    p20_us: float | None = None
    p80_us: float | None = None
    launches: int | None = None
    sim_us: float | None = None
    measured_over_predicted: float | None = None
    torch_us: float | None = None
    speedup_vs_torch: float | None = None
    torch_matches_cpu_reference: bool | None = None
    msprof: dict[str, Any] | None = None
    errors: dict[str, int] = field(default_factory=dict)
    error: str | None = None


@dataclass
class SelftestResult:
    """The environment, each case's result, and the verdict (ok when every case found a correct kernel)."""

    npu_ready: bool
    missing: list[str]
    environment: dict[str, Any]
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.npu_ready and bool(self.cases) and all(c.correct for c in self.cases)

    @property
    def soc(self) -> str:
        return str(self.environment.get("soc") or "unknown SoC")

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "npu_ready": self.npu_ready, "missing": self.missing,
                "environment": self.environment, "cases": [asdict(c) for c in self.cases],
                "time_source": f"measured on {self.soc}", "prediction_source": f"simulated, {self.soc} model"}

    def to_markdown(self) -> str:
        """The report: header, environment, one table per case, and where times and predictions come from."""
        lines = ["# tuner NPU self-test", "", f"**Verdict: {'ok' if self.ok else 'FAILED'}**", ""]
        if not self.npu_ready:
            lines += ["The npu backend is not available:", "", *(f"- {m}" for m in self.missing), ""]
        lines += ["## Environment", "", "| fact | value |", "| --- | --- |"]
        lines += [f"| {key} | {_cell(value)} |" for key, value in self.environment.items()]
        if self.cases:
            lines += ["", f"Times are measured on {self.soc}; predictions are simulated, {self.soc} model."]
        for case in self.cases:
            lines += ["", f"## {case.op} {'x'.join(map(str, case.shape))} {case.dtype}", "",
                      "| item | value |", "| --- | --- |"]
            lines += [f"| {key} | {_cell(value)} |" for key, value in _case_rows(case, self.soc)]
        return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = "—" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _case_rows(case: CaseResult, soc: str) -> list[tuple[str, Any]]:
    msprof = case.msprof or {}
    if "pipe_ratios" in msprof:
        profiled = ", ".join(f"{pipe} {ratio:.2f}" for pipe, ratio in msprof["pipe_ratios"].items())
    else:
        profiled = f"error: {msprof['error']}" if "error" in msprof else "not run (no msprof)"
    return [
        ("correct", "yes" if case.correct else "no"),
        ("error", case.error),
        ("run", case.run),
        ("best trial", case.best_trial),
        (f"best µs (median, measured on {soc})", case.best_us),
        ("p20 / p80 µs", f"{case.p20_us} / {case.p80_us}" if case.p20_us is not None else None),
        ("launches", case.launches),
        (f"predicted µs (simulated, {soc} model)", case.sim_us),
        ("measured / predicted", case.measured_over_predicted),
        (f"torch_npu µs (measured on {soc})", case.torch_us),
        ("speedup vs torch_npu", case.speedup_vs_torch),
        ("torch_npu matches CPU reference", case.torch_matches_cpu_reference),
        ("msprof pipe ratios", profiled),
        ("errors by class", ", ".join(f"{k}: {v}" for k, v in sorted(case.errors.items())) or "none"),
    ]


def environment(det: Detection) -> dict[str, Any]:
    """The facts of this machine a bug report needs."""
    compiler = next((i.detail for i in det.items if i.name == COMPILER and i.found), None)
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"),
            "tuner": importlib.metadata.version("tuner"), "cann": det.cann_version, "cann_home": det.home,
            "compiler": compiler, "torch": det.torch_version, "torch_npu": det.torch_npu_version,
            "device": det.device_name, "device_count": det.device_count, "soc": det.device_soc,
            "msprof": det.msprof}


def run_case(op: str, shape: tuple[int, ...], det: Detection, runs_dir: Path) -> CaseResult:
    """One short tuning run; a TunerError becomes the case's `error`."""
    from tuner.search.loop import RunConfig, make_optimizer
    from tuner.search.storage import run_studies

    case = CaseResult(op, list(shape), DTYPE)
    try:
        config = RunConfig(op, shape, DTYPE, soc=str(det.device_soc), backend="npu", budget=BUDGET,
                           runs_dir=runs_dir, rewrites=False, profile="msprof" if det.msprof else None, jobs=1)
        optimizer = make_optimizer(config)
        summary = optimizer.run()
        infos = run_studies(optimizer.storage, summary.run).get(summary.run, [])
    except TunerError as exc:
        case.error = f"{type(exc).__name__}: {exc}"
        return case
    run_attrs = infos[0].attrs if infos else {}
    case.run, case.errors = summary.run, dict(summary.errors)
    torch = run_attrs.get("torch") or {}
    case.torch_matches_cpu_reference = torch.get("matches_cpu_reference")
    if det.msprof:
        case.msprof = run_attrs.get("msprof_winner")
    best = summary.best
    case.correct = best is not None
    if best is None:
        return case
    attrs = best.attrs
    timing = attrs.get("timing") or {}
    case.best_trial = f"{best.variant}:{best.number}"
    case.best_us = timing.get("median_us", best.value)
    case.p20_us, case.p80_us, case.launches = timing.get("p20_us"), timing.get("p80_us"), timing.get("launches")
    case.sim_us = attrs.get("sim_us")
    if case.sim_us and case.best_us:
        case.measured_over_predicted = round(case.best_us / case.sim_us, 3)
    case.torch_us = attrs.get("torch_us", torch.get("median_us"))
    case.speedup_vs_torch = attrs.get("speedup_vs_torch")
    return case


def run_selftest(runs_dir: Path) -> SelftestResult:
    """Detect, then run every case in `runs_dir`; when the npu backend is not ready, say what is missing."""
    det = detect()
    missing = [f"{i.name}: {i.detail}" for i in det.missing()]
    result = SelftestResult(det.npu_ready, missing, environment(det))
    if det.npu_ready:
        result.cases = [run_case(op, shape, det, runs_dir) for op, shape in CASES]
    return result


def write_report(result: SelftestResult, path: Path) -> Path:
    """Write the markdown to `path` and the JSON next to it (same stem, .json); returns the JSON's path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.to_markdown())
    json_path = path.with_suffix(".json")
    json_path.write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return json_path


def summary_table(result: SelftestResult) -> Table:
    """The short summary `tuner doctor --selftest` prints: one row per case."""
    from rich.table import Table

    table = Table(title=f"tuner self-test on {result.soc}")
    for column in ("case", "correct", f"best µs (measured on {result.soc})", "predicted µs (simulated)",
                   "vs torch_npu", "error"):
        table.add_column(column, overflow="fold")
    for case in result.cases:
        speedup = f"{case.speedup_vs_torch:.2f}x" if case.speedup_vs_torch else "—"
        table.add_row(f"{case.op} {'x'.join(map(str, case.shape))}", "yes" if case.correct else "no",
                      _cell(case.best_us), _cell(case.sim_us), speedup, case.error or "")
    return table
