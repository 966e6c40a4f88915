"""The kernel IR evaluated in torch: a captured graph of the scans, windows, gathers and scatters, computed by
`evaluate_graph`, gives what the module itself gives."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from tuner.graph.capture import capture
from tuner.graph.evaluate import EVALUATIONS, evaluate_graph
from tuner.graph.ir import OPS


class Forward(torch.nn.Module):
    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, *args):
        return self.function(*args)


CASES = [
    (lambda x: torch.flip(torch.cumsum(torch.flip(x, dims=[-1]), dim=-1), dims=[-1]) + torch.cumprod(x, 0),
     [torch.rand(5, 7)]),
    (lambda x: torch.prod(x, dim=1), [torch.rand(3, 6, 2)]),
    (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True) + F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
     [torch.randn(2, 3, 11, 9)]),
    (lambda x: F.avg_pool3d(x, 2, 2, 1, count_include_pad=False), [torch.randn(1, 2, 5, 4, 6)]),
    (lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True)
     + F.interpolate(x, size=(7, 9), mode="nearest"), [torch.randn(1, 2, 4, 5)]),
    (lambda x, i: torch.index_select(x, 0, i) * 2, [torch.randn(9, 4), torch.randint(0, 9, (6,))]),
    (lambda x, i: torch.take_along_dim(x, i, dim=1), [torch.randn(3, 8), torch.randint(-8, 8, (3, 5))]),
    (lambda b, i, s: torch.index_add(b, 0, i, s, alpha=0.5), [torch.randn(4, 3), torch.randint(0, 4, (7,)),
                                                              torch.randn(7, 3)]),
    (lambda b, i, s: torch.scatter_add(b, 0, i, s), [torch.randn(4, 3), torch.randint(0, 4, (7, 3)),
                                                     torch.randn(7, 3)]),
    # torch's CPU group norm reads its per-group scales as [N, C] through an as_strided
    (lambda x, w, b: F.group_norm(x, 3, w, b), [torch.randn(2, 6, 4, 5), torch.rand(6), torch.randn(6)]),
    # and its instance norm repeats the affine weight once per sample
    (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [torch.randn(2, 3, 4, 5), torch.rand(3), torch.randn(3)]),
    (lambda x: x.repeat(2, 1, 3), [torch.randn(4, 5)]),
]


@pytest.mark.parametrize(("function", "inputs"), CASES)
def test_a_captured_graph_evaluates_to_what_the_module_computes(function, inputs) -> None:
    graph = capture(Forward(function), inputs)
    values = dict(zip((i.name for i in graph.inputs if i.kind == "input"), inputs, strict=True))
    got = evaluate_graph(graph, values)[graph.outputs[0]]
    torch.testing.assert_close(got, function(*inputs))


def test_every_ir_operation_is_evaluated() -> None:
    assert set(OPS) <= set(EVALUATIONS)
