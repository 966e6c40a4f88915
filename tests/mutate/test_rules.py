"""The rule catalog: every rule, on a deliberately plain fixture and on the real softmax templates, compiles,
passes the operator's checks on every input set and lowers the modelled pipe times it claims; a rule that renders
nothing the parent's space lacks is refused; the rewriter proposes only on a plateau, once per lineage."""

from __future__ import annotations

import itertools
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from tuner.backends import SimBackend
from tuner.backends.args import pack_tiling
from tuner.backends.sim import PIPES
from tuner.data.socs import get_soc
from tuner.mutate.base import MutationContext
from tuner.mutate.rules import (
    EXTENDS,
    PARENT_NAME,
    RuleMutator,
    blocks_of,
    differs_from_space,
    in_lineage,
    load_catalog,
    tokens,
)
from tuner.ops import get_operator
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import Evaluator, RunInputs, kernel_args
from tuner.space.expr import evaluate, parse
from tuner.space.render import render_kernel
from tuner.space.spaces import Variant, load_space, run_context

SOC = "Ascend910B2"
FIXTURES = Path(__file__).parent / "fixtures"
PLAIN = {"rows": FIXTURES / "softmax_plain.cpp.j2", "split": FIXTURES / "softmax_plain_split.cpp.j2"}
# the structural knobs the fixtures hard-code (a rule's child template reads them)
PLAIN_KNOBS = {"buffer_num": 1, "copy": "data_copy_pad", "spread": "contiguous", "sync": "queue", "compute": "fp32",
               "reduce": "api"}
RULES = {rule.name: rule for rule in load_catalog()}
SPACE = load_space("softmax")

# per rule: shape, dtype and the fixture's tiling knobs
FIXTURE_CASES: dict[str, tuple[tuple[int, ...], str, dict[str, Any]]] = {
    "whole-reduce-rows": ((640, 64), "float16", {"block_dim": 40, "rows_per_tile": 16}),
    "fold-norm-into-exp": ((40, 10000), "float16", {"block_dim": 40, "tile_cols": 2048}),
    "accumulate-reduce": ((160, 2000), "float16", {"block_dim": 40, "rows_per_tile": 2}),
}
# per rule: a case on the real template, with knobs away from the fixture's
REAL_CASES: dict[str, tuple[tuple[int, ...], str, dict[str, Any]]] = {
    "whole-reduce-rows": ((1000, 200), "bfloat16", {
        "block_dim": 40, "rows_per_tile": 16, "buffer_num": 3, "copy": "data_copy_pad", "spread": "interleaved",
        "sync": "queue", "compute": "fp32", "reduce": "tree"}),
    "fold-norm-into-exp": ((64, 5000), "float16", {
        "block_dim": 40, "tile_cols": 1024, "buffer_num": 3, "copy": "data_copy_pad", "spread": "contiguous",
        "sync": "flags", "compute": "fp32", "reduce": "tree"}),
    "accumulate-reduce": ((96, 4096), "float16", {  # the bench's best knobs for 4096x4096 float16
        "block_dim": 48, "rows_per_tile": 2, "buffer_num": 3, "copy": "data_copy", "spread": "interleaved",
        "sync": "queue", "compute": "native", "reduce": "tree"}),
}


def _context(shape: tuple[int, ...], dtype: str) -> dict[str, Any]:
    return run_context(get_operator("softmax"), shape, dtype, get_soc(SOC))


def _child_variant(rule_template: str, parent: Path, variant: str, directory: Path) -> Variant:
    """The rows or split variant with the rule's child template over `parent`, as the engine lays it out."""
    shutil.copyfile(parent, directory / PARENT_NAME)
    (directory / "kernel.cpp.j2").write_text(rule_template)
    return replace(SPACE.variant(variant), template=directory / "kernel.cpp.j2")


def _measure(variant: Variant, shape: tuple[int, ...], dtype: str, knobs: dict[str, Any]) -> dict[str, float]:
    """Evaluate a point as the tuner does (checked on every input set), then the slowest block's pipe times."""
    op = get_operator("softmax")
    context = _context(shape, dtype)
    backend = SimBackend(SOC)
    evaluator = Evaluator(SPACE, variant, backend, CompileCache(backend), RunInputs(op, shape, dtype), context)
    outcome = evaluator.evaluate(knobs)
    assert outcome.ok, outcome.detail
    assert outcome.attrs["verified_sets"] == 3
    build = evaluator.cache.build(outcome.source, SPACE.kernel)
    point = variant.evaluate(knobs, context)
    args = kernel_args(SPACE, evaluator.inputs.arrays[0], evaluator.inputs.output_shapes, dtype,
                       pack_tiling(point.tiling))
    report = backend.profile(build.artifact, args, point.block_dim).report
    slowest = max(report["blocks"], key=lambda b: b["aiv_time_us"])
    return {pipe: slowest[f"aiv_{pipe}_time_us"] for pipe in PIPES}


def test_catalog_rules_are_well_formed():
    assert len(RULES) >= 3
    for rule in RULES.values():
        assert rule.op == "softmax" and rule.triggers == ("plateau",) and rule.expected
        assert rule.improves and set(rule.improves) <= set(PIPES)
        for name in rule.variants:
            assert blocks_of(rule.template) <= blocks_of(SPACE.variant(name).template.read_text())
        for constraint in rule.constraints:
            parse(constraint["expr"])
            assert constraint["why"]


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES))
def test_each_rule_on_the_plain_fixture_is_correct_and_has_its_claimed_effect(tmp_path: Path, name: str):
    rule = RULES[name]
    variant_name = rule.variants[0]
    shape, dtype, tiling = FIXTURE_CASES[name]
    knobs = {**tiling, **PLAIN_KNOBS}
    plain = replace(SPACE.variant(variant_name), template=PLAIN[variant_name])
    names = plain.evaluate(knobs, _context(shape, dtype)).names
    assert evaluate(rule.applies_when, names)
    before = _measure(plain, shape, dtype, knobs)
    after = _measure(_child_variant(rule.template, PLAIN[variant_name], variant_name, tmp_path), shape, dtype, knobs)
    for pipe in rule.improves:
        assert after[pipe] < before[pipe], (pipe, before, after)


@pytest.mark.parametrize("name", sorted(REAL_CASES))
def test_each_rule_on_its_real_template_is_new_correct_and_has_its_claimed_effect(tmp_path: Path, name: str):
    rule = RULES[name]
    variant = SPACE.variant(rule.variants[0])
    shape, dtype, knobs = REAL_CASES[name]
    context = _context(shape, dtype)
    assert evaluate(rule.applies_when, variant.evaluate(knobs, context).names)
    assert differs_from_space(rule.template, variant.template, variant, context, kernel=SPACE.kernel,
                              struct=SPACE.tiling_struct, knobs=knobs)
    before = _measure(variant, shape, dtype, knobs)
    after = _measure(_child_variant(rule.template, variant.template, variant.name, tmp_path), shape, dtype, knobs)
    for pipe in rule.improves:
        assert after[pipe] < before[pipe], (pipe, before, after)
    if name == "accumulate-reduce":  # against the tree it also saves calls and barriers
        assert after["scalar"] < before["scalar"]


def _unblocked(template: str, names: set[str] | None = None) -> str:
    """The template without the markers of its blocks `names` (all when None): what it was before the rules
    named those regions."""
    if names is None:
        return re.sub(r"^\{% (?:block \w+|endblock) %\}\n", "", template, flags=re.M)
    pattern = "|".join(map(re.escape, sorted(names)))
    marked = r"^\{% block (" + pattern + r") %\}\n((?:.*\n)*?)\{% endblock %\}\n"
    return re.sub(marked, r"\2", template, flags=re.M)


@pytest.mark.parametrize("variant_name", ["rows", "split"])
def test_block_markers_leave_the_rendered_sources_unchanged(tmp_path: Path, variant_name: str):
    """The blocks the catalog's rules override are markers only: the variant's template (which itself fills the
    kernel library's skeleton blocks) renders the same without them."""
    variant = SPACE.variant(variant_name)
    ruled = set().union(*(blocks_of(r.template) for r in RULES.values() if variant_name in r.variants))
    bare = tmp_path / "bare.cpp.j2"
    bare.write_text(_unblocked(variant.template.read_text(), ruled))
    assert ruled and not blocks_of(bare.read_text()) & ruled
    knobs = [k for k in variant.knobs if k.structural]
    combos = list(itertools.product(("float16", "float32", "bfloat16"), *(k.choices for k in knobs)))
    for dtype, *values in combos[::5]:  # every 5th of the dtype x structural combinations
        structural = dict(zip([k.name for k in knobs], values, strict=True))
        kw = dict(kernel=SPACE.kernel, dtype=dtype, struct=SPACE.tiling_struct,
                  tiling_fields=[n for n, _ in variant.tiling], structural=structural)
        assert render_kernel(variant.template, **kw) == render_kernel(bare, **kw)


NO_OP = """{% extends "parent.cpp.j2" %}
{% block stat_buffers %}
        // the same two buffers, laid out anew
        pipe.InitBuffer(workBuf,
                        AlignUp(CeilDiv(cols, 2) * sizeof(CompT), BLOCK_BYTES));
        pipe.InitBuffer( statBuf, STAT_BYTES );
{% endblock %}
"""
UNRENDERED = """{% extends "parent.cpp.j2" %}
{% block cast_buffer %}
        pipe.InitBuffer(castBuf, 2 * rowsPerTile * rowStride * sizeof(float));
{% endblock %}
"""


def test_a_rule_that_renders_only_sources_the_space_has_is_refused(tmp_path: Path):
    rows = SPACE.variant("rows")
    kw = dict(kernel=SPACE.kernel, struct=SPACE.tiling_struct)
    assert tokens("a(b, c); // x\n") == tokens("a( b,\n  c) ;/* y */")
    assert not differs_from_space(NO_OP, rows.template, rows, _context((64, 256), "float16"), **kw)
    # the cast buffer exists only for 16-bit data: for float32 the rewrite changes no source the space can render
    assert not differs_from_space(UNRENDERED, rows.template, rows, _context((64, 256), "float32"), **kw)
    assert differs_from_space(UNRENDERED, rows.template, rows, _context((64, 256), "float16"), **kw)
    (tmp_path / "no-op.cpp.j2").write_text(NO_OP)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(yaml.safe_dump({"rules": [{
        "name": "no-op", "op": "softmax", "variants": ["rows"], "triggers": ["plateau"], "applies_when": "True",
        "expected": "nothing", "improves": ["vec"], "file": "no-op.cpp.j2"}]}))
    proposals = RuleMutator(catalog).propose(_mutation("rows", (64, 256), REAL_CASES["whole-reduce-rows"][2]))
    assert [(p.name, p.template, p.rejected) for p in proposals] == [
        ("no-op", None, "renders no source the parent's search space lacks")]


def _mutation(variant: str, shape: tuple[int, ...], knobs: dict[str, Any], trigger: str = "plateau",
              template: str | None = None) -> MutationContext:
    base = SPACE.variant(variant.split("+")[0])
    return MutationContext(trigger=trigger, op="softmax", shape=shape, dtype="float16", soc=SOC, variant=variant,
                           template=template if template is not None else base.template.read_text(),
                           template_name=f"softmax/{base.name}/kernel.cpp.j2", knobs=knobs, knob_space={})


def test_the_rewriter_proposes_applicable_rules_on_a_plateau_once_per_lineage():
    mutator = RuleMutator()
    short = {**REAL_CASES["whole-reduce-rows"][2]}
    proposals = mutator.propose(_mutation("rows", (1000, 64), short))
    assert [p.name for p in proposals] == ["whole-reduce-rows"]
    proposal = proposals[0]
    rule = RULES["whole-reduce-rows"]
    assert proposal.origin == "rules" and proposal.extends_parent and proposal.rejected is None
    assert proposal.template == rule.template and proposal.template.startswith(EXTENDS)
    assert rule.applies_when in proposal.rationale and rule.expected in proposal.rationale
    assert yaml.safe_load(proposal.knobs_yaml)["constraints"] == [dict(c) for c in rule.constraints]
    long = REAL_CASES["accumulate-reduce"][2]
    assert [p.name for p in mutator.propose(_mutation("rows", (4096, 4096), long))] == ["accumulate-reduce"]
    assert mutator.propose(_mutation("rows", (4096, 4096), long)) == []  # the next plateau: once per parent
    assert mutator.propose(_mutation("rows+llm-1+accumulate-reduce-2", (4096, 4096), long)) == []
    assert mutator.propose(_mutation("rows", (4096, 4096), long, trigger="compile_error")) == []
    child = mutator.propose(_mutation("rows+accumulate-reduce", (1000, 64), short, template=rule.template))
    assert child == []  # a rule-made variant is a child template: no second rule is stacked on it
    rows = SPACE.variant("rows").template.read_text()
    assert mutator.propose(_mutation("rows+llm-1", (1000, 64), short, template=_unblocked(rows))) == []
    # a rewrite's template with a knob of its own
    own_knob = rows.replace("{% block members %}\n", "{% block members %}\n    // {{ unroll }}\n", 1)
    assert own_knob != rows
    assert mutator.propose(_mutation("rows+llm-1", (1000, 64), short, template=own_knob)) == []
    assert in_lineage("fold", "split+fold-3") and not in_lineage("fold", "split+fold-norm-into-exp")
