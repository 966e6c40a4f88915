"""Kernels for every shape a model sees: the winners of several tuned shapes as one dispatch table.

A shape set is tuned as one ordinary run per shape (`tune_shapes`); the runs share the compile cache, and since the
tiling reaches a kernel at run time, a structural choice built for one shape serves every shape. The table
(`DispatchTable`, `runs/<set>/dispatch.json`) holds one bucket per tuned shape: its winner's variant and knobs. A
shape at call time is served by `Dispatcher.choose`, whose rule is:

1. In range: every dimension of the operator's view (`Operator.view`: rows and cols, or n) lies between the
   smallest tuned value / RANGE_FACTOR and the largest × RANGE_FACTOR; else `ShapeOutOfRange`.
2. The buckets nearest first: distance = the sum over the view of |log2(shape's value / bucket's value)| (ties: the
   bucket of the smaller shape).
3. The bucket's knobs carried to the shape: an integer knob at an end of its range at the bucket's shape (a block
   count equal to the rows, a tile as wide as the row) moves to that end of its range at the new shape; the others
   keep their values. The first bucket whose carried knobs are feasible at the shape serves it, its tiling and block
   count computed from the search space's expressions there; where they are not (more blocks than rows, a copy the
   row length cannot take), the feasible point nearest them with the same variant and structural knobs (the same
   build) does.
4. Where no bucket's build can serve the shape (every tuned row was whole 32-byte blocks, this one is not), the
   nearest bucket's variant with the fewest structural knobs changed that can (`Choice.adjusted`, another build).
5. Nothing serves it: `NoKernelForShape`.

The table is checked (`check_table`) where the rule hands a shape from one bucket to the next (the geometric
midpoint of neighbouring buckets) and where a bucket's kernel meets shapes unlike its own (its shape with the first
or the last dimension halved or doubled: a precision that holds for short rows may not for long ones): there the
dispatched kernel must be correct on every input set and no slower than the operator's baseline (CHECK_RTOL);
where it is not, the baseline's knobs become a bucket of their own at that shape. A check samples the range; it
does not prove every shape. Evaluations go through the run's backend, every time labelled as it says.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tuner.backends.base import Backend
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.ops.base import Operator, parse_shape, shape_text
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import Evaluator, Measurement, RunInputs
from tuner.space.spaces import Point, SearchSpace, Variant, load_space, run_context, with_rewrites

__all__ = [
    "RANGE_FACTOR", "Bucket", "Choice", "DispatchTable", "Dispatcher", "NoKernelForShape", "Probe",
    "ShapeOutOfRange", "ShapeSetResult", "check_shape_set", "measure_at", "parse_shapes", "probe_shapes",
    "read_shapes_file", "table_of_run", "tune_shapes", "view_ranges",
]

RANGE_FACTOR = 2
CHECK_RTOL = 0.01
TABLE_FILE = "dispatch.json"
SCHEMA = 1


class ShapeOutOfRange(UsageError):
    """A shape outside the range a dispatch table was tuned for."""


class NoKernelForShape(UsageError):
    """A shape in range that no bucket's build can serve (or a dtype the table was not tuned for)."""


@dataclass(frozen=True)
class Bucket:
    """A tuned shape and the kernel that serves it: `origin` "tuned" (a run's winner) or "baseline" (the operator's
    baseline where the check found the neighbouring bucket slower or wrong)."""

    shape: tuple[int, ...]
    view: dict[str, int]
    variant: str
    params: dict[str, Any]
    time_us: float | None
    baseline_us: float | None
    run: str
    weight: float = 1.0
    origin: str = "tuned"
    # What serves the shapes other than its own where the winner is wrong at one of the check's probes: the fastest
    # of its run's top trials (else the baseline) that is right at every probe it serves; None: the winner.
    general_variant: str | None = None
    general_params: dict[str, Any] | None = None

    def kernel_for(self, view: Mapping[str, int]) -> tuple[str, dict[str, Any]]:
        """The variant and knobs it serves a shape of this view with: its own winner at its own view."""
        if self.general_variant is None or dict(view) == self.view:
            return self.variant, self.params
        return self.general_variant, self.general_params or {}


@dataclass(frozen=True)
class Probe:
    """One shape of the table's check: the bucket the rule gave it, the times (as the backend labels them) and the
    verdict ("ok", "slower than the baseline", or the error)."""

    shape: tuple[int, ...]
    bucket: tuple[int, ...]
    time_us: float | None
    baseline_us: float | None
    verdict: str


@dataclass(frozen=True)
class DispatchTable:
    """A shape set's buckets, the range they serve and the check's probes."""

    name: str
    op: str
    dtype: str
    soc: str
    backend: str
    time_source: str
    options: dict[str, str]
    buckets: tuple[Bucket, ...]
    ranges: dict[str, tuple[int, int]]
    probes: tuple[Probe, ...] = ()
    # A set of a function generated from PyTorch: the file, the function and its --inputs, whose first tensor takes
    # each shape (`tuner.graph.load.inputs_at`); None for a packaged operator.
    task: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["schema"] = SCHEMA
        out["rule"] = " ".join(__doc__[__doc__.index("1. In range"):__doc__.index("The table is checked")].split())
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DispatchTable:
        try:
            buckets = tuple(Bucket(**{**b, "shape": tuple(b["shape"])}) for b in data["buckets"])
            probes = tuple(Probe(**{**p, "shape": tuple(p["shape"]), "bucket": tuple(p["bucket"])})
                           for p in data.get("probes", ()))
            ranges = {k: (int(lo), int(hi)) for k, (lo, hi) in data["ranges"].items()}
            return cls(data["name"], data["op"], data["dtype"], data["soc"], data["backend"], data["time_source"],
                       dict(data.get("options", {})), buckets, ranges, probes, data.get("task"))
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"not a dispatch table: {exc}") from None

    def write(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / TABLE_FILE
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        return path

    @classmethod
    def read(cls, directory: Path) -> DispatchTable:
        path = directory / TABLE_FILE
        try:
            return cls.from_json(json.loads(path.read_text()))
        except OSError as exc:
            raise UsageError(f"no dispatch table at {path}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None


@dataclass(frozen=True)
class Choice:
    """What serves one shape: the bucket, the variant and knobs (`adjusted`: moved from the bucket's own to the
    nearest feasible ones of the same build), and the evaluated point (tiling, block count)."""

    bucket: Bucket
    variant: Variant
    params: dict[str, Any]
    point: Point
    adjusted: bool


def view_ranges(views: Sequence[Mapping[str, int]]) -> dict[str, tuple[int, int]]:
    """The range a table serves: each view dimension from its smallest tuned value / RANGE_FACTOR to its largest
    × RANGE_FACTOR."""
    keys = views[0].keys()
    return {k: (max(1, min(v[k] for v in views) // RANGE_FACTOR), max(v[k] for v in views) * RANGE_FACTOR)
            for k in keys}


def _distance(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    return sum(abs(math.log2(a[k]) - math.log2(b[k])) for k in a)


class Dispatcher:
    """A dispatch table bound to its operator, search spaces and SoC: the shape → kernel rule of the module."""

    def __init__(self, table: DispatchTable, op: Operator, spaces: Mapping[str, SearchSpace]) -> None:
        self.table, self.op, self.spaces = table, op, dict(spaces)
        self.soc = get_soc(table.soc)
        self._ops: dict[tuple[int, ...], Operator] = {}
        self._serves: dict[tuple[str, str, tuple[int, ...]], bool] = {}

    @classmethod
    def load(cls, table: DispatchTable, runs_dir: Path, project: Path | None = None) -> Dispatcher:
        """Bind `table` to its operator and each bucket's run's space (with that run's rewritten variants from
        `runs_dir/<run>/variants/`): a packaged operator's own, or a generated one's from `runs_dir/<run>/project/`."""
        from tuner.ops import get_operator
        from tuner.space.spaces import PROJECT_ROOT

        if table.task is not None:
            op = _generated(table.task, table.buckets[0].shape)
            return cls(table, op, {b.run: with_rewrites(load_space(op.name, runs_dir / b.run / "project"),
                                                        runs_dir / b.run / "variants") for b in table.buckets})
        op = get_operator(table.op).with_options(table.options)
        base = load_space(table.op, project or PROJECT_ROOT)
        spaces = {b.run: with_rewrites(base, runs_dir / b.run / "variants") for b in table.buckets}
        return cls(table, op, spaces)

    def space(self, bucket: Bucket) -> SearchSpace:
        return self.spaces[bucket.run]

    def op_for(self, shape: tuple[int, ...]) -> Operator:
        """The operator at `shape`: a packaged one serves every shape; a generated one is captured and lowered
        again with its first tensor at `shape` (once per shape)."""
        if self.table.task is None:
            return self.op
        if shape not in self._ops:
            self._ops[shape] = _generated(self.table.task, shape)
        return self._ops[shape]

    def context(self, shape: tuple[int, ...]) -> dict[str, Any]:
        return run_context(self.op_for(shape), shape, self.table.dtype, self.soc)

    def serves(self, bucket: Bucket, variant: Variant, shape: tuple[int, ...]) -> bool:
        """Whether `variant` of `bucket` can run at `shape`: always for a packaged operator; for a generated one, when
        the kernel generated at `shape` is its template, text for text but for the comments (so a rewritten variant,
        whose template is not the generated one, serves its own shape only)."""
        if self.table.task is None:
            return True
        key = (bucket.run, variant.name, shape)
        if key not in self._serves:
            generated = self.op_for(shape).templates()
            folder = variant.template.parent
            relative = Path("templates", "ascendc", folder.parent.name, folder.name)
            files = sorted(folder.glob("*.j2"))
            self._serves[key] = bool(files) and all(
                _uncommented(generated.get(str(relative / f.name), "")) == _uncommented(f.read_text())
                for f in files) and len([k for k in generated if k.startswith(str(relative) + "/")]) == len(files)
        return self._serves[key]

    def check_in_range(self, shape: tuple[int, ...], dtype: str | None = None) -> dict[str, int]:
        """The shape's view; ShapeOutOfRange or NoKernelForShape (a dtype other than the table's) when the table
        does not serve it."""
        if dtype is not None and dtype != self.table.dtype:
            raise NoKernelForShape(f"{self.table.name} was tuned for {self.table.dtype}, not {dtype}")
        self.op.check_shape(shape)
        view = self.op.view(shape)
        if view.keys() != self.table.ranges.keys():
            raise ShapeOutOfRange(f"shape {shape_text(shape)} has the view {view}, not one of "
                                  f"{', '.join(self.table.ranges)}")
        outside = [f"{k} = {v} is outside {lo}..{hi}" for k, v in view.items()
                   for lo, hi in [self.table.ranges[k]] if not lo <= v <= hi]
        if outside:
            tuned = ", ".join(shape_text(b.shape) for b in self.table.buckets if b.origin == "tuned")
            raise ShapeOutOfRange(f"shape {shape_text(shape)} is outside what {self.table.name} serves "
                                  f"({'; '.join(outside)}; tuned at {tuned}): tune it with --shapes")
        return view

    def choose(self, shape: tuple[int, ...], dtype: str | None = None) -> Choice:
        """The kernel that serves `shape` under the module's rule."""
        view = self.check_in_range(shape, dtype)
        context = self.context(shape)
        order = sorted(self.table.buckets, key=lambda b: (_distance(view, b.view), math.prod(b.shape)))
        carried = []
        order = [b for b in order if self.serves(b, self.space(b).variant(b.kernel_for(view)[0]), shape)]
        for bucket in order:
            name, params = bucket.kernel_for(view)
            variant = self.space(bucket).variant(name)
            knobs = _carried(variant, params, self.context(bucket.shape), context)
            carried.append(knobs)
            point = variant.evaluate(knobs, context)
            if point.feasible:
                return Choice(bucket, variant, knobs, point, adjusted=knobs != params)
            params = _nearest_with(variant, knobs, variant.structural(knobs), context)
            if params is not None:
                return Choice(bucket, variant, params, variant.evaluate(params, context), adjusted=True)
        for bucket, knobs in zip(order, carried, strict=True):
            variant = self.space(bucket).variant(bucket.kernel_for(view)[0])
            for structural in _structural_by_change(variant, knobs):
                params = _nearest_with(variant, knobs, structural, context)
                if params is not None:
                    return Choice(bucket, variant, params, variant.evaluate(params, context), adjusted=True)
        raise NoKernelForShape(f"nothing in {self.table.name} can serve shape {shape_text(shape)}: no point of its "
                               "buckets' variants is feasible there")


def _uncommented(template: str) -> str:
    """A template without its Jinja comments (a generated one describes its shape there): what renders."""
    return re.sub(r"\{#.*?#\}", "", template, flags=re.S)


def _generated(task: Mapping[str, str], shape: tuple[int, ...]) -> Operator:
    """The operator of a function generated from PyTorch with its first tensor at `shape`, captured on a thread of
    its own: a call under torch.compile runs inside dispatch modes (thread-local) that torch.export must not trace
    through."""
    from tuner.graph.load import inputs_at
    from tuner.search.config import task_operator

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(task_operator, Path(task["path"]), task["function"], inputs_at(task["inputs"], shape),
                           task.get("name")).result()


def _carried(variant: Variant, params: Mapping[str, Any], tuned: Mapping[str, Any],
             context: Mapping[str, Any]) -> dict[str, Any]:
    """`params` carried from the bucket's context `tuned` to `context`: an integer knob at an end of its range there
    moves to the same end here (bounds are expressions over the context and the knobs before it)."""
    out: dict[str, Any] = {}
    for knob in variant.knobs:
        value = params[knob.name]
        if knob.type == "int":
            before, here = knob.values({**tuned, **out}), knob.values({**context, **out})
            if before and here and value == before[-1]:
                value = here[-1]
            elif before and here and value == before[0]:
                value = here[0]
        out[knob.name] = value
    return out


def _structural_by_change(variant: Variant, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every other assignment of the variant's structural knobs, the fewest changed from `params` first."""
    knobs = [k for k in variant.knobs if k.structural]
    combos = [dict(zip([k.name for k in knobs], values, strict=True))
              for values in itertools.product(*(k.choices for k in knobs))]
    combos.sort(key=lambda c: sum(c[name] != params[name] for name in c))
    return combos[1:] if combos and all(combos[0][n] == params[n] for n in combos[0]) else combos


def _nearest_with(variant: Variant, params: Mapping[str, Any], structural: Mapping[str, Any],
                  context: Mapping[str, Any]) -> dict | None:
    """The feasible point nearest `params` whose structural knobs are `structural` (one build), or None."""
    names = [k.name for k in variant.knobs]
    axes = [(structural[k.name],) if k.name in structural else k.values(context) for k in variant.knobs]
    candidates = [p for values in itertools.product(*axes)
                  if variant.evaluate(p := dict(zip(names, values, strict=True)), context).feasible]
    return variant.nearest(params, candidates, context)


def parse_shapes(text: str) -> list[tuple[tuple[int, ...], float]]:
    """`--shapes 1x4096,7x4096`: shapes joined by ',' (dimensions by 'x'), each of weight 1."""
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError("--shapes: expected shapes such as 1x4096,7x4096")
    return [(parse_shape(p), 1.0) for p in parts]


def read_shapes_file(path: Path) -> list[tuple[tuple[int, ...], float]]:
    """`--shapes-from FILE`: one shape a line, optionally followed by its weight (how often the model sees it);
    blank lines and '#' comments skipped."""
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise UsageError(f"--shapes-from {path}: {exc.strerror}") from None
    out = []
    for number, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) > 2:
            raise UsageError(f"{path}:{number}: expected a shape and an optional weight, got '{line.strip()}'")
        try:
            weight = float(fields[1]) if len(fields) == 2 else 1.0
        except ValueError:
            raise UsageError(f"{path}:{number}: weight '{fields[1]}' is not a number") from None
        if not weight > 0 or not math.isfinite(weight):
            raise UsageError(f"{path}:{number}: weight {fields[1]} must be a positive number")
        try:
            out.append((parse_shape(fields[0]), weight))
        except UsageError as exc:
            raise UsageError(f"{path}:{number}: {exc}") from None
    if not out:
        raise UsageError(f"--shapes-from {path}: no shapes in the file")
    return out


def set_name(op: str, shapes: Sequence[tuple[int, ...]], dtype: str, soc: str, backend: str) -> str:
    """`op-Nshapes-<digest>-dtype-soc-backend`: the digest of the sorted shapes tells sets of as many shapes apart."""
    digest = hashlib.sha256(",".join(sorted(shape_text(s) for s in shapes)).encode()).hexdigest()[:6]
    return f"{op}-{len(shapes)}shapes-{digest}-{dtype}-{soc}-{backend}"


class _Measurements:
    """Points measured at shapes through one backend, each (shape, template, knobs) once and each shape's input sets
    and references made once: the check asks for the same probe's kernel in each of its passes."""

    def __init__(self, dispatcher: Dispatcher, backend: Backend) -> None:
        self.dispatcher, self.backend = dispatcher, backend
        self._inputs: dict[tuple[int, ...], RunInputs] = {}
        self._done: dict[tuple[tuple[int, ...], str, str], Measurement] = {}

    def __call__(self, shape: tuple[int, ...], variant: Variant, params: Mapping[str, Any],
                 space: SearchSpace) -> Measurement:
        key = (shape, str(variant.template), json.dumps(dict(params), sort_keys=True, default=str))
        if key not in self._done:
            if shape not in self._inputs:
                self._inputs[shape] = RunInputs(self.dispatcher.op_for(shape), shape, self.dispatcher.table.dtype)
            evaluator = Evaluator(space, variant, self.backend, CompileCache(self.backend), self._inputs[shape],
                                  self.dispatcher.context(shape))
            self._done[key] = evaluator.evaluate(params)
        return self._done[key]


def measure_at(dispatcher: Dispatcher, backend: Backend, shape: tuple[int, ...], variant: Variant,
               params: Mapping[str, Any], space: SearchSpace) -> Measurement:
    """A point of `variant` at `shape` built, run on every input set, checked against the reference and timed."""
    return _Measurements(dispatcher, backend)(shape, variant, params, space)


def _midpoint(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    if len(a) != len(b):
        return None
    return tuple(max(1, round(math.sqrt(x * y))) for x, y in zip(a, b, strict=True))


def probe_shapes(table: DispatchTable) -> list[tuple[int, ...]]:
    """Where a bucket's kernel serves shapes unlike its own: the geometric midpoints of neighbouring tuned shapes
    (ordered by size), and each tuned shape with its first or its last dimension divided or multiplied by
    RANGE_FACTOR, toward the range's edges (a precision that holds for short rows may not for long ones);
    `check_table` skips those outside the range."""
    tuned = sorted({b.shape for b in table.buckets if b.origin == "tuned"}, key=lambda s: (math.prod(s), s))
    shapes = [m for a, b in itertools.pairwise(tuned) if (m := _midpoint(a, b)) is not None]
    for shape in tuned:
        for scale in (lambda d: max(1, d // RANGE_FACTOR), lambda d: d * RANGE_FACTOR):
            shapes += [(scale(shape[0]), *shape[1:]), (*shape[:-1], scale(shape[-1]))]
    known = set(tuned)
    return [s for s in dict.fromkeys(shapes) if s not in known]


def check_table(dispatcher: Dispatcher, backend: Backend,
                alternatives: Mapping[str, Sequence[tuple[str, dict[str, Any]]]] | None = None) -> DispatchTable:
    """The table with its check done (`Probe`s). A bucket whose winner is wrong at a probe it serves keeps the
    winner for its own shape and serves the others with the first of `alternatives[run]` (its run's next fastest
    trials, variant and knobs) right at every such probe, else with the baseline; then, wherever the dispatched
    kernel is wrong or slower than the baseline at a probe, the baseline's knobs become a bucket at that shape."""
    table = dispatcher.table
    shapes = probe_shapes(table)
    measure = _Measurements(dispatcher, backend)
    served: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    fragile = set()
    for shape in shapes:
        try:
            choice = dispatcher.choose(shape)
        except UsageError:
            continue
        served.setdefault(choice.bucket.shape, []).append(shape)
        if not measure(shape, choice.variant, choice.params, dispatcher.space(choice.bucket)).ok:
            fragile.add(choice.bucket.shape)
    buckets = list(table.buckets)
    for i, bucket in enumerate(buckets):
        if bucket.shape not in fragile:
            continue
        space = dispatcher.space(bucket)
        found = space.baseline(dispatcher.context(bucket.shape))
        options = [*(alternatives or {}).get(bucket.run, ()), *([(found[0].variant, found[1])] if found else [])]
        for name, params in options:
            trial = replace(bucket, general_variant=name, general_params=dict(params))
            dispatcher.table = replace(table, buckets=(*buckets[:i], trial, *buckets[i + 1:]))
            if all(_right_at(dispatcher, measure, shape, bucket.shape) for shape in served[bucket.shape]):
                buckets[i] = trial
                break
    dispatcher.table = table = replace(table, buckets=tuple(buckets))
    return _probed(dispatcher, measure, shapes)


def _right_at(dispatcher: Dispatcher, measure: _Measurements, shape: tuple[int, ...],
              bucket: tuple[int, ...]) -> bool:
    """Whether the kernel the rule picks at `shape` is right there (a shape another bucket now serves counts)."""
    choice = dispatcher.choose(shape)
    if choice.bucket.shape != bucket:
        return True
    return measure(shape, choice.variant, choice.params, dispatcher.space(choice.bucket)).ok


def _probed(dispatcher: Dispatcher, measure: _Measurements, shapes: list[tuple[int, ...]]) -> DispatchTable:
    """The table's probes measured against the baseline, with a baseline bucket wherever the dispatched kernel is
    wrong or slower."""
    table = dispatcher.table
    probes: list[Probe] = []
    extra: list[Bucket] = []
    for shape in shapes:
        try:
            choice = dispatcher.choose(shape)
        except ShapeOutOfRange:
            continue
        except UsageError as exc:
            probes.append(Probe(shape, (), None, None, f"not served: {exc}"))
            continue
        space = dispatcher.space(choice.bucket)
        chosen = measure(shape, choice.variant, choice.params, space)
        found = space.baseline(dispatcher.context(shape))
        if found is None:
            probes.append(Probe(shape, choice.bucket.shape, chosen.value, None,
                                "ok" if chosen.ok else f"wrong: {chosen.detail}"))
            continue
        entry, params = found
        base = measure(shape, space.variant(entry.variant), params, space)
        if chosen.ok and (not base.ok or chosen.value <= base.value * (1 + CHECK_RTOL)):
            verdict = "ok"
        else:
            verdict = (f"{chosen.error_class}: {chosen.detail}" if not chosen.ok else
                       f"slower than the baseline ({chosen.value:.3f} > {base.value:.3f} µs)")
            if base.ok:
                extra.append(Bucket(shape, dispatcher.op.view(shape), entry.variant, params, base.value, base.value,
                                    choice.bucket.run, weight=0.0, origin="baseline"))
        probes.append(Probe(shape, choice.bucket.shape, chosen.value, base.value if base.ok else None, verdict))
    return replace(table, buckets=table.buckets + tuple(extra), probes=tuple(probes))


@dataclass
class ShapeSetResult:
    """What `tuner optimize --shapes` prints: the table, each run's summary, and where the table was written."""

    table: DispatchTable
    summaries: list[Any] = field(default_factory=list)
    path: Path | None = None

    @property
    def weighted_speedup(self) -> float | None:
        """The weighted geometric mean of baseline / best over the tuned buckets with both times."""
        pairs = [(b.weight, b.baseline_us / b.time_us) for b in self.table.buckets
                 if b.origin == "tuned" and b.time_us and b.baseline_us]
        total = sum(w for w, _ in pairs)
        return math.exp(sum(w * math.log(s) for w, s in pairs) / total) if pairs and total > 0 else None


def table_of_run(storage: Any, storage_url: str, run: str, runs_dir: Path) -> DispatchTable:
    """A run as a table of one bucket: its winner serves the shapes around its own (a packaged operator's run)."""
    from tuner.search.config import run_operator
    from tuner.search.report import summarize
    from tuner.search.storage import run_studies

    infos = run_studies(storage, run).get(run)
    if not infos:
        known = ", ".join(sorted(run_studies(storage))) or "none"
        raise UsageError(f"no run '{run}' in the storage (runs: {known})")
    attrs = infos[0].attrs
    if attrs.get("task"):
        raise UsageError(f"run '{run}' tuned a task file, whose shapes are its own: export it as kernel-launch")
    summary = summarize(storage, storage_url, run, runs_dir=runs_dir)
    if summary.best is None:
        raise UsageError(f"run '{run}' has no correct trial yet")
    op, _ = run_operator(attrs)
    shape = tuple(summary.shape)
    bucket = Bucket(shape, op.view(shape), summary.best.variant, dict(summary.best.params), summary.best.value,
                    summary.baseline.value if summary.baseline else None, run)
    return DispatchTable(run, summary.op, summary.dtype, summary.soc, summary.backend, summary.time_source,
                         dict(attrs.get("options", {})), (bucket,), view_ranges([bucket.view]))


def check_shape_set(config: Any, shapes: Sequence[tuple[tuple[int, ...], float]]) -> None:
    """UsageError for a set the runs cannot make into one table: a task file, a shape twice, a shape the operator
    refuses."""
    if config.task is not None and not config.function:
        raise UsageError("--shapes: a task file's shapes are its get_inputs(); give one function of a file "
                         "(PATH.py:FUNCTION --inputs ...), whose first tensor takes each shape")
    if len({s for s, _ in shapes}) != len(shapes):
        raise UsageError("--shapes: a shape appears twice")
    if config.task is None:
        for shape, _ in shapes:
            config.operator.check_shape(shape)


def tune_shapes(config: Any, shapes: Sequence[tuple[tuple[int, ...], float]], name: str | None = None,
                backend: Backend | None = None, on_run: Any = None) -> ShapeSetResult:
    """Tune every shape of `shapes` (with its weight) as an ordinary run of `config` (a RunConfig), build the
    dispatch table from the winners, check it (`check_table`) and write it to `runs/<name>/dispatch.json`."""
    from tuner.backends import make_backend
    from tuner.search.loop import make_optimizer

    check_shape_set(config, shapes)
    unique = [s for s, _ in shapes]
    weights = dict(shapes)
    name = name or set_name(config.op, unique, config.dtype, config.soc, config.backend)
    summaries, buckets = [], []
    for shape in unique:
        if config.task is None:
            run_config = replace(config, shape=shape, run=None)
        else:
            from tuner.graph.load import inputs_at

            run_config = replace(config, inputs=inputs_at(config.inputs, shape), run=None)
        summary = make_optimizer(run_config).run()
        summaries.append(summary)
        if on_run is not None:
            on_run(summary)
        if summary.best is None:
            raise NoKernelForShape(f"run {summary.run} found no correct kernel for shape {shape_text(shape)}; "
                                   "the set has no bucket there")
        op = run_config.operator
        baseline = summary.baseline.value if summary.baseline else None
        buckets.append(Bucket(shape, op.view(shape), summary.best.variant, dict(summary.best.params),
                              summary.best.value, baseline, summary.run, weight=weights[shape]))
    task = {"path": str(Path(config.task).resolve()), "function": config.function or "", "inputs": config.inputs or "",
            "name": config.op} if config.task is not None else None
    table = DispatchTable(name, config.op, config.dtype, config.soc, config.backend, summaries[0].time_source,
                          dict(config.options), tuple(buckets), view_ranges([b.view for b in buckets]), task=task)
    alternatives = {s.run: [(row.variant, dict(row.params)) for row in sorted(
        (row for rows in s.top.values() for row in rows if row.value is not None), key=lambda row: row.value)
        if (row.variant, row.params) != (s.best.variant, s.best.params)] for s in summaries}
    dispatcher = Dispatcher.load(table, config.runs_dir, config.project)
    table = check_table(dispatcher, backend or make_backend(config.backend, config.soc), alternatives)
    return ShapeSetResult(table, summaries, table.write(config.runs_dir / name))
