"""`tuner scan`: the example transformer block's operators found by tracing on the meta device, the suite of task files
it writes (each the ATen call it counted), one-line refusals, and (e2e) the suite tuned by `tuner bench --suite`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from commands import one_line_error, tuner_here

from tuner.graph.load import TaskError, load_task
from tuner.graph.scan import scan_model, write_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transformer_block.py"


@pytest.fixture(scope="module")
def scanned():
    return scan_model(EXAMPLE)


def test_the_blocks_norms_activation_softmax_and_adds_are_found_with_shapes_and_counts(scanned):
    assert scanned.device == "meta"
    found = {(op.target, op.builtin): (op.tensors, op.count) for op in scanned.vector}
    assert found[("aten.rms_norm.default", "rmsnorm")] == ([((1, 32, 256), "float16"), ((256,), "float16")], 1)
    assert found[("aten.layer_norm.default", "layernorm")][1] == 1
    assert found[("aten.softmax.int", "softmax")] == ([((1, 4, 32, 32), "float16")], 1)
    assert found[("aten.gelu.default", "gelu")] == ([((1, 32, 512), "float16")], 1)
    assert found[("aten.add.Tensor", "add")] == ([((1, 32, 256), "float16")] * 2, 2)  # both residual adds
    assert found[("aten.div.Tensor", None)][1] == 1  # the score scaling: generated from PyTorch
    assert sum(op.count for op in scanned.ops if op.kind == "cube") == 6  # qkv, out, up, down, two matmuls


def test_each_suite_task_computes_the_call_it_counted(scanned, tmp_path):
    written = write_suite(scanned, tmp_path / "suite")
    assert len(written) == len(scanned.vector) == 6
    softmax = next(p for p in written if p.name.startswith("softmax"))
    task = load_task(softmax)
    (x,) = task.inputs
    assert x.shape == (1, 4, 32, 32) and x.dtype == torch.float16
    assert torch.equal(task.module(x), torch.softmax(x, dim=-1))
    for path in written:  # every file is a task the tuner can load
        assert load_task(path).inputs


def test_the_cli_prints_the_table_and_writes_the_suite(tmp_path):
    result = tuner_here("scan", str(EXAMPLE), "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["traced_on"] == "meta" and len(out["tasks"]) == 6
    assert Path(tmp_path / out["suite"]).is_dir() and out["suite"].endswith("runs/scan/transformer_block")
    result = tuner_here("scan", str(EXAMPLE), "--suite", "s", cwd=tmp_path)
    assert "rmsnorm" in result.stdout and "generated" in result.stdout
    assert len(list((tmp_path / "s").glob("*.py"))) == 6


@pytest.mark.parametrize(("text", "fragments"), [
    ("x = 1\n", ["no model to scan", "Model, get_inputs, get_init_inputs"]),
    ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x if x.sum() > 0 else -x\n"
     "def get_inputs():\n    return [torch.randn(4)]\ndef get_init_inputs():\n    return []\n",
     ["torch.export could not trace the model"]),
])
def test_a_file_without_a_traceable_model_is_one_line(tmp_path, text, fragments):
    path = tmp_path / "m.py"
    path.write_text(text)
    with pytest.raises(TaskError):
        scan_model(path)
    one_line_error(tuner_here("scan", str(path), cwd=tmp_path), 2, *fragments)


@pytest.mark.e2e
def test_the_suite_it_writes_runs_with_bench_suite(scanned, tmp_path):
    suite = tmp_path / "suite"
    write_suite(scanned, suite)
    result = tuner_here("bench", "--suite", str(suite), "--budget", "3", "--runs-dir", "runs", "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert len(out["tasks"]) == 6
    assert all(task["correct"] for task in out["tasks"]), [t for t in out["tasks"] if not t["correct"]]
