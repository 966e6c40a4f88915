"""Lowering a captured graph: the layout and roles it picks, the per-row schedule of reductions, the template and
search space it writes, and one line for what it cannot take."""

from __future__ import annotations

import pytest
import torch
import yaml

from tuner.graph.capture import capture
from tuner.graph.generate import space_text, template_text
from tuner.graph.lower import LoweringError, lower
from tuner.space.render import render_kernel
from tuner.space.spaces import parse_space


class Forward(torch.nn.Module):
    """A module around a function; torch.export names its positional inputs args_0, args_1, ..."""

    def __init__(self, function, **parameters: torch.Tensor) -> None:
        super().__init__()
        self.function = function
        for name, value in parameters.items():
            self.register_parameter(name, torch.nn.Parameter(value))

    def forward(self, *args):
        return self.function(self, *args)


def _lowered(function, *inputs, **parameters):
    graph = capture(Forward(function, **parameters), list(inputs))
    return graph, lower(graph)


def test_elementwise_with_one_value_inputs_is_flat() -> None:
    graph, lowered = _lowered(lambda m, x, s: torch.tanh(x) * s + 1.5, torch.randn(8, 100), torch.randn(1))
    assert lowered.layout == "flat" and lowered.total == 800
    assert [(t.name, t.role) for t in lowered.ins] == [("in_args_0", "full"), ("in_args_1", "scalar")]
    assert lowered.row == [] and any("elementwise.tanh" in line for line in lowered.tile)
    assert any("in_args_1S" in line for line in lowered.tile)  # the one-value input as a scalar operand


def test_a_last_axis_reduction_makes_rows_with_per_row_values() -> None:
    graph, lowered = _lowered(lambda m, x: x - x.amax(-1, keepdim=True) + m.w, torch.randn(6, 40),
                              w=torch.randn(40))
    assert lowered.layout == "rows" and (lowered.rows, lowered.cols) == (6, 40)
    assert {t.name: t.role for t in lowered.ins} == {"in_p_w": "row", "in_args_0": "full"}
    assert lowered.stats == 1 and "work" in lowered.uses
    row = "\n".join(lowered.row)
    assert "ReduceMax(s0[r * STAT], in_args_0F[r * rowStride], work, cols);" in row
    assert "GetValue(r * STAT)" in row and "Adds(" in row  # x - max: the per-row value as a scalar
    assert any("Add(" in line and "p_wF" in line for line in lowered.row + lowered.tile)


def test_a_buffer_freed_inside_the_row_loop_is_not_reused_by_the_tile_math_before_it() -> None:
    # y = exp(x) is tile math; its last use is inside the loop, and z = 2x (tile math again, later in the graph)
    # must not land in y's buffer, which the loop still reads
    graph, lowered = _lowered(lambda m, x: (torch.exp(x) - torch.exp(x).sum(-1, keepdim=True), x * 2.0),
                              torch.randn(4, 64))
    exp_buffer = next(line.split("(")[1].split(",")[0] for line in lowered.tile if line.strip().startswith("Exp("))
    double_buffer = next(line.split("(")[1].split(",")[0] for line in lowered.tile if "2.0f" in line)
    assert exp_buffer != double_buffer


def test_a_broadcast_input_is_gathered_row_by_row_with_its_strides() -> None:
    graph, lowered = _lowered(lambda m, x, y: x * y, torch.randn(3, 5, 16), torch.randn(3, 1, 16))
    assert {t.name: t.role for t in lowered.ins} == {"in_args_0": "full", "in_args_1": "gather"}
    assert lowered.gathers["in_args_1"] == {"dims": [3, 5], "strides": [1, 0]}


def test_axes_coalesce_into_the_fewest_the_reductions_and_broadcasts_allow() -> None:
    _, two_axes = _lowered(lambda m, x: x.sum(dim=(1, 2)), torch.randn(6, 31, 45))
    assert (two_axes.layout, two_axes.shape) == ("rows", (6, 1395))
    assert [t.shape for t in two_axes.outs] == [(6,)]  # the kernel's tensors keep their own shapes
    _, channels = _lowered(lambda m, x: torch.nn.functional.normalize(x, dim=1), torch.randn(2, 64, 9, 9))
    assert (channels.layout, channels.shape) == ("cols", (2, 64, 81))
    _, first = _lowered(lambda m, x: x.amax(0), torch.randn(50, 7))
    assert (first.layout, first.shape) == ("cols", (1, 50, 7)) and first.outs[0].role == "percol"


def test_a_middle_axis_reduction_folds_the_tiles_rows_and_reads_inner_rows_as_percol() -> None:
    _, per_reduced_row = _lowered(lambda m, x, w: torch.softmax(x, dim=1) * w, torch.randn(4, 30, 10),
                                  torch.randn(30, 1))
    assert [(t.role, t.outer) for t in per_reduced_row.ins] == [("full", True), ("perred", False)]
    with pytest.raises(LoweringError, match="a value per reduced row"):  # one value per outer index is none of them
        _lowered(lambda m, x, w: torch.softmax(x, dim=1) * w, torch.randn(4, 30, 10), torch.randn(4, 1, 1))
    graph, lowered = _lowered(lambda m, x, w: torch.softmax(x, dim=1) * w, torch.randn(4, 30, 10),
                              torch.randn(1, 10))
    assert lowered.layout == "cols" and {t.name: (t.role, t.outer) for t in lowered.ins} == {
        "in_args_0": ("full", True), "in_args_1": ("percol", False)}
    assert sum("reductions.fold_rows('Max'" in line for line in lowered.tile) == 1
    assert sum("reductions.fold_rows('Add'" in line for line in lowered.tile) == 1
    assert lowered.row == [] and lowered.context() == {"outer": 4, "red": 30, "inner": 10}


def test_a_reduction_over_every_element_accumulates_per_block_and_combines_through_the_workspace() -> None:
    graph, lowered = _lowered(lambda m, x: (x.abs().amax() * 0.5, x.mean()), torch.randn(30, 70))
    assert (lowered.layout, lowered.shape) == ("total", (2100,))
    assert [t["combine"] for t in lowered.totals] == ["Max", "Add"]
    assert [(t.role, t.shape) for t in lowered.outs] == [("total", (1,)), ("total", (1,))]
    assert any(line.strip().startswith("Muls(s1[r * STAT], s0[r * STAT], 0.5f") for line in lowered.finish)  # once
    space = yaml.safe_load(space_text(lowered, "my_op", "my_op.py"))
    assert space["args"][-2] == {"name": "workspace", "kind": "workspace", "bytes": "block_dim * 32 * 3"}
    _, centred = _lowered(lambda m, x: x - x.mean(), torch.randn(2100))  # a second pass over every block's tiles
    assert (centred.layout, centred.shape, centred.pass_count) == ("sweeps", (1, 2100), 2)
    assert [(t["combine"], t["pass"], t["scale"]) for t in centred.totals] == [("Add", "0", repr(1 / 2100) + "f")]


def test_slices_of_an_input_read_the_same_tensor_at_an_offset_or_as_pitched_rows(tmp_path) -> None:
    graph, lowered = _lowered(lambda m, x, y: torch.sigmoid(x[:, :37]) * x[:, 37:] + y[1:2], torch.randn(5, 74),
                              torch.randn(3, 37))
    assert lowered.layout == "rows" and lowered.shape == (5, 37)
    assert [(t.value, t.role, t.offset, t.pitch, t.shape) for t in lowered.ins] == [
        ("args_0", "full", 0, 74, (5, 74)), ("args_0", "full", 37, 74, (5, 74)), ("args_1", "row", 37, 0, (3, 37))]
    space = yaml.safe_load(space_text(lowered, "my_op", "my_op.py"))
    assert [a.get("tensor") for a in space["args"]] == ["args_0", "args_0", "args_1", "out0", None]
    assert space["variants"]["generated"]["knobs"]["copy"]["choices"] == ["data_copy_pad"]


@pytest.mark.parametrize(("function", "inputs", "says"), [
    (lambda m, x: x.sum((1, 3)), [torch.randn(8, 4, 3, 5)], "one run of neighbouring axes"),
    (lambda m, x: x[:, ::2] + 1, [torch.randn(8, 4)], "a slice with step 2"),
])
def test_what_the_lowering_cannot_take_is_one_line(function, inputs, says: str) -> None:
    graph = capture(Forward(function), inputs)
    with pytest.raises(LoweringError) as caught:
        lower(graph)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_the_generated_template_and_space_render_and_parse(tmp_path) -> None:
    graph, lowered = _lowered(lambda m, x: torch.softmax(x.float(), -1).half(), torch.randn(50, 33).half())
    template = tmp_path / "templates" / "ascendc" / "my_op" / "generated" / "kernel.cpp.j2"
    template.parent.mkdir(parents=True)
    template.write_text(template_text(lowered, graph, "my_op.py"))
    space_path = tmp_path / "search_spaces" / "my_op.yaml"
    space_path.parent.mkdir()
    text = space_text(lowered, "my_op", "my_op.py")
    space_path.write_text(text)
    space = parse_space(text, space_path, tmp_path / "templates" / "ascendc")
    variant = space.variant("generated")
    assert [a.name for a in space.args] == ["in_args_0", "out0", "tiling"]
    assert yaml.safe_load(text)["baseline"][0]["knobs"]["tile_rows"] == 1
    for sync in ("queue", "flags", "barrier"):
        source = render_kernel(variant.template, kernel=space.kernel, dtype="float16", struct=space.tiling_struct,
                               tiling_fields=[n for n, _ in variant.tiling],
                               structural={"buffer_num": 1, "copy": "data_copy_pad", "sync": sync})
        assert "ReduceMax(" in source and "ReduceSum(" in source and "LocalTensor<half> in_args_0Local" in source
        assert "{{" not in source and "{%" not in source


def test_rows_longer_than_ub_holds_take_the_chunked_variant_with_a_pass_per_depth_of_reduction(tmp_path) -> None:
    from tuner.data.socs import get_soc
    from tuner.space.apis import availability

    graph, lowered = _lowered(lambda m, x: torch.softmax(x * m.w, -1), torch.randn(3, 25000), w=torch.rand(25000))
    chunked = lowered.chunked
    assert lowered.layout == "rows" and chunked is not None and chunked.layout == "chunks"
    assert chunked.pass_count == 3  # the maximum, the sum of exponentials, the outputs
    assert {t.name: t.role for t in chunked.ins} == {t.name: "shared" if t.role == "row" else t.role
                                                    for t in lowered.ins}
    assert sum("ReduceMax(part" in line for line in chunked.tile) == 1  # each reduction in its own pass only
    assert sum("ReduceSum(part" in line for line in chunked.tile) == 1
    assert sum(line.strip().startswith("Exp(") for line in chunked.tile) == 2  # recomputed for the outputs
    text = space_text(lowered, "my_op", "my_op.py")
    for name, kernel in (("generated", lowered), ("chunked", chunked)):
        template = tmp_path / "templates" / "ascendc" / "my_op" / name / "kernel.cpp.j2"
        template.parent.mkdir(parents=True)
        template.write_text(template_text(kernel, graph, "my_op.py"))
    space = parse_space(text, tmp_path / "my_op.yaml", tmp_path / "templates" / "ascendc")
    soc = get_soc("Ascend910B2")
    context = {**lowered.context(), "dtype": "float32", "dtype_bytes": 4, "block_elems": 8, "stat": 8,
               "vector_cores": int(soc.vector_cores.value), "ub_bytes": int(soc.tpipe_ub_bytes.value),
               "ub_api_bytes": soc.ub_api_bytes,
               "live_tensors": int(soc.max_live_tensors_per_position.value),
               "soc_family": soc.family, **availability(soc.vector_costs, "float32")}
    assert space.variant("generated").feasible_points(context) == []  # a row and its values overflow UB
    entry, knobs = space.baseline(context)
    assert entry.variant == "chunked" and knobs["tile_len"] == 1024
    source = render_kernel(space.variant("chunked").template, kernel=space.kernel, dtype="float32",
                           struct=space.tiling_struct, tiling_fields=[n for n, _ in space.variant("chunked").tiling],
                           structural={"buffer_num": 2, "copy": "data_copy", "sync": "flags"})
    assert "if (pass == 2)" in source and "PASSES = 3" in source and "{{" not in source
    short_graph, short = _lowered(lambda m, x: torch.softmax(x, -1), torch.randn(3, 4000))
    short_space = parse_space(space_text(short, "my_op", "my_op.py"), tmp_path / "my_op.yaml",
                              tmp_path / "templates" / "ascendc")
    short_context = {**context, **short.context()}
    assert short_space.variant("chunked").feasible_points(short_context) == []  # rows that UB holds: not chunked
    assert short_space.baseline(short_context)[0].variant == "generated"
