"""Every way a candidate fails is a PRUNED trial with its error class, and none of them can become best (the
kernels' builds and launches answered from a recording of the simulator: `replayed`, tests/conftest.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.search.loop import RunConfig, optimize
from tuner.search.storage import open_storage, run_studies
from tuner.space.render import TemplateError

SPACE = """
op: softmax
kernel: softmax_custom
tiling_struct: SoftmaxTiling
args:
  - {name: x, kind: in, tensor: x}
  - {name: y, kind: out, tensor: y}
  - {name: tiling, kind: tiling}
variants:
  bugs:
    description: one broken kernel per failure class
    knobs:
      block_dim: {type: int, low: 1, high: 2}
      bug: {type: categorical, choices: [compile, render, fault, zeros, copy], structural: true}
    tiling:
      rows: rows
      cols: cols
baseline:
  - variant: bugs
    knobs: {block_dim: 1, bug: zeros}
    why: none of these is a softmax
"""

TEMPLATE = """#include "kernel_operator.h"
using namespace AscendC;

{{ tiling_struct }}
extern "C" __global__ __aicore__ void {{ kernel_name }}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    SoftmaxTiling t = LoadTiling(tiling);
    const uint32_t n = t.rows * t.cols;
    GlobalTensor<{{ T }}> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ {{ T }} *)x, n);
    yGm.SetGlobalBuffer((__gm__ {{ T }} *)y, n);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof({{ T }}));
    LocalTensor<{{ T }}> local = buf.Get<{{ T }}>();
    if (GetBlockIdx() != 0) {
        return;
    }
{% if bug == "compile" %}
    this is not C++;
{% elif bug == "render" %}
    {{ no_such_variable }}
{% elif bug == "fault" %}
    Duplicate(local, ({{ T }})0, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm[n], local, n);
{% elif bug == "zeros" %}
    Duplicate(local, ({{ T }})0, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, local, n);
{% else %}
    DataCopy(local, xGm, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, local, n);
{% endif %}
}
"""


def _project(tmp_path: Path, template: str = TEMPLATE) -> Path:
    root = tmp_path / "project"
    (root / "search_spaces").mkdir(parents=True)
    (root / "search_spaces" / "softmax.yaml").write_text(SPACE)
    kernel = root / "templates" / "ascendc" / "softmax" / "bugs" / "kernel.cpp.j2"
    kernel.parent.mkdir(parents=True)
    kernel.write_text(template)
    return root


def test_each_failure_is_pruned_with_its_class(tmp_path, replayed):
    config = RunConfig(op="softmax", shape=(4, 64), budget=20, sampler="brute", runs_dir=tmp_path / "runs",
                       project=_project(tmp_path), jobs=1)
    summary = optimize(config, backend=replayed())
    assert summary.best is None and summary.baseline is None
    assert summary.stop_reason == "every feasible point of every variant has been tried"
    storage, _ = open_storage(None, config.runs_dir)
    info = run_studies(storage, config.run_name)[config.run_name][0]
    trials = [t for t in optuna.load_study(study_name=info.name, storage=storage).trials
              if "duplicate_of" not in t.user_attrs]
    assert {t.state for t in trials} == {TrialState.PRUNED}
    by_bug = {(t.params["bug"], t.user_attrs["error_class"]) for t in trials}
    assert by_bug == {("compile", "compile_error"), ("render", "render_error"), ("fault", "fault"),
                      ("zeros", "wrong_result"), ("copy", "wrong_result")}
    details = {t.params["bug"]: t.user_attrs["error_detail"] for t in trials}
    assert "kernel.cpp" in details["compile"] and "error" in details["compile"]
    assert "kernel.cpp.j2:" in details["render"] and "no_such_variable" in details["render"]
    assert "out-of-bounds" in details["fault"]
    assert "constant output" in details["zeros"] or "outside rtol" in details["zeros"]
    assert "a copy of input x" in details["copy"]
    measured = Counter(t.params["bug"] for t in trials if t.user_attrs.get("measured"))
    assert measured == Counter({"fault": 2, "zeros": 2, "copy": 2})  # compile and render errors are free
    assert summary.trials == 6


def test_a_template_that_does_not_render_stops_the_run_with_file_and_line(tmp_path):
    broken = TEMPLATE.replace("{% if bug == \"compile\" %}", "{% if bug == %}")
    config = RunConfig(op="softmax", shape=(4, 64), budget=2, runs_dir=tmp_path / "runs",
                       project=_project(tmp_path, broken))
    line = broken.splitlines().index("{% if bug == %}") + 1
    with pytest.raises(TemplateError, match=rf"kernel\.cpp\.j2:{line}: template does not render"):
        optimize(config)
