"""Options of an operator itself (eps, approximate): parsed, validated, and part of the run's identity."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuner.errors import UsageError
from tuner.ops.softmax import Softmax
from tuner.space.render import render_kernel


class OptionedSoftmax(Softmax):
    """Softmax with two options, to exercise the option handling every operator inherits."""

    options = {"eps": 1e-6, "mode": "exact"}


def test_defaults_then_given_values_parsed_as_the_default_type():
    op = OptionedSoftmax()
    assert op.opts == {"eps": 1e-6, "mode": "exact"} and op.changed_options() == {}
    bound = op.with_options({"eps": "1e-5", "mode": "fast"})
    assert bound.opts == {"eps": 1e-5, "mode": "fast"} and bound.changed_options() == {"eps": 1e-5, "mode": "fast"}
    assert op.opts["eps"] == 1e-6  # the shared instance is untouched


def test_bad_options_are_one_line_usage_errors():
    with pytest.raises(UsageError, match="has no option 'epsilon' \\(options: eps, mode\\)"):
        OptionedSoftmax().with_options({"epsilon": "1"})
    with pytest.raises(UsageError, match="option eps=tiny: not a number"):
        OptionedSoftmax().with_options({"eps": "tiny"})
    for value in ("nan", "inf", "-inf"):
        with pytest.raises(UsageError, match=f"option eps={value}: not a finite number"):
            OptionedSoftmax().with_options({"eps": value})
    with pytest.raises(UsageError, match="softmax has no option 'eps' \\(options: none\\)"):
        Softmax().with_options({"eps": "1e-5"})


def test_options_reach_the_template(tmp_path: Path):
    template = tmp_path / "kernel.cpp.j2"
    template.write_text("constexpr float EPS = {{ eps }}f;\n")
    text = render_kernel(template, kernel="k", dtype="float32", struct="S", tiling_fields=[], structural={},
                         options=OptionedSoftmax().with_options({"eps": "1e-5"}).opts)
    assert text == "constexpr float EPS = 1e-05f;\n"


def test_a_run_name_is_one_safe_path_component():
    from tuner.search.loop import RunConfig

    for good in ("softmax-4096x4096-float16-Ascend910B2-sim", "gelu-7x1001-float16-Ascend910B2-sim-approximate=tanh",
                 "rmsnorm-8x8-float16-Ascend910B2-sim-eps=1e+30", "v1.2_run:a"):
        assert RunConfig(op="softmax", run=good).run_name == good
    for bad in ("../../escape", "..", ".", "a/b", "/abs", "-x", ".hidden", "a b", "x" * 201, "a\nb"):
        with pytest.raises(UsageError, match="is not one safe path component"):
            RunConfig(op="softmax", run=bad)


def test_an_option_off_its_default_names_a_different_run():
    from tuner.search.loop import RunConfig

    assert RunConfig(op="rmsnorm").run_name == "rmsnorm-4096x4096-float16-Ascend910B2-sim"
    assert RunConfig(op="rmsnorm", options={"eps": "1e-5"}).run_name == \
        "rmsnorm-4096x4096-float16-Ascend910B2-sim-eps=1e-05"
