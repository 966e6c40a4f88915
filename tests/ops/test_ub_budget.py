"""The packaged templates and the catalog's rule-made variants budget the whole UB a TPipe gives (`ub_bytes`), which
is right only for a kernel that calls no API using Ascend C's reserved UB (`reserved_ub` in api_support.yaml); one
that calls such an API keeps to `ub_api_bytes`. Every structural form of every variant, as each case renders it, is
checked against its SoC's list."""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path

import pytest

from tuner.data.api_support import reserved_ub_apis
from tuner.data.socs import get_soc
from tuner.space.render import render_kernel

from .preservation import Case, Observer, cases

pytestmark = pytest.mark.e2e  # renders every structural form of every variant: minutes

CASES = [case for case in cases() if get_soc(case.soc).ub_api_bytes < get_soc(case.soc).tpipe_ub_bytes.value]


def _calls(source: str, apis: frozenset[str]) -> set[str]:
    return {api for api in apis if re.search(rf"(?<![\w.]){api}\s*(<[^;()]*>)?\s*\(", source)}


@cache
def _render(template: Path, text: str, kernel: str, dtype: str, struct: str, fields: tuple[str, ...],
            structural: tuple[tuple[str, object], ...], options: tuple[tuple[str, object], ...]) -> str:
    return render_kernel(template, kernel=kernel, dtype=dtype, struct=struct, tiling_fields=list(fields),
                         structural=dict(structural), options=dict(options))


def _overbudget(case: Case, workdir: Path) -> list[str]:
    observer = Observer(case)
    reserved = reserved_ub_apis(get_soc(case.soc).vector_costs)
    found = []
    for variant in observer.variants(workdir):
        budgets = [c.expr for c in variant.constraints if "ub_bytes" in c.expr or "ub_api_bytes" in c.expr]
        assert budgets, f"{variant.name} has no UB constraint"
        if any("ub_api_bytes" in expr for expr in budgets):
            continue
        structural = [knob for knob in variant.knobs if knob.structural]
        for values in itertools.product(*(knob.choices for knob in structural)):
            source = _render(variant.template, variant.template.read_text(), observer.space.kernel, case.dtype,
                             observer.space.tiling_struct, tuple(name for name, _ in variant.tiling),
                             tuple(zip((k.name for k in structural), values, strict=True)),
                             tuple(sorted(observer.op.opts.items())))
            if calls := _calls(source, reserved):
                found.append(f"{variant.name} {values}: {sorted(calls)}")
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.key)
def test_a_variant_that_calls_an_api_using_the_reserved_ub_budgets_below_it(case, tmp_path: Path) -> None:
    assert reserved_ub_apis(get_soc(case.soc).vector_costs)
    assert _overbudget(case, tmp_path) == []


def test_the_check_sees_a_call_with_template_arguments() -> None:
    source = "Select<float, uint8_t>(dst, mask, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n); mySelect(x);"
    assert _calls(source, frozenset({"Select", "Sign"})) == {"Select"}
