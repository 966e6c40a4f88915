"""`tuner report`: a run as one self-contained HTML file of plotly figures, plotly.js inlined so that it opens with
no network. It draws what `summarize` reads back (baseline, best, roofline, trials by state and class, the top
configurations, the rewrites) and, from the run's studies, the history of its measured trials and each variant's
parameter importance."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import optuna
import plotly.graph_objects as go
from optuna.trial import TrialState
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from tuner.errors import UsageError
from tuner.search.evaluate import INPUT_SETS
from tuner.search.report import RunSummary, TrialRow, eligible, summarize
from tuner.search.storage import DEFAULT_RUNS_DIR, run_studies

__all__ = ["REPORT_FILE", "SECTIONS", "write_html_report"]

REPORT_FILE = "report.html"  # under runs/<run>/ unless told otherwise
MIN_IMPORTANCE_TRIALS = 5  # complete trials a variant needs before its parameter importance says anything
SECTIONS = {  # the id of each figure's div, and its heading
    "history": "Best so far",
    "states": "Trials by state and error class",
    "importance": "Parameter importance",
    "pipes": "Pipe breakdown: baseline and best",
    "roofline": "Roofline position",
    "top": "Top configurations",
}
LAYOUT = {"template": "plotly_white", "height": 440, "margin": {"l": 70, "r": 30, "t": 30, "b": 60}}
STYLE = """body { font-family: sans-serif; margin: 2em auto; max-width: 1300px; color: #222; }
table.header td { padding: 2px 14px 2px 0; vertical-align: top; } table.header td:first-child { font-weight: bold; }
p.note { color: #555; margin: 0.2em 0 0.6em 0; } section { margin-top: 2em; }"""


def _us(value: float | None) -> str:
    return f"{value:.3f} µs" if value is not None else "-"


def _knobs(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


def _studies(storage: optuna.storages.BaseStorage, run: str) -> list[tuple[str, optuna.Study]]:
    return [(info.variant, optuna.load_study(study_name=info.name, storage=storage))
            for info in run_studies(storage, run)[run]]


def _history(summary: RunSummary, studies: list[tuple[str, optuna.Study]]) -> tuple[go.Figure, list[str]]:
    """Every measured trial's time in the order the trials finished, the eligible best so far as a step line, the
    baseline as a horizontal line, and a dashed line where each rewrite's first trial ran."""
    measured = sorted(((variant, trial) for variant, study in studies
                       for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
                       if trial.user_attrs.get("measured")),
                      key=lambda pair: pair[1].datetime_complete)
    points: dict[str, tuple[list[int], list[float], list[str]]] = {}
    first: dict[str, int] = {}
    steps: tuple[list[int], list[float]] = ([], [])
    best = math.inf
    for x, (variant, trial) in enumerate(measured, 1):
        first.setdefault(variant, x)
        if trial.state == TrialState.COMPLETE and trial.value is not None:
            xs, ys, texts = points.setdefault(variant, ([], [], []))
            xs.append(x)
            ys.append(trial.value)
            texts.append(f"{variant}:{trial.number}<br>{_knobs(trial.params)}")
        if eligible(trial) and trial.value < best:
            best = trial.value
        if best < math.inf:
            steps[0].append(x)
            steps[1].append(best)
    fig = go.Figure()
    for variant, (xs, ys, texts) in points.items():
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=variant, text=texts,
                                 hovertemplate="%{text}<br>%{y:.3f} µs<extra></extra>"))
    fig.add_trace(go.Scatter(x=steps[0], y=steps[1], mode="lines", line_shape="hv", name="best so far",
                             line={"color": "black", "width": 2}))
    if summary.baseline_us is not None:  # a trace, not an annotated line: on a log axis it would take the logarithm
        fig.add_trace(go.Scatter(x=[0.5, len(measured) + 0.5], y=[summary.baseline_us] * 2, mode="lines",
                                 name=f"baseline {_us(summary.baseline_us)}", line={"dash": "dot", "color": "gray"}))
    unmeasured = []
    for item in summary.lineage:
        label = f"{item['parent']} → {item['variant']} ({item['origin']}, {item['trigger']})"
        if item["variant"] in first:
            fig.add_vline(x=first[item["variant"]] - 0.5, line_dash="dash", line_color="purple",
                          annotation_text=label, annotation_textangle=-90, annotation_position="top left")
        else:
            unmeasured.append(label)
    fig.update_layout(**LAYOUT, xaxis_title="measured trial, in the order the run's trials finished",
                      yaxis_title="time of one launch (µs, log scale)", yaxis_type="log")
    notes = [f"{len(measured)} measured trials over {len(studies)} variants, times {summary.time_source}: a point per "
             f"correct trial, the line the best checked on all {INPUT_SETS} input sets so far, a dashed line where a "
             "rewrite's first trial ran."]
    if unmeasured:
        notes.append("Rewrites with no measured trial yet: " + "; ".join(unmeasured) + ".")
    return fig, notes


def _states(summary: RunSummary) -> tuple[go.Figure, list[str]]:
    fig = make_subplots(rows=1, cols=2, subplot_titles=("every trial, by state", "pruned or failed, by error class"))
    states = sorted(summary.states.items())
    fig.add_trace(go.Bar(x=[k.lower() for k, _ in states], y=[v for _, v in states], name="state"), row=1, col=1)
    errors = sorted(summary.errors.items())
    fig.add_trace(go.Bar(x=[k for k, _ in errors], y=[v for _, v in errors], name="error class",
                         marker_color="indianred"), row=1, col=2)
    if not errors:
        fig.add_annotation(text="no trial was pruned or failed", showarrow=False, row=1, col=2,
                           xref="x2 domain", yref="y2 domain", x=0.5, y=0.5)
    fig.update_layout(**{**LAYOUT, "margin": {**LAYOUT["margin"], "t": 60}}, showlegend=False, yaxis_title="trials")
    return fig, ["Every trial in the storage: infeasible points and duplicates are free (not measured); "
                 "a kernel's failure prunes its trial, the tuner's own fails it."]


def _importances(studies: list[tuple[str, optuna.Study]]) -> tuple[go.Figure, list[str]]:
    """Each variant's parameter importance (Optuna's default evaluator) where it has enough complete trials."""
    fig = go.Figure()
    notes = [f"Optuna's default importance evaluator over each variant's complete trials (at least "
             f"{MIN_IMPORTANCE_TRIALS}); a variant's importances sum to 1."]
    for variant, study in studies:
        complete = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        if complete < MIN_IMPORTANCE_TRIALS:
            notes.append(f"{variant}: {complete} complete trials, too few for an importance.")
            continue
        try:
            importances = optuna.importance.get_param_importances(study)
        except Exception as exc:  # the evaluator's refusals have no common class; each is one line of the report
            notes.append(f"{variant}: no importance ({type(exc).__name__}: {str(exc).splitlines()[0]})")
            continue
        names = list(reversed(importances))
        fig.add_trace(go.Bar(x=[importances[n] for n in names], y=names, orientation="h", name=variant))
    if not fig.data:
        fig.add_annotation(text="no variant has enough complete trials", showarrow=False, x=0.5, y=0.5,
                           xref="paper", yref="paper")
    fig.update_layout(**LAYOUT, barmode="group", xaxis_title="importance")
    return fig, notes


def _pipes(summary: RunSummary) -> tuple[go.Figure, list[str]]:
    """The share of its slowest block's time each pipe was busy, for the baseline and the best."""
    fig = go.Figure()
    notes = []
    for role, row in (("baseline", summary.baseline), ("best", summary.best)):
        pipe = row.attrs.get("pipe") if row else None
        if row is None or not pipe:
            notes.append(f"The {role} recorded no pipe breakdown.")
            continue
        ratios = {k: v for k, v in pipe.items() if not k.endswith("_bytes")}
        fig.add_trace(go.Bar(x=list(ratios), y=[100 * v for v in ratios.values()],
                             name=f"{role}: {row.variant}:{row.number}, {_us(row.value)}"))
        source = row.attrs.get("pipe_source") or row.attrs.get("time_source") or summary.time_source
        notes.append(f"{role}: GM→UB {pipe.get('gm_to_ub_bytes', '-')} B, UB→GM {pipe.get('ub_to_gm_bytes', '-')} B; "
                     f"pipes {source}.")
    fig.update_layout(**LAYOUT, barmode="group", xaxis_title="pipe",
                      yaxis_title="busy, % of the slowest block's time")
    return fig, notes


def _roofline(summary: RunSummary) -> tuple[go.Figure, list[str]]:
    """The roofline's two bounds, the best and the baseline on one log axis (annotations on a log axis would take
    the logarithm of their position, so every number is in the labels)."""
    bounds = summary.roofline
    times = [(f"{role} {_us(value)}: the roofline is {100 * bounds.bound_us / value:.1f}% of it", value)
             for role, value in (("best", summary.best_us), ("baseline", summary.baseline_us)) if value]
    points = [(f"memory bound {_us(bounds.memory_us)}", bounds.memory_us),
              (f"vector bound {_us(bounds.vector_us)}", bounds.vector_us), *times]
    fig = go.Figure(go.Scatter(x=[v for _, v in points], y=[name for name, _ in points], mode="markers",
                               marker={"size": 14, "color": ["gray", "gray", "seagreen", "steelblue"][:len(points)]},
                               hovertemplate="%{y}<extra></extra>"))
    fig.add_vline(x=bounds.bound_us, line_dash="dash", line_color="red")
    fig.update_layout(**LAYOUT, xaxis_title="µs (log scale)", xaxis_type="log", yaxis_autorange="reversed")
    return fig, [f"The roofline (dashed, {_us(bounds.bound_us)}) is the larger of the compulsory HBM bytes at the "
                 f"{summary.soc}'s bandwidth and the operator's vector work at its cost table on every vector core: "
                 f"computed, not measured. The times are {summary.time_source}."]


def _top(summary: RunSummary) -> tuple[go.Figure, list[str]]:
    rows = sorted((row for rows in summary.top.values() for row in rows), key=lambda row: row.value or math.inf)
    columns = ("variant", "trial", "time", "checked", "knobs")
    cells = [[r.variant for r in rows], [r.number for r in rows], [_us(r.value) for r in rows],
             [f"{r.attrs.get('verified_sets', 0)}/{INPUT_SETS} sets" for r in rows], [_knobs(r.params) for r in rows]]
    fig = go.Figure(go.Table(columnwidth=[2, 1, 1.2, 1, 8], header={"values": list(columns), "align": "left"},
                             cells={"values": cells, "align": "left"}))
    fig.update_layout(**{**LAYOUT, "height": 120 + 40 * len(rows)})
    return fig, [f"The fastest correct trials of each variant, fastest first; times {summary.time_source}. A "
                 f"candidate is checked on all {INPUT_SETS} input sets when it beats the best so far, slower ones on "
                 "the set they were timed on."]


def _header(summary: RunSummary) -> str:
    def trial(row: TrialRow | None) -> str:
        return f"{_us(row.value)} ({row.variant}:{row.number}: {_knobs(row.params)})" if row else "-"

    budget = f" of a budget of {summary.budget}" if summary.budget else ""
    speedup = f"{summary.speedup:.2f}x over the baseline" if summary.speedup else "-"
    pct = f" ({summary.roofline_pct:.1f}% of the best time)" if summary.roofline_pct is not None else ""
    items = [("operator", summary.op), ("shape", "x".join(map(str, summary.shape))), ("dtype", summary.dtype),
             ("SoC", summary.soc), ("backend", summary.backend), ("budget used", f"{summary.trials} measured{budget}"),
             ("baseline", trial(summary.baseline)), ("best", trial(summary.best)), ("speedup", speedup),
             ("roofline", f"{_us(summary.roofline_us)}{pct}"), ("times", summary.time_source),
             ("storage", summary.storage)]
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in items)
    return f"<h1>run {html.escape(summary.run)}</h1>\n<table class=\"header\">{rows}</table>"


def _section(key: str, fig: go.Figure, notes: Iterable[str]) -> str:
    text = "".join(f"<p class=\"note\">{html.escape(note)}</p>" for note in notes)
    div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"plot-{key}", config={"displaylogo": False})
    return f"<section id=\"{key}\"><h2>{html.escape(SECTIONS[key])}</h2>{text}{div}</section>"


def write_html_report(storage: optuna.storages.BaseStorage, storage_url: str, run: str, *,
                      runs_dir: Path = DEFAULT_RUNS_DIR, output: Path | None = None) -> Path:
    """Write run `run`'s report to `output` (default runs_dir/<run>/report.html) and return its path.
    UsageError when the storage holds no such run or the run has no correct trial yet."""
    summary = summarize(storage, storage_url, run, runs_dir=runs_dir)
    if summary.best is None:
        raise UsageError(f"run '{run}' has no correct trial yet: nothing to report")
    studies = _studies(storage, run)
    figures = {"history": _history(summary, studies), "states": _states(summary),
               "importance": _importances(studies), "pipes": _pipes(summary), "roofline": _roofline(summary),
               "top": _top(summary)}
    body = "\n".join(_section(key, *figures[key]) for key in SECTIONS)
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tuner report: "
            f"{html.escape(run)}</title><style>{STYLE}</style>\n<script type=\"text/javascript\">{get_plotlyjs()}"
            f"</script></head>\n<body>\n{_header(summary)}\n{body}\n</body></html>\n")
    path = output if output is not None else runs_dir / run / REPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
