"""The kernel templates behave as they did before the kernel library: every recorded point of every variant
(tests/ops/data/preserved.json, see preservation.py) gives the same outputs, bit for bit, and the same simulated
time within 0.5% (simulated, each case's SoC model)."""

from __future__ import annotations

import json
import math
from functools import cache

import pytest

from .preservation import RECORDING, TIME_RTOL, Observer, case_of

pytestmark = pytest.mark.e2e

RECORDED = json.loads(RECORDING.read_text())


@cache
def _observer(case_key: str) -> Observer:
    case, _ = case_of(f"{case_key}:_")
    return Observer(case)


@pytest.mark.parametrize("key", sorted(k for k, points in RECORDED.items() if points))
def test_recorded_points_give_the_same_outputs_and_times(key, tmp_path):
    case, name = case_of(key)
    observer = _observer(case.key)
    variant = next(v for v in observer.variants(tmp_path) if v.name == name)
    differences = []
    for then in RECORDED[key]:
        now = observer.observe(variant, then["params"])
        if now.get("outputs") != then.get("outputs") or now.get("error") != then.get("error"):
            differences.append(f"{then['params']}: outputs {then.get('outputs') or then.get('error')} -> "
                               f"{now.get('outputs') or now.get('error')}")
        elif "time_us" in then and not math.isclose(now["time_us"], then["time_us"], rel_tol=TIME_RTOL):
            differences.append(f"{then['params']}: {then['time_us']} -> {now['time_us']} us")
    assert differences == []
