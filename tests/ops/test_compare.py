"""The check of an output against its float64 reference: what counts as a constant output."""

from __future__ import annotations

import torch

from tuner.ops.base import Expected, compare


def test_a_constant_output_fails_where_the_reference_varies_in_the_outputs_dtype() -> None:
    expected = Expected.of(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "float32")
    assert not compare("y", torch.full((3,), 2.0), expected).ok


def test_a_constant_output_passes_where_the_reference_rounds_to_one_value_in_the_outputs_dtype() -> None:
    # products of hundreds of values underflow float32: the float64 reference differs, float32 holds zeros
    reference = torch.tensor([1e-71, -3e-70, 2e-72], dtype=torch.float64)
    check = compare("y", torch.zeros(3), Expected.of(reference, "float32"))
    assert check.ok, check.detail
