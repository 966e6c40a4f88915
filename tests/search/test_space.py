from pathlib import Path

import optuna.distributions as od
import pytest

from tuner.search.space import SpaceError, parse_space

SPACE = """
op: toy
kernel: toy_kernel
tiling_struct: ToyTiling
args:
  - {name: x, kind: in}
  - {name: y, kind: out}
  - {name: tiling, kind: tiling}
variants:
  plain:
    description: toy
    knobs:
      block_dim: {type: int, low: 1, high: "min(vector_cores, rows)"}
      tile: {type: categorical, choices: [8, 16, 32]}
      buffers: {type: categorical, choices: [1, 2], structural: true}
      copy: {type: categorical, choices: [data_copy, data_copy_pad], structural: true}
    derived:
      ub_used: "buffers * tile * cols * 4"
    constraints:
      - {expr: "ub_used <= ub_bytes", why: "fits UB"}
      - {expr: "copy == 'data_copy_pad' or cols % 8 == 0", why: "DataCopy moves whole 32-byte blocks"}
    tiling:
      rows: rows
      tiles: "ceil_div(rows, tile)"
    block_dim: block_dim
baseline:
  - variant: plain
    knobs: {block_dim: "min(vector_cores, rows)", tile: "16 if cols < 100 else 8", buffers: 2, copy: data_copy}
    why: all cores, double buffering
  - variant: plain
    knobs: {block_dim: 1, tile: 8, buffers: 1, copy: data_copy_pad}
    why: fallback
"""
CONTEXT = {"rows": 100, "cols": 64, "vector_cores": 48, "ub_bytes": 8192}


def space():
    return parse_space(SPACE, Path("toy.yaml"))


def test_distributions_resolve_expressions_for_the_context():
    dists = space().variant("plain").distributions(CONTEXT)
    assert dists["block_dim"] == od.IntDistribution(1, 48)
    assert dists["tile"] == od.CategoricalDistribution((8, 16, 32))
    assert space().variant("plain").distributions({**CONTEXT, "rows": 3})["block_dim"] == od.IntDistribution(1, 3)


def test_constraints_decide_feasibility_before_anything_is_rendered():
    variant = space().variant("plain")
    ok = variant.evaluate({"block_dim": 4, "tile": 16, "buffers": 2, "copy": "data_copy"}, CONTEXT)
    assert ok.feasible and ok.tiling == (("rows", 100), ("tiles", 7)) and ok.block_dim == 4
    too_big = variant.evaluate({"block_dim": 4, "tile": 32, "buffers": 2, "copy": "data_copy"}, CONTEXT)
    assert not too_big.feasible and "fits UB" in too_big.why_infeasible()
    odd = variant.evaluate({"block_dim": 4, "tile": 8, "buffers": 1, "copy": "data_copy"}, {**CONTEXT, "cols": 30})
    assert [c.why for c in odd.violated] == ["DataCopy moves whole 32-byte blocks"]


def test_enumeration_counts_only_feasible_points():
    variant = space().variant("plain")
    assert variant.size(CONTEXT) == 48 * 3 * 2 * 2
    feasible = variant.feasible_points(CONTEXT)
    assert all(variant.evaluate(p, CONTEXT).feasible for p in feasible)
    assert len(feasible) == 48 * 5 * 2  # every tile with one buffer; tiles 8 and 16 with two


def test_structural_knobs_are_the_only_template_inputs():
    variant = space().variant("plain")
    assert variant.structural({"block_dim": 3, "tile": 8, "buffers": 1, "copy": "data_copy"}) == \
        {"buffers": 1, "copy": "data_copy"}


def test_baseline_evaluates_expressions_and_falls_back_when_infeasible():
    entry, params = space().baseline(CONTEXT)
    assert params == {"block_dim": 48, "tile": 16, "buffers": 2, "copy": "data_copy"}
    assert entry.why == "all cores, double buffering"
    entry, params = space().baseline({**CONTEXT, "cols": 30})
    assert entry.why == "fallback" and params["copy"] == "data_copy_pad"


def test_fingerprint_changes_with_the_space_and_context():
    variant = space().variant("plain")
    assert variant.fingerprint(CONTEXT) == variant.fingerprint(dict(CONTEXT))
    assert variant.fingerprint(CONTEXT) != variant.fingerprint({**CONTEXT, "rows": 3})
    other = parse_space(SPACE.replace("[8, 16, 32]", "[8, 16, 32, 64]"), Path("toy.yaml")).variant("plain")
    assert other.fingerprint(CONTEXT) != variant.fingerprint(CONTEXT)


@pytest.mark.parametrize(("bad", "message"), [
    ("op: [", "not valid YAML"),
    ("- 1", "expected a mapping"),
    ("op: toy\nkernel: k\nargs: []\n", "missing 'variants'"),
    (SPACE.replace("kind: tiling", "kind: scalar"), "has kind 'scalar'"),
    (SPACE.replace("type: int, low: 1", "type: float, low: 1"), "unknown type 'float'"),
    (SPACE.replace("type: categorical, choices: [1, 2], structural: true",
                   "type: int, low: 1, high: 2, structural: true"),
     "cannot be structural"),
    (SPACE.replace("variant: plain\n    knobs: {block_dim: 1", "variant: nope\n    knobs: {block_dim: 1"),
     "unknown variant 'nope'"),
])
def test_malformed_spaces_are_one_line_errors(bad, message):
    with pytest.raises(SpaceError, match=message):
        parse_space(bad, Path("toy.yaml"))


def test_expression_errors_name_the_variant():
    broken = parse_space(SPACE.replace('"buffers * tile * cols * 4"', '"buffers * nope"'), Path("toy.yaml"))
    with pytest.raises(SpaceError, match="variant 'plain'.*unknown name 'nope'"):
        broken.variant("plain").evaluate({"block_dim": 1, "tile": 8, "buffers": 1, "copy": "data_copy"}, CONTEXT)


def test_an_empty_space_names_the_constraints_that_between_them_rule_out_every_point():
    from tuner.data.socs import get_soc
    from tuner.ops import get_operator
    from tuner.search.space import load_space, run_context

    context = run_context(get_operator("softmax"), (3, 1001), "float16", get_soc("Ascend310P3"))
    rows = load_space("softmax").variant("rows")
    assert not rows.feasible_points(context)
    why = rows.why_empty(context)
    # neither alone rules out every point: unaligned rows need DataCopyPad, which 310P lacks
    assert "unaligned rows need DataCopyPad" in why and "DataCopyPad does not exist on 310P" in why
    aligned = run_context(get_operator("softmax"), (3, 1024), "float16", get_soc("Ascend310P3"))
    assert rows.feasible_points(aligned)
