"""The builds an export of a shape set holds: every kernel the dispatch rule can pick for a shape in its range, each
named by its variant and a digest of its structural knobs (what a build depends on; the tiling is data)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from tuner.errors import UsageError
from tuner.search.dispatch import Choice, Dispatcher, probe_shapes
from tuner.space.render import render_kernel
from tuner.space.spaces import Variant

__all__ = ["Build", "build_key", "exported_builds"]


def build_key(choice: Choice) -> str:
    """The name of the build a choice runs: its variant and a digest of its structural knobs."""
    structural = json.dumps(choice.variant.structural(choice.params), sort_keys=True, default=str)
    return f"{choice.variant.name.replace('+', '_')}-{hashlib.sha256(structural.encode()).hexdigest()[:8]}"


def _render(dispatcher: Dispatcher, choice: Choice) -> str:
    space = dispatcher.space(choice.bucket)
    return render_kernel(choice.variant.template, kernel=space.kernel, dtype=dispatcher.table.dtype,
                         struct=space.tiling_struct, tiling_fields=[name for name, _ in choice.variant.tiling],
                         structural=choice.variant.structural(choice.params), options=dispatcher.op.opts)


def _unaligned(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (*shape[:-1], max(1, shape[-1] - 1))


@dataclass(frozen=True)
class Build:
    """One build an export holds: its name (`build_key`), source, variant and structural knobs."""

    key: str
    source: str
    variant: Variant
    structural: dict[str, Any]


def exported_builds(dispatcher: Dispatcher) -> dict[str, Build]:
    """Build name → build, for every build the rule picks at the table's buckets, its probes and one shape short of
    whole 32-byte rows beside each: what a shape in the range needs (another is a one-line NoKernelForShape)."""
    shapes = [b.shape for b in dispatcher.table.buckets] + probe_shapes(dispatcher.table)
    builds: dict[str, Build] = {}
    for shape in dict.fromkeys(shapes + [_unaligned(s) for s in shapes]):
        try:
            choice = dispatcher.choose(shape)
        except UsageError:
            continue
        key = build_key(choice)
        if key not in builds:
            builds[key] = Build(key, _render(dispatcher, choice), choice.variant,
                                choice.variant.structural(choice.params))
    return builds
