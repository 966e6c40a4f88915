"""The packaged search spaces resolve as they did before they were written on shared knob families and constraint
sets (tests/space/resolved.py recorded them): the same knobs in the same order, the same derived values, tiling
and block count, the same constraints in the same order — except that a constraint on a SoC's name
(`soc_family`) became one on the API availability derived from tuner/data/api_support.yaml (`has_*`) — and, in
270 run contexts on Ascend910B2, Ascend310P3 and Ascend950PR_9589, the same feasible points with the same tiling
and block count, and the same baseline."""

from __future__ import annotations

import json
from functools import cache

import pytest

from tuner.space.apis import names
from tuner.space.spaces import load_space

from .resolved import RECORDING, context_record, contexts, space_record

RECORDED = json.loads(RECORDING.read_text())
AVAILABILITY = names()


def _on_soc_name(constraint: list[str]) -> bool:
    return "soc_family" in constraint[0]


def _on_availability(constraint: list[str]) -> bool:
    return any(name in constraint[0] for name in AVAILABILITY)


@cache
def _now(op: str) -> dict:
    return space_record(load_space(op))


@pytest.mark.parametrize("op", sorted(RECORDED["spaces"]))
def test_space_resolves_as_recorded(op):
    recorded, now = RECORDED["spaces"][op], _now(op)
    assert sorted(now["variants"]) == sorted(recorded["variants"])  # the recording sorted its mappings
    for name, before in recorded["variants"].items():
        after = now["variants"][name]
        assert {k: v for k, v in after.items() if k != "constraints"} == \
            {k: v for k, v in before.items() if k != "constraints"}, f"{op}/{name}"
        assert [c for c in after["constraints"] if not _on_availability(c)] == \
            [c for c in before["constraints"] if not _on_soc_name(c)], f"{op}/{name}"
        assert not any(_on_soc_name(c) for c in after["constraints"]), f"{op}/{name}"
    assert {k: v for k, v in now.items() if k != "variants"} == {k: v for k, v in recorded.items() if k != "variants"}


@pytest.mark.e2e  # about a minute of enumeration
@pytest.mark.parametrize("op", sorted(RECORDED["spaces"]))
def test_contexts_give_the_recorded_points_and_baselines(op):
    keys = [(key, rest) for key, *rest in contexts() if rest[0] == op]
    assert keys and {key for key, _ in keys} == {key for key in RECORDED["contexts"] if key.startswith(f"{op}-")}
    for key, rest in keys:
        assert context_record(*rest) == RECORDED["contexts"][key], key
