"""Search spaces as data: `search_spaces/<op>.yaml` read into variants, knobs, constraints and tiling.

A space is Kernel Tuner's triple — source (a template per variant), tunable values, restrictions — plus
what the loop needs to launch a point: the tiling struct's fields and the block count, all expressions
over the run's context (shape, dtype, SoC) and the knobs.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import logging
import math
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import optuna.distributions as od
import yaml

from tuner.errors import UsageError
from tuner.space.apis import availability, cited
from tuner.space.expr import ExpressionError, evaluate, parse
from tuner.space.render import TemplateError, check_template, library_digest, read_template

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = PROJECT_ROOT / "templates" / "ascendc"
SHARED_FILE = Path("search_spaces") / "_shared" / "families.yaml"
ARG_KINDS = ("in", "out", "tiling", "workspace")
WORKSPACE_ALIGN = 32  # a workspace's size is rounded up to whole 32-byte blocks, DataCopy's unit
ENUMERATION_LIMIT = 500_000
# Bounds of YAML from outside the package (an LLM's yaml block, a rewritten variant's variant.yaml), whose packaged
# counterparts nest 6 levels deep in a few KB: PyYAML builds nested nodes by recursion, and an alias stands for a
# copy of its subtree (a few lines can stand for billions of nodes).
YAML_CHARS = 1 << 20
YAML_DEPTH = 32

_log = logging.getLogger(__name__)
_skipped: set[str] = set()  # warnings given, so that a command that reads the run's space twice warns once


class SpaceError(UsageError):
    """Raised when a search-space file is malformed or cannot be evaluated for a run's context."""


@dataclass(frozen=True)
class ArgSpec:
    """One kernel parameter: an operator input (`in`), an output (`out`), the tiling struct (`tiling`) or a GM
    scratch buffer of `bytes` bytes (`workspace`: an int or an expression over a point's names), zeroed for every
    launch, as CANN passes an operator its workspace."""

    name: str
    kind: str
    tensor: str | None = None
    bytes: object = None

    def workspace_bytes(self, names: Mapping[str, Any]) -> int:
        """This workspace's size at a point (`names`: `Point.names`, the context, knobs and derived values), rounded
        up to WORKSPACE_ALIGN bytes; SpaceError when it does not evaluate to a positive number."""
        try:
            value = evaluate(self.bytes, names)
        except ExpressionError as exc:
            raise SpaceError(f"workspace '{self.name}': {exc}") from None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
            raise SpaceError(f"workspace '{self.name}': bytes {self.bytes!r:.60} is {value!r:.60}, "
                             "not a positive number of bytes")
        return -(-math.ceil(value) // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


@dataclass(frozen=True)
class Knob:
    """A tunable value: categorical choices or an integer range whose bounds may be expressions."""

    name: str
    type: str
    choices: tuple[int | str, ...] = ()
    low: object = None
    high: object = None
    step: int = 1
    structural: bool = False

    def _bounds(self, names: Mapping[str, Any]) -> tuple[int, int]:
        bounds = []
        for expression in (self.low, self.high):
            value = evaluate(expression, names)
            try:
                bounds.append(int(value))
            except (OverflowError, TypeError, ValueError):
                raise ExpressionError(f"knob '{self.name}': bound {value!r:.60} is not an integer") from None
        return bounds[0], bounds[1]

    def values(self, names: Mapping[str, Any]) -> tuple[int | str, ...]:
        """Every value this knob can take in the given context; ExpressionError when its bounds do not evaluate
        to integers or span more values than can be enumerated."""
        if self.type == "categorical":
            return self.choices
        low, high = self._bounds(names)
        values = range(low, high + 1, self.step)
        if len(values) > ENUMERATION_LIMIT:
            raise ExpressionError(f"knob '{self.name}' has {len(values)} values, more than the {ENUMERATION_LIMIT} "
                                  "that can be enumerated")
        return tuple(values)

    def distribution(self, names: Mapping[str, Any]) -> od.BaseDistribution:
        """The Optuna distribution of this knob in the given context."""
        if self.type == "categorical":
            return od.CategoricalDistribution(self.choices)
        low, high = self._bounds(names)
        return od.IntDistribution(low, max(low, high), step=self.step)

    def expressions(self) -> tuple[object, ...]:
        """The bounds of an int knob (expressions or literals); none for a categorical one."""
        return (self.low, self.high) if self.type == "int" else ()


@dataclass(frozen=True)
class Constraint:
    """A condition every feasible point satisfies, with the reason it exists."""

    expr: str
    why: str


@dataclass(frozen=True)
class Point:
    """A knob assignment evaluated in a context: feasibility, and what a launch needs."""

    params: dict[str, Any]
    violated: tuple[Constraint, ...]
    names: dict[str, Any]
    tiling: tuple[tuple[str, int], ...] = ()
    block_dim: int = 0

    @property
    def feasible(self) -> bool:
        return not self.violated

    def why_infeasible(self) -> str:
        return "; ".join(f"{c.why} ({c.expr})" for c in self.violated)


@dataclass(frozen=True)
class Variant:
    """One kernel template of an operator and the knobs, constraints and tiling that go with it."""

    name: str
    description: str
    template: Path
    knobs: tuple[Knob, ...]
    derived: tuple[tuple[str, str], ...]
    constraints: tuple[Constraint, ...]
    tiling: tuple[tuple[str, object], ...]
    block_dim: object
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    @property
    def structural_knobs(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.knobs if k.structural)

    def distributions(self, context: Mapping[str, Any]) -> dict[str, od.BaseDistribution]:
        """Optuna distributions of every knob for a run's context."""
        try:
            return {k.name: k.distribution(context) for k in self.knobs}
        except ExpressionError as exc:
            raise SpaceError(f"variant '{self.name}': {exc}") from None

    def evaluate(self, params: Mapping[str, Any], context: Mapping[str, Any]) -> Point:
        """Check the constraints for `params`; for a feasible point also compute its tiling and block count."""
        names = dict(context)
        names.update(params)
        try:
            for name, expr in self.derived:
                names[name] = evaluate(expr, names)
            violated = tuple(c for c in self.constraints if not evaluate(c.expr, names))
            if violated:
                return Point(dict(params), violated, names)
            tiling = tuple((name, int(evaluate(expr, names))) for name, expr in self.tiling)
            block_dim = int(evaluate(self.block_dim, names))
        except ExpressionError as exc:
            raise SpaceError(f"variant '{self.name}': {exc}") from None
        except ZeroDivisionError:
            return Point(dict(params), (Constraint("division by zero", "the point divides by zero"),), names)
        return Point(dict(params), (), names, tiling, block_dim)

    def structural(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The knobs that change the source (the rest reach the kernel through the tiling struct)."""
        return {name: params[name] for name in self.structural_knobs}

    def _values(self, knob: Knob, context: Mapping[str, Any]) -> tuple[int | str, ...]:
        try:
            return knob.values(context)
        except ExpressionError as exc:
            raise SpaceError(f"variant '{self.name}': {exc}") from None

    def size(self, context: Mapping[str, Any]) -> int:
        """Number of points in the space (feasible or not)."""
        total = 1
        for knob in self.knobs:
            total *= max(1, len(self._values(knob, context)))
        return total

    def points(self, context: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
        """Every knob assignment, in order (the space must be small enough to enumerate)."""
        names = [k.name for k in self.knobs]
        for values in itertools.product(*(self._values(k, context) for k in self.knobs)):
            yield dict(zip(names, values, strict=True))

    def feasible_points(self, context: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every feasible assignment; raises SpaceError if the space is too large to enumerate."""
        if self.size(context) > ENUMERATION_LIMIT:
            raise SpaceError(f"variant '{self.name}' has {self.size(context)} points, too many to enumerate")
        return [p for p in self.points(context) if self.evaluate(p, context).feasible]

    def why_empty(self, context: Mapping[str, Any]) -> str:
        """Why no point is feasible in `context`: a few constraints that between them rule out every point
        (a greedy cover), so that e.g. "unaligned rows need DataCopyPad" comes with "no DataCopyPad on 310P"."""
        uncovered = [set(self.evaluate(p, context).violated) for p in self.points(context)]
        chosen: list[Constraint] = []
        while uncovered:
            counts = Counter(c for violated in uncovered for c in violated)
            best = max(counts, key=lambda c: (counts[c], -self.constraints.index(c)))
            chosen.append(best)
            uncovered = [violated for violated in uncovered if best not in violated]
        return "; ".join(f"{c.why} ({c.expr})" for c in chosen) or "its space is empty"

    def nearest(self, params: Mapping[str, Any], candidates: list[dict[str, Any]],
                context: Mapping[str, Any]) -> dict[str, Any] | None:
        """The candidate closest to `params`: a differing categorical counts 1, an integer its distance as a
        fraction of its range. Used to replace an infeasible proposal with the feasible point nearest to it."""
        if not candidates:
            return None
        spans = {k.name: max(1, len(self._values(k, context))) for k in self.knobs}
        numeric = {k.name for k in self.knobs if k.type == "int"}

        def distance(point: dict[str, Any]) -> float:
            total = 0.0
            for name, value in point.items():
                if name in numeric:
                    total += abs(value - params[name]) / spans[name]
                elif value != params[name]:
                    total += 1.0
            return total

        return min(candidates, key=distance)

    def fingerprint(self, context: Mapping[str, Any]) -> str:
        """Hash of the template text, the kernel library files it reaches and the space as resolved for this context
        (decides the study)."""
        payload = json.dumps({"space": self.raw, "distributions": {
            k: od.distribution_to_json(d) for k, d in self.distributions(context).items()}}, sort_keys=True,
            default=str)
        h = hashlib.sha256(payload.encode())
        h.update(self.template.read_bytes() if self.template.is_file() else b"")
        h.update(library_digest(self.template).encode())
        return h.hexdigest()[:12]


@dataclass(frozen=True)
class Baseline:
    """The expert configuration a run starts from, and the public practice it follows."""

    variant: str
    knobs: Mapping[str, object]
    why: str

    def params(self, variant: Variant, context: Mapping[str, Any]) -> dict[str, Any]:
        """Knob values for a context; a value that is one of the knob's choices is taken literally."""
        names = dict(context)
        out: dict[str, Any] = {}
        for knob in variant.knobs:
            if knob.name not in self.knobs:
                raise SpaceError(f"baseline for '{variant.name}' does not set knob '{knob.name}'")
            raw = self.knobs[knob.name]
            value = raw if raw in knob.choices else evaluate(raw, names)
            out[knob.name] = value
            names[knob.name] = value
        return out


@dataclass(frozen=True)
class SearchSpace:
    """Everything the loop needs to search one operator."""

    op: str
    kernel: str
    tiling_struct: str
    args: tuple[ArgSpec, ...]
    variants: dict[str, Variant]
    baselines: tuple[Baseline, ...]
    path: Path

    def variant(self, name: str) -> Variant:
        try:
            return self.variants[name]
        except KeyError:
            raise SpaceError(f"{self.op} has no variant '{name}' (known: {', '.join(self.variants)})") from None

    def workspace_bytes(self, point: Point) -> int:
        """Bytes of the zeroed GM workspace a launch of `point` passes (`ArgSpec.workspace_bytes`); 0 when the kernel
        takes none."""
        return next((arg.workspace_bytes(point.names) for arg in self.args if arg.kind == "workspace"), 0)

    def baseline(self, context: Mapping[str, Any]) -> tuple[Baseline, dict[str, Any]] | None:
        """The first baseline whose knobs are feasible in this context, with its knob values."""
        for entry in self.baselines:
            variant = self.variant(entry.variant)
            params = entry.params(variant, context)
            if variant.evaluate(params, context).feasible:
                return entry, params
        return None


def run_context(op: Any, shape: tuple[int, ...], dtype: str, soc: Any) -> dict[str, Any]:
    """The names a run's expressions see: the operator's view of the shape, the dtype, its options, SoC limits, and
    which APIs the SoC has for the dtype (`tuner.space.apis`: `has_data_copy_pad`, `has_fp32_cast`, ...). The UB a
    kernel may allocate is `ub_bytes` (all TPipe gives), or `ub_api_bytes` where it calls an API that uses Ascend C's
    reserved UB (`tuner.data.api_support.reserved_ub_apis`)."""
    context = dict(op.context(shape, dtype))
    context.update(op.opts)
    context.update(vector_cores=int(soc.vector_cores.value), ub_bytes=int(soc.tpipe_ub_bytes.value),
                   ub_api_bytes=soc.ub_api_bytes, soc_family=soc.family,
                   live_tensors=int(soc.max_live_tensors_per_position.value))
    context.update(availability(soc.vector_costs, dtype))
    return context


def _require(raw: Mapping, key: str, where: str) -> Any:
    if key not in raw:
        raise SpaceError(f"{where}: missing '{key}'")
    return raw[key]


def _knob(name: str, raw: object, where: str) -> Knob:
    if not isinstance(raw, Mapping):
        raise SpaceError(f"{where}: knob '{name}' must be a mapping")
    kind = raw.get("type", "categorical" if "choices" in raw else "int")
    structural = bool(raw.get("structural", False))
    if kind == "categorical":
        choices = tuple(_require(raw, "choices", f"{where} knob '{name}'"))
        if not choices or not all(isinstance(c, (int, str)) and not isinstance(c, bool) for c in choices):
            raise SpaceError(f"{where}: knob '{name}' needs a non-empty list of int or string choices")
        return Knob(name, kind, choices, structural=structural)
    if kind == "int":
        if structural:
            raise SpaceError(f"{where}: knob '{name}': an int range cannot be structural; list its choices")
        step = raw.get("step", 1)
        if not isinstance(step, int) or isinstance(step, bool) or step < 1:
            raise SpaceError(f"{where}: knob '{name}': step must be a positive integer")
        return Knob(name, kind, low=_require(raw, "low", f"{where} knob '{name}'"),
                    high=_require(raw, "high", f"{where} knob '{name}'"), step=step)
    raise SpaceError(f"{where}: knob '{name}' has unknown type '{kind}' (int or categorical)")


class SharedEntries:
    """The shared file of the packaged search spaces (`search_spaces/_shared/families.yaml`), read when a variant
    first names one of its entries.

    A variant names an entry with `{use: NAME}` in three places, and the loader puts the entry where the `use` is,
    so the resolved variant has its knobs, derived values and constraints in the order the variant lists them:
    - a knob `K: {use: FORM}` is the knob definition `knobs.K.FORM` (a knob family: `block_dim: {use: rows}`);
    - a derived value `D: {use: FORM}` is the expression `derived.D.FORM`;
    - a constraint `{use: SET}` stands for the constraints of `constraints.SET`, in order (a set may itself
      `use` other sets).
    The resolved variant is what a rewrite stores in its `variant.yaml`: a rewritten variant names no entry."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._raw: Mapping[str, Any] | None = None

    def _section(self, section: str, user: str) -> Mapping[str, Any]:
        if self.path is None:
            raise SpaceError(f"{user}: names a shared entry, but a rewritten variant's space is stored resolved")
        if self._raw is None:
            try:
                raw = yaml.safe_load(self.path.read_text())
            except (OSError, yaml.YAMLError) as exc:
                raise SpaceError(f"{user}: cannot read the shared file {self.path} ({exc.__class__.__name__})") \
                    from None
            if not isinstance(raw, Mapping) or not all(isinstance(raw.get(k, {}), Mapping)
                                                       for k in ("knobs", "derived", "constraints")):
                raise SpaceError(f"{self.path}: expected mappings 'knobs', 'derived' and 'constraints'")
            self._raw = raw
        return self._raw.get(section) or {}

    def form(self, section: str, name: str, form: object, user: str) -> Any:
        """The definition `section.name.form` (a knob or a derived expression), a copy of it."""
        forms = self._section(section, user).get(name)
        if not isinstance(forms, Mapping) or form not in forms:
            known = ", ".join(map(str, forms)) if isinstance(forms, Mapping) else "none"
            raise SpaceError(f"{user}: {self.path} has no {section} '{name}' of form '{form}' (forms: {known})")
        return copy.deepcopy(forms[form])

    def constraints(self, items: object, user: str, chain: tuple[str, ...] = ()) -> list[Any]:
        """A constraint list with every `{use: SET}` replaced by the set's constraints."""
        if not isinstance(items, list):
            raise SpaceError(f"{user}: constraints must be a list")
        out = []
        for item in items:
            name = _used(item)
            if name is None:
                out.append(item)
                continue
            if name in chain:
                raise SpaceError(f"{self.path}: constraint set '{name}' uses itself ({' -> '.join((*chain, name))})")
            sets = self._section("constraints", user)
            if name not in sets:
                raise SpaceError(f"{user}: {self.path} has no constraint set '{name}' (sets: {', '.join(sets)})")
            out += self.constraints(sets[name], f"{self.path} constraint set '{name}'", (*chain, name))
        return out


def _used(value: object) -> Any:
    """NAME for `{use: NAME}`, else None."""
    return value["use"] if isinstance(value, Mapping) and list(value) == ["use"] else None


def _resolved(raw: Mapping[str, Any], shared: SharedEntries, where: str) -> dict[str, Any]:
    """The variant's mapping with every shared entry it names put in place."""
    out = dict(raw)
    for section in ("knobs", "derived"):
        if isinstance(raw.get(section), Mapping):
            out[section] = {name: value if _used(value) is None
                            else shared.form(section, str(name), _used(value), f"{where} {section[:-1]} '{name}'")
                            for name, value in raw[section].items()}
    if raw.get("constraints"):
        out["constraints"] = shared.constraints(raw["constraints"], f"{where} constraints")
    return out


def _variant(op: str, name: str, raw: object, where: str, templates: Path, shared: SharedEntries) -> Variant:
    if not isinstance(raw, Mapping):
        raise SpaceError(f"{where}: variant '{name}' must be a mapping")
    where = f"{where} variant '{name}'"
    raw = _resolved(raw, shared, where)
    knobs = tuple(_knob(k, v, where) for k, v in (_require(raw, "knobs", where) or {}).items())
    constraints = tuple(Constraint(str(c["expr"]), str(c.get("why", ""))) for c in raw.get("constraints") or [])
    template = templates / op / str(raw.get("template", name)) / "kernel.cpp.j2"
    variant = Variant(
        name=name, description=str(raw.get("description", "")), template=template, knobs=knobs,
        derived=tuple((str(k), str(v)) for k, v in (raw.get("derived") or {}).items()),
        constraints=constraints, tiling=tuple((str(k), v) for k, v in _require(raw, "tiling", where).items()),
        block_dim=raw.get("block_dim", "block_dim"), raw=raw,
    )
    _check_expressions(variant, where)
    return replace(variant, constraints=tuple(Constraint(c.expr, cited(c.expr, c.why)) for c in constraints))


def _check_expressions(variant: Variant, where: str) -> None:
    """Parse every expression of a variant, so that one outside the language or its bounds is refused when the
    space is read rather than when a point is evaluated."""
    expressions = [*(e for k in variant.knobs for e in k.expressions()), *(e for _, e in variant.derived),
                   *(c.expr for c in variant.constraints), *(e for _, e in variant.tiling), variant.block_dim]
    for expression in expressions:
        if isinstance(expression, str):
            try:
                parse(expression)
            except ExpressionError as exc:
                raise SpaceError(f"{where}: {exc}") from None
        elif not isinstance(expression, (int, float)):
            raise SpaceError(f"{where}: {expression!r:.60} is not an expression")


def _arg(item: Mapping[str, Any], where: str) -> ArgSpec:
    """One entry of a space's `args`; a workspace's `bytes` is checked as an expression (or a positive int) here."""
    if not isinstance(item, Mapping):
        raise SpaceError(f"{where}: argument {item!r:.60} is not a mapping like {{name: x, kind: in}}")
    name, kind, size = _require(item, "name", f"{where}: argument"), item.get("kind"), item.get("bytes")
    if kind not in ARG_KINDS:
        raise SpaceError(f"{where}: argument {name!r} has kind {kind!r} (one of {', '.join(ARG_KINDS)})")
    if (kind == "workspace") != (size is not None):
        raise SpaceError(f"{where}: argument {name!r}: " + ("a workspace needs bytes: an int or an expression"
                                                            if kind == "workspace" else "only a workspace has bytes"))
    if kind == "workspace":
        if isinstance(size, bool) or not isinstance(size, int | str):
            raise SpaceError(f"{where}: workspace {name!r}: bytes {size!r:.60} is not an int or an expression")
        if isinstance(size, int) and size < 1:
            raise SpaceError(f"{where}: workspace {name!r}: bytes {size} is not positive")
        if isinstance(size, str):
            try:
                parse(size)
            except ExpressionError as exc:
                raise SpaceError(f"{where}: workspace {name!r}: {exc}") from None
    return ArgSpec(str(name), str(kind), item.get("tensor"), size)


def parse_space(text: str, path: Path, templates: Path = TEMPLATES_DIR,
                shared: Path = PROJECT_ROOT / SHARED_FILE) -> SearchSpace:
    """Read a search-space document, the entries it names from the `shared` file in place (`SharedEntries`);
    raise SpaceError with the file named on any problem."""
    where = str(path)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SpaceError(f"{where}: not valid YAML ({exc.__class__.__name__})") from None
    if not isinstance(raw, Mapping):
        raise SpaceError(f"{where}: expected a mapping at the top level")
    op = str(_require(raw, "op", where))
    args = tuple(_arg(item, where) for item in _require(raw, "args", where))
    if sum(arg.kind == "workspace" for arg in args) > 1:
        raise SpaceError(f"{where}: more than one workspace argument; a kernel takes at most one")
    entries = SharedEntries(shared)
    variants = {str(n): _variant(op, str(n), v, where, templates, entries)
                for n, v in _require(raw, "variants", where).items()}
    baselines = tuple(Baseline(str(b["variant"]), dict(b["knobs"]), str(b.get("why", "")))
                      for b in raw.get("baseline") or [])
    for b in baselines:
        if b.variant not in variants:
            raise SpaceError(f"{where}: baseline names unknown variant '{b.variant}'")
    return SearchSpace(op, str(_require(raw, "kernel", where)), str(raw.get("tiling_struct", "Tiling")),
                       args, variants, baselines, path)


REWRITE_FILE = "variant.yaml"


def load_yaml(text: str, where: str) -> Any:
    """`yaml.safe_load` of YAML from outside the package, within YAML_CHARS characters, YAML_DEPTH levels of
    nesting and without aliases; SpaceError (naming `where`) when it breaks one or is not YAML."""
    if len(text) > YAML_CHARS:
        raise SpaceError(f"{where}: {len(text)} characters of YAML exceed the limit of {YAML_CHARS}")
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):  # the event stream is read without recursion
            if isinstance(event, yaml.AliasEvent):
                raise SpaceError(f"{where}: YAML aliases (*{event.anchor}) are not allowed")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > YAML_DEPTH:
                    raise SpaceError(f"{where}: YAML nested more than {YAML_DEPTH} levels deep")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise SpaceError(f"{where}: not valid YAML{line}") from None
    except ValueError as exc:  # a scalar PyYAML cannot convert: an integer of 5000 digits, the 45th of a month
        raise SpaceError(f"{where}: not valid YAML ({str(exc)[:100]})") from None


def rewritten_variant(directory: Path, op: str) -> Variant:
    """A variant made by a rewrite, read back from `runs/<run>/variants/<name>/`: its `variant.yaml` holds the
    variant's space (the parent's, plus any knobs and constraints the rewrite declared) and its lineage; its
    template is the `kernel.cpp.j2` beside it. The file is untrusted (it may have been edited): SpaceError for
    one that is malformed or breaks a bound of the YAML or of the expression language."""
    path = directory / REWRITE_FILE
    try:
        if path.stat().st_size > 4 * YAML_CHARS:
            raise SpaceError(f"{path}: {path.stat().st_size} bytes exceed the limit of {YAML_CHARS} characters")
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SpaceError(f"{path}: cannot read the rewritten variant ({exc.__class__.__name__})") from None
    raw = load_yaml(text, str(path))
    if not isinstance(raw, Mapping) or not isinstance(raw.get("space"), Mapping) or "name" not in raw:
        raise SpaceError(f"{path}: expected a mapping with 'name' and 'space'")
    try:
        variant = _variant(op, str(raw["name"]), raw["space"], str(path), directory, SharedEntries(None))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise SpaceError(f"{path}: malformed rewritten variant ({exc.__class__.__name__}: {str(exc)[:100]})") \
            from None
    return replace(variant, template=directory / "kernel.cpp.j2", raw={**raw["space"], "lineage": raw})


def with_rewrites(space: SearchSpace, variants_dir: Path) -> SearchSpace:
    """`space` plus the rewritten variants a run keeps under `variants_dir` (each in its own directory). One that
    cannot be read back, breaks a bound, or whose template `check_template` refuses is skipped with a one-line
    warning (once a process); the others load."""
    extra = {}
    if variants_dir.is_dir():
        for directory in sorted(variants_dir.iterdir()):
            if not directory.name.startswith(".") and (directory / REWRITE_FILE).is_file():  # .pending-*: unfinished
                try:
                    variant = rewritten_variant(directory, space.op)
                    check_template(read_template(variant.template), str(variant.template))
                except (SpaceError, TemplateError) as exc:
                    warning = f"warning: skipping the rewritten variant {directory.name}: {exc}"
                    if warning not in _skipped:
                        _skipped.add(warning)
                        _log.warning(warning)
                    continue
                extra[variant.name] = variant
    return replace(space, variants={**space.variants, **extra})


def load_space(op: str, root: Path = PROJECT_ROOT) -> SearchSpace:
    """The search space of operator `op`: `<root>/search_spaces/<op>.yaml`, templates under `<root>/templates`."""
    path = root / "search_spaces" / f"{op}.yaml"
    if not path.is_file():
        raise SpaceError(f"no search space for '{op}' ({path} does not exist)")
    return parse_space(path.read_text(), path, root / "templates" / "ascendc", root / SHARED_FILE)
