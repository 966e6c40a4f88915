"""The iteration space coalesced: axes merged where every value spans both or neither and both are reduced or
neither, seen through views that merge or split neighbouring axes; what does not align is left as it is."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from tuner.graph.canonical import canonical
from tuner.graph.capture import capture
from tuner.graph.ir import Graph


class Forward(torch.nn.Module):
    def __init__(self, function: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.function(*args)


def _coalesced(function: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> tuple[Graph, Graph, tuple[int, ...]]:
    graph = capture(Forward(function), list(inputs))
    space = max((v.shape for v in graph.types().values()), key=lambda s: (math.prod(s), len(s)))  # as lower picks
    return (graph, *canonical(graph, space))


def _reductions(graph: Graph) -> set[tuple[int, ...]]:
    return {tuple(n.attrs["dims"]) for n in graph.nodes if n.op in ("mean", "sum", "amax")}


def test_instance_norm_through_its_batch_norm_view_is_a_reduction_over_the_last_axis() -> None:
    _, graph, space = _coalesced(lambda x: F.instance_norm(x), torch.randn(2, 16, 30, 30))
    assert space == (32, 900) and _reductions(graph) == {(1,)}
    assert all(t.shape in ((32, 900), (32, 1)) for t in graph.types().values())


def test_group_norm_splits_the_channels_into_groups_and_reduces_each_group_as_a_row() -> None:
    _, plain, space = _coalesced(lambda x: F.group_norm(x, 3), torch.randn(2, 6, 5, 7, dtype=torch.float16))
    assert space == (6, 70) and _reductions(plain) == {(1,)}
    # a per-channel affine spans the channels within a group but not the plane: the group's axes stay apart
    weight = torch.linspace(0.5, 1.5, 6)
    _, affine, space = _coalesced(lambda x: F.group_norm(x, 3, weight, weight), torch.randn(2, 6, 5, 7))
    assert space == (2, 3, 2, 35) and _reductions(affine) == {(2, 3)}


def test_a_view_splits_an_axis_that_earlier_values_span_whole() -> None:
    # the row bias is added over [6, 20] before the view splits its 6 into 2 x 3: it spans both, the sum reduces 3
    original, graph, space = _coalesced(lambda x, b: (x + b).view(2, 3, 20).sum(1), torch.randn(6, 20),
                                        torch.randn(6, 1))
    assert space == (2, 3, 20) and _reductions(graph) == {(1,)}
    assert graph.types()[original.inputs[1].name].shape == (2, 3, 1)


def test_operands_viewed_to_different_refinements_meet_on_their_common_one() -> None:
    # y's 6 is split into 2 x 3 where it meets x; the softmax then reduces only the 3
    _, graph, space = _coalesced(lambda x, y: torch.softmax(x + y.view(4, 2, 3), -1), torch.randn(4, 2, 3),
                                 torch.randn(4, 6))
    assert space == (8, 3) and _reductions(graph) == {(1,)}


def test_a_view_across_axis_boundaries_is_left_as_it_is() -> None:
    original, graph, space = _coalesced(lambda x: x.view(6, 4).sum(-1), torch.randn(4, 6))
    assert graph is original and space == (4, 6)


def test_instance_norms_repeated_weight_is_one_value_per_channel_of_the_kernels_rows() -> None:
    weight = torch.linspace(0.5, 1.5, 6)
    original, graph, space = _coalesced(lambda x: F.instance_norm(x, weight=weight, bias=weight),
                                        torch.randn(2, 6, 7, 9))
    assert space == (2, 6, 63) and _reductions(graph) == {(2,)}
    assert [graph.types()[name].shape for name in graph.outputs] == [(2, 6, 63)]
    repeated = [n.name for n in original.nodes if n.op == "view" and n.type.shape == (12,)]
    assert repeated and all(graph.types()[name].shape == (1, 6, 1) for name in repeated)


def test_a_broadcast_that_is_an_output_or_is_reduced_is_left_as_it_is() -> None:
    for function, x in ((lambda x: x.repeat(3, 1) + 1, torch.randn(2, 5)),
                        (lambda x: x.expand(4, 5).sum(-1), torch.randn(1, 5))):
        original, graph, _ = _coalesced(function, x)
        assert graph is original
