"""Task files in KernelBench's format load, or fail in one line; their forward becomes a kernel IR graph whose
every node is an IR operation with torch's types, or the operation outside the IR is named with the user's line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from tuner.graph.capture import CaptureError, capture
from tuner.graph.ir import OPS, TensorType
from tuner.graph.load import TaskError, load_task


def _task(tmp_path: Path, body: str, name: str = "my_op") -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text("import torch\nimport torch.nn as nn\n\n" + textwrap.dedent(body))
    return path


GATED = """
class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(hidden, dtype=torch.float16))
        self.register_buffer("shift", torch.zeros(hidden, dtype=torch.float16))

    def forward(self, x, cap):
        y = x * torch.sigmoid(x) * self.scale + self.shift
        return torch.where(y > cap, torch.clamp(y, max=cap), -y).to(torch.float32)

def get_inputs():
    return [torch.randn(8, 64, dtype=torch.float16), 2.0]

def get_init_inputs():
    return [64]
"""


def test_a_task_file_loads_and_its_forward_becomes_ir(tmp_path: Path) -> None:
    task = load_task(_task(tmp_path, GATED))
    assert task.name == "my_op" and isinstance(task.module, torch.nn.Module) and task.inputs[1] == 2.0
    graph = capture(task.module, task.inputs)
    assert [(i.name, i.kind, i.target) for i in graph.inputs][:2] == [("p_scale", "parameter", "scale"),
                                                                       ("b_shift", "buffer", "shift")]
    assert graph.inputs[2].name == "x" and graph.inputs[2].type == TensorType((8, 64), "float16")
    assert all(node.op in OPS for node in graph.nodes)
    ops = [node.op for node in graph.nodes]
    assert ops.count("sigmoid") == 1 and ops.count("mul") == 2 and "add" in ops and "where" in ops
    assert "gt" in ops and "clamp" in ops and "neg" in ops and ops[-1] == "cast"
    clamp = next(node for node in graph.nodes if node.op == "clamp")
    assert clamp.attrs == {"min": None, "max": 2.0}  # the constant input, baked in as torch.export does
    comparison = next(node for node in graph.nodes if node.op == "gt")
    assert comparison.type.dtype == "bool" and 2.0 in comparison.operands
    assert graph.types()[graph.outputs[0]] == TensorType((8, 64), "float32")
    assert comparison.source.startswith("my_op.py:") and "torch.where" in comparison.source
    types = graph.types()
    for node in graph.nodes:  # every operand is defined before it is used
        assert all(not isinstance(o, str) or o in types for o in node.operands)
    assert "= sigmoid(x)" in str(graph)


def test_broadcasting_keeps_torchs_types(tmp_path: Path) -> None:
    class Scaled(torch.nn.Module):
        def forward(self, x: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
            return (x - row) / 3

    graph = capture(Scaled(), [torch.randn(4, 1, 16), torch.randn(5, 1)])
    assert [n.op for n in graph.nodes] == ["sub", "div"]
    assert all(n.type == TensorType((4, 5, 16), "float32") for n in graph.nodes)
    assert graph.nodes[1].operands == (graph.nodes[0].name, 3)


def test_an_operation_outside_the_ir_is_one_line_naming_it_and_the_users_line(tmp_path: Path) -> None:
    task = load_task(_task(tmp_path, """
        class Model(nn.Module):
            def forward(self, x):
                return torch.sort(x, dim=1).values

        def get_inputs():
            return [torch.randn(4, 32)]

        def get_init_inputs():
            return []
        """, name="sort"))
    with pytest.raises(CaptureError) as raised:
        capture(task.module, task.inputs)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("aten.sort.default (sort.py:7: return torch.sort(x, dim=1).values)")
    assert "is outside the kernel IR" in message


def test_a_module_in_training_mode_computes_as_it_does_and_a_random_one_says_so() -> None:
    norm = torch.nn.BatchNorm1d(4)  # training: normalized by the batch's statistics, its buffer updates not outputs
    graph = capture(norm, [torch.randn(6, 4)])
    assert len(graph.outputs) == 1 and any(n.op == "mean" and n.attrs["dims"] == (0,) for n in graph.nodes)
    with pytest.raises(CaptureError, match=r"draws random numbers .*self\.eval\(\)"):
        capture(torch.nn.Dropout(0.1), [torch.randn(6, 4)])
    assert [n.op for n in capture(torch.nn.Dropout(0.1).eval(), [torch.randn(6, 4)]).nodes] == ["view"]


def test_a_dtype_outside_the_ir_is_one_line() -> None:
    class Double(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * 2

    with pytest.raises(CaptureError, match=r"input x has dtype float64, outside the kernel IR's dtypes"):
        capture(Double(), [torch.randn(4, dtype=torch.float64)])


@pytest.mark.parametrize(("body", "message"), [
    ("def get_inputs():\n    return []\n", "has no Model, get_init_inputs"),
    ("class Model(nn.Module)\n", "not Python"),
    ("raise RuntimeError('boom')\n", "running it raised RuntimeError: boom"),
    ("class Model(nn.Module):\n    pass\n\ndef get_inputs():\n    return [object()]\n\n"
     "def get_init_inputs():\n    return []\n", "input 0 of get_inputs() is a object, neither a tensor nor a constant"),
    ("class Model:\n    pass\n\ndef get_inputs():\n    return []\n\ndef get_init_inputs():\n    return []\n",
     "Model(...) is a Model, not a torch.nn.Module"),
])
def test_a_bad_task_file_is_one_line(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(TaskError) as raised:
        load_task(_task(tmp_path, body))
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_missing_task_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no task file"):
        load_task(tmp_path / "absent.py")


class _Strided(torch.nn.Module):
    def __init__(self, size: tuple[int, ...], stride: tuple[int, ...]) -> None:
        super().__init__()
        self.size, self.stride = size, stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.as_strided(x * 2, self.size, self.stride) + 1


def test_an_as_strided_reading_its_source_in_order_is_a_view_and_any_other_is_one_line() -> None:
    graph = capture(_Strided((4, 1, 6), (6, 99, 1)), [torch.randn(2, 12)])  # a stride of an axis of one is any
    assert [n.op for n in graph.nodes] == ["mul", "view", "add"]
    assert graph.nodes[1].type == TensorType((4, 1, 6), "float32")
    for size, stride in (((6, 4), (1, 6)), ((2, 6), (6, 1))):  # a transpose; a part of the source
        with pytest.raises(CaptureError, match=r"aten.as_strided.default of size .* is outside the kernel IR"):
            capture(_Strided(size, stride), [torch.randn(2, 12)])
