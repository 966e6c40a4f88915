"""The rule-based rewriter used when no LLM is configured: a catalog of structural rewrites, each a Jinja child
template that overrides named {% block %}s of a variant's template (the kernel library's standard blocks, which a
skeleton gives every template on it, or an operator's own), written for the operators and variants it names, and
proposed when the search stalls.

A rule counts only if it renders a source the parent's search space cannot already produce. Exactly: let S be
the parent variant's structural knob combinations that are feasible in the run's context (at least one point
with those structural values meets every constraint), P the parent template's sources over S and C the child's.
Two sources are the same when their C++ token sequences are (comments and layout ignored). A rule counts when
the child's source for the candidate's structural knobs is not in P, or, with no candidate, when C holds a
source outside P.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml
from jinja2 import nodes

from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.mutate.base import MutationContext, Mutator, Proposal
from tuner.ops import get_operator
from tuner.space.expr import evaluate, parse
from tuner.space.render import TemplateError, library_files, render_kernel
from tuner.space.spaces import PROJECT_ROOT, Variant, load_space, run_context

CATALOG = Path(__file__).resolve().parent / "rules" / "catalog.yaml"
PARENT_NAME = "parent.cpp.j2"
EXTENDS = f'{{% extends "{PARENT_NAME}" %}}'
_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\w+|\S', re.S)


class CatalogError(UsageError):
    """Raised when the rule catalog is malformed (a tuner bug, found when the rewriter is made)."""


@dataclass(frozen=True)
class Rule:
    """One catalog entry: the operators and variants it applies to, when, what it is expected to improve, and its
    child template."""

    name: str
    ops: Mapping[str, tuple[str, ...]]  # operator -> the variants of it whose templates the rule is written for
    triggers: tuple[str, ...]
    applies_when: str
    expected: str
    improves: tuple[str, ...]
    file: Path
    constraints: tuple[Mapping[str, str], ...] = ()

    @property
    def template(self) -> str:
        return self.file.read_text()

    @property
    def rationale(self) -> str:
        return f"applies when {self.applies_when}; expected: {self.expected}"

    @property
    def targets(self) -> list[tuple[str, str]]:
        """Every (operator, variant) the rule is written for."""
        return [(op, variant) for op, variants in self.ops.items() for variant in variants]

    def applies_to(self, op: str, variant: str) -> bool:
        """Whether the rule is written for this operator's variant (a packaged variant's name, no lineage)."""
        return variant in self.ops.get(op, ())

    def knobs_yaml(self) -> str | None:
        """The constraints the rule-made variant adds to its parent's space, as the Proposal carries them."""
        return yaml.safe_dump({"constraints": [dict(c) for c in self.constraints]}) if self.constraints else None


def load_catalog(path: Path = CATALOG) -> list[Rule]:
    """Every rule of the catalog, its expressions parsed and its child template checked to extend the parent."""
    raw = yaml.safe_load(path.read_text())
    rules = []
    for entry in raw["rules"]:
        try:
            rule = Rule(name=entry["name"], ops={op: tuple(variants) for op, variants in entry["ops"].items()},
                        triggers=tuple(entry["triggers"]), applies_when=entry["applies_when"],
                        expected=entry["expected"], improves=tuple(entry["improves"]),
                        file=path.parent / entry["file"], constraints=tuple(entry.get("constraints") or ()))
        except (KeyError, TypeError, AttributeError) as exc:
            raise CatalogError(f"{path}: rule {entry.get('name', '?')!r} lacks or misspells a field ({exc})") from None
        for expr in (rule.applies_when, *(c["expr"] for c in rule.constraints)):
            parse(expr)
        if not rule.template.startswith(EXTENDS):
            raise CatalogError(f"{rule.file}: a rule's template must start with {EXTENDS}")
        rules.append(rule)
    return rules


def blocks_of(template: str) -> set[str]:
    """Names of the {% block %}s a template defines, with those of the kernel library's skeleton it extends (its
    standard blocks: row_sum, compute, ...); none when it does not parse."""
    try:
        tree = jinja2.Environment().parse(template)
    except jinja2.TemplateSyntaxError:
        return set()
    names = {block.name for block in tree.find_all(nodes.Block)}
    library = library_files()
    for extends in tree.find_all(nodes.Extends):
        parent = extends.template.value if isinstance(extends.template, nodes.Const) else None
        if isinstance(parent, str) and parent in library:
            names |= blocks_of(library[parent])
    return names


def in_lineage(rule: str, variant: str) -> bool:
    """Whether a variant's name says the rule made it or an ancestor ("rows+fold" or, renamed, "rows+fold-2")."""
    return any(re.fullmatch(re.escape(rule) + r"(-\d+)?", part) for part in variant.split("+")[1:])


def tokens(source: str) -> tuple[str, ...]:
    """The C++ tokens of a source without its comments: what decides whether two sources are the same kernel."""
    return tuple(t for t in _TOKEN.findall(source) if not t.startswith(("//", "/*")))


def feasible_structures(variant: Variant, context: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The structural knob combinations for which at least one point of the variant is feasible."""
    structural = [k for k in variant.knobs if k.structural]
    others = [k for k in variant.knobs if not k.structural]
    other_values = [k.values(context) for k in others]
    found = []
    for combo in itertools.product(*(k.values(context) for k in structural)):
        params = dict(zip((k.name for k in structural), combo, strict=True))
        for values in itertools.product(*other_values):
            params.update(zip((k.name for k in others), values, strict=True))
            if variant.evaluate(params, context).feasible:
                found.append(variant.structural(params))
                break
    return found


@contextmanager
def _parent_dir(parent: str) -> Iterator[Path]:
    """A directory holding the parent template as parent.cpp.j2, where a child template can extend it."""
    directory = Path(tempfile.mkdtemp(prefix="tuner-rules-"))
    try:
        (directory / PARENT_NAME).write_text(parent)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class SpaceSources:
    """The sources a parent template renders over its variant's feasible structural combinations, and the test
    whether a child template of it renders anything new."""

    def __init__(self, parent: str, variant: Variant, context: Mapping[str, Any], *, kernel: str, struct: str,
                 options: Mapping[str, Any] | None = None) -> None:
        self.parent, self.variant, self.context = parent, variant, dict(context)
        self.kernel, self.struct, self.options = kernel, struct, dict(options or {})
        # A packaged template and the packaged rules render in this process; a rewritten parent in the bounded one.
        self.trusted = "lineage" not in variant.raw
        self.structures = feasible_structures(variant, context)
        with _parent_dir(parent) as directory:
            self.known = {tokens(self._render(directory / PARENT_NAME, s)) for s in self.structures}

    def _render(self, template: Path, structural: Mapping[str, Any]) -> str:
        return render_kernel(template, kernel=self.kernel, dtype=self.context["dtype"], struct=self.struct,
                             tiling_fields=[name for name, _ in self.variant.tiling], structural=structural,
                             options=self.options, trusted=self.trusted)

    def new_sources(self, child: str, knobs: Mapping[str, Any] | None = None) -> int:
        """How many of the child's sources over the feasible combinations the parent's space lacks; with
        `knobs`, 1 or 0: whether the child's source for the candidate's structural knobs is new."""
        with _parent_dir(self.parent) as directory:
            path = directory / "kernel.cpp.j2"
            path.write_text(child)
            if knobs is not None:
                return int(tokens(self._render(path, self.variant.structural(knobs))) not in self.known)
            return len({tokens(self._render(path, s)) for s in self.structures} - self.known)


def differs_from_space(child: str, parent_template: Path, variant: Variant, context: Mapping[str, Any], *,
                       kernel: str, struct: str, knobs: Mapping[str, Any] | None = None,
                       options: Mapping[str, Any] | None = None) -> bool:
    """Whether the child template (which extends "parent.cpp.j2") renders a source that `parent_template` cannot
    for any feasible structural combination of `variant` in the run's `context` (see the module's docstring)."""
    space = SpaceSources(parent_template.read_text(), variant, context, kernel=kernel, struct=struct, options=options)
    return space.new_sources(child, knobs) > 0


class RuleMutator(Mutator):
    """Proposes the catalog's rules that apply to a stalled variant; every record names its origin "rules"."""

    origin = "rules"

    def __init__(self, catalog: Path = CATALOG, root: Path = PROJECT_ROOT) -> None:
        self.rules = load_catalog(catalog)
        self.root = root
        self.asked: set[tuple[str, str, str]] = set()  # (op, parent variant, rule) already proposed

    def applicable(self, context: MutationContext, names: Mapping[str, Any]) -> list[Rule]:
        """The rules written for this op's variant and this trigger that its lineage lacks and that were not
        proposed for it before, whose blocks the parent defines (itself or through its skeleton) and whose
        condition holds for the candidate's `names` (run context, knobs, derived values)."""
        base = context.variant.split("+")[0]
        defined = blocks_of(context.template)
        return [rule for rule in self.rules
                if rule.applies_to(context.op, base) and context.trigger in rule.triggers
                and not in_lineage(rule.name, context.variant)
                and (context.op, context.variant, rule.name) not in self.asked
                and blocks_of(rule.template) <= defined
                and bool(evaluate(rule.applies_when, names))]

    def propose(self, context: MutationContext) -> list[Proposal]:
        # a rule-made variant is itself a child template; stacking a second child on it is not supported
        if context.trigger != "plateau" or context.template.lstrip().startswith("{% extends"):
            return []
        base = context.variant.split("+")[0]
        if not any(rule.applies_to(context.op, base) for rule in self.rules):
            return []  # no rule is written for it (a user's own operator, generated from its task)
        op = get_operator(context.op).with_options(context.options)
        space = load_space(context.op, self.root)
        if base not in space.variants:
            return []
        variant = space.variant(base)
        run = run_context(op, context.shape, context.dtype, get_soc(context.soc))
        rules = self.applicable(context, variant.evaluate(context.knobs, run).names)
        if not rules:
            return []
        try:
            sources = SpaceSources(context.template, variant, run, kernel=space.kernel, struct=space.tiling_struct,
                                   options=op.opts)
        except TemplateError:  # a rewritten parent with knobs of its own: its sources cannot be enumerated here
            return []
        self.asked.update((context.op, context.variant, rule.name) for rule in rules)
        return [self._proposal(rule, sources, context.knobs) for rule in rules]

    def _proposal(self, rule: Rule, sources: SpaceSources, knobs: Mapping[str, Any]) -> Proposal:
        """The rule as a proposal; refused when it renders nothing new over this parent, or does not render."""
        try:
            new = sources.new_sources(rule.template, knobs)
        except TemplateError as exc:
            return self._refused(rule, f"does not render over this parent: {exc}")
        if not new:
            return self._refused(rule, "renders no source the parent's search space lacks")
        return Proposal(origin=self.origin, name=rule.name, template=rule.template, knobs_yaml=rule.knobs_yaml(),
                        rationale=rule.rationale, extends_parent=True)

    def _refused(self, rule: Rule, why: str) -> Proposal:
        return Proposal(origin=self.origin, name=rule.name, template=None, rationale=rule.rationale, rejected=why)
