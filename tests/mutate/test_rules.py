"""The rule catalog: every rule, on each operator it is written for, on that operator's real template, renders a
source the parent's space cannot, compiles, passes the operator's checks on every input set (float16, bfloat16 and
float32 where the point is feasible) and lowers the modelled time and the pipe times it claims; the softmax rules
do the same on deliberately plain fixtures; a rule that renders nothing the parent's space lacks is refused; the
rewriter proposes only on a plateau, once per operator, variant and lineage."""

from __future__ import annotations

import itertools
import re
import shutil
from dataclasses import dataclass, field, replace
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
from tuner.space.spaces import Constraint, SearchSpace, Variant, load_space, run_context

SOC = "Ascend910B2"
DTYPES = ("float16", "bfloat16", "float32")
FIXTURES = Path(__file__).parent / "fixtures"
PLAIN = {"rows": FIXTURES / "softmax_plain.cpp.j2", "split": FIXTURES / "softmax_plain_split.cpp.j2"}
# the structural knobs the fixtures hard-code (a rule's child template reads them)
PLAIN_KNOBS = {"buffer_num": 1, "copy": "data_copy_pad", "spread": "contiguous", "sync": "queue", "compute": "fp32",
               "reduce": "api"}
RULES = {rule.name: rule for rule in load_catalog()}
SOFTMAX = load_space("softmax")


@dataclass(frozen=True)
class Case:
    """A point of an operator's variant: shape, dtype, knobs and the operator's options."""

    variant: str
    shape: tuple[int, ...]
    dtype: str
    knobs: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)


# per softmax rule: shape, dtype and the fixture's tiling knobs
FIXTURE_CASES: dict[str, tuple[tuple[int, ...], str, dict[str, Any]]] = {
    "whole-reduce-rows": ((640, 64), "float16", {"block_dim": 40, "rows_per_tile": 16}),
    "fold-norm-into-exp": ((40, 10000), "float16", {"block_dim": 40, "tile_cols": 2048}),
    "accumulate-reduce": ((160, 2000), "float16", {"block_dim": 40, "rows_per_tile": 2}),
}
FOUR_K_ROWS = {"block_dim": 40, "rows_per_tile": 1, "buffer_num": 2, "copy": "data_copy", "sync": "queue",
               "compute": "fp32"}
FLAT_4K_TILES = {"block_dim": 40, "tile_len": 4096, "buffer_num": 2, "copy": "data_copy", "sync": "queue"}
EIGHT_ROWS = {"block_dim": 32, "rows_per_tile": 8, "buffer_num": 2, "copy": "data_copy", "sync": "queue",
              "compute": "fp32"}
# per (rule, operator): a point of the operator's real template where the rule applies, away from the fixtures'
REAL_CASES: dict[tuple[str, str], Case] = {
    ("whole-reduce-rows", "softmax"): Case("rows", (1000, 200), "bfloat16", {
        "block_dim": 40, "rows_per_tile": 16, "buffer_num": 3, "copy": "data_copy_pad", "spread": "interleaved",
        "sync": "queue", "compute": "fp32", "reduce": "tree"}),
    ("fold-norm-into-exp", "softmax"): Case("split", (64, 5000), "float16", {
        "block_dim": 40, "tile_cols": 1024, "buffer_num": 3, "copy": "data_copy_pad", "spread": "contiguous",
        "sync": "flags", "compute": "fp32", "reduce": "tree"}),
    ("accumulate-reduce", "softmax"): Case("rows", (96, 4096), "float16", {  # the bench's best knobs for 4096x4096
        "block_dim": 48, "rows_per_tile": 2, "buffer_num": 3, "copy": "data_copy", "spread": "interleaved",
        "sync": "queue", "compute": "native", "reduce": "tree"}),
    # One 4096-column row per tile gains nothing since UB bank conflicts are modelled (the accumulating Add reads
    # its fixed sum and the moving row from one bank group every other repeat); two rows per tile, or one longer row
    # in a single buffer, still gain.
    ("accumulate-reduce", "rmsnorm"): Case("rows", (64, 4096), "float16", {**FOUR_K_ROWS, "rows_per_tile": 2}),
    ("accumulate-reduce", "layernorm"): Case("rows", (64, 4096), "float16", {**FOUR_K_ROWS, "rows_per_tile": 2,
                                                                            "reduce": "whole"}),
    ("accumulate-reduce", "add_rmsnorm"): Case("rows", (64, 6000), "float16", {**FOUR_K_ROWS, "buffer_num": 1}),
    ("accumulate-reduce", "reduce_sum"): Case("rows", (64, 4096), "float16", {
        **FOUR_K_ROWS, "rows_per_tile": 2, "reduce": "api"}),
    ("reciprocal-gate", "silu"): Case("fp32", (64, 4096), "float16", {**FLAT_4K_TILES, "compute": "fp32"}),
    ("reciprocal-gate", "gelu"): Case("contiguous", (64, 4096), "float16", {**FLAT_4K_TILES, "spread": "contiguous"},
                                      {"approximate": "tanh"}),
    ("reciprocal-gate", "swiglu"): Case("rows", (64, 4096), "float16", {**FOUR_K_ROWS, "block_dim": 32,
                                                                       "rows_per_tile": 2}),
    ("tile-casts", "rmsnorm"): Case("rows", (256, 512), "float16", EIGHT_ROWS),
    ("tile-casts", "layernorm"): Case("rows", (256, 512), "float16", {**EIGHT_ROWS, "reduce": "whole"}),
}


def _context(op: str, case: Case, dtype: str | None = None) -> dict[str, Any]:
    operator = get_operator(op).with_options(case.options)
    return run_context(operator, case.shape, dtype or case.dtype, get_soc(SOC))


def _child_variant(rule: str, parent: Variant, directory: Path, parent_template: Path | None = None) -> Variant:
    """The parent variant with the rule's child template over `parent_template` (the parent's own by default) and
    the rule's constraints, laid out as the engine lays it out."""
    shutil.copyfile(parent_template or parent.template, directory / PARENT_NAME)
    (directory / "kernel.cpp.j2").write_text(RULES[rule].template)
    added = tuple(Constraint(c["expr"], c["why"]) for c in RULES[rule].constraints)
    return replace(parent, template=directory / "kernel.cpp.j2", constraints=parent.constraints + added)


def _evaluator(op: str, space: SearchSpace, variant: Variant, case: Case, dtype: str) -> Evaluator:
    operator = get_operator(op).with_options(case.options)
    backend = SimBackend(SOC)
    return Evaluator(space, variant, backend, CompileCache(backend), RunInputs(operator, case.shape, dtype),
                     _context(op, case, dtype))


def _measure(op: str, space: SearchSpace, variant: Variant, case: Case) -> dict[str, float]:
    """Evaluate the case's point as the tuner does (checked on every input set), then its modelled time and the
    slowest block's pipe times."""
    evaluator = _evaluator(op, space, variant, case, case.dtype)
    outcome = evaluator.evaluate(case.knobs)
    assert outcome.ok, outcome.detail
    assert outcome.attrs["verified_sets"] == 3
    build = evaluator.cache.build(outcome.source, space.kernel)
    point = variant.evaluate(case.knobs, evaluator.context)
    args = kernel_args(space, evaluator.inputs.arrays[0], evaluator.inputs.output_shapes, case.dtype,
                       pack_tiling(point.tiling))
    profile = SimBackend(SOC).profile(build.artifact, args, point.block_dim)
    slowest = max(profile.report["blocks"], key=lambda b: b["aiv_time_us"])
    return {"time": profile.time_us} | {pipe: slowest[f"aiv_{pipe}_time_us"] for pipe in PIPES}


def test_catalog_rules_are_well_formed():
    assert len(RULES) >= 5
    assert len({op for rule in RULES.values() for op in rule.ops}) >= 7  # the softmax, norm and elementwise families
    for rule in RULES.values():
        assert rule.triggers == ("plateau",) and "simulated, Ascend910B2 model" in rule.expected
        assert rule.improves and set(rule.improves) <= set(PIPES)
        for op, name in rule.targets:
            assert blocks_of(rule.template) <= blocks_of(load_space(op).variant(name).template.read_text())
        for constraint in rule.constraints:
            parse(constraint["expr"])
            assert constraint["why"]


def test_every_operator_a_rule_names_has_a_real_case():
    assert set(REAL_CASES) == {(rule.name, op) for rule in RULES.values() for op in rule.ops}
    for (name, op), case in REAL_CASES.items():
        assert RULES[name].applies_to(op, case.variant)


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES))
def test_each_softmax_rule_on_the_plain_fixture_is_correct_and_has_its_claimed_effect(tmp_path: Path, name: str):
    rule = RULES[name]
    variant_name = rule.ops["softmax"][0]
    shape, dtype, tiling = FIXTURE_CASES[name]
    case = Case(variant_name, shape, dtype, {**tiling, **PLAIN_KNOBS})
    plain = replace(SOFTMAX.variant(variant_name), template=PLAIN[variant_name])
    assert evaluate(rule.applies_when, plain.evaluate(case.knobs, _context("softmax", case)).names)
    before = _measure("softmax", SOFTMAX, plain, case)
    after = _measure("softmax", SOFTMAX, _child_variant(name, plain, tmp_path, PLAIN[variant_name]), case)
    for pipe in rule.improves:
        assert after[pipe] < before[pipe], (pipe, before, after)


@pytest.mark.parametrize(("name", "op"), sorted(REAL_CASES), ids=[f"{n}:{o}" for n, o in sorted(REAL_CASES)])
def test_each_rule_on_its_real_template_is_new_correct_and_has_its_claimed_effect(tmp_path: Path, name: str, op: str):
    rule, case = RULES[name], REAL_CASES[(name, op)]
    space = load_space(op)
    variant = space.variant(case.variant)
    context = _context(op, case)
    assert evaluate(rule.applies_when, variant.evaluate(case.knobs, context).names)
    assert differs_from_space(rule.template, variant.template, variant, context, kernel=space.kernel,
                              struct=space.tiling_struct, knobs=case.knobs,
                              options=get_operator(op).with_options(case.options).opts)
    child = _child_variant(name, variant, tmp_path)
    before = _measure(op, space, variant, case)
    after = _measure(op, space, child, case)
    for pipe in ("time", *rule.improves):
        assert after[pipe] < before[pipe], (pipe, before, after)
    if (name, op) == ("accumulate-reduce", "softmax"):  # against the tree it also saves calls and barriers
        assert after["scalar"] < before["scalar"]
    for dtype in DTYPES:  # correct for every dtype the point is feasible for (the case's own is checked above)
        if dtype != case.dtype and child.evaluate(case.knobs, _context(op, case, dtype)).feasible:
            outcome = _evaluator(op, space, child, case, dtype).evaluate(case.knobs)
            assert outcome.ok and outcome.attrs["verified_sets"] == 3, (dtype, outcome.detail)


def _unblocked(template: str, names: set[str] | None = None) -> str:
    """The template without the markers of its blocks `names` (all when None): what it was before the rules
    named those regions."""
    if names is None:
        return re.sub(r"^\{% (?:block \w+(?: scoped)?|endblock) %\}\n", "", template, flags=re.M)
    pattern = "|".join(map(re.escape, sorted(names)))
    marked = r"^\{% block (" + pattern + r")(?: scoped)? %\}\n((?:.*\n)*?)\{% endblock %\}\n"
    return re.sub(marked, r"\2", template, flags=re.M)


def _marker_blocks(op: str, variant: str) -> set[str]:
    """The blocks the catalog's rules override that the operator's own template declares (not its skeleton's)."""
    text = load_space(op).variant(variant).template.read_text()
    declared = set(re.findall(r"\{% block (\w+)", text))
    skeleton = set().union(*(blocks_of("{% extends " + name + " %}")
                             for name in re.findall(r'\{% extends ("_lib/\w+\.j2") %\}', text)))
    ruled = set().union(*(blocks_of(r.template) for r in RULES.values() if r.applies_to(op, variant)))
    return ruled & declared - skeleton


MARKED = [("softmax", "rows"), ("softmax", "split"), ("silu", "fp32"), ("gelu", "contiguous")]


@pytest.mark.parametrize(("op", "variant_name"), MARKED, ids=[f"{o}:{v}" for o, v in MARKED])
def test_block_markers_leave_the_rendered_sources_unchanged(tmp_path: Path, op: str, variant_name: str):
    """The blocks of its own that an operator's template declares for the rules are markers only: the template
    (which itself fills the kernel library's skeleton blocks) renders the same without them."""
    space = load_space(op)
    variant = space.variant(variant_name)
    ruled = _marker_blocks(op, variant_name)
    bare = tmp_path / "bare.cpp.j2"
    bare.write_text(_unblocked(variant.template.read_text(), ruled))
    assert ruled and not blocks_of(bare.read_text()) & ruled
    knobs = [k for k in variant.knobs if k.structural]
    options = [{}, {"approximate": "tanh"}] if op == "gelu" else [{}]
    combos = list(itertools.product(DTYPES, options, *(k.choices for k in knobs)))
    for dtype, opts, *values in combos[::5]:  # every 5th of the dtype x options x structural combinations
        structural = dict(zip([k.name for k in knobs], values, strict=True))
        kw = dict(kernel=space.kernel, dtype=dtype, struct=space.tiling_struct,
                  tiling_fields=[n for n, _ in variant.tiling], structural=structural,
                  options=get_operator(op).with_options(opts).opts, trusted=True)
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
# unaligned rows (DataCopyPad only) on one core: few structural combinations to render
SMALL = (8, 250)


def test_a_rule_that_renders_only_sources_the_space_has_is_refused(tmp_path: Path):
    rows = SOFTMAX.variant("rows")
    kw = dict(kernel=SOFTMAX.kernel, struct=SOFTMAX.tiling_struct)
    float16, float32 = (run_context(get_operator("softmax"), SMALL, dtype, get_soc(SOC)) for dtype in DTYPES[::2])
    assert tokens("a(b, c); // x\n") == tokens("a( b,\n  c) ;/* y */")
    assert not differs_from_space(NO_OP, rows.template, rows, float16, **kw)
    # the cast buffer exists only for 16-bit data: for float32 the rewrite changes no source the space can render
    assert not differs_from_space(UNRENDERED, rows.template, rows, float32, **kw)
    assert differs_from_space(UNRENDERED, rows.template, rows, float16, **kw)
    (tmp_path / "no-op.cpp.j2").write_text(NO_OP)
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(yaml.safe_dump({"rules": [{
        "name": "no-op", "ops": {"softmax": ["rows"]}, "triggers": ["plateau"], "applies_when": "True",
        "expected": "nothing", "improves": ["vec"], "file": "no-op.cpp.j2"}]}))
    knobs = {**REAL_CASES[("whole-reduce-rows", "softmax")].knobs, "block_dim": 1, "rows_per_tile": 8}
    proposals = RuleMutator(catalog).propose(_mutation("softmax", "rows", SMALL, knobs))
    assert [(p.name, p.template, p.rejected) for p in proposals] == [
        ("no-op", None, "renders no source the parent's search space lacks")]


def _mutation(op: str, variant: str, shape: tuple[int, ...], knobs: dict[str, Any], trigger: str = "plateau",
              template: str | None = None, dtype: str = "float16",
              options: dict[str, Any] | None = None) -> MutationContext:
    base = load_space(op).variant(variant.split("+")[0])
    return MutationContext(trigger=trigger, op=op, shape=shape, dtype=dtype, soc=SOC, variant=variant,
                           template=template if template is not None else base.template.read_text(),
                           template_name=f"{op}/{base.name}/kernel.cpp.j2", knobs=knobs, knob_space={},
                           options=options or {})


def test_a_plateau_of_an_operator_no_rule_is_written_for_proposes_nothing():
    context = replace(_mutation("softmax", "rows", (1000, 64), {**REAL_CASES[("whole-reduce-rows", "softmax")].knobs}),
                      op="my_task", variant="generated")  # a user's own operator: no packaged space or operator
    assert RuleMutator().propose(context) == []


def test_the_rewriter_proposes_applicable_rules_on_a_plateau_once_per_lineage():
    mutator = RuleMutator()
    short = {**REAL_CASES[("whole-reduce-rows", "softmax")].knobs}
    proposals = mutator.propose(_mutation("softmax", "rows", (1000, 64), short))
    assert [p.name for p in proposals] == ["whole-reduce-rows"]
    proposal = proposals[0]
    rule = RULES["whole-reduce-rows"]
    assert proposal.origin == "rules" and proposal.extends_parent and proposal.rejected is None
    assert proposal.template == rule.template and proposal.template.startswith(EXTENDS)
    assert rule.applies_when in proposal.rationale and rule.expected in proposal.rationale
    assert yaml.safe_load(proposal.knobs_yaml)["constraints"] == [dict(c) for c in rule.constraints]
    long = REAL_CASES[("accumulate-reduce", "softmax")].knobs
    assert [p.name for p in mutator.propose(_mutation("softmax", "rows", (4096, 4096), long))] == ["accumulate-reduce"]
    assert mutator.propose(_mutation("softmax", "rows", (4096, 4096), long)) == []  # the next plateau: once per parent
    # the same rule, written against the rows skeleton's row_sum, for another operator's variant of the same name
    norm = {**FOUR_K_ROWS, "rows_per_tile": 2}
    proposed = mutator.propose(_mutation("rmsnorm", "rows", (64, 2048), norm))
    assert [p.name for p in proposed] == ["accumulate-reduce", "tile-casts"]
    assert all(p.rejected is None and p.template == RULES[p.name].template for p in proposed)
    again = mutator.propose(_mutation("rmsnorm", "rows+accumulate-reduce-2", (64, 2048), norm))
    assert [p.name for p in again] == ["tile-casts"]  # its lineage holds accumulate-reduce
    # a variant the rule is not written for, though its skeleton (split.j2) has row_sum too
    split = {"block_dim": 40, "tile_cols": 2048, "buffer_num": 2, "copy": "data_copy", "sync": "queue",
             "compute": "fp32"}
    assert mutator.propose(_mutation("rmsnorm", "split", (64, 8192), split)) == []
    gate = REAL_CASES[("reciprocal-gate", "swiglu")]
    assert [p.name for p in mutator.propose(_mutation("swiglu", "rows", gate.shape, gate.knobs))] == ["reciprocal-gate"]
    # the operator's options decide the source: GELU's tanh form has the divide the rule replaces, the erf form none
    tanh = REAL_CASES[("reciprocal-gate", "gelu")]
    [made] = mutator.propose(_mutation("gelu", "contiguous", tanh.shape, tanh.knobs, options=tanh.options))
    assert made.name == "reciprocal-gate" and made.rejected is None
    [refused] = RuleMutator().propose(_mutation("gelu", "contiguous", tanh.shape, tanh.knobs))
    assert refused.rejected == "renders no source the parent's search space lacks"
    assert mutator.propose(_mutation("softmax", "rows+llm-1+accumulate-reduce-2", (4096, 4096), long)) == []
    assert mutator.propose(_mutation("softmax", "rows", (4096, 4096), long, trigger="compile_error")) == []
    child = mutator.propose(_mutation("softmax", "rows+accumulate-reduce", (1000, 64), short, template=rule.template))
    assert child == []  # a rule-made variant is a child template: no second rule is stacked on it
    rows = SOFTMAX.variant("rows").template.read_text()
    assert mutator.propose(_mutation("softmax", "rows+llm-1", (1000, 64), short, template=_unblocked(rows))) == []
    # a rewrite's template with a knob of its own
    own_knob = rows.replace("{% block members %}\n", "{% block members %}\n    // {{ unroll }}\n", 1)
    assert own_knob != rows
    assert mutator.propose(_mutation("softmax", "rows+llm-1", (1000, 64), short, template=own_knob)) == []
    assert in_lineage("fold", "split+fold-3") and not in_lineage("fold", "split+fold-norm-into-exp")
