"""The eager-equivalent: a graph split into the kernels eager PyTorch runs (one per user-level aten call, views free),
each a graph of its own with the right inputs and outputs; the IR evaluated in torch as the task computes it; a
kernel's inputs the values the task computes there; the short search of a library schedule."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from tasks import write_task

from tuner.backends.sim import SimBackend
from tuner.data.socs import get_soc
from tuner.graph.capture import capture
from tuner.graph.evaluate import EVALUATIONS, evaluate_graph
from tuner.graph.generate import write_project
from tuner.graph.ir import OPS, Graph, Input, Node, TensorType
from tuner.graph.operator import graph_operator
from tuner.search.eager import KernelOperator, eager_kernels, library_search, time_eager
from tuner.space.spaces import load_space, run_context


def _task(tmp_path: Path, forward: str, inputs: str) -> Path:
    return write_task(tmp_path, "task", f"x: {forward}", inputs)


def _graph(forward: str, shape: tuple[int, ...] = (6, 40), members: str = "") -> Graph:
    namespace: dict[str, object] = {"torch": torch, "F": torch.nn.functional}
    exec(textwrap.dedent(f"""
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                {members}

            def forward(self, x):
                return {forward}
        """), namespace)
    return capture(namespace["Model"](), [torch.randn(shape)])


def test_a_softmax_of_a_scaled_input_is_two_kernels_the_scale_feeding_the_softmax():
    graph = _graph("torch.softmax(x / 0.7, dim=-1)")
    kernels = eager_kernels(graph)
    assert [k.origin for k in kernels] == ["div", "softmax"]
    scale, softmax = (k.graph for k in kernels)
    assert [i.name for i in scale.inputs] == ["x"] and scale.outputs == ("div",)
    assert [(i.name, i.type, i.kind) for i in softmax.inputs] == [("div", TensorType((6, 40), "float32"), "input")]
    assert softmax.outputs == graph.outputs and len(softmax.nodes) > 3  # the whole softmax is one kernel
    assert sum(len(k.graph.nodes) for k in kernels) == len(graph.nodes)


def test_one_call_is_one_kernel_the_graph_itself():
    graph = _graph("F.gelu(x)")
    [kernel] = eager_kernels(graph)
    assert kernel.origin == "gelu" and kernel.graph == graph


def test_a_parameter_is_an_input_of_the_kernel_that_reads_it_and_every_returned_value_an_output():
    graph = _graph("(x * self.w, (x * self.w).sum(-1))", members="self.w = torch.nn.Parameter(torch.ones(40))")
    kernels = {k.origin: k.graph for k in eager_kernels(graph)}
    mul = next(g for origin, g in kernels.items() if origin.startswith("mul"))
    assert {i.name for i in mul.inputs} == {"x", "p_w"} and all(i.kind == "input" for i in mul.inputs)
    assert set(graph.outputs) <= {o for g in kernels.values() for o in g.outputs}


def test_views_move_no_data_they_are_read_through_by_the_kernel_that_uses_them():
    f32 = "float32"
    graph = Graph(
        inputs=(Input("x", TensorType((4, 6), f32), "input"),),
        nodes=(Node("exp", ("x",), "e", TensorType((4, 6), f32), origin="exp"),
               Node("view", ("e",), "flat", TensorType((24,), f32), origin="view"),
               Node("view", ("flat",), "back", TensorType((4, 6), f32), origin="reshape"),
               Node("mul", ("back", 2.0), "m", TensorType((4, 6), f32), origin="mul")),
        outputs=("m", "flat"))
    kernels = eager_kernels(graph)
    assert [k.origin for k in kernels] == ["exp", "mul"]  # no kernel for either view
    exp, mul = (k.graph for k in kernels)
    assert exp.outputs == ("e",)  # read by mul through the views, and returned through one
    assert [i.name for i in mul.inputs] == ["e"]
    assert [n.op for n in mul.nodes] == ["view", "view", "mul"]


def test_a_call_on_one_value_is_a_kernel_of_one_element(tmp_path: Path):
    op = graph_operator(_task(tmp_path, "torch.sum(x * x) / 7.0", "torch.randn(30, 20)"))
    kernels = eager_kernels(op.graph)
    assert [k.origin for k in kernels] == ["mul", "sum_1", "div"]
    divide = KernelOperator(op, kernels[-1])  # the division of the total, in a kernel as eager mode launches one
    assert divide.lowered.layout == "flat" and [t.role for t in divide.lowered.ins] == ["full"]


def test_a_concatenation_is_a_kernel_of_its_own_and_a_dropped_result_no_kernel():
    rope = _graph("torch.cat((-x[:, 20:], x[:, :20]), dim=-1) * 2.0")
    assert [k.origin for k in eager_kernels(rope)] == ["neg", "cat", "mul"]
    values = _graph("torch.max(x, dim=-1)[0]")  # its indices are not computed: no index input either
    assert [n.op for n in values.nodes] == ["amax"] and [i.kind for i in values.inputs] == ["input"]


@pytest.mark.parametrize("forward", [
    "torch.softmax(x / 0.7, dim=-1)",
    "torch.where(x > 0.3, x.exp(), x.clamp(-1.0, 1.0)).sum(-1, keepdim=True) - x.amax(-1, keepdim=True)",
    "F.layer_norm(x.to(torch.float16), (40,)).float().pow(2).rsqrt()",
])
def test_the_ir_evaluated_in_torch_is_the_forward(forward: str):
    namespace: dict[str, object] = {"torch": torch, "F": torch.nn.functional}
    exec(f"def forward(x):\n    return {forward}", namespace)
    x = torch.randn(6, 40, generator=torch.Generator().manual_seed(0))  # rsqrt near a zero of the norm: ill-conditioned
    graph = _graph(forward)
    got = evaluate_graph(graph, {"x": x})[graph.outputs[0]]
    expected = namespace["forward"](x)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=2e-3, atol=1e-5)


def test_the_ir_evaluated_wide_is_the_forward_in_float64_through_its_casts():
    x = torch.randn(6, 40, dtype=torch.float64)
    graph = _graph("torch.softmax(x.half() / 0.7, dim=-1)")
    narrow = evaluate_graph(graph, {"x": x.float()})[graph.outputs[0]]
    wide = evaluate_graph(graph, {"x": x}, wide=True)[graph.outputs[0]]
    assert narrow.dtype == torch.float16 and wide.dtype == torch.float64
    torch.testing.assert_close(wide, torch.softmax(x / 0.7, dim=-1), rtol=1e-12, atol=1e-15)


REDUCTIONS = ("sum", "mean", "amax", "amin", "prod")
SHAPES = {"view": (4, 2), "expand": (3, 2, 4), "slice": (2, 2), "cat": (2, 8), **{op: (2, 1) for op in REDUCTIONS}}
ATTRS = {"clamp": {"min": -0.5, "max": None}, "slice": {"dim": 1, "start": 1, "stop": 4, "step": 2},
         "cat": {"dim": 1, "widths": [4, 4]},
         **{op: {"dims": (1,), "keepdim": True} for op in REDUCTIONS}}


@pytest.mark.parametrize("op", sorted(op for op in set(OPS) & set(EVALUATIONS)
                                      if OPS[op][0] in ("pointwise", "reduce", "layout")))
def test_each_operation_is_evaluated_to_its_type(op: str):
    f32 = TensorType((2, 4), "float32")
    node = Node(op, ("x", "y", "z")[:OPS[op][1] or 2], "out", TensorType(SHAPES.get(op, (2, 4)), "float32"),
                ATTRS.get(op, {}))
    graph = Graph(tuple(Input(name, f32, "input") for name in "xyz"), (node,), ("out",))
    values = {name: torch.rand(2, 4) + 0.5 for name in "xyz"}
    out = evaluate_graph(graph, values)["out"]
    assert out.shape == SHAPES.get(op, (2, 4)) and out.dtype == torch.float32


def test_an_operation_it_cannot_evaluate_is_named():
    graph = Graph((Input("x", TensorType((2, 4), "float32"), "input"),),
                  (Node("fft", ("x",), "out", TensorType((2, 4), "float32")),), ("out",))
    with pytest.raises(NotImplementedError, match="cannot evaluate fft yet"):
        evaluate_graph(graph, {"x": torch.ones(2, 4)})


def test_a_kernel_reads_what_the_task_computes_there_and_checks_against_its_own_graph(tmp_path: Path):
    path = _task(tmp_path, "torch.softmax(x / 0.7, dim=-1)", "torch.randn(8, 50) * 3")
    op = graph_operator(path)
    softmax = KernelOperator(op, eager_kernels(op.graph)[1])
    assert softmax.name == "task.softmax" and softmax.inputs == ("div",)
    task_inputs = op.make_inputs(op.shape, op.dtype, 1)
    inputs = softmax.make_inputs(softmax.shape, softmax.dtype, 1)
    torch.testing.assert_close(inputs["div"], task_inputs["x"] / 0.7)
    reference = softmax.reference(inputs)["out0"]
    assert reference.dtype == torch.float64
    torch.testing.assert_close(reference, torch.softmax(inputs["div"].double(), -1))


def _space(tmp_path: Path, forward: str, inputs: str):
    op = graph_operator(_task(tmp_path, forward, inputs))
    write_project(tmp_path / "project", op.name, op.lowered, op.graph, "task.py")
    space = load_space(op.name, tmp_path / "project")
    context = run_context(op, op.shape, op.dtype, get_soc("Ascend910B2"))
    entry = space.baselines[0]
    variant = space.variant(entry.variant)
    return variant, context, entry.params(variant, context)


def test_the_library_search_starts_from_the_draft_tries_block_counts_then_tiles(tmp_path: Path):
    variant, context, draft = _space(tmp_path, "torch.softmax(x, dim=-1)", "torch.randn(300, 64)")
    tried: list[dict] = []

    def measure(point: dict) -> float:  # fewer blocks are faster here, and so are larger tiles
        tried.append(point)
        return point["block_dim"] + 100.0 / point["tile_rows"]

    point, us = library_search(variant, context, draft, measure)
    assert tried[0] == draft and len(tried) == len({str(p) for p in tried}) < 25
    assert all(variant.evaluate(p, context).feasible for p in tried)
    assert draft["block_dim"] == 48 and [p["block_dim"] for p in tried[1:8]] == [1, 2, 4, 8, 16, 32, 48]
    assert [p["tile_rows"] for p in tried[2:8]] == [150, 75, 38, 19, 10, 7]  # each block's rows at once
    assert tried[1]["tile_rows"] < 256  # as many as the unified buffer holds
    for p in tried[1:]:  # double-buffered where that fits
        doubled = variant.evaluate({**p, "buffer_num": 2}, context).feasible
        assert p["buffer_num"] == (2 if doubled else draft["buffer_num"]) and p["sync"] == draft["sync"]
    assert {p["block_dim"] for p in tried[8:]} == {1}  # then every tile size at the best count
    assert us == min(p["block_dim"] + 100.0 / p["tile_rows"] for p in tried) == measure(point)


def test_the_library_search_skips_an_infeasible_draft_and_points_without_a_correct_result(tmp_path: Path):
    variant, context, draft = _space(tmp_path, "x.abs()", "torch.randn(8, 200)")
    draft = {**draft, "tile_len": 16384}  # a tile far beyond each block's share of 1600 elements
    assert not variant.evaluate(draft, context).feasible
    tried: list[dict] = []

    def measure(point: dict) -> float | None:
        tried.append(point)
        return None if point["block_dim"] == 1 else point["tile_len"]

    point, us = library_search(variant, context, draft, measure)
    assert draft not in tried and all(variant.evaluate(p, context).feasible for p in tried)
    assert point["block_dim"] > 1 and us == point["tile_len"] == 256
    assert library_search(variant, context, draft, lambda p: None) is None


@pytest.mark.e2e  # a library search on the simulator
def test_a_kernel_of_rows_longer_than_ub_holds_is_timed_at_its_chunked_draft(tmp_path: Path):
    op = graph_operator(_task(tmp_path, "torch.softmax(x * 2.0, dim=-1)", "torch.randn(2, 30000)"))
    eager = time_eager(op, SimBackend("Ascend910B2"), tmp_path / "eager")
    assert eager.why_not == "" and [k.origin for k in eager.kernels] == ["mul", "softmax"]
    assert all(k.time_us and k.time_us > 0 for k in eager.kernels)
    assert "tile_len" in eager.kernels[1].params  # the chunked variant's knob: the rows one has no feasible point
