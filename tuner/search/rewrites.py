"""Structural rewrites inside a run: when a mutator is asked (a failed candidate, a plateau), how its proposal
becomes a variant (its template checked against the render bounds and screened, rendered in the bounded child,
compiled, checked like any candidate on the parent's best knobs), and what is recorded (`runs/<run>/mutations.jsonl`,
one line per proposal, the proposal's files beside it). A whole kernel the LLM writes for a user's task
(`Rewriter.generate`, the generate-compile-run-fix loop) goes the same way, over the space `generation.py` gives it."""

from __future__ import annotations

import copy
import json
import shutil
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from tuner.backends.base import Backend
from tuner.data.socs import Soc
from tuner.errors import ErrorClass
from tuner.mutate.base import GenerationContext, MutationContext, Mutator, Proposal
from tuner.mutate.prompts import map_diagnostics, mark_template_lines
from tuner.mutate.sandbox import ScreenedBackend
from tuner.mutate.screen import ScreenError, screen_source, screen_template
from tuner.search.compile_cache import CompileCache
from tuner.search.evaluate import Evaluator, Measurement, RunInputs
from tuner.search.generation import declarations, draft_point, generated_space
from tuner.space.expr import ExpressionError
from tuner.space.render import TemplateError, check_template, render_text
from tuner.space.spaces import (
    PROJECT_ROOT,
    REWRITE_FILE,
    SearchSpace,
    SpaceError,
    Variant,
    rewritten_variant,
)

RECORD_FILE = "mutations.jsonl"
VERDICT_CHARS = 500
# What a rewrite's yaml block may add: a structural knob costs a build per choice, and every point of the space
# is checked against every constraint when the variant joins (the packaged spaces have at most 6 structural knobs,
# 8 choices a knob and 10 constraints a variant).
MAX_NEW_KNOBS = 4
MAX_NEW_CHOICES = 8
MAX_NEW_CONSTRAINTS = 16


@dataclass
class RewriteSettings:
    """Which mutators run, and how many repair rounds a proposal gets."""

    mutators: list[Mutator]
    repair_rounds: int = 2


@dataclass
class MutationRecord:
    """One proposal's fate, as one line of mutations.jsonl."""

    number: int
    trigger: str
    origin: str
    parent: str
    proposal: str
    verdict: str  # "accepted: ..." or "rejected: ..."
    variant: str | None
    round: int
    rationale: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    time: float = 0.0

    def summary(self) -> dict[str, Any]:
        return {"origin": self.origin, "trigger": self.trigger, "verdict": self.verdict, "variant": self.variant,
                "parent": self.parent, "round": self.round}


def read_records(run_dir: Path) -> list[MutationRecord]:
    """The run's mutation records (none when it has had no rewrite)."""
    path = run_dir / RECORD_FILE
    if not path.is_file():
        return []
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            records.append(MutationRecord(**json.loads(line)))
    return records


@dataclass
class _Feedback:
    """Why a proposal failed, in the form a repair prompt needs."""

    trigger: str
    text: str
    rendered: str | None = None


def _merge_knobs(parent: Variant, knobs_yaml: str | None) -> dict[str, Any]:
    """The rewrite's space: the parent's YAML plus the knobs and constraints its answer declared."""
    space = copy.deepcopy(dict(parent.raw))
    space.pop("lineage", None)
    space.pop("template", None)
    if not knobs_yaml:
        return space
    knobs, constraints = declarations(knobs_yaml, MAX_NEW_KNOBS, MAX_NEW_CONSTRAINTS, "a rewrite may add")
    for name, knob in knobs.items():
        if name in space["knobs"]:
            raise SpaceError(f"the yaml block redeclares knob '{name}'")
        if not isinstance(knob, Mapping) or knob.get("type") != "categorical":
            raise SpaceError(f"knob '{name}': a rewrite may add categorical knobs only (template variables); "
                             "numeric tiling values are the launcher's, which a rewrite cannot change")
        if len(knob.get("choices") or ()) > MAX_NEW_CHOICES:
            raise SpaceError(f"knob '{name}': at most {MAX_NEW_CHOICES} choices for a knob a rewrite adds")
        knob["structural"] = True
    space["knobs"] = {**space["knobs"], **knobs}
    space["constraints"] = [*(space.get("constraints") or []), *constraints]
    return space


def written_by_llm(variant: Variant, space: SearchSpace) -> bool:
    """Whether any template in a variant's lineage is not the package's own: a rule's child template is packaged
    code, but it extends a copy of its parent, which may be an LLM's."""
    seen: set[str] = set()
    while "lineage" in variant.raw and variant.name not in seen:
        seen.add(variant.name)
        lineage = variant.raw["lineage"]
        if lineage.get("origin") != "rules" or lineage.get("parent") not in space.variants:
            return True
        variant = space.variants[lineage["parent"]]
    return "lineage" in variant.raw  # a cycle in the lineage: trust nothing


class Rewriter:
    """Asks the run's mutators for rewrites and turns the good ones into variants of the run."""

    def __init__(self, *, space: SearchSpace, context: Mapping[str, Any], inputs: RunInputs, backend: Backend,
                 run_dir: Path, settings: RewriteSettings, facts: Mapping[str, Any]) -> None:
        self.space, self.context, self.inputs = space, dict(context), inputs
        self.backend = ScreenedBackend(backend, space.kernel)
        self.cache = CompileCache(self.backend)
        self.jailed_backend = ScreenedBackend(backend, space.kernel, jailed=True)
        self.jailed_cache = CompileCache(self.jailed_backend)
        self.run_dir, self.settings, self.facts = run_dir, settings, dict(facts)
        self.variants_dir = run_dir / "variants"
        self.records = read_records(run_dir)
        self.asked_repair: set[tuple[str, str]] = {(r.parent, r.trigger) for r in self.records
                                                   if (cls := ErrorClass.of(r.trigger)) and cls.repairable}

    @property
    def has_llm(self) -> bool:
        return any(m.origin == "llm" for m in self.settings.mutators)

    def evaluator(self, space: SearchSpace, variant: Variant, inputs: RunInputs) -> Evaluator:
        """The evaluator of a rewritten variant: its every source is screened before it is built, and one that an
        LLM had a hand in is built and run in the sandbox."""
        if written_by_llm(variant, space):
            return Evaluator(space, variant, self.jailed_backend, self.jailed_cache, inputs, self.context)
        return Evaluator(space, variant, self.backend, self.cache, inputs, self.context)

    # ----- triggers ----------------------------------------------------------------------------------
    def repair(self, parent: Variant, params: Mapping[str, Any], measurement: Measurement) -> list[Variant]:
        """A candidate failed to render, compile or run right: ask for a repair, once per variant and class."""
        key = (parent.name, str(measurement.error_class))
        if measurement.error_class is None or not measurement.error_class.repairable or key in self.asked_repair:
            return []
        self.asked_repair.add(key)
        context = self._context(str(measurement.error_class), parent, params, rendered=measurement.source,
                                diagnostics=self.diagnostics(parent, params, measurement))
        return self._ask(context, parent, params)

    def improve(self, parent: Variant, params: Mapping[str, Any], profile: Mapping[str, Any],
                best_us: float, roofline_us: float) -> list[Variant]:
        """The search stopped improving: ask for rewrites of the best variant, with its profile."""
        context = self._context("plateau", parent, params, profile=dict(profile), best_us=best_us,
                                roofline_us=roofline_us)
        return self._ask(context, parent, params)

    def generate(self, start: GenerationContext, frame: Mapping[str, Any], parent: Variant | None = None,
                 params: Mapping[str, Any] | None = None, rounds: int = 3) -> Variant | None:
        """The generate-compile-run-fix loop: ask the LLM for a whole kernel of the task `start` describes, screen,
        build, run and check it at its draft point (`draft_point`); on a failure send back the compiler's output
        mapped to the answer's lines, the fault line or the first mismatches (or why the answer was refused) and
        ask again, `rounds` answers at most. The first kernel that passes is a variant of the run, its space
        `frame` plus the knobs it declares (`generated_space`), its parent the failed generated kernel where there
        is one; None when none passed or the LLM could not be asked (its call budget spent, no answer)."""
        writer = next((m for m in self.settings.mutators if m.origin == "llm"), None)
        if writer is None:
            return None
        context, owner = start, parent.name if parent is not None else ""
        for round_ in range(rounds):
            answers = writer.generate(context)
            if not answers:
                return None
            proposal = answers[0]
            variant, feedback, verdict = self._try(proposal, parent, params or {}, frame)
            self._record("generate", owner, proposal, verdict, variant, round_)
            if variant is not None:
                return variant
            if feedback is None:
                if proposal.response is None:  # the endpoint gave no answer: asking again is the client's to do
                    return None
                feedback = _Feedback(ErrorClass.RENDER_ERROR, f"the answer was refused: {proposal.rejected}")
            context = replace(context, trigger=str(feedback.trigger), template=proposal.template or context.template,
                              rendered=feedback.rendered, diagnostics=feedback.text, round=round_ + 1)
        return None

    # ----- proposals ---------------------------------------------------------------------------------
    def _context(self, trigger: str, parent: Variant, params: Mapping[str, Any], **extra: Any) -> MutationContext:
        template = parent.template.read_text()
        name = "/".join(parent.template.parts[-3:])
        return MutationContext(
            trigger=trigger, op=self.space.op, shape=tuple(self.facts["shape"]), dtype=self.facts["dtype"],
            soc=self.facts["soc"], variant=parent.name, template=template, template_name=name,
            knobs=dict(params), knob_space=copy.deepcopy(dict(parent.raw.get("knobs", {}))),
            soc_limits=dict(self.facts["soc_limits"]), options=dict(self.facts.get("options", {})), **extra)

    def diagnostics(self, variant: Variant, params: Mapping[str, Any], measurement: Measurement) -> str:
        """What a failed candidate of `variant` tells a model: the compiler's output mapped to template lines, or
        the fault line, or the first mismatches."""
        if measurement.error_class == ErrorClass.COMPILE_ERROR and measurement.compile_log:
            return self._mapped(variant, params, measurement.compile_log)
        return measurement.detail

    def _mapped(self, variant: Variant, params: Mapping[str, Any], diagnostics: str) -> str:
        """Compiler diagnostics with the rendered source's line numbers mapped back to template lines."""
        try:
            marked = render_text(mark_template_lines(variant.template.read_text()), str(variant.template),
                                 self._variables(variant, params), search_dir=variant.template.parent)
        except TemplateError:
            return diagnostics
        return map_diagnostics(diagnostics, marked)

    def _variables(self, variant: Variant, params: Mapping[str, Any]) -> dict[str, Any]:
        evaluator = Evaluator(self.space, variant, self.backend, self.cache, self.inputs, self.context)
        return evaluator.variables(params)

    def _ask(self, context: MutationContext, parent: Variant, params: Mapping[str, Any]) -> list[Variant]:
        accepted = []
        tried = {(r.parent, r.proposal) for r in self.records if r.origin == "rules"}
        for mutator in self.settings.mutators:
            for proposal in mutator.propose(context):
                if proposal.origin == "rules" and (parent.name, proposal.name) in tried:
                    continue  # a resumed run does not re-try a rule it already judged
                variant = self._pursue(mutator, proposal, context, parent, params)
                if variant is not None:
                    accepted.append(variant)
        return accepted

    def _pursue(self, mutator: Mutator, proposal: Proposal, context: MutationContext, parent: Variant,
                params: Mapping[str, Any]) -> Variant | None:
        """Try a proposal; an LLM's failed one goes back to it with the failure, up to the repair rounds."""
        for round_ in range(self.settings.repair_rounds + 1):
            variant, feedback, verdict = self._try(proposal, parent, params)
            self._record(context.trigger, context.variant, proposal, verdict, variant, round_)
            if variant is not None or feedback is None or mutator.origin != "llm" or \
                    round_ == self.settings.repair_rounds:
                return variant
            retry = replace(context, trigger=feedback.trigger, template=proposal.template or context.template,
                            rendered=feedback.rendered, diagnostics=feedback.text, round=round_ + 1)
            answers = mutator.propose(retry)
            if not answers:
                return None
            proposal, context = answers[0], retry
        return None

    def _name(self, parent: Variant | None, proposal: Proposal) -> str:
        base = f"{parent.name}+{proposal.name}" if parent is not None else proposal.name
        taken = set(self.space.variants) | {p.name for p in self.variants_dir.glob("*")}
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        return name

    def _try(self, proposal: Proposal, parent: Variant | None, params: Mapping[str, Any],
             frame: Mapping[str, Any] | None = None) -> tuple[Variant | None, _Feedback | None, str]:
        """(variant, None, "accepted: ...") or (None, feedback or None, "rejected: ..."). A rewrite's space is its
        parent's plus what its answer declares; a written kernel's (`frame` given) is `frame` plus that."""
        if proposal.rejected or not proposal.template:
            return None, None, f"rejected: {proposal.rejected or 'no template'}"
        try:
            check_template(proposal.template, "kernel.cpp.j2")  # before anything here parses it
        except TemplateError as exc:
            return None, _Feedback(ErrorClass.RENDER_ERROR, str(exc)), f"rejected: {exc}"
        try:
            screen_template(proposal.template)
        except ScreenError as exc:
            return None, _Feedback(ErrorClass.COMPILE_ERROR, f"rejected by the screen: {exc}"), \
                f"rejected: screen: {exc}"
        name = self._name(parent, proposal)
        directory = self.variants_dir / f".pending-{name}"
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        try:
            return self._build(directory, name, proposal, parent, params, frame)
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def _build(self, directory: Path, name: str, proposal: Proposal, parent: Variant | None,
               params: Mapping[str, Any], frame: Mapping[str, Any] | None
               ) -> tuple[Variant | None, _Feedback | None, str]:
        assert proposal.template is not None
        (directory / "kernel.cpp.j2").write_text(proposal.template)
        if proposal.extends_parent and parent is not None:
            shutil.copyfile(parent.template, directory / "parent.cpp.j2")
        try:
            if frame is None:
                assert parent is not None
                space_raw = _merge_knobs(parent, proposal.knobs_yaml)
            else:
                space_raw = generated_space(frame, proposal.knobs_yaml, f"written by the LLM ({proposal.name})")
        except SpaceError as exc:
            return None, _Feedback(ErrorClass.RENDER_ERROR, f"the yaml block: {exc}"), f"rejected: yaml block: {exc}"
        lineage = {"name": name, "parent": parent.name if parent is not None else None, "origin": proposal.origin,
                   "proposal": proposal.name, "rationale": proposal.rationale, "space": space_raw}
        if frame is not None:
            lineage["trigger"] = "generate"
        (directory / REWRITE_FILE).write_text(yaml.safe_dump(lineage, sort_keys=False))
        try:
            variant = rewritten_variant(directory, self.space.op)
            if frame is None:
                warm: dict[str, Any] | None = warm_start(variant, params, self.context)
            else:
                warm = draft_point(variant, params, self.context)
                if warm is None:
                    why = variant.why_empty(self.context)
                    return None, _Feedback(ErrorClass.RENDER_ERROR, f"no point of the kernel's space is feasible: "
                                           f"{why}"), f"rejected: no feasible point: {why}"
            point = variant.evaluate(warm, self.context)
        except (SpaceError, ExpressionError) as exc:
            return None, _Feedback(ErrorClass.RENDER_ERROR, str(exc)), f"rejected: {exc}"
        if not point.feasible:
            why = point.why_infeasible()
            return None, _Feedback(ErrorClass.RENDER_ERROR, f"the parent's best knobs are infeasible: {why}"), \
                f"rejected: the parent's best knobs are infeasible in the rewrite: {why}"
        space = replace(self.space, variants={**self.space.variants, name: variant})
        evaluator = self.evaluator(space, variant, self.inputs)
        try:
            source = evaluator.render(warm)
            screen_source(source, self.space.kernel)
        except TemplateError as exc:
            return None, _Feedback(ErrorClass.RENDER_ERROR, str(exc)), f"rejected: render_error: {exc}"
        except ScreenError as exc:
            return None, _Feedback(ErrorClass.COMPILE_ERROR, f"rejected by the screen: {exc}"), \
                f"rejected: screen: {exc}"
        try:
            variant.feasible_points(self.context)  # every point evaluates within the bounds, as the run will ask
        except SpaceError as exc:
            return None, _Feedback(ErrorClass.RENDER_ERROR, str(exc)), f"rejected: {exc}"
        measurement = evaluator.evaluate(warm)
        if not measurement.ok:
            text = measurement.detail
            if measurement.error_class == ErrorClass.COMPILE_ERROR and measurement.compile_log:
                text = f"{measurement.detail}\n{self._mapped(variant, warm, measurement.compile_log)}"
            first = measurement.detail.splitlines()[0][:300] if measurement.detail else ""
            return None, _Feedback(str(measurement.error_class), text, source), \
                f"rejected: {measurement.error_class}: {first}"
        final = self.variants_dir / name
        shutil.rmtree(final, ignore_errors=True)
        shutil.copytree(directory, final)
        accepted = rewritten_variant(final, self.space.op)
        self.space = replace(self.space, variants={**self.space.variants, name: accepted})
        where = "the parent's best knobs" if frame is None else f"its draft point {warm}"
        return accepted, None, f"accepted: {measurement.value:.3f} µs on {where} ({measurement.time_source})"

    def _record(self, trigger: str, parent: str, proposal: Proposal, verdict: str, variant: Variant | None,
                round_: int) -> MutationRecord:
        number = len(self.records) + 1
        files = {}
        folder = self.run_dir / "mutations"
        folder.mkdir(parents=True, exist_ok=True)
        for kind, text in (("prompt", proposal.prompt), ("response", proposal.response),
                           ("template", proposal.template)):
            if text:
                path = folder / f"{number:03d}-{kind}.txt"
                path.write_text(text)
                files[kind] = str(path.relative_to(self.run_dir))
        verdict = " ".join(verdict.split())
        if len(verdict) > VERDICT_CHARS:
            verdict = f"{verdict[:VERDICT_CHARS]}…"
        record = MutationRecord(number=number, trigger=trigger, origin=proposal.origin, parent=parent,
                                proposal=proposal.name, verdict=verdict, variant=variant.name if variant else None,
                                round=round_, rationale=proposal.rationale, usage=dict(proposal.usage), files=files,
                                time=time.time())
        with (self.run_dir / RECORD_FILE).open("a") as out:
            out.write(json.dumps(asdict(record)) + "\n")
        self.records.append(record)
        return record


def make_mutators(rewrites: bool, llm_model: str | None, no_llm: bool, llm_max_calls: int,
                  llm_timeout_s: float = 60.0, project: Path = PROJECT_ROOT) -> list[Mutator]:
    """The LLM when a model is named (and not forced off), else the rule catalog over the search spaces of
    `project` (the run's); nothing with rewrites off."""
    from tuner.mutate.llm import LlmMutator, settings_from  # the openai client loads only for a run that asks
    from tuner.mutate.rules import RuleMutator

    if not rewrites:
        return []
    settings = settings_from(llm_model, no_llm, llm_max_calls)
    if settings is not None:
        return [LlmMutator(replace(settings, timeout_s=llm_timeout_s))]
    return [RuleMutator(root=project)]


def soc_limits(soc: Soc, context: Mapping[str, Any]) -> dict[str, Any]:
    """The SoC facts a rewrite must respect, as the prompt states them."""
    return {"soc": soc.name, "family": soc.family, "vector_cores": int(soc.vector_cores.value),
            "ub_bytes_usable": int(context["ub_bytes"]),
            "ub_bytes_usable_with_reserved_ub_apis": int(context["ub_api_bytes"]), "clock_mhz": soc.clock_mhz.value,
            "hbm_bandwidth_gbps": soc.gm_bandwidth_gbps.value, "l2_bytes": soc.l2_bytes.value,
            "datacopypad": bool(soc.datacopypad_supported.value), "bf16_arithmetic": bool(soc.bf16_arithmetic.value)}


def warm_start(variant: Variant, params: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """The parent's knobs for a rewrite, with each knob the rewrite added at its first value."""
    warm = {}
    for knob in variant.knobs:
        if knob.name in params:
            warm[knob.name] = params[knob.name]
        else:
            values = knob.values(context)
            warm[knob.name] = values[0] if values else None
    return warm
