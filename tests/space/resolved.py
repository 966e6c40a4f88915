"""Every packaged search space as the loader resolves it, and what it gives in a set of run contexts: recorded
once before the spaces were rewritten on shared knob families and constraint sets, and required of them after it
(tests/space/test_resolved.py).

    python -m tests.space.resolved            # record (overwrites tests/space/data/resolved_spaces.json)
    python -m tests.space.resolved KEY ...    # record those contexts again, the rest kept

Per variant: its knobs (in order, with choices, bounds, step and structural flag), derived values, constraints
(expression and reason), tiling fields and block count. Per context (every operator x three shapes x its dtypes x
three SoCs, gelu under both of its formulas): the number of points of each variant, and its feasible points in
enumeration order with their tiling and block count, as a count and a SHA-256; and the baseline the run starts
from.

Contexts recorded again since: when the templates' UB budget became the whole UB a TPipe gives, less the reserve only
where a kernel calls an API that uses it (issue 16), three contexts on Ascend310P3 (256 KB of UB; the budget was
256 KB less 8448 bytes) gained feasible points of rows too long for it before, baselines unchanged:
rmsnorm-2x20000-float16 (rows 4 -> 10), softmax-2x20000-float16 (rows 88 -> 104), swiglu-2x20000-float16
(rows 24 -> 26).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from tuner.data.socs import get_soc
from tuner.ops import get_operator, operators
from tuner.space.spaces import PROJECT_ROOT, SearchSpace, Variant, load_space, run_context

RECORDING = Path(__file__).parent / "data" / "resolved_spaces.json"
ROW_SHAPES = ((4, 512), (3, 300), (2, 20000))  # aligned rows, unaligned rows, rows beyond the unified buffer
# aligned, an unaligned tail, more 32-byte blocks than any SoC has vector cores (kept small: every block count
# of a flat array's range is enumerated)
FLAT_SHAPES = ((2, 48), (3, 37), (1, 640))
FLAT_OPS = ("add", "silu", "gelu")
SOCS = ("Ascend910B2", "Ascend310P3", "Ascend950PR_9589")
OPTION_SETS: dict[str, tuple[dict[str, str], ...]] = {"gelu": ({}, {"approximate": "tanh"})}


def variant_record(variant: Variant) -> dict[str, Any]:
    """What the loader made of one variant: everything a point's evaluation and rendering depend on."""
    return {
        "description": variant.description,
        "template": str(variant.template.relative_to(PROJECT_ROOT)),
        "knobs": [{"name": k.name, "type": k.type, "choices": list(k.choices), "low": k.low, "high": k.high,
                   "step": k.step, "structural": k.structural} for k in variant.knobs],
        "derived": [list(pair) for pair in variant.derived],
        "constraints": [[c.expr, c.why] for c in variant.constraints],
        "tiling": [list(pair) for pair in variant.tiling],
        "block_dim": variant.block_dim,
    }


def space_record(space: SearchSpace) -> dict[str, Any]:
    return {
        "kernel": space.kernel, "tiling_struct": space.tiling_struct,
        "args": [[a.name, a.kind, a.tensor] for a in space.args],
        "baselines": [{"variant": b.variant, "knobs": dict(b.knobs), "why": b.why} for b in space.baselines],
        "variants": {name: variant_record(v) for name, v in space.variants.items()},
    }


def feasible_record(variant: Variant, context: dict[str, Any]) -> dict[str, Any]:
    """The variant's feasible points in a context, in enumeration order, each with its tiling and block count."""
    feasible = []
    for params in variant.points(context):
        point = variant.evaluate(params, context)
        if point.feasible:
            feasible.append([params, [list(t) for t in point.tiling], point.block_dim])
    digest = hashlib.sha256(json.dumps(feasible, sort_keys=True).encode()).hexdigest()
    return {"points": variant.size(context), "feasible": len(feasible), "sha256": digest}


def contexts() -> list[tuple[str, str, tuple[int, ...], str, str, dict[str, str]]]:
    """(key, op, shape, dtype, soc, options) of every recorded context."""
    found = []
    for name, op in operators().items():
        for options in OPTION_SETS.get(name, ({},)):
            for shape in FLAT_SHAPES if name in FLAT_OPS else ROW_SHAPES:
                for dtype in op.dtypes:
                    for soc in SOCS:
                        opts = "".join(f"-{k}={v}" for k, v in options.items())
                        key = f"{name}-{'x'.join(map(str, shape))}-{dtype}-{soc}{opts}"
                        found.append((key, name, shape, dtype, soc, options))
    return found


def context_record(op_name: str, shape: tuple[int, ...], dtype: str, soc: str,
                   options: dict[str, str]) -> dict[str, Any]:
    op = get_operator(op_name).with_options(options)
    space = load_space(op_name)
    context = run_context(op, shape, dtype, get_soc(soc))
    found = space.baseline(context)
    baseline = None if found is None else [space.baselines.index(found[0]), found[1]]
    return {"variants": {name: feasible_record(v, context) for name, v in space.variants.items()},
            "baseline": baseline}


def record() -> dict[str, Any]:
    return {"spaces": {name: space_record(load_space(name)) for name in operators()},
            "contexts": {key: context_record(*rest) for key, *rest in contexts()}}


if __name__ == "__main__":
    RECORDING.parent.mkdir(parents=True, exist_ok=True)
    recorded = record() if len(sys.argv) == 1 else json.loads(RECORDING.read_text())
    for key, *rest in contexts():
        if key in sys.argv[1:]:
            recorded["contexts"][key] = context_record(*rest)
    RECORDING.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"wrote {RECORDING}", file=sys.stderr)
