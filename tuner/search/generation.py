"""What the generate-compile-run-fix loop (`Rewriter.generate`) needs besides the rewrites' machinery: the context
it tells the LLM about a user's task, and the search space a kernel the LLM writes is tuned over.

The space, decided here rather than asked for whole: the kernel keeps the run's arguments (the task's tensors, the
tiling buffer, a workspace where the generated kernel had one), so the LLM declares only its own knobs and
constraints (the rewrites' yaml block, int ranges allowed). The variant's space is a frame plus those: without a
generated kernel, the frame is the launch's block count alone (`block_dim`, 1 to the SoC's vector cores, also the
tiling struct's first field, so the struct is never empty); where the tuner's own kernel failed, the frame is that
kernel's space, so the LLM may keep its knobs and tiling. A declared structural knob is a template variable, any
other a tiling field after the frame's. The kernel is checked at one point of its space (`draft_point`): the failed
kernel's knobs where they are feasible, else the point with the most blocks (the first such, other knobs at their
first values), and then joins the search, where every other point is checked as it is measured.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tuner.data.dtypes import C_TYPES
from tuner.errors import UsageError
from tuner.graph.operator import GRAPH_RTOL, GraphOperator
from tuner.mutate.base import GenerationContext
from tuner.search.evaluate import INPUT_SETS
from tuner.space.expr import ExpressionError, parse
from tuner.space.spaces import SearchSpace, SpaceError, Variant, load_yaml

__all__ = ["FRAME", "MAX_KNOBS", "GenerationError", "declarations", "draft_point", "generated_space",
           "generation_context"]

# The space of a kernel written from nothing before its own knobs: the launch's block count.
FRAME: dict[str, Any] = {"knobs": {"block_dim": {"type": "int", "low": 1, "high": "vector_cores"}},
                         "constraints": [], "tiling": {"block_dim": "block_dim"}, "block_dim": "block_dim"}
MAX_KNOBS = 6  # knobs an answer may declare: every point of the space is enumerated and checked
MAX_CHOICES = 16
MAX_CONSTRAINTS = 16


class GenerationError(UsageError):
    """Raised when a task the tuner has no kernel of gets none from the LLM either: no answer passed in the rounds
    given, or the LLM could not be asked."""


def generation_context(op: GraphOperator, space: SearchSpace, context: Mapping[str, Any], facts: Mapping[str, Any],
                       base: Mapping[str, Any], draft: str | None = None, failure: str = "", trigger: str = "lowering",
                       diagnostics: str = "", rendered: str | None = None) -> GenerationContext:
    """The first round's context for `op`: its task, why it has no working kernel (its refusal, or `failure`, the
    failed kernel's with its `diagnostics`), and the kernel's interface in `space` (its arguments) with the knobs
    and tiling of `base` (FRAME, or the failed kernel's space)."""
    shapes = {**op.input_shapes(op.shape), **op.output_shapes(op.shape)}
    dtypes = {**op.input_dtypes(op.dtype), **op.output_dtypes(op.dtype)}
    args = []
    for arg in space.args:
        entry: dict[str, Any] = {"name": arg.name, "kind": arg.kind}
        tensor = arg.tensor or arg.name
        if arg.kind in ("in", "out") and tensor in shapes:
            size = 1
            for dim in shapes[tensor]:
                size *= dim
            entry.update(tensor=tensor, dtype=dtypes[tensor], ctype=C_TYPES[dtypes[tensor]], shape=shapes[tensor],
                         elements=size)
        elif arg.kind == "workspace":
            entry["bytes"] = arg.bytes
        args.append(entry)
    names = {k: v for k, v in context.items() if isinstance(v, (int, str)) and not k.startswith("has_")}
    return GenerationContext(
        op=op.name, shape=tuple(op.shape), dtype=op.dtype, soc=str(facts["soc"]), source_name=op.source.name,
        source=op.source.read_text(errors="replace"), refusal=failure or op.refusal,
        ir=str(op.graph) if op.graph else None, trigger=trigger, diagnostics=diagnostics, rendered=rendered,
        kernel=space.kernel, tiling_struct=space.tiling_struct, args=args,
        knob_space=copy.deepcopy(dict(base.get("knobs") or {})), tiling=[str(k) for k in base.get("tiling") or {}],
        names=names, checks=_checks(op), draft=draft, soc_limits=dict(facts["soc_limits"]))


def _checks(op: GraphOperator) -> str:
    dtypes = sorted({t.dtype for t in op.outs})
    tolerances = ", ".join(f"{d} rtol {GRAPH_RTOL[d]:g}" if GRAPH_RTOL[d] else f"{d} exactly" for d in dtypes)
    return (f"Every output is compared, element by element, with the task's forward run on CPU in float64 on "
            f"{INPUT_SETS} input sets drawn by its get_inputs() under other seeds (parameters and buffers as the "
            f"module holds them): {tolerances}, with atol 1% of rtol times the output's largest magnitude, plus "
            "PyTorch's own error in the task's dtypes. int64 tensors are read and written as int32, bool as uint8_t "
            "(0 or 1).")


def generated_space(base: Mapping[str, Any], knobs_yaml: str | None, description: str) -> dict[str, Any]:
    """The variant space of a kernel the LLM wrote: `base` (FRAME or the failed kernel's space) plus the knobs and
    constraints its yaml block declares; SpaceError for a block that redeclares a knob or exceeds the bounds."""
    space = copy.deepcopy(dict(base))
    space.pop("lineage", None)
    space.pop("template", None)
    space["description"] = description
    if not knobs_yaml:
        return space
    knobs, constraints = declarations(knobs_yaml, MAX_KNOBS, MAX_CONSTRAINTS, "a kernel may declare")
    tiling = dict(space.get("tiling") or {})
    for name, knob in knobs.items():
        if name in space["knobs"]:
            raise SpaceError(f"the yaml block redeclares knob '{name}', which the kernel already has")
        if not isinstance(knob, Mapping):
            raise SpaceError(f"knob '{name}' must be a mapping with its type")
        if len(knob.get("choices") or ()) > MAX_CHOICES:
            raise SpaceError(f"knob '{name}': at most {MAX_CHOICES} choices")
        if not knob.get("structural"):
            tiling[str(name)] = str(name)
    space["knobs"] = {**space["knobs"], **knobs}
    space["constraints"] = [*(space.get("constraints") or []), *constraints]
    space["tiling"] = tiling
    return space


def declarations(knobs_yaml: str, max_knobs: int, max_constraints: int, who: str
                 ) -> tuple[Mapping[str, Any], list[Any]]:
    """The knobs and constraints an answer's yaml block declares, each constraint an expression of the language,
    at most `max_knobs` and `max_constraints` (`who`: "a rewrite may add", ...); SpaceError otherwise."""
    declared = load_yaml(knobs_yaml, "the yaml block") or {}
    if not isinstance(declared, Mapping):
        raise SpaceError("the yaml block must be a mapping with 'knobs' and/or 'constraints'")
    knobs, constraints = declared.get("knobs") or {}, declared.get("constraints") or []
    if not isinstance(knobs, Mapping) or not isinstance(constraints, list):
        raise SpaceError("the yaml block's 'knobs' must be a mapping and its 'constraints' a list")
    if len(knobs) > max_knobs or len(constraints) > max_constraints:
        raise SpaceError(f"the yaml block declares {len(knobs)} knobs and {len(constraints)} constraints; {who} at "
                         f"most {max_knobs} and {max_constraints} (every point of its space is checked against every "
                         "constraint)")
    for item in constraints:
        try:
            parse(str(item["expr"]))
        except (KeyError, TypeError, ExpressionError) as exc:
            raise SpaceError(f"constraint {item!r}: {exc}") from None
    return knobs, constraints


def draft_point(variant: Variant, params: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any] | None:
    """The point a written kernel is checked at: `params` (each knob it lacks at its first value) where feasible,
    else the feasible point with the most blocks; None where no point is feasible."""
    warm = {}
    for knob in variant.knobs:
        values = knob.values(context)
        warm[knob.name] = params[knob.name] if knob.name in params else (values[0] if values else None)
    if params and variant.evaluate(warm, context).feasible:
        return warm
    points = variant.feasible_points(context)
    if not points:
        return None
    return max(points, key=lambda p: variant.evaluate(p, context).block_dim)
