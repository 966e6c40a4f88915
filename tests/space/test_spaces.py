import re
from pathlib import Path

import optuna.distributions as od
import pytest

from tuner.space.spaces import SpaceError, load_space, parse_space, with_rewrites

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
    from tuner.space.spaces import load_space, run_context

    context = run_context(get_operator("softmax"), (3, 1001), "float16", get_soc("Ascend310P3"))
    rows = load_space("softmax").variant("rows")
    assert not rows.feasible_points(context)
    why = rows.why_empty(context)
    # neither alone rules out every point: unaligned rows need DataCopyPad, which 310P lacks (the support table says)
    assert "unaligned rows need DataCopyPad" in why and "DataCopyPad does not exist on this SoC" in why
    assert "api_support.yaml, has_data_copy_pad: ASC §4.4" in why and "not on 310P" in why
    aligned = run_context(get_operator("softmax"), (3, 1024), "float16", get_soc("Ascend310P3"))
    assert rows.feasible_points(aligned)


def test_every_packaged_space_parses_within_the_expression_bounds():
    from tuner.space.spaces import PROJECT_ROOT, load_space

    ops = sorted(p.stem for p in (PROJECT_ROOT / "search_spaces").glob("*.yaml"))
    assert len(ops) >= 9
    for op in ops:
        assert load_space(op).variants, op  # every expression of every variant is parsed when it is read


@pytest.mark.parametrize(("text", "bound"), [
    ("a: " + "[" * 5000 + "]" * 5000, "YAML nested more than 32 levels deep"),
    ("a: &x [1, 2]\nb: [*x, *x]\n", r"YAML aliases \(\*x\) are not allowed"),
    ("a: '" + "x" * (1 << 20) + "'\n", r"\d+ characters of YAML exceed the limit of 1048576"),
    ("a: [\n", r"not valid YAML \(line 2\)"),
    ("a: " + "9" * 5000 + "\n", r"not valid YAML \(Exceeds the limit \(4300 digits\)"),
    ("a: 2001-13-45\n", r"not valid YAML \(month must be in 1..12\)"),
])
def test_yaml_from_outside_the_package_is_read_within_bounds(text, bound):
    from tuner.space.spaces import load_yaml

    with pytest.raises(SpaceError, match=f"where: {bound}"):
        load_yaml(text, "where")
    assert load_yaml("a: {b: [1, 2]}\n", "where") == {"a": {"b": [1, 2]}}


@pytest.mark.parametrize(("knob", "message"), [
    ('{type: int, low: 1, high: "10 ** 12"}', "1000000000000 values, more than the 500000"),
    ('{type: int, low: 1, high: "1e400"}', "bound inf is not an integer"),
    ('{type: int, low: 1, high: "rows ** 2000"}', "exceeds the limit of 4096 bits"),
])
def test_knob_ranges_beyond_the_bounds_are_one_line_errors(knob, message):
    broken = parse_space(SPACE.replace('{type: int, low: 1, high: "min(vector_cores, rows)"}', knob), Path("toy.yaml"))
    with pytest.raises(SpaceError, match=f"variant 'plain': .*{message}"):
        broken.variant("plain").feasible_points(CONTEXT)


def test_a_knob_step_must_be_a_positive_integer():
    with pytest.raises(SpaceError, match="step must be a positive integer"):
        parse_space(SPACE.replace("low: 1, high:", "step: 0, low: 1, high:"), Path("toy.yaml"))


def _rewrite(variants: Path, name: str, *, space_edit=None, yaml_text: str | None = None,
             template: str | None = None) -> None:
    import yaml

    from tuner.space.spaces import load_space

    parent = load_space("softmax").variant("rows")
    space = {k: v for k, v in parent.raw.items() if k != "template"}
    if space_edit:
        space = space_edit(space)
    directory = variants / name
    directory.mkdir(parents=True)
    lineage = {"name": name, "parent": "rows", "origin": "llm", "proposal": "llm-1", "rationale": "", "space": space}
    (directory / "variant.yaml").write_text(yaml_text if yaml_text is not None else yaml.safe_dump(lineage))
    (directory / "kernel.cpp.j2").write_text(template if template is not None else parent.template.read_text())


def _constraint(expr: str):
    return lambda space: {**space, "constraints": [*space["constraints"], {"expr": expr, "why": "w"}]}


def test_a_resumed_run_skips_each_rewritten_variant_that_breaks_a_bound(tmp_path, caplog):
    from tuner.space.spaces import load_space, with_rewrites

    variants = tmp_path / "variants"
    _rewrite(variants, "rows+good")
    _rewrite(variants, "rows+power", space_edit=_constraint("9**9**9 > rows"))
    _rewrite(variants, "rows+long", space_edit=_constraint("1+" * 30000 + "1 > rows"))
    _rewrite(variants, "rows+deep", yaml_text="name: rows+deep\nspace: " + "[" * 5000 + "]" * 5000 + "\n")
    _rewrite(variants, "rows+alias", yaml_text="name: rows+alias\nspace: &s {knobs: *s}\n")
    _rewrite(variants, "rows+list", space_edit=lambda space: {**space, "knobs": [1, 2]})
    _rewrite(variants, "rows+nested", template="{% if 1 %}" * 200 + "{% endif %}" * 200)
    _rewrite(variants, "rows+binary", yaml_text="")
    (variants / "rows+binary" / "variant.yaml").write_bytes(b"\xff\xfe")
    space = with_rewrites(load_space("softmax"), variants)
    assert set(space.variants) == {"rows", "split", "rows+good"}
    skipped = {m[1]: m[0] for r in caplog.records
               if (m := re.fullmatch(r"warning: skipping the rewritten variant (\S+): .*", r.getMessage()))}
    assert set(skipped) == {"rows+power", "rows+long", "rows+deep", "rows+alias", "rows+list", "rows+nested",
                            "rows+binary"}
    assert all("\n" not in message and len(message) < 500 for message in skipped.values())
    assert "exponent 387420489 exceeds the limit of 4096" in skipped["rows+power"]
    assert "longer than the limit of 2000 characters" in skipped["rows+long"]
    assert "nested more than 32 levels" in skipped["rows+deep"]
    assert "aliases" in skipped["rows+alias"]
    assert "malformed rewritten variant" in skipped["rows+list"]
    assert "nested too deeply to parse" in skipped["rows+nested"]
    assert "UnicodeDecodeError" in skipped["rows+binary"]


def test_an_unfinished_rewrite_is_not_loaded_as_a_variant(tmp_path: Path):
    space = load_space("softmax")
    pending = tmp_path / ".pending-rows+llm-1"
    pending.mkdir()
    (pending / "variant.yaml").write_text("name: rows+llm-1\nspace: {}\n")
    assert with_rewrites(space, tmp_path).variants.keys() == space.variants.keys()


SHARED = """
knobs:
  block_dim:
    rows: {type: int, low: 1, high: "min(vector_cores, rows)"}
  buffers:
    "1-2": {type: categorical, choices: [1, 2], structural: true}
derived:
  ub_used:
    tiles: "buffers * tile * cols * 4"
constraints:
  pad:
    - {expr: "copy == 'data_copy' or has_data_copy_pad", why: "no DataCopyPad"}
  copy:
    - {expr: "copy == 'data_copy_pad' or cols % 8 == 0", why: "DataCopy moves whole 32-byte blocks"}
    - use: pad
"""


def _shared_space(tmp_path: Path, shared: str = SHARED, edit=lambda text: text):
    """The toy space written on shared entries: its knobs, derived value and constraints named with `use`."""
    text = SPACE.replace('block_dim: {type: int, low: 1, high: "min(vector_cores, rows)"}', "block_dim: {use: rows}")
    text = text.replace("buffers: {type: categorical, choices: [1, 2], structural: true}", "buffers: {use: 1-2}")
    text = text.replace('ub_used: "buffers * tile * cols * 4"', "ub_used: {use: tiles}")
    aligned = """- {expr: "copy == 'data_copy_pad' or cols % 8 == 0", why: "DataCopy moves whole 32-byte blocks"}"""
    text = text.replace(aligned, "- use: copy")
    (tmp_path / "families.yaml").write_text(shared)
    return parse_space(edit(text), Path("toy.yaml"), shared=tmp_path / "families.yaml")


def test_shared_entries_resolve_in_place_into_the_variant_written_out(tmp_path):
    written = space().variant("plain")
    shared = _shared_space(tmp_path).variant("plain")
    assert shared.knobs == written.knobs and shared.derived == written.derived  # same order, same definitions
    assert [c.expr for c in shared.constraints] == [c.expr for c in written.constraints] + \
        ["copy == 'data_copy' or has_data_copy_pad"]
    assert shared.raw["knobs"]["block_dim"] == {"type": "int", "low": 1, "high": "min(vector_cores, rows)"}
    assert "'use'" not in str(shared.raw)  # the resolved space: what a rewrite stores in its variant.yaml


@pytest.mark.parametrize(("shared", "edit", "message"), [
    (SHARED, lambda t: t.replace("{use: 1-2}", "{use: 1-3}"),
     r"knob 'buffers': .*families.yaml has no knobs 'buffers' of form '1-3' \(forms: 1-2\)"),
    (SHARED, lambda t: t.replace("- use: copy", "- use: kopy"),
     r"constraints: .*families.yaml has no constraint set 'kopy' \(sets: pad, copy\)"),
    (SHARED.replace("    - use: pad", "    - use: copy"), lambda t: t,
     r"constraint set 'copy' uses itself \(copy -> copy\)"),
    ("knobs: [1]", lambda t: t, "expected mappings 'knobs', 'derived' and 'constraints'"),
])
def test_a_shared_entry_that_cannot_be_resolved_is_a_one_line_error(tmp_path, shared, edit, message):
    with pytest.raises(SpaceError, match=message) as info:
        _shared_space(tmp_path, shared, edit)
    assert "\n" not in str(info.value)


def test_a_rewritten_variant_names_no_shared_entry(tmp_path):
    from tuner.space.spaces import rewritten_variant

    _rewrite(tmp_path, "rows+use", space_edit=lambda space: {**space, "constraints": [{"use": "sync"}]})
    with pytest.raises(SpaceError, match="names a shared entry, but a rewritten variant's space is stored resolved"):
        rewritten_variant(tmp_path / "rows+use", "softmax")


@pytest.mark.parametrize(("soc", "dtype", "pad", "cast"), [
    ("Ascend910B2", "bfloat16", True, True),
    ("Ascend950PR_9589", "bfloat16", True, True),
    ("Ascend310P3", "float16", False, True),
    ("Ascend310P3", "bfloat16", False, False),
    ("Ascend310P3", "float32", False, True),
])
def test_api_availability_in_the_context_follows_the_support_table(soc, dtype, pad, cast):
    from tuner.data.socs import get_soc
    from tuner.ops import get_operator
    from tuner.space.spaces import run_context

    context = run_context(get_operator("softmax"), (4, 64), dtype, get_soc(soc))
    assert (context["has_data_copy_pad"], context["has_fp32_cast"]) == (pad, cast)
    assert context["has_exp"] == context["has_whole_reduce_sum"] == (dtype != "bfloat16")  # half and float only
    assert context["has_brcb"] == (dtype != "bfloat16" or soc != "Ascend310P3")  # Brcb's types differ on 310P


def test_a_constraint_on_api_availability_cites_the_support_table():
    rows = load_space("reduce_sum").variant("rows")
    [pad] = [c for c in rows.constraints if c.expr == "has_data_copy_pad"]
    assert pad.why == ("outputs are written with DataCopyPad, which this SoC lacks (tuner/data/api_support.yaml, "
                       "has_data_copy_pad: ASC §4.4: A2/A3 and 200I/500 A2 only; not on 310P AI Core or 910A)")
    assert "api_support.yaml" not in str(rows.raw)  # the citation is added when read, not stored


WORKSPACE = '  - {name: tiling, kind: tiling}\n  - {name: workspace, kind: workspace, bytes: "block_dim * 32 + 1000"}\n'
POINT = {"block_dim": 4, "tile": 16, "buffers": 2, "copy": "data_copy"}


def _with_workspace(entry: str = WORKSPACE) -> str:
    return SPACE.replace("  - {name: tiling, kind: tiling}\n", entry)


def test_a_workspace_argument_is_sized_at_the_point_and_rounded_up_to_32_bytes():
    parsed = parse_space(_with_workspace(), Path("toy.yaml"))
    assert [(a.name, a.kind) for a in parsed.args] == [("x", "in"), ("y", "out"), ("tiling", "tiling"),
                                                       ("workspace", "workspace")]
    point = parsed.variant("plain").evaluate(POINT, CONTEXT)
    assert parsed.workspace_bytes(point) == 1152  # 4 * 32 + 1000 = 1128, rounded up
    derived = parse_space(_with_workspace(WORKSPACE.replace('"block_dim * 32 + 1000"', '"ub_used // 2"')),
                          Path("toy.yaml"))
    assert derived.workspace_bytes(derived.variant("plain").evaluate(POINT, CONTEXT)) == 2 * 16 * 64 * 4 // 2
    literal = parse_space(_with_workspace(WORKSPACE.replace('"block_dim * 32 + 1000"', "33")), Path("toy.yaml"))
    assert literal.workspace_bytes(literal.variant("plain").evaluate(POINT, CONTEXT)) == 64
    assert space().workspace_bytes(space().variant("plain").evaluate(POINT, CONTEXT)) == 0  # none declared


@pytest.mark.parametrize(("entry", "message"), [
    ("  - {name: workspace, kind: workspace}\n", "argument 'workspace': a workspace needs bytes"),
    ("  - {name: tiling, kind: tiling, bytes: 64}\n", "argument 'tiling': only a workspace has bytes"),
    ("  - {name: workspace, kind: workspace, bytes: 0}\n", "workspace 'workspace': bytes 0 is not positive"),
    ("  - {name: workspace, kind: workspace, bytes: -32}\n", "bytes -32 is not positive"),
    ("  - {name: workspace, kind: workspace, bytes: [64]}\n", r"bytes \[64\] is not an int or an expression"),
    ("  - {name: workspace, kind: workspace, bytes: true}\n", "bytes True is not an int or an expression"),
    ('  - {name: workspace, kind: workspace, bytes: "block_dim *"}\n', "workspace 'workspace': .*syntax"),
    (WORKSPACE + "  - {name: scratch, kind: workspace, bytes: 64}\n", "more than one workspace argument"),
    ("  - tiling\n", "argument 'tiling' is not a mapping"),
    ("  - {kind: tiling}\n", "toy.yaml: argument: missing 'name'"),
])
def test_a_malformed_workspace_is_a_one_line_space_error(entry, message):
    with pytest.raises(SpaceError, match=message) as raised:
        parse_space(_with_workspace(entry), Path("toy.yaml"))
    assert str(raised.value).startswith("toy.yaml: ") and "\n" not in str(raised.value)


@pytest.mark.parametrize(("size", "message"), [
    ('"block_dim - block_dim"', "bytes 'block_dim - block_dim' is 0, not a positive number of bytes"),
    ('"nope * 2"', "unknown name 'nope'"),
    ('"1000 // (block_dim - 4)"', "division or modulo by zero"),
])
def test_a_workspace_that_does_not_size_at_a_point_is_a_space_error(size, message):
    parsed = parse_space(_with_workspace(WORKSPACE.replace('"block_dim * 32 + 1000"', size)), Path("toy.yaml"))
    point = parsed.variant("plain").evaluate(POINT, CONTEXT)
    with pytest.raises(SpaceError, match=f"workspace 'workspace': .*{re.escape(message)}"):
        parsed.workspace_bytes(point)
